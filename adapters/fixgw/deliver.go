package fixgw

import (
	"context"
	"time"

	"github.com/quickfixgo/quickfix"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/topics"
)

// deliverBatch bounds the records handled under the session's lock at
// once: the inbound callback waits for no more than one batch.
const deliverBatch = 500

// deliver reads the session's partition of <ns>.outbound from its cursor
// and hands the session the FIX messages translated from the records about
// its FIX-origin messages (§4.7), until ctx ends (the session logged out).
// For each batch: the journal read to its end, every record translated in
// order and its messages put in the session store (SendToTarget persists
// before it returns), the journal entries written and acknowledged, and
// only then the cursor advanced — so a crash or a logout repeats outputs
// and never loses one.
func (s *Server) deliver(ctx context.Context, sess *session) {
	bic := sess.bic
	topic := s.names.Outbound()
	var n int32
	for ctx.Err() == nil {
		var err error
		if n, err = topics.Partitions(ctx, s.adm, topic); err == nil && n > 0 {
			break
		}
		s.log.Warn("fixgw: outputs: partitions of "+topic, "err", err)
		sleep(ctx, time.Second)
	}
	if ctx.Err() != nil {
		return
	}
	p := topics.PartitionOf(bic, n)
	cur, err := LoadCursor(s.o.Store, bic)
	if err != nil {
		s.log.Error("fixgw: output cursor unreadable: starting at the oldest record", "participant", bic, "err", err)
		cur = Cursor{Next: -1, Resume: -1}
	}
	if cur.Partition >= 0 && (cur.Partition != p || cur.Topic != topic) {
		s.log.Warn("fixgw: the participant's outputs moved to another partition: starting at its oldest record", "participant", bic,
			"was", cur.Partition, "now", p)
		cur.Next = -1
	}
	cur.Topic, cur.Partition = topic, p
	// Delivery resumes here: what a sequence reset rewinds to (§4.2).
	cur.Resume = cur.Next
	if err := SaveCursor(s.o.Store, bic, cur); err != nil {
		s.log.Error("fixgw: saving the output cursor", "participant", bic, "err", err)
	}
	from := kgo.NewOffset().AtStart()
	if cur.Next >= 0 {
		from = kgo.NewOffset().At(cur.Next)
	}
	cl, err := topics.Client(s.o.Kafka, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {p: from}}),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(250*time.Millisecond))
	if err != nil {
		s.log.Error("fixgw: outputs: consumer", "participant", bic, "err", err)
		return
	}
	defer cl.Close()
	outs := &Outputs{J: s.j.Index, Now: s.nowFIX}
	for ctx.Err() == nil {
		fs := cl.PollRecords(ctx, deliverBatch)
		if ctx.Err() != nil {
			return
		}
		fs.EachError(func(t string, p int32, err error) {
			s.log.Warn("fixgw: outputs: fetch", "participant", bic, "topic", t, "partition", p, "err", err)
		})
		recs := fs.Records()
		if len(recs) == 0 {
			continue
		}
		if cur.Next >= 0 && recs[0].Offset > cur.Next {
			s.log.Error("fixgw: outputs removed by retention before they were delivered: resuming at the oldest record",
				"participant", bic, "cursor", cur.Next, "oldest", recs[0].Offset)
		}
		if !s.deliverBatch(ctx, sess, outs, recs) {
			return
		}
		cur.Next = recs[len(recs)-1].Offset + 1
		if err := SaveCursor(s.o.Store, bic, cur); err != nil {
			s.log.Error("fixgw: saving the output cursor", "participant", bic, "err", err)
		}
	}
}

// deliverBatch translates recs for sess under its lock; false when the
// session ended (nothing after the last message it took is acknowledged).
func (s *Server) deliverBatch(ctx context.Context, sess *session, outs *Outputs, recs []*kgo.Record) bool {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if !s.retry(ctx, "read the journal", func(ctx context.Context) error { return s.j.Sync(ctx) }) {
		return false
	}
	var d Delivery
	ok := true
	for _, r := range recs {
		if string(r.Key) != sess.bic {
			continue
		}
		got := outs.Translate(sess.bic, r.Value)
		for _, m := range got.Msgs {
			if err := quickfix.SendToTarget(m, sess.id); err != nil {
				ok = false
				break
			}
		}
		if !ok {
			break
		}
		d.Journal = append(d.Journal, got.Journal...)
	}
	if len(d.Journal) > 0 && !s.retry(ctx, "write the journal", func(ctx context.Context) error { return s.j.Write(ctx, d.Journal...) }) {
		return false
	}
	return ok
}

// retry runs f until it succeeds (a transient fault is survived); false
// when ctx ended first.
func (s *Server) retry(ctx context.Context, what string, f func(context.Context) error) bool {
	for ctx.Err() == nil {
		fctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := f(fctx)
		cancel()
		if err == nil {
			return true
		}
		s.log.Warn("fixgw: outputs: "+what+"; trying again", "err", err)
		sleep(ctx, time.Second)
	}
	return false
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
