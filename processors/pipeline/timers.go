package pipeline

import (
	"context"
	"time"

	"github.com/ste-utility/ste/processors/envelope"
	"github.com/ste-utility/ste/processors/stages"
	"github.com/ste-utility/ste/processors/tablestore"
	"github.com/ste-utility/ste/topology"
)

// Allegements on the wall clock (messages.md §5a: a trade's allegements are
// compared with those sent once it has had no message for the allegement
// delay). goka calls the match callback for a key only by a record, so a
// trade's last message sets its timer in its value (stages: allegeAfter),
// the match table's timers read it from every value stored
// (tablestore.Timed), and fireTimers, on each instance, loops every trade
// whose timer is due back to its own partition on the match loopback — the
// stage's producer writes it, as a callback's ctx.Loopback would. The
// callback then alleges (stages: allege), and clears the timer in the
// value.
//
// Nothing is lost across a kill -9: a timer lives in its trade's value, so
// it is read again wherever the partition opens next; a loopback written
// is processed by whoever owns the partition; a loopback processed twice
// (two owners across a rebalance, or a redelivery after a crash before its
// outputs were acknowledged) finds the timer cleared, or moved on by a
// message read first, and re-sends each receiver's last ALG, the same
// MsgIds. A timer handed out whose loopback
// could not be written (the producer closing in a rebalance) is put back.

// timerTick is how often the timers are looked at for a delay: a quarter
// of it, between 100 ms and 1 s (a 60 s delay is kept within a second).
func timerTick(delay time.Duration) time.Duration {
	return min(max(delay/4, 100*time.Millisecond), time.Second)
}

// fireTimers loops the trades whose timers are due back to their
// partitions until ctx ends.
func (rt *wiring) fireTimers(ctx context.Context) {
	delay := rt.cfg.AllegementDelay
	if delay < 0 {
		return // after every message: no timer is ever set
	}
	if delay == 0 {
		delay = stages.DefaultAllegementDelay
	}
	t := time.NewTicker(timerTick(delay))
	defer t.Stop()
	loop := topology.Loop(rt.cfg.Names.MatchGroup())
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rt.fire(loop)
	}
}

// fire loops back every trade whose timer is due now.
func (rt *wiring) fire(loop string) {
	p := rt.producers[topology.StageMatch].Load()
	if p == nil {
		return
	}
	now := rt.cfg.Now().UnixMicro()
	rt.timers.Each(func(_ int32, ts *tablestore.Timers) {
		for _, tm := range ts.Due(now) {
			e := &envelope.Envelope{Kind: envelope.KindAllege, Partition: -1, Offset: -1, Clock: now}
			(*p).Emit(loop, tm.Key, e.Marshal()).Then(func(err error) {
				if err != nil {
					ts.Rearm(tm)
				}
			})
		}
	})
}
