package pipeline

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A read-back that fails for a passing reason is tried again until it
// succeeds; a record that is not there is not waited for; a stopping
// instance stops trying.
func TestReadBackRetries(t *testing.T) {
	transient := errors.New("broker not available")
	calls := 0
	flaky := func(p int32, off int64) ([]byte, error) {
		calls++
		if calls < 3 {
			return nil, transient
		}
		return []byte("record"), nil
	}
	raw, err := retryRead(context.Background(), 0, 7, flaky)
	if err != nil || string(raw) != "record" || calls != 3 {
		t.Fatalf("got %q, %v after %d calls; want the record after 3", raw, err, calls)
	}

	calls = 0
	gone := func(int32, int64) ([]byte, error) { calls++; return nil, errNotOnInbound }
	if _, err := retryRead(context.Background(), 0, 7, gone); !errors.Is(err, errNotOnInbound) || calls != 1 {
		t.Fatalf("a missing record: %v after %d calls, want errNotOnInbound after 1", err, calls)
	}

	ctx, cancel := context.WithCancel(context.Background())
	down := func(int32, int64) ([]byte, error) { return nil, transient }
	time.AfterFunc(100*time.Millisecond, cancel)
	if _, err := retryRead(ctx, 0, 7, down); !errors.Is(err, transient) {
		t.Fatalf("stopping: %v, want the last error", err)
	}
}
