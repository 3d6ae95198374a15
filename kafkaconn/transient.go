package kafkaconn

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Transient says whether err is one a cluster gives while it heals and
// that the same request may not give a moment later: a Kafka error code
// Kafka calls retriable (NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE,
// NOT_ENOUGH_REPLICAS, ...), a broker that could not be dialled or dropped
// the connection, or a request's own deadline. Refusals are not transient:
// a failed login or TLS handshake, an authorization error, a bad
// configuration, a cancelled context.
func Transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return ke.Retriable
	}
	if kgo.IsRetryableBrokerErr(err) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne)
}

// Retry runs fn until it succeeds, fails with an error that is not
// Transient, or ctx ends; between tries it logs the error (what failed) and
// waits, 250 ms doubling to 5 s. It is how a process starts on a cluster
// that answers but has not healed yet — an instance restarted while a node
// is down and its partitions have no leader yet, or while the cluster is
// below min ISR — instead of exiting on the first error (a cluster that
// does not answer at all is Ping's one-line error).
func Retry(ctx context.Context, log *slog.Logger, what string, fn func() error) error {
	wait := 250 * time.Millisecond
	for try := 1; ; try++ {
		err := fn()
		if !Transient(err) || ctx.Err() != nil {
			return err
		}
		if log != nil {
			log.Warn(what+": the cluster is not ready, retrying", "try", try, "in", wait, "err", err)
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
}
