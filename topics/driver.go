package topics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/topology"
)

// DriveOptions configure Drive.
type DriveOptions struct {
	// Rate in messages per second; 0 sends at full speed.
	Rate float64
	// RampTo, with RampOver, raises the rate linearly from Rate to RampTo over
	// that time, then holds it (load scenarios of increasing rate).
	RampTo   float64
	RampOver time.Duration
	// Progress is called about every 200 ms with the records sent so far.
	Progress func(sent int64, elapsed time.Duration)
	// OnSent is called once per record after the broker acknowledged it, with
	// the message's place in the set (0 for the first) and the time the
	// record was handed to the client: the sink measures latency from there.
	// It may be called from several goroutines.
	OnSent func(i int64, sentAt time.Time)
}

// DriveResult says what was sent.
type DriveResult struct {
	Sent    int64
	Seconds float64
}

// Drive sends a message set to <ns>.inbound, keyed by each message's Sender
// (the partitioner is the shared one, though nothing is co-partitioned with
// inbound), in file order, paced or at full speed.
func Drive(ctx context.Context, cl *kgo.Client, ns string, src *msgset.Reader, o DriveOptions) (DriveResult, error) {
	topic := topology.Names{NS: ns}.Inbound()
	start := time.Now()
	var sent, acked atomic.Int64
	var firstErr error
	var errOnce sync.Once
	done := make(chan struct{})
	if o.Progress != nil {
		go func() {
			t := time.NewTicker(200 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-done:
					return
				case <-t.C:
					o.Progress(acked.Load(), time.Since(start))
				}
			}
		}()
	}
	rate := func(elapsed time.Duration) float64 {
		if o.RampTo <= 0 || o.RampOver <= 0 {
			return o.Rate
		}
		f := min(float64(elapsed)/float64(o.RampOver), 1)
		return o.Rate + (o.RampTo-o.Rate)*f
	}
	next := start
	for {
		line, _, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			close(done)
			return DriveResult{Sent: acked.Load()}, err
		}
		if ctx.Err() != nil {
			break
		}
		if r := rate(time.Since(start)); r > 0 {
			next = next.Add(time.Duration(float64(time.Second) / r))
			if d := time.Until(next); d > time.Millisecond {
				select {
				case <-time.After(d):
				case <-ctx.Done():
				}
			}
		}
		val := append([]byte(nil), line...)
		key := InboundKeyOf(val)
		at := time.Now()
		i := sent.Add(1) - 1
		cl.Produce(ctx, &kgo.Record{Topic: topic, Key: key, Value: val, Timestamp: at}, func(r *kgo.Record, err error) {
			if err != nil {
				errOnce.Do(func() { firstErr = fmt.Errorf("produce to %s: %w", topic, err) })
				return
			}
			acked.Add(1)
			if o.OnSent != nil {
				o.OnSent(i, at)
			}
		})
	}
	if err := cl.Flush(ctx); err != nil && firstErr == nil {
		firstErr = err
	}
	close(done)
	res := DriveResult{Sent: acked.Load(), Seconds: time.Since(start).Seconds()}
	if o.Progress != nil {
		o.Progress(res.Sent, time.Since(start))
	}
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	return res, firstErr
}
