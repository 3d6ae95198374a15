package instance

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// A stop that hangs is ended at the bound, naming where it hung; a stop that
// finishes in time, or a command never told to stop, is left alone.
func TestBoundShutdown(t *testing.T) {
	var mu sync.Mutex
	var out bytes.Buffer
	w := writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return out.Write(p) })
	exited := make(chan int, 1)

	stopping := make(chan struct{})
	hang := make(chan struct{})
	go hangHere(hang)
	cancel := BoundShutdown(stopping, 50*time.Millisecond, w, func(code int) { exited <- code })
	defer cancel()
	close(stopping)
	select {
	case code := <-exited:
		mu.Lock()
		got := out.String()
		mu.Unlock()
		if code != 1 || !strings.Contains(got, "gave up after 50ms") || !strings.Contains(got, "instance.hangHere") {
			t.Fatalf("exit %d, logged %q", code, got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a hung stop was not ended")
	}
	close(hang)

	// Stopped in time: no exit.
	stopping = make(chan struct{})
	cancel = BoundShutdown(stopping, 50*time.Millisecond, w, func(code int) { exited <- code })
	close(stopping)
	cancel()
	// Never told to stop: no exit either.
	cancel2 := BoundShutdown(make(chan struct{}), 50*time.Millisecond, w, func(code int) { exited <- code })
	defer cancel2()
	select {
	case code := <-exited:
		t.Fatalf("exit %d after a stop in time", code)
	case <-time.After(200 * time.Millisecond):
	}
}

func hangHere(c chan struct{}) { <-c }

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
