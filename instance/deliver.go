package instance

import (
	"context"
	"time"

	"github.com/ste-utility/ste/topics/deliver"
)

// runDelivery runs the per-participant delivery group beside the
// processors until ctx ends or the returned stop is called; a failure to
// start it (a client that cannot be made) is retried, since the group has
// nothing of its own to lose.
func (r *runtime) runDelivery(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			to := r.o.Topics
			to.Log = r.log
			err := deliver.Run(ctx, deliver.Options{Kafka: r.o.Kafka, Namespace: r.o.Namespace, Topics: to, Logger: r.log})
			if ctx.Err() != nil {
				return
			}
			r.log.Error("per-participant delivery stopped, restarting", "err", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
		}
	}()
	return func() { cancel(); <-done }
}
