package pipeline

import (
	"log/slog"
	"time"

	"github.com/lovoo/goka"

	"github.com/ste-utility/ste/processors/envelope"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/trust"
)

// The stage callbacks decide; they do not write. Each returns a result —
// the records it decided on, the outputs to sign, and whether the record's
// journey ends there — and one wrapper (handle) writes it: emits the
// records, signs and emits the outputs, stamps the journey's last step and
// writes its audit event, and records the metrics, whichever way the
// callback returned (as watermill's handlers return their messages). The
// callbacks still change their own table (SetValue, Delete) and send
// loopbacks: those are goka's state, not outputs.

// record is one record a stage decided to write.
type record struct {
	topic, key string
	value      []byte
}

// result is what a stage decided for one input record.
type result struct {
	// e is the envelope of the record: its inbound time feeds the critical
	// time, and when the journey ends here, the audit event is its journey.
	// Nil when the record was not an envelope.
	e       *envelope.Envelope
	records []record         // written first, in order
	outs    []schemas.Output // then signed and written, counted by type
	// end, when set, ends the journey here: the step is stamped once the
	// records and outputs are handed over (the journey's end, as the monitor
	// and the sink see it), then the audit event is written with outcome and
	// reason, naming ids and the outputs' MsgIds.
	end             envelope.Event
	outcome, reason string
	ids             []string
	rejected        schemas.Reason // counted as a rejection for this reason
	matched         matchedKind    // counted by the match stage
	expired         expiredKind    // counted by the match stage
	// corrupt names what could not be read ("" : nothing); table names
	// the table when it was a table value.
	corrupt, table string
	// market and cutoff (µs) of the trade a message was applied to, for
	// the audit event (docs/timeliness.md); cutoff 0: none.
	market string
	cutoff int64
}

type matchedKind uint8

const (
	notMatched matchedKind = iota
	matchedNew
	matchedDuplicate
)

type expiredKind uint8

const (
	notExpired expiredKind = iota
	expiredSilent
	expiredWithStatus
)

// decide is a stage callback.
type decide func(ctx goka.Context, msg any) *result

// callbacks are the stages' goka callbacks: each decision wrapped by handle
// and guard.
func (s *stages) callbacks(log *slog.Logger) Callbacks {
	validate := s.handle(topology.StageValidate, log, s.validate)
	if s.verify != nil {
		validate = s.verify.callback
	}
	return Callbacks{
		topology.StageValidate: validate,
		topology.StageIdentity: s.handle(topology.StageIdentity, log, s.identity),
		topology.StageMatch:    s.handle(topology.StageMatch, log, s.match),
	}
}

// handle turns a decision into a goka callback: it writes what the decision
// returned and records the stage's metrics for every record. A record that
// makes the decision or its writing panic becomes an INTERNAL exception
// (guard.go).
func (s *stages) handle(st topology.Stage, log *slog.Logger, fn decide) goka.ProcessCallback {
	return func(ctx goka.Context, msg any) {
		start := time.Now()
		var inboundTS int64
		var snk sink = ctxSink{ctx}
		if b := s.audits[st]; b != nil {
			bs := batchSink{ctxSink{ctx}, b, b.gate(ctx)}
			snk = bs
			defer bs.g.done(nil) // the callback's own hold, after the guard's writes
		}
		defer func() {
			if p := recover(); p != nil {
				s.internal(ctx, snk, st, log, msg, p)
			}
			s.cfg.Metrics.observe(st, ctx.Partition(), start, inboundTS)
		}()
		if s.cfg.Hook != nil {
			s.cfg.Hook(st, ctx, msg)
		}
		r := fn(ctx, msg)
		if r.e != nil {
			inboundTS = r.e.InboundTS
		}
		s.write(ctx, snk, st, r)
	}
}

// sink is where a stage's records go: the callback's goka context, or,
// for the validate stage's records decided after a batch verification
// (verifyqueue.go), the processor's producer.
type sink interface {
	emit(topic, key string, value []byte, headers goka.Headers)
}

// ctxSink emits through the callback's context (goka counts the emits and
// commits the record once they are written).
type ctxSink struct{ ctx goka.Context }

