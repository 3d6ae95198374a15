package replay

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/topics/lag"
)

// Ran says how a Run went.
type Ran struct {
	// Seconds from the processors' start to every group at lag 0; Ready
	// of it until the instance was ready (reference data read, tables
	// recovered).
	Seconds, Ready float64
	Last           lag.Sample
}

// Run runs the processors on a sandbox (o.Namespace) in this process until
// every group is at lag 0, then stops them cleanly. progress, when set, sees
// every lag sample. The instance runs as a sandbox whatever o.Sandbox says.
func Run(ctx context.Context, adm *kadm.Client, o instance.Options, progress func(lag.Sample)) (Ran, error) {
	start := time.Now()
	o.Sandbox = true
	ready := make(chan struct{})
	o.Ready = ready
	pctx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- instance.Run(pctx, o) }()
	var ran Ran
	select {
	case <-ready:
	case err := <-done:
		if err == nil {
			err = ctx.Err()
		}
		return ran, fmt.Errorf("processors did not start: %w", err)
	}
	ran.Ready = time.Since(start).Seconds()
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		// Processors that fail end the wait.
		select {
		case err := <-done:
			done <- err
			cancel()
		case <-wctx.Done():
		}
	}()
	last, err := lag.WaitZero(wctx, adm, lag.Groups(o.Namespace), lag.WaitOptions{Progress: progress})
	ran.Last, ran.Seconds = last, time.Since(start).Seconds()
	stop()
	runErr := <-done
	if err != nil {
		if runErr != nil {
			return ran, fmt.Errorf("processors stopped: %w", runErr)
		}
		return ran, err
	}
	return ran, runErr
}
