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
// trade's last message sets its timer in its value (stages: allegeAfter,
// from the message's record time), the match table's timers read it from
// every value stored (tablestore.Timed), and fireTimers, on each instance,
// writes an allegement record for every trade whose timer is due to the
// trade's own partition of <ns>.accepted — among the trade's messages, the
// stage's producer writing it as the identity stage writes a message. The
// callback then alleges (stages: allege), and clears the timer in the
// value.
//
// The record goes to <ns>.accepted, not to the match loopback, so that its
// place among the trade's messages is fixed once written: a restart
// processes the partition again in the same order, and every allegement
// record decides as it did the first time, the same ALGs under the same
// numbers. (Through the loopback a message could be read before a
// redelivered loopback after a restart, and an allegement step lost with a
// crash was decided again on more messages, an ALG number given a second
// body: the Kafka chaos suite's failure of 6 December, seed
// 1796587681205177007.)
//
// Nothing is lost across a kill -9: a timer lives in its trade's value, so
// it is read again wherever the partition opens next; a record written is
// processed by whoever owns the partition; one processed twice (two owners
// across a rebalance, a timer fired again before its record was read, or a
// redelivery after a crash before its outputs were acknowledged) finds the
// timer cleared, or moved on by a later message, and re-sends each
// receiver's last ALG, the same MsgIds. A timer handed out whose record
// could not be written (the producer closing in a rebalance) is put back.

// timerTick is how often the timers are looked at for a delay: a quarter
// of it, between 100 ms and 1 s (a 60 s delay is kept within a second).
func timerTick(delay time.Duration) time.Duration {
	return min(max(delay/4, 100*time.Millisecond), time.Second)
}

// fireTimers writes the allegement records of the trades whose timers are
// due until ctx ends.
func (rt *wiring) fireTimers(ctx context.Context) {
	delay := rt.cfg.AllegementDelay
	if delay < 0 {
		return // after every message: no timer is ever set
	}
	if delay == 0 {
		delay = stages.DefaultAllegementDelay
	}
	accepted := rt.cfg.Names.Accepted()
	every(ctx, timerTick(delay), func() { rt.fire(accepted) })
}

// fire writes to topic (<ns>.accepted) the allegement record of every
// trade whose timer is due now.
func (rt *wiring) fire(topic string) {
	p := rt.producers[topology.StageMatch].Load()
	if p == nil {
		return
	}
	now := rt.cfg.Now().UnixMicro()
	rt.timers.Each(func(_ int32, ts *tablestore.Timers) {
		for _, tm := range ts.Due(now) {
			e := &envelope.Envelope{Kind: envelope.KindAllege, Partition: -1, Offset: -1, Clock: tm.At}
			(*p).Emit(topic, tm.Key, e.Marshal()).Then(func(err error) {
				if err != nil {
					ts.Rearm(tm)
				}
			})
		}
	})
}
