package pipeline

import (
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/IBM/sarama"
)

func TestBackoffDoublesToItsCapWithJitter(t *testing.T) {
	b := Backoff{Base: time.Second, Max: 30 * time.Second}
	for n, full := range []time.Duration{1, 2, 4, 8, 16, 30, 30, 30} {
		full *= time.Second
		seen := map[time.Duration]bool{}
		for range 200 {
			d := b.Delay(n)
			if d < full/2 || d > full {
				t.Fatalf("restart %d: %v, want within [%v, %v]", n, d, full/2, full)
			}
			seen[d] = true
		}
		if len(seen) < 10 {
			t.Fatalf("restart %d: only %d distinct delays in 200: no jitter", n, len(seen))
		}
	}
}

func TestPermanentErrors(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("error consuming from group consumer: %w", sarama.ErrFencedInstancedId), true},
		{fmt.Errorf("x: %w", sarama.ErrGroupAuthorizationFailed), true},
		{sarama.ConfigurationError("Net.ReadTimeout must be > 0"), true},
		{errors.New(`topics are not copartitioned! Topic 'a' does not have 8 partitions like the rest but 4`), true},
		{fmt.Errorf("error consuming from group consumer: %w", errors.New("read tcp 127.0.0.1:1->127.0.0.1:9092: i/o timeout")), false},
		{fmt.Errorf("error consuming from group consumer: %w", io.EOF), false},
		{fmt.Errorf("x: %w", sarama.ErrNotCoordinatorForConsumer), false},
		{errors.New("asynchronous error from callback: broker unreachable"), false},
	} {
		if got := Permanent(c.err); got != c.want {
			t.Errorf("Permanent(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
