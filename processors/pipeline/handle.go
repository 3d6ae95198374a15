package pipeline

import (
	"sync"
	"time"

	"github.com/lovoo/goka"

	"github.com/ste-utility/ste/processors/commits"
	"github.com/ste-utility/ste/processors/produce"
	"github.com/ste-utility/ste/processors/stages"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/trust"
)

// The decisions (processors/stages) decide; they do not write. Each
// returns a stages.Result, and one writer per stage writes it — emits the
// records, signs and emits the outputs, stamps the journey's last step and
// writes its audit event, and records the metrics — for every record,
// whichever way the decision returned and on every path: a callback's
// (handle) and the validate stage's batch verification (verifyqueue.go),
// which decides a record after its callback returned. A record that makes
// its decision or its writing panic becomes an INTERNAL exception
// (guard.go).

// handle turns a decision into a goka callback written by the stage's
// writer. On Kafka (Run) the record's commit is deferred and released in
// offset order once its audit events are written (processors/commits).
func (rt *wiring) handle(st topology.Stage, decide func(stages.Input, stages.State) *stages.Result) goka.ProcessCallback {
	w := rt.write[st]
	var stamp func(goka.Context) []goka.ContextOption
	if st == topology.StageMatch {
		stamp = rt.stamp // its writes carry their ownership epoch (fence.go)
	}
	return func(ctx goka.Context, msg any) {
		start := time.Now()
		in := rt.input(ctx, msg)
		snk := &sink{ctx: ctx, audit: rt.audits[st]}
		if rt.commits != nil {
			snk.gate = rt.commits.Take(ctx)
			defer snk.gate.Done(nil) // the callback's own hold, after the guard's writes
		}
		w.run(snk, in, start, 0, func() *stages.Result {
			if rt.cfg.Hook != nil {
				rt.cfg.Hook(st, ctx, in.Value)
			}
			return decide(in, gokaState{ctx: ctx, stamp: stamp})
		})
	}
}

// input is the record goka hands the callback. Only inbound records'
// headers are read (an operator's retry): goka makes a map of them.
func (rt *wiring) input(ctx goka.Context, msg any) stages.Input {
	raw := bytesOf(msg)
	in := stages.Input{Topic: string(ctx.Topic()), Key: ctx.Key(), Partition: ctx.Partition(), Offset: ctx.Offset(),
		Timestamp: ctx.Timestamp(), Value: raw}
	if in.Topic == rt.cfg.Names.Inbound() {
		in.Headers = ctx.Headers()
	}
	return in
}

// gokaState is a decision's state in goka: its key's table value and the
// loopback, through the callback's context. The match stage's table writes
// are stamped with their partition's ownership epoch (stamp: fence.go);
// the other stages' are not (stamp nil).
type gokaState struct {
	ctx   goka.Context
	stamp func(goka.Context) []goka.ContextOption
}

func (s gokaState) Value() []byte {
	v, _ := s.ctx.Value().([]byte)
	return v
}
func (s gokaState) SetValue(v []byte)                 { s.ctx.SetValue(v, s.options()...) }
func (s gokaState) Delete()                           { s.ctx.Delete(s.options()...) }
func (s gokaState) Loopback(key string, value []byte) { s.ctx.Loopback(key, value) }

// options are a table write's: its epoch stamp, if any.
func (s gokaState) options() []goka.ContextOption {
	if s.stamp == nil {
		return nil
	}
	return s.stamp(s.ctx)
}

// sink is where one input record's writes go, and what holds its commit.
type sink struct {
	// ctx emits through the callback's context (goka counts the emits and
	// commits the record once they are written); or, when ctx is nil, prod
	// emits through the processor's producer, after the callback returned
	// (the validate stage's batch verification), each emit holding gate.
	ctx  goka.Context
	prod goka.Producer
	// gate is the record's deferred commit (nil: goka's tester commits),
	// held by each audit event until it is written.
	gate *commits.Gate
	// audit batches the stage's audit events; nil: each is a record of its own.
	audit *produce.AuditBatches
}

func (s *sink) emit(topic, key string, value []byte, headers goka.Headers) {
	if s.ctx == nil {
		s.gate.Hold()
		s.prod.EmitWithHeaders(topic, key, value, headers).Then(s.gate.Done)
		return
	}
	if headers != nil {
		s.ctx.Emit(goka.Stream(topic), key, value, goka.WithCtxEmitHeaders(headers))
		return
	}
	s.ctx.Emit(goka.Stream(topic), key, value)
}

