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
	// Seconds from the processors' start to every group at lag 0 after the
	// last record; Ready of it until the instance was ready (reference
	// data read, tables recovered).
	Seconds, Ready float64
	Last           lag.Sample
}

// Run runs the processors on a sandbox (o.Namespace) in this process while
// feed copies records into it, and until every group is at lag 0 after
// that; then it stops them cleanly. feed gets a settle function that waits
// until the processors are at lag 0 (Prepared.Copy calls it after each
// window); a nil feed only processes what the sandbox holds. progress, when
// set, sees every lag sample. The instance runs as a sandbox whatever
// o.Sandbox says.
func Run(ctx context.Context, adm *kadm.Client, o instance.Options, progress func(lag.Sample),
	feed func(ctx context.Context, settle func(context.Context) error) error) (Ran, error) {
	start := time.Now()
	o.Sandbox = true
	// A one-shot run: its groups are left when it is done, so that the
	// sandbox's groups are empty (ste replay --delete) and a later run
	// starts without waiting out this one's sessions.
	o.LeaveOnStop = true
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
	settle := func(ctx context.Context) error {
		last, err := lag.WaitZero(ctx, adm, lag.Groups(o.Namespace), lag.WaitOptions{Progress: progress})
		ran.Last = last
		return err
	}
	var err error
	if feed != nil {
		err = feed(wctx, settle)
	}
	if err == nil {
		err = settle(wctx)
	}
	ran.Seconds = time.Since(start).Seconds()
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

// ReplayAndRun is ste replay --run: Prepare, then the processors run on
// the sandbox (the instance options start gives once the replay is
// prepared: a refused replay claims no instance and loads no key) while
// the copy goes on in windows of record time (0: all at once), each
// processed to lag 0 before the next.
func ReplayAndRun(ctx context.Context, o Options, window time.Duration, start func() (instance.Options, func(), error),
	progress func(lag.Sample)) (Result, Ran, error) {
	p, err := Prepare(ctx, o)
	if err != nil {
		return Result{}, Ran{}, err
	}
	po, release, err := start()
	if err != nil {
		return Result{}, Ran{}, err
	}
	defer release()
	cl, err := o.Dial()
	if err != nil {
		return Result{}, Ran{}, err
	}
	defer cl.Close()
	var res Result
	ran, err := Run(ctx, kadm.NewClient(cl), po, progress, func(ctx context.Context, settle func(context.Context) error) error {
		var err error
		res, err = p.Copy(ctx, window, settle)
		return err
	})
	return res, ran, err
}
