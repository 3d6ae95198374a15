package gateway

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// bodyBudget caps the bytes of request bodies being read at once, by their
// declared length, so that many slow or large bodies — even of requests
// whose signature verified — cannot hold the gateway's memory.
type bodyBudget struct {
	mu    sync.Mutex
	cap   int64
	left  int64
	freed chan struct{} // closed and replaced when room is given back
}

func newBodyBudget(n int64) *bodyBudget {
	return &bodyBudget{cap: n, left: n, freed: make(chan struct{})}
}

// acquire takes n bytes of room, waiting up to wait (or until ctx ends);
// false when there was none in time. A body larger than the whole budget
// waits until nothing else is read. waiting counts the requests waiting.
func (b *bodyBudget) acquire(ctx context.Context, n int64, wait time.Duration, waiting prometheus.Gauge) bool {
	var timer <-chan time.Time
	counted := false
	defer func() {
		if counted {
			waiting.Dec()
		}
	}()
	for {
		b.mu.Lock()
		// A body larger than the whole budget goes alone rather than never.
		if b.left >= n || (b.left == b.cap && n > b.cap) {
			b.left -= n
			b.mu.Unlock()
			return true
		}
		freed := b.freed
		b.mu.Unlock()
		if timer == nil {
			t := time.NewTimer(wait)
			defer t.Stop()
			timer = t.C
			waiting.Inc()
			counted = true
		}
		select {
		case <-freed:
		case <-timer:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

func (b *bodyBudget) release(n int64) {
	b.mu.Lock()
	b.left += n
	close(b.freed)
	b.freed = make(chan struct{})
	b.mu.Unlock()
}
