package iso20022

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/adapters"
	"github.com/ste-utility/ste/topics"
)

// translateOutputs reads <ns>.outbound in the consumer group
// <ns>.iso20022.v1 and translates the records about ISO-origin messages
// (§5.6). For each batch: the journal is read to its end (read-your-writes),
// every record translated in order, the documents produced and
// acknowledged, then the journal entries, and only then the batch's
// offsets committed — so a crash or a rebalance repeats outputs and never
// loses one. A broker fault is waited out, never a reason to stop.
func (s *Server) translateOutputs(ctx context.Context) {
	for ctx.Err() == nil {
		cl, err := topics.Client(s.o.Kafka, kgo.ConsumerGroup(s.names.ISO20022Group()), kgo.ConsumeTopics(s.names.Outbound()),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit(), kgo.BlockRebalanceOnPoll(),
			kgo.FetchMaxWait(250*time.Millisecond),
			// A dead instance's partitions move to the others after 10 s of
			// silence, not franz-go's default 45 s: nothing is held per
			// instance, so a takeover costs only the records repeated.
			kgo.SessionTimeout(10*time.Second), kgo.HeartbeatInterval(time.Second))
		if err != nil {
			s.log.Warn("outputs: consumer", "err", err)
			sleep(ctx, time.Second)
			continue
		}
		s.consume(ctx, cl)
		cl.Close()
	}
}

func (s *Server) consume(ctx context.Context, cl *kgo.Client) {
	tr := &Translator{J: s.j.Index, Enabled: func(bic string) bool {
		set := s.ref.Load()
		if set == nil {
			return false
		}
		p, ok := set.Participant(bic)
		return ok && s.o.Signer.Enabled(p)
	}}
	for ctx.Err() == nil {
		fs := cl.PollRecords(ctx, 1000)
		if ctx.Err() != nil {
			return
		}
		fs.EachError(func(t string, p int32, err error) {
			s.log.Warn("outputs: fetch", "topic", t, "partition", p, "err", err)
		})
		recs := fs.Records()
		if len(recs) == 0 {
			cl.AllowRebalance()
			continue
		}
		// Reference data first: ALGs are routed by the signers column.
		for s.ref.Load() == nil && ctx.Err() == nil {
			sleep(ctx, 200*time.Millisecond)
		}
		if !s.retry(ctx, "read the journal", func(ctx context.Context) error { return s.j.Sync(ctx) }) {
			return
		}
		var outs []*kgo.Record
		var res Result
		for _, r := range recs {
			got := tr.Translate(string(r.Key), r.Value)
			for _, o := range got.Outs {
				outs = append(outs, &kgo.Record{Topic: s.names.ISO20022Outbound(), Key: []byte(o.Receiver), Value: []byte(o.XML),
					Headers: []kgo.RecordHeader{{Key: HeaderSourceMsgId, Value: []byte(o.SourceMsgId)},
						{Key: HeaderMsgDef, Value: []byte(o.MsgDef)}, {Key: HeaderTxId, Value: []byte(o.TxId)}}})
			}
			// Later records of the batch see what this one changed (its
			// answers, its notes) before the journal has them back.
			for _, e := range got.Journal {
				s.j.Apply(e)
			}
			res.Journal = append(res.Journal, got.Journal...)
		}
		if len(outs) > 0 && !s.retry(ctx, "produce ISO outputs", func(ctx context.Context) error {
			return cl.ProduceSync(ctx, outs...).FirstErr()
		}) {
			return
		}
		for _, o := range outs {
			for _, h := range o.Headers {
				if h.Key == HeaderMsgDef {
					s.metrics.outputs.WithLabelValues(defLabel(string(h.Value))).Inc()
				}
			}
		}
		if !s.retry(ctx, "write the journal", func(ctx context.Context) error { return s.j.Write(ctx, res.Journal...) }) {
			return
		}
		// A commit refused (the group moved on) repeats the batch at its
		// next owner: harmless, every output is keyed for dedupe.
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		if err := cl.CommitRecords(cctx, recs...); err != nil && ctx.Err() == nil {
			s.log.Warn("outputs: commit refused; the batch will be translated again", "err", err)
		}
		cancel()
		cl.AllowRebalance()
	}
}

// retry runs f until it succeeds (adapters.Retry); false when ctx ended
// first.
func (s *Server) retry(ctx context.Context, what string, f func(context.Context) error) bool {
	return adapters.Retry(ctx, s.log, "outputs: "+what, f)
}