// auditEvent hands an audit event to the stage's batches, holding the
// record's commit until it is written; false: no batches.
func (s *sink) auditEvent(tk string, a *schemas.AuditEvent) bool {
	if s.audit == nil {
		return false
	}
	s.gate.Hold()
	s.audit.Add(tk, a, s.gate.Done)
	return true
}

// writer writes one stage's results.
type writer struct {
	st     topology.Stage
	cfg    *Config
	decide *stages.Decider
	// seal: the producers sign the outputs (Run, processors/produce), the writer
	// emits them unsigned; else (goka's tester) it signs them.
	seal       bool
	corruptLog rateLimit
	// topics are the names the writer emits to, built once (a name is a
	// concatenation: one was an allocation an output).
	topics writerTopics
}

// writerTopics are the topics a writer emits to by name.
type writerTopics struct{ outbound, cls, exceptions, audit string }

func topicsOf(n topology.Names) writerTopics {
	return writerTopics{outbound: n.Outbound(), cls: n.CLS(), exceptions: n.Exceptions(), audit: n.Audit()}
}

// run decides and writes one record and records the stage's metrics for
// it: whatever decide returns, or, if it or the writing panics, the
// record's INTERNAL exception. start is when the work run does began (a
// callback's: when the record reached the stage); spent is the work done
// on the record before it (the validate stage's batch verification: its
// callback and its share of its batch's verification). The record's
// processing time is spent and the time since start — never its wait in
// a queue, which its critical time holds.
func (w *writer) run(snk *sink, in stages.Input, start time.Time, spent time.Duration, decide func() *stages.Result) {
	var inboundTS int64
	defer func() {
		if p := recover(); p != nil {
			w.internal(snk, in, p)
		}
		w.cfg.Metrics.ObserveWork(w.st, spent+time.Since(start), inboundTS)
	}()
	r := decide()
	if r.Envelope != nil {
		inboundTS = r.Envelope.InboundTS
	}
	w.write(snk, in, r)
}

// write emits what a stage decided, audits the journey if it ends, and
// counts.
func (w *writer) write(snk *sink, in stages.Input, r *stages.Result) {
	m := w.cfg.Metrics
	if r.Corrupt != "" {
		w.corrupt(in, r.Table, r.Corrupt)
	}
	for _, rec := range r.Records {
		w.out(snk, rec.Topic, rec.Key, rec.Value)
	}
	var ids []string
	if len(r.Outputs) > 0 {
		var encs [][]byte
		if w.seal {
			encs = w.cfg.Signer.EncodeUnsigned(r.Outputs) // the producer signs them (processors/produce)
		} else {
			encs = w.cfg.Signer.EncodeAll(r.Outputs) // signed together
		}
		for i := range r.Outputs {
			o := &r.Outputs[i]
			topic := w.topics.outbound
			if o.IsCLS() {
				topic = w.topics.cls
			}
			w.out(snk, topic, o.Key, encs[i])
			ids = append(ids, o.MsgId)
		}
	}
	m.CountOutputs(r.Outputs)
	if r.End != 0 {
		w.decide.Step(r.Envelope, w.st, r.End)
		w.audit(snk, r, ids)
	}
	if r.Rejected != 0 {
		m.CountRejected(r.Rejected)
	}
	switch r.Matched {
	case stages.MatchedNew:
		m.CountAccepted(false)
	case stages.MatchedDuplicate:
		m.CountAccepted(true)
	}
	switch r.Expired {
	case stages.ExpiredSilent:
		m.CountExpired(false)
	case stages.ExpiredWithStatus:
		m.CountExpired(true)
	}
	if r.ClockRead {
		m.SetClock(in.Partition, r.Clock)
		if r.ClockJumpedFrom != 0 {
			w.clockJumped(in.Partition, r.ClockJumpedFrom, r.Clock)
		}
	}
}

// clockJumped warns of, and counts, a message that moved its match
// partition's event-time clock from from to to, by more than the retention
// at once (stages.Decider.sweep): every trade of the partition whose
// newest message is older than the retention before the new clock expires
// now.
func (w *writer) clockJumped(p int32, from, to int64) {
	by := time.Duration(to - from)
	w.cfg.Metrics.CountClockJump(p, by, w.cfg.Now())
	w.cfg.Logger.Warn("event-time clock jumped by more than the retention at once: every trade of this partition whose newest message is older than the retention before the new clock expires now (a message dated far ahead of the others: test data of another day, or a sender's clock)",
		"partition", p, "from", schemas.FormatTimestamp(from), "to", schemas.FormatTimestamp(to), "jump", by.Round(time.Second).String(),
		"retention", w.decide.Retention().String())
}

