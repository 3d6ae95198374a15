package instance

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// manualClock is the bound's timer, fired by the test: nothing here depends
// on how soon the machine runs a goroutine.
type manualClock struct {
	asked chan time.Duration
	fire  chan time.Time
}

func newManualClock() *manualClock {
	return &manualClock{asked: make(chan time.Duration, 1), fire: make(chan time.Time)}
}

func (c *manualClock) after(d time.Duration) <-chan time.Time {
	c.asked <- d
	return c.fire
}

// A stop that hangs is ended at the bound, naming where it hung; a stop that
// finishes in time, or a command never told to stop, is left alone.
func TestBoundShutdown(t *testing.T) {
	var mu sync.Mutex
	var out bytes.Buffer
	w := writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return out.Write(p) })
	exited := make(chan int, 1)
	exit := func(code int) { exited <- code }

	// A hung stop: the bound's timer is started once told to stop, and when
	// it fires the command exits, naming where it hung.
	clock := newManualClock()
	stopping := make(chan struct{})
	hang, hanging := make(chan struct{}), make(chan struct{})
	go hangHere(hanging, hang)
	<-hanging // in hangHere before the dump is taken (a goroutine not yet run has no frame of it)
	cancel := boundShutdown(stopping, 50*time.Millisecond, clock.after, w, exit)
	defer cancel()
	close(stopping)
	if d := <-clock.asked; d != 50*time.Millisecond {
		t.Fatalf("timer of %v, want the bound", d)
	}
	clock.fire <- time.Now()
	var code int
	select {
	case code = <-exited:
	case <-time.After(10 * time.Second): // gross: the exit follows the timer at once
		t.Fatal("a hung stop was not ended when its bound's timer fired")
	}
	mu.Lock()
	got := out.String()
	mu.Unlock()
	if code != 1 || !strings.Contains(got, "gave up after 50ms") || !strings.Contains(got, "instance.hangHere") {
		t.Fatalf("exit %d, logged %q", code, got)
	}
	close(hang)

	// Stopped in time: the stop ended before the bound, and the timer
	// firing afterwards changes nothing.
	clock = newManualClock()
	stopping = make(chan struct{})
	cancel = boundShutdown(stopping, 50*time.Millisecond, clock.after, w, exit)
	close(stopping)
	<-clock.asked
	cancel()
	select {
	case clock.fire <- time.Now(): // taken only if the goroutine still waits on it
	case <-time.After(100 * time.Millisecond):
	}
	// Never told to stop: no timer at all.
	clock2 := newManualClock()
	cancel2 := boundShutdown(make(chan struct{}), 50*time.Millisecond, clock2.after, w, exit)
	cancel2()
	select {
	case code := <-exited:
		t.Fatalf("exit %d after a stop in time", code)
	case d := <-clock2.asked:
		t.Fatalf("a timer of %v for a command never told to stop", d)
	case <-time.After(100 * time.Millisecond):
	}
}

func hangHere(started, c chan struct{}) {
	close(started)
	<-c
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
