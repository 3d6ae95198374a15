package pipeline

import (
	"strconv"
	"sync"
	"time"

	"github.com/lovoo/goka"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/memstore"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
)

// Config is what the stages need besides Kafka.
type Config struct {
	Names     Names
	Validator *validation.Validator
	Signer    *schemas.Signer
	// Retention of trades past their newest Created (event time). Default 72h.
	Retention time.Duration
	// TombstoneTTL keeps a purged trade's counters. Default 30 days.
	TombstoneTTL time.Duration
	// IdentityMargin is how much longer than the retention an accepted
	// (Sender, MsgId) is remembered by the identity stage. Default 24h.
	IdentityMargin time.Duration
	Metrics        *Metrics // nil: none
	Now            func() time.Time
	Hook           Hook // tests only: runs before each callback (guard.go)
}

func (c *Config) defaults() {
	if c.Retention <= 0 {
		c.Retention = 72 * time.Hour
	}
	if c.TombstoneTTL <= 0 {
		c.TombstoneTTL = 30 * 24 * time.Hour
	}
	if c.IdentityMargin <= 0 {
		c.IdentityMargin = 24 * time.Hour
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

// stages holds the callbacks of the three groups and what they share.
type stages struct {
	cfg      Config
	engine   matching.Config
	decoders sync.Pool
	interns  sync.Pool

	mu         sync.Mutex
	matchStore map[int32]*memstore.Store
	idStore    map[int32]*memstore.Store
}

func newStages(cfg Config) *stages {
	cfg.defaults()
	s := &stages{cfg: cfg, matchStore: map[int32]*memstore.Store{}, idStore: map[int32]*memstore.Store{}}
	// Duplicates re-emit everything a message may have caused: after a crash
	// goka's state can be ahead of the outputs (field notes), and a replayed
	// message is indistinguishable from a duplicate.
	s.engine = matching.Config{UtilityBIC: cfg.Signer.BIC, ReemitHistory: true}
	s.decoders.New = func() any { return new(schemas.Decoder) }
	s.interns.New = func() any { return matching.Interner{} }
	return s
}

func (s *stages) now() int64 { return s.cfg.Now().UnixMicro() }

func (s *stages) step(e *Envelope, st Stage, ev Event) {
	e.Steps = append(e.Steps, Step{Stage: st, At: s.now(), Event: ev})
}

// ---- validate: stateless, runs on inbound partitions ----

func (s *stages) validate(ctx goka.Context, msg any) {
	start := time.Now()
	raw, _ := msg.([]byte)
	dec := s.decoders.Get().(*schemas.Decoder)
	vd := s.cfg.Validator.Inspect(dec, raw)
	s.decoders.Put(dec)
	e := &Envelope{Kind: KindVerdict, Partition: ctx.Partition(), Offset: ctx.Offset(),
		InboundTS: ctx.Timestamp().UnixMicro(), Digest: vd.Digest, SenderKnown: vd.SenderKnown,
		NetUnits: int8(vd.NetUnits), Raw: raw}
	if vd.Msg != nil {
		e.Sender, e.MsgId, e.Created = vd.Msg.Sender, vd.Msg.MsgId, vd.Msg.Created
		e.Type, e.Function = vd.Msg.Type, vd.Msg.Function
		if vd.Rej == nil || vd.Rej.Reason > schemas.Schema {
			e.TradeKey = vd.Msg.Key.TradeKey()
		}
	}
	ev := EventValid
	if vd.Rej != nil {
		e.Reason, e.Detail, ev = vd.Rej.Reason, vd.Rej.Detail, EventInvalid
	}
	s.step(e, StageValidate, ev)
	if _, ok := vd.Identity(); ok {
		// Whether it is an exact duplicate of an accepted message (recognised
		// before validation) is decided where identities are kept.
		s.out(ctx, StageValidate, s.cfg.Names.Verdicts(), IdentityKey(e.Sender, e.MsgId), e.Marshal())
	} else {
		// No readable identity: it cannot be a duplicate of anything accepted.
		e.Steps[len(e.Steps)-1].Event = EventRejected
		s.reject(ctx, StageValidate, e, vd.Msg, vd.Rej)
	}
	s.cfg.Metrics.observe(StageValidate, ctx.Partition(), start, e.InboundTS)
}

// reject writes the exception, the NACK where one is due, and the audit event.
func (s *stages) reject(ctx goka.Context, st Stage, e *Envelope, m *schemas.Message, rej *schemas.Rejection) {
	if m == nil {
		m = &schemas.Message{Sender: e.Sender, MsgId: e.MsgId}
	}
	vd := validation.Verdict{Msg: m, Rej: rej, Digest: e.Digest, Hash16: e.Hash16(), SenderKnown: e.SenderKnown}
	id := strconv.Itoa(int(e.Partition)) + "-" + strconv.FormatInt(e.Offset, 10)
	exc, nack := vd.Rejected(id, e.Raw, e.Partition, e.Offset, s.cfg.Now())
	key := ""
	if schemas.IsBIC(m.Sender) {
		key = m.Sender
	}
	s.out(ctx, st, s.cfg.Names.Exceptions(), key, exc.Marshal())
	var outs []string
	if nack != nil {
		s.out(ctx, st, s.cfg.Names.Outbound(), nack.Key, s.cfg.Signer.Encode(nack))
		outs = append(outs, nack.MsgId)
	}
	s.cfg.Metrics.rejected(rej.Reason)
	s.audit(ctx, st, e, "rejected", rej.Reason.String(), outs)
}

// out emits one record and counts it as an output of the stage.
func (s *stages) out(ctx goka.Context, st Stage, topic, key string, value []byte) {
	ctx.Emit(goka.Stream(topic), key, value)
	s.cfg.Metrics.out(st)
}

func (s *stages) audit(ctx goka.Context, st Stage, e *Envelope, outcome, reason string, outputs []string) {
	a := schemas.AuditEvent{Sender: e.Sender, MsgId: e.MsgId, Partition: e.Partition, Offset: e.Offset,
		Outcome: outcome, Reason: reason, Outputs: outputs}
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
	s.out(ctx, st, s.cfg.Names.Audit(), a.TradeKey, a.Marshal())
}

// ---- identity: keyed by Sender:MsgId, remembers accepted identities ----

func (s *stages) identity(ctx goka.Context, msg any) {
	start := time.Now()
	e, err := UnmarshalEnvelope(msg.([]byte))
	if err != nil {
		s.cfg.Metrics.corrupt(StageIdentity)
		return // not ours: nothing to answer, never crash on input
	}
	var known identityEntry
	isKnown := false
	if v, _ := ctx.Value().([]byte); v != nil {
		known, isKnown = unmarshalIdentity(v)
	}
	vd := validation.Verdict{Msg: &schemas.Message{Sender: e.Sender, MsgId: e.MsgId}, Digest: e.Digest}
	if e.Reason != 0 {
		vd.Rej = &schemas.Rejection{Reason: e.Reason, Detail: e.Detail}
	}
	switch vd.Decide(known.Digest, isKnown) {
	case validation.Duplicate:
		e.Kind, e.TradeKey = KindDuplicate, known.TradeKey
		s.step(e, StageIdentity, EventDuplicate)
		s.out(ctx, StageIdentity, s.cfg.Names.Accepted(), e.TradeKey.String(), e.Marshal())
	case validation.Accept:
		ctx.SetValue(identityEntry{Digest: e.Digest, Created: e.Created, TradeKey: e.TradeKey}.marshal())
		e.Kind = KindAccepted
		s.step(e, StageIdentity, EventAccepted)
		s.out(ctx, StageIdentity, s.cfg.Names.Accepted(), e.TradeKey.String(), e.Marshal())
		s.forgetIdentities(ctx.Partition())
	default: // Reject, Conflict
		s.step(e, StageIdentity, EventRejected)
		s.reject(ctx, StageIdentity, e, nil, vd.Rej)
	}
	s.cfg.Metrics.observe(StageIdentity, ctx.Partition(), start, e.InboundTS)
}

// forgetIdentities drops identities accepted more than retention+margin of
// event time ago. They are only dropped from memory: the identity changelog
// forgets by time on its own, and a duplicate of a forgotten message is still
// recognised by its trade while the trade lives.
func (s *stages) forgetIdentities(p int32) {
	s.mu.Lock()
	st := s.idStore[p]
	s.mu.Unlock()
	if st != nil {
		st.DropDue(st.Clock() - 1)
	}
}

// ---- match: keyed by trade key, the trade's compact state in the table ----

func (s *stages) match(ctx goka.Context, msg any) {
	start := time.Now()
	e, err := UnmarshalEnvelope(msg.([]byte))
	if err != nil {
		s.cfg.Metrics.corrupt(StageMatch)
		return
	}
	key, ok := schemas.ParseTradeKey(ctx.Key())
	if !ok {
		s.cfg.Metrics.corrupt(StageMatch)
		return
	}
	it := s.interns.Get().(matching.Interner)
	defer s.interns.Put(it)
	if e.Kind == KindExpire {
		s.expire(ctx, key, e, it)
		return
	}
	dec := s.decoders.Get().(*schemas.Decoder)
	m, rej := dec.Decode(e.Raw)
	s.decoders.Put(dec)
	if rej != nil || m.Key.TradeKey() != key {
		s.cfg.Metrics.corrupt(StageMatch)
		return
	}
	t := s.load(ctx, key, it)
	outs, res := t.Apply(&matching.Inbound{Msg: m, Digest: e.Digest, NetUnits: int(e.NetUnits)}, &s.engine, it)
	switch res {
	case matching.Conflict:
		// The identity stage forgot this identity (past its memory) but the
		// trade still holds another message under it.
		s.step(e, StageMatch, EventRejected)
		s.reject(ctx, StageMatch, e, m, &schemas.Rejection{Reason: schemas.ConflictingDuplicate,
			Detail: "MsgId " + m.MsgId + " of " + m.Sender + " was already accepted with different content; use a new MsgId"})
		return
	case matching.Applied:
		b, _ := t.MarshalBinary()
		ctx.SetValue(b)
	}
	ids := s.emit(ctx, outs)
	// The step is stamped once the outputs are signed and handed over: the
	// journey's end, as the monitor and the sink see it.
	outcome := "accepted"
	if res == matching.Duplicate {
		outcome = "duplicate"
		s.step(e, StageMatch, EventReemitted)
	} else {
		s.step(e, StageMatch, EventApplied)
	}
	s.audit(ctx, StageMatch, e, outcome, "", ids)
	s.cfg.Metrics.accepted(res == matching.Duplicate)
	s.sweep(ctx)
	s.cfg.Metrics.observe(StageMatch, ctx.Partition(), start, e.InboundTS)
}

// load returns the trade for key: decoded from the table, continued from a
// tombstone, or new.
func (s *stages) load(ctx goka.Context, key schemas.TradeKey, it matching.Interner) *matching.Trade {
	v, _ := ctx.Value().([]byte)
	if v == nil {
		return matching.NewTrade(key, nil)
	}
	if tomb, _, ok := matching.Header(v); ok && tomb {
		ts, err := matching.UnmarshalTombstone(v)
		if err != nil {
			return matching.NewTrade(key, nil)
		}
		return matching.NewTrade(key, &ts)
	}
	t, err := matching.UnmarshalTrade(v, it)
	if err != nil {
		// A value we cannot read is not ours to lose silently: count it and
		// start the trade afresh (its counters continue from nothing).
		s.cfg.Metrics.corrupt(StageMatch)
		return matching.NewTrade(key, nil)
	}
	return t
}

func (s *stages) emit(ctx goka.Context, outs []schemas.Output) []string {
	ids := make([]string, 0, len(outs))
	for i := range outs {
		o := &outs[i]
		topic := s.cfg.Names.Outbound()
		if o.IsCLS() {
			topic = s.cfg.Names.CLS()
		}
		s.out(ctx, StageMatch, topic, o.Key, s.cfg.Signer.Encode(o))
		ids = append(ids, o.MsgId)
	}
	s.cfg.Metrics.emitted(outs)
	return ids
}

// sweep asks, through the loopback, for every trade of this partition that
// the event-time clock has left behind by more than the retention (and every
// tombstone past its TTL) to be looked at: goka lets a callback change only
// the state of its own key.
func (s *stages) sweep(ctx goka.Context) {
	s.mu.Lock()
	st := s.matchStore[ctx.Partition()]
	s.mu.Unlock()
	if st == nil {
		return
	}
	clock := st.Clock()
	s.cfg.Metrics.clock(ctx.Partition(), clock)
	for _, k := range st.Due(clock - 1) {
		e := &Envelope{Kind: KindExpire, Partition: -1, Offset: -1, Clock: clock}
		ctx.Loopback(k, e.Marshal())
	}
}

func (s *stages) expire(ctx goka.Context, key schemas.TradeKey, e *Envelope, it matching.Interner) {
	v, _ := ctx.Value().([]byte)
	if v == nil {
		return
	}
	clock := e.Clock
	s.mu.Lock()
	if st := s.matchStore[ctx.Partition()]; st != nil {
		clock = max(clock, st.Clock())
	}
	s.mu.Unlock()
	tomb, at, ok := matching.Header(v)
	switch {
	case !ok:
		return
	case tomb:
		if clock-at > int64(s.cfg.TombstoneTTL) {
			ctx.Delete()
		}
		return
	case clock-at <= int64(s.cfg.Retention):
		return // it moved on since it was due
	}
	t, err := matching.UnmarshalTrade(v, it)
	if err != nil {
		return
	}
	outs, ts := t.Expire(clock)
	ctx.SetValue(matching.MarshalTombstone(key, ts))
	ids := s.emit(ctx, outs)
	ae := &Envelope{TradeKey: key, Partition: -1, Offset: -1}
	s.step(ae, StageMatch, EventExpired)
	s.audit(ctx, StageMatch, ae, "expired", "", ids)
	s.cfg.Metrics.expired(len(outs) > 0)
}

// matchIndex tells the trade store when each value falls due: a trade at
// Newest + retention, a tombstone at PurgedAt + TTL; the clock is the largest
// Newest (purges never remove the newest trade, so it survives restarts).
func (s *stages) matchIndex(v []byte) (due, watermark int64, ok bool) {
	tomb, at, ok := matching.Header(v)
	if !ok {
		return 0, 0, false
	}
	if tomb {
		return at + int64(s.cfg.TombstoneTTL), at, true
	}
	return at + int64(s.cfg.Retention), at, true
}

func (s *stages) identityIndex(v []byte) (due, watermark int64, ok bool) {
	ie, ok := unmarshalIdentity(v)
	if !ok {
		return 0, 0, false
	}
	return ie.Created + int64(s.cfg.Retention+s.cfg.IdentityMargin), ie.Created, true
}