// out emits one record and counts it as an output of the stage.
func (w *writer) out(snk *sink, topic, key string, value []byte) {
	w.emit(snk, topic, key, value)
	w.cfg.Metrics.CountOut(w.st)
}

// emit writes one record; an exception carries the proof that the utility
// wrote it (anyone who can write <ns>.exceptions could forge one).
func (w *writer) emit(snk *sink, topic, key string, value []byte) {
	if topic == w.topics.exceptions && w.cfg.Secret != nil {
		snk.emit(topic, key, value, goka.Headers{trust.ProofHeader: w.cfg.Secret.RecordMAC(topic, []byte(key), value)})
		return
	}
	snk.emit(topic, key, value, nil)
}

// audit writes the audit event of a journey that ends here: to the stage's
// batches, or as a record of its own.
func (w *writer) audit(snk *sink, r *stages.Result, outputs []string) {
	e := r.Envelope
	a := schemas.AuditEvent{Sender: e.Sender, MsgId: e.MsgId, Partition: e.Partition, Offset: e.Offset,
		Outcome: r.Outcome, Reason: r.Reason, Outputs: outputs, RetryOf: e.RetryOf, RetriedBy: e.RetriedBy,
		Market: r.Market}
	// The trade key and the times are written into one string and sliced
	// from it: each a string of its own was an allocation, five a message.
	var (
		space    [16 + 27*6]byte
		endSpace [8]int
		buf      = space[:0]
		ends     = endSpace[:0] // where each piece ends in buf
	)
	put := func(b []byte) { buf, ends = b, append(ends, len(b)) }
	if e.TradeKey != 0 {
		put(e.TradeKey.Append(buf))
	}
	if r.Cutoff != 0 {
		put(schemas.AppendMicroTime(buf, r.Cutoff))
	}
	if e.InboundTS != 0 {
		put(schemas.AppendMicroTime(buf, e.InboundTS))
	}
	for _, st := range e.Steps {
		put(schemas.AppendMicroTime(buf, st.At))
	}
	all, from := string(buf), 0
	next := func() string {
		s := all[from:ends[0]]
		from, ends = ends[0], ends[1:]
		return s
	}
	if e.TradeKey != 0 {
		a.TradeKey = next()
	}
	if r.Cutoff != 0 {
		a.Cutoff = next()
	}
	if e.InboundTS != 0 {
		a.InboundAt = next()
	}
	if e.Type != 0 {
		a.Type, a.Function = e.Type.String(), e.Function.String()
	}
	if len(e.Steps) > 0 {
		a.Steps = make([]schemas.AuditStep, 0, len(e.Steps))
	}
	for _, st := range e.Steps {
		a.Steps = append(a.Steps, schemas.AuditStep{Stage: st.Stage.String(), Event: st.Event.String(), At: next()})
	}
	if snk.auditEvent(a.TradeKey, &a) {
		return
	}
	w.out(snk, w.topics.audit, a.TradeKey, a.Marshal())
}

// corrupt counts a record, or a table value (table != ""), that the stage
// cannot read, and logs where it is: the input record's topic, partition and
// offset (a table value's changelog offset is not known to the callback, its
// key and partition are). The log is rate-limited: garbage arrives in bursts.
func (w *writer) corrupt(in stages.Input, table, what string) {
	w.cfg.Metrics.CountCorrupt(w.st)
	suppressed, ok := w.corruptLog.allow(w.cfg.Now())
	if !ok {
		return
	}
	args := []any{"stage", w.st.String(), "what", what, "topic", in.Topic, "partition", in.Partition,
		"offset", in.Offset, "key", schemas.Echo(in.Key)}
	if table != "" {
		args = append(args, "table", table)
	}
	if suppressed > 0 {
		args = append(args, "suppressed_since_last", suppressed)
	}
	w.cfg.Logger.Warn("corrupt record or state skipped", args...)
}

// rateLimit lets through a burst of log lines per minute and counts the rest.
type rateLimit struct {
	mu         sync.Mutex
	window     time.Time
	n          int
	suppressed int
}

const logBurst = 20 // lines per minute

func (r *rateLimit) allow(now time.Time) (suppressed int, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if now.Sub(r.window) >= time.Minute {
		r.window, r.n = now, 0
	}
	if r.n >= logBurst {
		r.suppressed++
		return 0, false
	}
	r.n++
	suppressed, r.suppressed = r.suppressed, 0
	return suppressed, true
}
