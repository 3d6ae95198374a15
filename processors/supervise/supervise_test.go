package supervise

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/lovoo/goka"
	"github.com/twmb/franz-go/pkg/kerr"
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

// A group failing while a lost broker is not yet fenced is restarted within
// 2 s of the cluster healing, whatever its streak of failures (a leader
// loss on Kafka 4 is the fencing, ~6.75 s, plus this).
func TestDefaultRestartComesBackSoonAfterTheClusterHeals(t *testing.T) {
	b := DefaultRestart.OrDefault()
	for n := range 30 {
		if d := b.Delay(n); d > 2*time.Second {
			t.Fatalf("restart %d of a streak after %v, want at most 2s", n+1, d)
		}
	}
	if d := b.Delay(0); d > 250*time.Millisecond {
		t.Errorf("first restart after %v, want at most 250ms (a leader moving is over in well under a second)", d)
	}
}

func TestPermanentErrors(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("error consuming from group consumer: %w", sarama.ErrFencedInstancedId), true},
		{fmt.Errorf("x: %w", sarama.ErrGroupAuthorizationFailed), true},
		{fmt.Errorf("metadata of topic t.inbound: %w", kerr.SaslAuthenticationFailed), true},
		{fmt.Errorf("offset of t.v1.match-table/3: %w", kerr.TopicAuthorizationFailed), true},
		{fmt.Errorf("offset of t.v1.match-table/3: %w", kerr.NotLeaderForPartition), false},
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

// A group that cannot start is given up after the start budget only when
// the cluster then answers nothing; while a broker answers (a node of the
// cluster is down: the group's coordinator or a leader not moved yet) it
// keeps trying. Before, an instance restarted while a Kafka node was down
// exited here (make chaos-cluster on Kafka 4).
func TestGroupThatCannotStartWaitsWhileTheClusterAnswers(t *testing.T) {
	var answers atomic.Bool
	answers.Store(true)
	var asked atomic.Int32
	s := &Group{Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Backoff: Backoff{Base: 5 * time.Millisecond, Max: 10 * time.Millisecond, Reset: time.Minute, Start: 50 * time.Millisecond},
		Build: func() (*goka.Processor, error) {
			return nil, errors.New("error consuming from group consumer: dial tcp 127.0.0.1:9: connect: connection refused")
		},
		Answers: func(context.Context) bool { asked.Add(1); return answers.Load() },
		OnUp:    func() {}, OnFail: func(error, time.Duration) {}}
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background()) }()
	for asked.Load() < 5 { // five restarts past the budget, the cluster answering
		select {
		case err := <-done:
			t.Fatalf("given up while the cluster answers: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	answers.Store(false)
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "did not start") {
			t.Fatalf("given up with %v, want did not start", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("not given up once the cluster answers nothing")
	}
}