func (c ctxSink) emit(topic, key string, value []byte, headers goka.Headers) {
	if headers != nil {
		c.ctx.Emit(goka.Stream(topic), key, value, goka.WithCtxEmitHeaders(headers))
		return
	}
	c.ctx.Emit(goka.Stream(topic), key, value)
}

// write emits what a stage decided to snk, the callback's sink, audits the
// journey if it ends, and counts.
func (s *stages) write(ctx goka.Context, snk sink, st topology.Stage, r *result) {
	if r.corrupt != "" {
		s.corrupt(ctx, st, r.table, r.corrupt)
	}
	s.writeTo(snk, st, r)
}

// writeTo is write without the table side (corrupt values), to any sink.
func (s *stages) writeTo(ctx sink, st topology.Stage, r *result) {
	m := s.cfg.Metrics
	for _, rec := range r.records {
		s.out(ctx, st, rec.topic, rec.key, rec.value)
	}
	ids := r.ids
	if len(r.outs) > 0 {
		var encs [][]byte
		if s.seal != nil {
			encs = s.cfg.Signer.EncodeUnsigned(r.outs) // the producer signs them (seal.go)
		} else {
			encs = s.cfg.Signer.EncodeAll(r.outs) // signed together
		}
		for i := range r.outs {
			o := &r.outs[i]
			topic := s.cfg.Names.Outbound()
			if o.IsCLS() {
				topic = s.cfg.Names.CLS()
			}
			s.out(ctx, st, topic, o.Key, encs[i])
			ids = append(ids, o.MsgId)
		}
	}
	m.emitted(r.outs)
	if r.end != 0 {
		s.step(r.e, st, r.end)
		s.audit(ctx, st, r, ids)
	}
	if r.rejected != 0 {
		m.rejected(r.rejected)
	}
	switch r.matched {
	case matchedNew:
		m.accepted(false)
	case matchedDuplicate:
		m.accepted(true)
	}
	switch r.expired {
	case expiredSilent:
		m.expired(false)
	case expiredWithStatus:
		m.expired(true)
	}
}

// out emits one record and counts it as an output of the stage.
func (s *stages) out(ctx sink, st topology.Stage, topic, key string, value []byte) {
	s.emit(ctx, topic, key, value)
	s.cfg.Metrics.out(st)
}

// emit writes one record; an exception carries the proof that the utility
// wrote it (anyone who can write <ns>.exceptions could forge one).
func (s *stages) emit(ctx sink, topic, key string, value []byte) {
	if topic == s.cfg.Names.Exceptions() && s.cfg.Secret != nil {
		ctx.emit(topic, key, value, goka.Headers{trust.ProofHeader: s.cfg.Secret.RecordMAC(topic, []byte(key), value)})
		return
	}
	ctx.emit(topic, key, value, nil)
}

func (s *stages) audit(ctx sink, st topology.Stage, r *result, outputs []string) {
	e := r.e
	a := schemas.AuditEvent{Sender: e.Sender, MsgId: e.MsgId, Partition: e.Partition, Offset: e.Offset,
		Outcome: r.outcome, Reason: r.reason, Outputs: outputs, RetryOf: e.RetryOf, RetriedBy: e.RetriedBy,
		Market: r.market}
	if r.cutoff != 0 {
		a.Cutoff = schemas.MicroTime(r.cutoff)
	}
	if e.TradeKey != 0 {
		a.TradeKey = e.TradeKey.String()
	}
	if e.InboundTS != 0 {
		a.InboundAt = schemas.MicroTime(e.InboundTS)
	}
	if e.Type != 0 {
		a.Type, a.Function = e.Type.String(), e.Function.String()
	}
	for _, st := range e.Steps {
		a.Steps = append(a.Steps, schemas.AuditStep{Stage: st.Stage.String(), Event: st.Event.String(), At: schemas.MicroTime(st.At)})
	}
	switch c := ctx.(type) {
	case batchSink:
		c.auditEvent(a.TradeKey, &a)
		return
	case *emits:
		if c.batcher != nil {
			c.auditEvent(a.TradeKey, &a)
			return
		}
	}
	s.out(ctx, st, s.cfg.Names.Audit(), a.TradeKey, a.Marshal())
}
