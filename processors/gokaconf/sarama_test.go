package gokaconf

import (
	"testing"
	"time"
)

// What goka's sarama clients do while a partition's leader or a group's
// coordinator moves (a broker's controlled shutdown) or is lost (a broker
// fenced after broker.session.timeout.ms, 6 s in deploy/kafka/kafka.sh,
// polled by Kafka's controller every eighth of it): a partition consumer
// looks for the new leader after 250 ms, not sarama's 2 s, and never waits
// more than a second between tries; a claim, a coordinator lookup or a
// metadata refresh keeps trying past the fencing instead of ending the
// group's session after sarama's 3 tries in 0.75 s; a JoinGroup answered
// "not coordinator" is tried again after 500 ms, not 2 s.
func TestRetriesFindAMovedLeaderSoonAndOutlastAFencing(t *testing.T) {
	cfg := SaramaConfig()
	// sarama's rules: a function, when set, replaces the fixed backoff.
	consumer := func(n int) time.Duration {
		if f := cfg.Consumer.Retry.BackoffFunc; f != nil {
			return f(n)
		}
		return cfg.Consumer.Retry.Backoff
	}
	// sarama calls it with the tries made so far, before each retry
	// (computeMetadataBackoff: Max minus the attempts remaining).
	metadata := func(remaining int) time.Duration {
		if f := cfg.Metadata.Retry.BackoffFunc; f != nil {
			return f(cfg.Metadata.Retry.Max-remaining, cfg.Metadata.Retry.Max)
		}
		return cfg.Metadata.Retry.Backoff
	}
	if d := metadata(cfg.Metadata.Retry.Max); d != 250*time.Millisecond {
		t.Errorf("a lookup's first retry after %v, want 250ms", d)
	}
	if d := consumer(1); d != 250*time.Millisecond {
		t.Errorf("a partition consumer's first retry after %v, want 250ms", d)
	}
	for n := 1; n <= 50; n++ {
		if d := consumer(n); d > time.Second {
			t.Errorf("a partition consumer's retry %d after %v, want at most 1s", n, d)
		}
	}
	var patience time.Duration
	for remaining := cfg.Metadata.Retry.Max; remaining > 0; remaining-- {
		patience += metadata(remaining)
	}
	if fencing := 6*time.Second + 6*time.Second/8; patience <= fencing {
		t.Errorf("lookups give up after %v of backoff, before a lost broker is fenced (%v)", patience, fencing)
	}
	if patience > 10*time.Second {
		t.Errorf("lookups keep trying for %v, more than 10 s", patience)
	}
	if b := cfg.Consumer.Group.Rebalance.Retry.Backoff; b > 500*time.Millisecond {
		t.Errorf("JoinGroup retried after %v, want at most 500ms", b)
	}
}
