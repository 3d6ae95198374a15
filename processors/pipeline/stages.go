package pipeline

import (
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/lovoo/goka"

	"github.com/ste-utility/ste/processors/diskstore"
	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/trust"
)

// Config is what the stages need besides Kafka.
type Config struct {
	Names     topology.Names
	Validator *validation.Validator
	Signer    *schemas.Signer
	// Retention of trades past their newest Created (event time). Default 72h.
	Retention time.Duration
	// TombstoneTTL keeps a purged trade's counters. Default 30 days.
	TombstoneTTL time.Duration
	// IdentityMargin is how much longer than the retention an accepted
	// (Sender, MsgId) is remembered by the identity stage. Default 24h.
	IdentityMargin time.Duration
	// AtRiskLead: an unmatched trade whose cutoff is at most this far ahead
	// on Now's clock is at risk (atrisk.go). Default DefaultAtRiskLead.
	AtRiskLead time.Duration
	Metrics    *Metrics     // nil: none
	Logger     *slog.Logger // corrupt records and state; slog.Default() when nil
	Now        func() time.Time
	// Sandbox: the namespace replays recorded inbound records (ste replay).
	// The Created rule then takes the utility's clock from each record's
	// time — when the live utility received it — instead of the wall
	// clock, so a replay decides as the live run did whenever it runs.
	// Nothing else reads the wall clock to decide: retention runs on event
	// time everywhere.
	Sandbox bool
	// Inbound reads a record of <ns>.inbound back by partition and offset
	// (inbound.go): the payload of an exception the identity or match
	// stage writes. When set, a valid message's record travels decoded
	// only; when nil (the broker-free tests), the record travels along.
	Inbound func(partition int32, offset int64) ([]byte, error)
	Hook    Hook // tests only: runs before each callback (guard.go)
	// VerifyOneByOne verifies each signature in its validate callback
	// instead of in batches (verifyqueue.go): for A/B measurements. The
	// broker-free graph tests, which do not go through Run, always do.
	VerifyOneByOne bool
	// Secret proves the exceptions the stages write (trust.ProofHeader):
	// readers skip exceptions without proof. Nil writes none.
	Secret *trust.Secret
	// Tolerances the match stage evaluates criteria 7 and 15 with: the
	// reference data the instance has read so far (refdata.Current). Nil:
	// none, values must be equal.
	Tolerances matching.Tolerances
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
	if c.AtRiskLead <= 0 {
		c.AtRiskLead = DefaultAtRiskLead
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}

// stages holds the callbacks of the three groups and what they share.
type stages struct {
	cfg      Config
	engine   matching.Config
	decoders sync.Pool
	interns  sync.Pool

	mu         sync.Mutex
	matchStore map[int32]table
	matchRefs  map[int32]*refIndex // the TradeRef index of each match partition
	idStore    map[int32]table
	risk       map[int32]*riskIndex // the match partitions' at-risk indexes (atrisk.go)
	clocks     map[int32]seenClock  // the match partitions' clocks as the last sweep saw them
	tables     *diskstore.DB        // nil: tables in memory

	corruptLog rateLimit
	verify     *verifyQueue // nil: signatures verified one by one in the callback
	// audits batch each stage's audit events (auditbatch.go); none: every
	// event is a record of its own (no Kafka: goka's tester).
	audits map[topology.Stage]*auditBatcher
	// idTableParts looks up the identity changelog's partition count for
	// its batches (tablebatch.go); nil: no batches (goka's tester).
	idTableParts func() (int, error)
	// seal, when set, has the producers sign the outputs (seal.go): the
	// stages emit them unsigned. Nil (goka's tester): the stages sign.
	seal *sealConfig
}

func newStages(cfg Config) *stages {
	cfg.defaults()
	s := &stages{cfg: cfg, matchStore: map[int32]table{}, matchRefs: map[int32]*refIndex{}, idStore: map[int32]table{},
		risk: map[int32]*riskIndex{}, clocks: map[int32]seenClock{}}
	cfg.Metrics.riskFrom(s)
	// Duplicates re-emit everything a message may have caused: after a crash
	// goka's state can be ahead of the outputs (field notes), and a replayed
	// message is indistinguishable from a duplicate.
	s.engine = matching.Config{UtilityBIC: cfg.Signer.BIC, ReemitHistory: true, Tolerances: cfg.Tolerances}
	s.decoders.New = func() any { return new(schemas.Decoder) }
	s.interns.New = func() any { return matching.Interner{} }
	return s
}

func (s *stages) now() int64 { return s.cfg.Now().UnixMicro() }

func (s *stages) step(e *Envelope, st topology.Stage, ev Event) {
	e.Steps = append(e.Steps, Step{Stage: st, At: s.now(), Event: ev})
}

// ---- validate: stateless, runs on inbound partitions ----

func (s *stages) validate(ctx goka.Context, msg any) *result {
	raw, _ := msg.([]byte)
	dec := s.decoders.Get().(*schemas.Decoder)
	var vd validation.Verdict
	if s.cfg.Sandbox {
		vd = s.cfg.Validator.InspectAt(dec, raw, ctx.Timestamp())
	} else {
		vd = s.cfg.Validator.Inspect(dec, raw)
	}
	s.decoders.Put(dec)
	return s.validated(vd, inboundAt(ctx, raw))
}

// inboundRecord is what the validate stage needs of the record it read
// besides its verdict.
type inboundRecord struct {
	raw                []byte
	partition          int32
	offset             int64
	ts                 time.Time
	retryOf, retriedBy string
}

func inboundAt(ctx goka.Context, raw []byte) inboundRecord {
	in := inboundRecord{raw: raw, partition: ctx.Partition(), offset: ctx.Offset(), ts: ctx.Timestamp()}
	in.retryOf, in.retriedBy = retryHeaders(ctx)
	return in
}

// validated decides what becomes of an inbound record given its verdict.
func (s *stages) validated(vd validation.Verdict, in inboundRecord) *result {
	e := &Envelope{Kind: KindVerdict, Partition: in.partition, Offset: in.offset,
		InboundTS: in.ts.UnixMicro(), Digest: vd.Digest, SenderKnown: vd.SenderKnown,
		NetUnits: int8(vd.NetUnits), Raw: in.raw}
	if vd.Msg != nil {
		// Cut as outputs echo them: the audit event carries them too.
		e.Sender, e.MsgId, e.Created = schemas.Echo(vd.Msg.Sender), schemas.Echo(vd.Msg.MsgId), vd.Msg.Created
		e.Type, e.Function = vd.Msg.Type, vd.Msg.Function
		if vd.Rej == nil || vd.Rej.Reason > schemas.Schema {
			// Its trade is known: the match stage reads the decoded
			// message instead of decoding the record again.
			e.TradeKey = vd.Msg.Key.TradeKey()
			e.Decoded = vd.Msg.AppendCompact(make([]byte, 0, 256))
		}
	}
	e.RetryOf, e.RetriedBy = in.retryOf, in.retriedBy
	if _, ok := vd.Identity(); !ok {
		// No readable identity: it cannot be a duplicate of anything accepted.
		return s.reject(topology.StageValidate, e, vd.Msg, vd.Rej)
	}
	// Whether it is an exact duplicate of an accepted message (recognised
	// before validation) is decided where identities are kept.
	ev := EventValid
	if vd.Rej != nil {
		e.Reason, e.Detail, ev = vd.Rej.Reason, vd.Rej.Detail, EventInvalid
	}
	s.step(e, topology.StageValidate, ev)
	if e.Reason == 0 && e.Decoded != nil && s.cfg.Inbound != nil {
		// A valid message travels decoded: its bytes are needed only for
		// the rare exception a later stage writes (a conflicting
		// duplicate, an INTERNAL failure), read back from inbound then.
		// Carried, they were a sixth of every byte the brokers wrote
		// (docs/benchmarks.md). A message already invalid keeps them: its
		// exception is certain.
		e.Raw = nil
	}
	return s.forward(e, s.cfg.Names.Verdicts(), IdentityKey(e.Sender, e.MsgId))
}

// forward passes the envelope on to the next stage.
func (s *stages) forward(e *Envelope, topic, key string) *result {
	return &result{e: e, records: []record{{topic, key, e.Marshal()}}}
}

// reject decides the exception, the NACK where one is due, and the end of
// the journey.
func (s *stages) reject(st topology.Stage, e *Envelope, m *schemas.Message, rej *schemas.Rejection) *result {
	if m == nil {
		m = &schemas.Message{Sender: e.Sender, MsgId: e.MsgId}
	}
	note := s.payload(st, e)
	vd := validation.Verdict{Msg: m, Rej: rej, Digest: e.Digest, Hash16: e.Hash16(), SenderKnown: e.SenderKnown}
	id := strconv.Itoa(int(e.Partition)) + "-" + strconv.FormatInt(e.Offset, 10)
	exc, nack := vd.Rejected(id, e.Raw, e.Partition, e.Offset, s.cfg.Now())
	if note != "" {
		// The note on a record that could not be read back is the
		// operator's (the exception's detail). The participant's NACK
		// stays as the rejection made it: a message applied again
		// answers the same NACK whether or not the read-back worked.
		exc.Detail = schemas.EchoDetail(rej.Detail + note)
	}
	exc.RetryOf = e.RetryOf
	key := ""
	if schemas.IsBIC(m.Sender) {
		key = m.Sender
	}
	r := &result{e: e, records: []record{{s.cfg.Names.Exceptions(), key, exc.Marshal()}},
		end: EventRejected, outcome: "rejected", reason: rej.Reason.String(), rejected: rej.Reason}
	if nack != nil {
		r.outs = []schemas.Output{*nack}
	}
	return r
}

// ---- identity: keyed by Sender:MsgId, remembers accepted identities ----

func (s *stages) identity(ctx goka.Context, msg any) *result {
	raw, _ := msg.([]byte)
	e, err := UnmarshalEnvelope(raw)
	if err != nil {
		return &result{corrupt: "record is not an envelope"} // not ours: nothing to answer, never crash on input
	}
	var known identityEntry
	isKnown := false
	if v, _ := ctx.Value().([]byte); v != nil {
		if known, isKnown = unmarshalIdentity(v); !isKnown {
			r := s.poisoned(e)
			r.corrupt, r.table = "identity entry unreadable: poisoned", topology.Table(s.cfg.Names.IdentityGroup())
			return r
		}
	}
	vd := validation.Verdict{Msg: &schemas.Message{Sender: e.Sender, MsgId: e.MsgId}, Digest: e.Digest}
	if e.Reason != 0 {
		vd.Rej = &schemas.Rejection{Reason: e.Reason, Detail: e.Detail}
	}
	switch vd.Decide(known.Digest, isKnown) {
	case validation.Duplicate:
		e.Kind, e.TradeKey = KindDuplicate, known.TradeKey
		s.step(e, topology.StageIdentity, EventDuplicate)
		return s.toMatch(e)
	case validation.Accept:
		ctx.SetValue(identityEntry{Digest: e.Digest, Created: e.Created, TradeKey: e.TradeKey}.marshal())
		s.forgetIdentities(ctx.Partition())
		e.Kind = KindAccepted
		s.step(e, topology.StageIdentity, EventAccepted)
		return s.toMatch(e)
	default: // Reject, Conflict
		return s.reject(topology.StageIdentity, e, nil, vd.Rej)
	}
}

// toMatch sends an accepted message or an exact duplicate to its trade: the
// decoded message without the record when the match stage can read the
// record back for an exception (inbound.go), and when the message travels
// decoded (an envelope of the release before decode-once has no Decoded:
// its record is all the match stage can read).
func (s *stages) toMatch(e *Envelope) *result {
	if s.cfg.Inbound != nil && e.Decoded != nil {
		e.Raw = nil
	}
	return s.forward(e, s.cfg.Names.Accepted(), e.TradeKey.String())
}

// poisoned decides for a message whose identity entry cannot be read. The
// entry is neither absent (accepting the message would overwrite what an
// accepted message claimed, and the genuine message's resend would then be
// NACKed) nor known: it stays as it is. Only the bytes of the record decide
// what they can: a record rejected before its trade is known (MALFORMED,
// SCHEMA) can never be an accepted message's copy, so it is rejected as
// usual; any other goes to its trade, which recognises an exact duplicate or
// another content under an identity it holds, and turns anything else into
// an INTERNAL exception (docs/matching.md).
func (s *stages) poisoned(e *Envelope) *result {
	if e.Reason != 0 && e.Reason <= schemas.Schema {
		return s.reject(topology.StageIdentity, e, nil, &schemas.Rejection{Reason: e.Reason, Detail: e.Detail})
	}
	e.Kind = KindPoisoned
	s.step(e, topology.StageIdentity, EventPoisoned)
	return s.forward(e, s.cfg.Names.Accepted(), e.TradeKey.String())
}

// forgetIdentities drops identities accepted more than retention+margin of
// event time ago, from the local store only: the identity changelog is
// compacted with no time retention (topics.Specs), so it keeps every
// identity and a rebuild drops the old ones again. A duplicate of a
// forgotten message is still recognised by its trade while the trade lives.
func (s *stages) forgetIdentities(p int32) {
	s.mu.Lock()
	st := s.idStore[p]
	s.mu.Unlock()
	if st != nil {
		st.DropDue(st.Clock() - 1)
	}
}

// ---- match: keyed by trade key, the trade's compact state in the table ----

func (s *stages) match(ctx goka.Context, msg any) *result {
	raw, _ := msg.([]byte)
	e, err := UnmarshalEnvelope(raw)
	if err != nil {
		return &result{corrupt: "record is not an envelope"}
	}
	key, ok := schemas.ParseTradeKey(ctx.Key())
	if !ok {
		return &result{e: e, corrupt: "key is not a trade key"}
	}
	it := s.interns.Get().(matching.Interner)
	defer s.interns.Put(it)
	if e.Kind == KindExpire {
		return s.expire(ctx, key, e, it)
	}
	m := s.message(e)
	if m == nil || m.Key.TradeKey() != key {
		return &result{e: e, corrupt: "envelope holds no message of this trade"}
	}
	t, readable := s.load(ctx, key, it)
	var r *result
	if e.Kind != KindPoisoned || s.decidable(t, m, e, &r) {
		r = s.apply(ctx, t, m, e, it)
	}
	if !readable {
		// A value we cannot read is not ours to lose silently: count it, log
		// it; the trade started afresh (its counters continue from nothing).
		r.corrupt, r.table = "trade state unreadable: trade started afresh", topology.Table(s.cfg.Names.MatchGroup())
	}
	return r
}

// apply applies a message to its trade: the outputs it causes, or the
// CONFLICTING_DUPLICATE of another content under an identity the trade holds.
func (s *stages) apply(ctx goka.Context, t *matching.Trade, m *schemas.Message, e *Envelope, it matching.Interner) *result {
	outs, res := t.Apply(&matching.Inbound{Msg: m, Digest: e.Digest, NetUnits: int(e.NetUnits)}, &s.engine, it)
	switch res {
	case matching.Conflict:
		// The identity stage forgot this identity (past its memory) but the
		// trade still holds another message under it.
		return s.reject(topology.StageMatch, e, m, schemas.ConflictingDuplicateOf(m.Sender, m.MsgId))
	case matching.Applied:
		b, _ := t.MarshalBinary()
		ctx.SetValue(b)
	}
	s.sweep(ctx)
	r := &result{e: e, outs: outs, end: EventApplied, outcome: "accepted", matched: matchedNew}
	r.market, r.cutoff = s.cutoffOf(t)
	if res == matching.Duplicate {
		r.end, r.outcome, r.matched = EventReemitted, "duplicate", matchedDuplicate
	}
	return r
}

// message is the decoded message an envelope carries: its compact form, or
// for an envelope written before the form existed (layout v1 without the
// extension, docs/ARCHITECTURE.md "Upgrades") or in a version of it this
// build does not know, its record decoded again. Nil when neither reads.
func (s *stages) message(e *Envelope) *schemas.Message {
	if e.Decoded != nil {
		if m, err := schemas.DecodeCompact(e.Decoded); err == nil {
			return m
		}
	}
	dec := s.decoders.Get().(*schemas.Decoder)
	m, rej := dec.Decode(e.Raw)
	s.decoders.Put(dec)
	if rej != nil {
		return nil
	}
	return m
}

// decidable answers a message whose identity entry is poisoned as far as its
// trade can (see poisoned): it reports whether Apply may go on, which it may
// for an exact duplicate of a message the trade holds and for other valid
// content under a held identity (Apply's Conflict). Otherwise *r is the
// rejection or the INTERNAL exception.
func (s *stages) decidable(t *matching.Trade, m *schemas.Message, e *Envelope, r **result) bool {
	held, ok := t.Holds(m.Sender, m.MsgId)
	switch {
	case ok && held == e.Digest:
		return true
	case ok && e.Reason == 0:
		return true
	case ok:
		// Not the held message's bytes, and invalid: its own code, as the
		// contract's order puts CONFLICTING_DUPLICATE last.
		*r = s.reject(topology.StageMatch, e, m, &schemas.Rejection{Reason: e.Reason, Detail: e.Detail})
		return false
	}
	*r = s.reject(topology.StageMatch, e, m, &schemas.Rejection{Reason: schemas.Internal,
		Detail: "the identity table entry of " + m.Sender + ":" + m.MsgId + " cannot be read (corrupt state), and its trade does not hold the message: " +
			"whether it is new, a duplicate or a conflict cannot be decided; retry it once the entry is repaired"})
	return false
}

// load returns the trade for key: decoded from the table, continued from a
// tombstone, or new; readable is false when the value could not be read
// (the trade then starts afresh).
func (s *stages) load(ctx goka.Context, key schemas.TradeKey, it matching.Interner) (t *matching.Trade, readable bool) {
	v, _ := ctx.Value().([]byte)
	if v == nil {
		return matching.NewTrade(key, nil), true
	}
	if tomb, _, ok := matching.Header(v); ok && tomb {
		ts, err := matching.UnmarshalTombstone(v)
		if err != nil {
			return matching.NewTrade(key, nil), true
		}
		return matching.NewTrade(key, &ts), true
	}
	t, err := matching.UnmarshalTrade(v, it)
	if err != nil {
		return matching.NewTrade(key, nil), false
	}
	return t, true
}

// corrupt counts a record, or a table value (table != ""), that the stage
// cannot read, and logs where it is: the input record's topic, partition and
// offset (a table value's changelog offset is not known to the callback, its
// key and partition are). The log is rate-limited: garbage arrives in bursts.
func (s *stages) corrupt(ctx goka.Context, st topology.Stage, table, what string) {
	s.cfg.Metrics.corrupt(st)
	suppressed, ok := s.corruptLog.allow(s.cfg.Now())
	if !ok {
		return
	}
	args := []any{"stage", st.String(), "what", what, "topic", ctx.Topic(), "partition", ctx.Partition(),
		"offset", ctx.Offset(), "key", schemas.Echo(ctx.Key())}
	if table != "" {
		args = append(args, "table", table)
	}
	if suppressed > 0 {
		args = append(args, "suppressed_since_last", suppressed)
	}
	s.cfg.Logger.Warn("corrupt record or state skipped", args...)
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
	s.clockMoved(ctx.Partition(), st, clock)
	for _, k := range st.Due(clock - 1) {
		e := &Envelope{Kind: KindExpire, Partition: -1, Offset: -1, Clock: clock}
		ctx.Loopback(k, e.Marshal())
	}
}

// clockMoved warns when a partition's event-time clock moves by more
// than the retention at once: one message dated far ahead of the others
// (a live message sent into a namespace of old test data, a clock set
// wrong at a participant) expires every trade older than the retention
// before it — right by the contract (messages.md §5, Retention), but worth
// an operator's eye. The console shows it (ste_event_time_jumps_total).
// The clock seen last is kept with the table it was read from, so a
// partition that comes back after another instance held it starts afresh.
func (s *stages) clockMoved(p int32, st table, clock int64) {
	s.mu.Lock()
	prev, ok := s.clocks[p]
	s.clocks[p] = seenClock{st, clock}
	s.mu.Unlock()
	if !ok || prev.table != st || prev.at <= 0 || clock-prev.at <= int64(s.cfg.Retention) {
		return
	}
	by := time.Duration(clock - prev.at)
	s.cfg.Metrics.clockJump(p, by, s.cfg.Now())
	s.cfg.Logger.Warn("event-time clock jumped by more than the retention at once: every trade of this partition whose newest message is older than the retention before the new clock expires now (a message dated far ahead of the others: test data of another day, or a sender's clock)",
		"partition", p, "from", schemas.FormatTimestamp(prev.at), "to", schemas.FormatTimestamp(clock), "jump", by.Round(time.Second).String(),
		"retention", s.cfg.Retention.String())
}

// seenClock is the event-time clock a partition's table showed last.
type seenClock struct {
	table table
	at    int64
}

func (s *stages) expire(ctx goka.Context, key schemas.TradeKey, e *Envelope, it matching.Interner) *result {
	v, _ := ctx.Value().([]byte)
	if v == nil {
		return &result{}
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
		return &result{}
	case tomb:
		if clock-at > int64(s.cfg.TombstoneTTL) {
			ctx.Delete()
		}
		return &result{}
	case clock-at <= int64(s.cfg.Retention):
		return &result{} // it moved on since it was due
	}
	t, err := matching.UnmarshalTrade(v, it)
	if err != nil {
		return &result{}
	}
	outs, ts := t.Expire(clock)
	ctx.SetValue(matching.MarshalTombstone(key, ts))
	r := &result{e: &Envelope{TradeKey: key, Partition: -1, Offset: -1}, outs: outs,
		end: EventExpired, outcome: "expired", expired: expiredSilent}
	if len(outs) > 0 {
		r.expired = expiredWithStatus
	}
	return r
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
