package stages

import (
	"bytes"
	"time"

	"github.com/ste-utility/ste/processors/envelope"
	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topology"
)

// ---- match: keyed by trade key, the trade's compact state in the table ----

// Match applies an accepted message (or an exact duplicate, or a message
// whose identity entry is poisoned) to its trade, or looks at a trade the
// event-time clock (retention) or its allegement timer (wall clock) made
// due: the loopback.
func (d *Decider) Match(in Input, st State) *Result {
	e, err := envelope.Unmarshal(in.Value)
	if err != nil {
		return &Result{Corrupt: "record is not an envelope"}
	}
	key, ok := schemas.ParseTradeKey(in.Key)
	if !ok {
		return &Result{Envelope: e, Corrupt: "key is not a trade key"}
	}
	it := d.interns.Get().(matching.Interner)
	defer d.interns.Put(it)
	switch e.Kind {
	case envelope.KindExpire:
		return d.expire(in, st, key, e, it)
	case envelope.KindAllege:
		return d.allege(st, e, it)
	case envelope.KindRewrite:
		return rewrite(st)
	}
	m := d.message(e)
	if m == nil || m.Key.TradeKey() != key {
		return &Result{Envelope: e, Corrupt: "envelope holds no message of this trade"}
	}
	t, readable := d.reclaim(in.Partition, key), true
	if t == nil {
		t, readable = d.load(in.Partition, st, key, it)
	}
	var r *Result
	if e.Kind != envelope.KindPoisoned || d.decidable(t, m, e, &r) {
		r = d.apply(in, st, t, m, e, it)
	}
	if !readable {
		// A value we cannot read is not ours to lose silently: count it, log
		// it; the trade started afresh (its counters continue from nothing).
		r.Corrupt, r.Table = "trade state unreadable: trade started afresh", topology.Table(d.cfg.Names.MatchGroup())
	}
	return r
}

// apply applies a message to its trade: the outputs it causes, or the
// CONFLICTING_DUPLICATE of another content under an identity the trade holds.
func (d *Decider) apply(in Input, st State, t *matching.Trade, m *schemas.Message, e *envelope.Envelope, it matching.Interner) *Result {
	prev := d.clock(in.Partition) // before this message moves it
	outs, res := t.Apply(&matching.Inbound{Msg: m, Digest: e.Digest, NetUnits: int(e.NetUnits)}, &d.engine, it)
	var recs []Record
	switch res {
	case matching.Conflict:
		// The identity stage forgot this identity (past its memory) but the
		// trade, or its tombstone, still holds another message under it.
		return d.release(e, d.reject(topology.StageMatch, e, m, schemas.ConflictingDuplicateOf(m.Sender, m.MsgId)))
	case matching.Collision:
		// Version 3: the trade key is held by a trade (or tombstone) with
		// other key fields (KEY_COLLISION, the last rule).
		return d.release(e, d.reject(topology.StageMatch, e, m, schemas.KeyCollisionOf(t.Key, &t.Keys[0], &m.Key)))
	case matching.Applied:
		outs = d.allegeAfter(t, outs, in.Timestamp)
		recs = d.autoAffirmations(recs, t.AutoAffirmation())
		b, _ := t.MarshalBinary()
		st.SetValue(b)
	case matching.Duplicate:
		// Applied before, perhaps by a run that died before its writes were
		// acknowledged: the utility's AFFs the trade does not hold yet are
		// produced again (the same bytes, an exact duplicate where they
		// did arrive).
		recs = d.autoAffirmations(recs, t.PendingAutoAffirmations(&d.engine)...)
	}
	r := &Result{Envelope: e, Records: recs, Outputs: outs, End: envelope.EventApplied, Outcome: "accepted", Matched: MatchedNew}
	d.sweep(in.Partition, st, prev, r)
	r.Market, r.Cutoff = d.cutoffOf(t)
	if res == matching.Applied && d.cfg.Decided != nil {
		d.cfg.Decided(in.Partition, t) // the value just written, decoded: the last use of t here
	}
	if res == matching.Duplicate {
		r.End, r.Outcome, r.Matched = envelope.EventReemitted, "duplicate", MatchedDuplicate
	}
	return r
}

// autoAffirmations adds to recs the utility's AFFs for AUTO investment
// managers (messages.md §5a step 4), signed with the utility's key — the
// same bytes whenever signed, so a copy produced again is an exact
// duplicate — for <ns>.inbound keyed by the utility's BIC, as the driver
// keys a message by its Sender. They are validated and applied like any
// message.
func (d *Decider) autoAffirmations(recs []Record, ds ...*schemas.Draft) []Record {
	for _, dr := range ds {
		if dr == nil || d.cfg.UtilityKey == nil {
			continue
		}
		recs = append(recs, Record{d.cfg.Names.Inbound(), dr.Sender, dr.AppendSigned(nil, d.cfg.UtilityKey)})
	}
	return recs
}

// release withdraws the identity stage's claim of a message its trade
// rejected (a rejected message does not claim its MsgId, messages.md §4):
// a Release to the identity's key on the verdicts stream, which the
// identity stage applies only while the claim is still these bytes'. A
// message the identity stage did not claim (its entry unreadable:
// KindPoisoned) has nothing to withdraw.
func (d *Decider) release(e *envelope.Envelope, r *Result) *Result {
	if e.Kind != envelope.KindAccepted && e.Kind != envelope.KindDuplicate {
		return r
	}
	r.Records = append(r.Records, Record{d.verdicts, envelope.IdentityKey(e.Sender, e.MsgId),
		envelope.Release{Digest: e.Digest, TradeKey: e.TradeKey}.Marshal()})
	return r
}

// allegeAfter is the allegement step after a message (messages.md §5a):
// with --allegement-delay 0 the trade's allegements are compared with those
// sent at once; otherwise its timer is set to the delay after the message
// reached the stage (at: its record's timestamp on <ns>.accepted), when
// anything could be sent then (Trade.MayAllege), and the table's timers
// write the trade's allegement record to <ns>.accepted once it has had no
// message for the delay (allege). Outputs after the message's.
//
// The timer is the record's time, not the clock's when it is read: a
// message applied again after a crash lost its value sets the same timer,
// so the allegement record that follows it on the partition decides as it
// did the first time (allege) and an ALG number is never given two bodies.
func (d *Decider) allegeAfter(t *matching.Trade, outs []schemas.Output, at time.Time) []schemas.Output {
	if d.cfg.AllegementDelay < 0 {
		t.AllegeAt = 0
		return append(outs, t.Allege()...)
	}
	last := max(t.AllegeAt, -t.AllegeAt) // the last timer set, if any
	if !t.MayAllege() {
		t.AllegeAt = -last
		return outs
	}
	base := d.now()
	if !at.IsZero() {
		base = at.UnixMicro()
	}
	// Later than every timer before: an allegement record names its timer
	// (allege), and no later message may set the same one (record times
	// are milliseconds; two messages can share one).
	t.AllegeAt = max(base+d.cfg.AllegementDelay.Microseconds(), last+1)
	return outs
}

// allege looks at a trade its timer made due: the allegement record the
// table's timers write to <ns>.accepted among the trade's messages
// (KindAllege), which names the timer it was written for (its Clock).
// When that timer is still the trade's (no message since it was set, and
// not alleged yet), the trade's allegements are compared with those sent
// and the differences sent, and the timer is cleared.
//
// The record's place among the trade's messages is fixed once written, and
// the timers come from the messages' record times (allegeAfter), so
// processing the partition again after a crash decides each allegement
// record as the first processing did — the same ALGs under the same
// numbers — whatever the crash lost. The value may be ahead of the record
// (its write reached the changelog, its outputs and its commit did not):
// its timer is then cleared, or a later message's (always a later one), and
// the record re-sends each receiver's last ALG (the same MsgIds), which the
// crash may have lost. (A release before this one wrote these records to
// the match loopback with the time they fired: one still there names no
// timer, re-sends the last ALGs, and the timer, read again at the restart,
// fires anew.)
func (d *Decider) allege(st State, e *envelope.Envelope, it matching.Interner) *Result {
	v := st.Value()
	if v == nil {
		return &Result{}
	}
	if tomb, _, ok := matching.Header(v); !ok || tomb {
		return &Result{}
	}
	t, err := matching.UnmarshalTrade(v, it)
	if err != nil {
		return &Result{}
	}
	if t.AllegeAt <= 0 || t.AllegeAt != e.Clock {
		// Alleged already (the timer cleared), or a message came since
		// (another timer brings the trade back). Either way this record
		// may be processed again after a crash that lost its ALGs but not
		// the value recording them (or a later message's): the value says
		// they were sent, so no later step sends them. Each receiver's
		// last ALG again (the same MsgIds).
		return &Result{Outputs: t.ReemitAllegements()}
	}
	outs := t.Allege()
	t.AllegeAt = -t.AllegeAt
	b, _ := t.MarshalBinary()
	st.SetValue(b)
	return &Result{Outputs: outs}
}

// rewrite writes the trade's state again, as it is, and decides nothing:
// the record (KindRewrite) a reader of the match changelog writes among the
// trade's messages when it skipped a former owner's late write of the trade
// (the runtime: processors/pipeline, fence.go). The late write is then no
// longer the trade's newest record on the changelog, so compaction, which
// keeps the newest record of each key, cannot leave it the trade's only one
// (docs/ARCHITECTURE.md, "Table storage", danger 3). A trade with no value
// (deleted, or never written) is deleted again: the late write would
// otherwise outlive the tombstone. Processed twice, or by an owner that
// never saw the late write, it writes the same value again: harmless.
func rewrite(st State) *Result {
	if v := st.Value(); v != nil {
		st.SetValue(bytes.Clone(v))
	} else {
		st.Delete()
	}
	return &Result{}
}

// AllegeIndex reads a match table value's allegement timer for the table's
// timers (wall clock, Unix µs; ok false: none set).
func AllegeIndex(v []byte) (at int64, ok bool) {
	at, ok = matching.ReadAllegeAt(v)
	return at, ok && at > 0
}

// message is the decoded message an envelope carries: its compact form, or
// for an envelope written before the form existed (layout v1 without the
// extension, docs/ARCHITECTURE.md "Upgrades") or in a version of it this
// build does not know, its record decoded again. Nil when neither reads.
func (d *Decider) message(e *envelope.Envelope) *schemas.Message {
	if e.Decoded != nil {
		if m, err := schemas.DecodeCompact(e.Decoded); err == nil {
			return m
		}
	}
	dec := d.decoders.Get().(*schemas.Decoder)
	m, rej := dec.Decode(e.Raw)
	d.decoders.Put(dec)
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
func (d *Decider) decidable(t *matching.Trade, m *schemas.Message, e *envelope.Envelope, r **Result) bool {
	held, ok := t.Holds(m.Sender, m.MsgId)
	switch {
	case ok && held == e.Digest:
		return true
	case ok && e.Reason == 0:
		return true
	case ok:
		// Not the held message's bytes, and invalid: its own code, as the
		// contract's order puts CONFLICTING_DUPLICATE last.
		*r = d.reject(topology.StageMatch, e, m, &schemas.Rejection{Reason: e.Reason, Detail: e.Detail})
		return false
	}
	*r = d.reject(topology.StageMatch, e, m, &schemas.Rejection{Reason: schemas.Internal,
		Detail: "the identity table entry of " + m.Sender + ":" + m.MsgId + " cannot be read (corrupt state), and its trade does not hold the message: " +
			"whether it is new, a duplicate or a conflict cannot be decided; retry it once the entry is repaired"})
	return false
}

// reclaim is key's trade as the stage last decided it, if the work queue
// still holds it (Config.Reclaim): the value the table holds, decoded.
func (d *Decider) reclaim(p int32, key schemas.TradeKey) *matching.Trade {
	if d.cfg.Reclaim == nil {
		return nil
	}
	return d.cfg.Reclaim(p, key)
}

// load returns the trade for key: decoded from the table, continued from a
// living tombstone, or new; readable is false when the value could not be
// read (the trade then starts afresh).
func (d *Decider) load(p int32, st State, key schemas.TradeKey, it matching.Interner) (t *matching.Trade, readable bool) {
	v := st.Value()
	if v == nil {
		return matching.NewTrade(key, nil), true
	}
	if tomb, at, ok := matching.Header(v); ok && tomb {
		ts, err := matching.UnmarshalTombstone(v)
		if err != nil {
			return matching.NewTrade(key, nil), true
		}
		if tb := d.cfg.Tables(topology.StageMatch, p); tb != nil && tb.Clock()-at > d.tombTTL(ts) {
			// Past its TTL, its expiry not looked at yet: gone, as ste
			// match forgets it (its key starts afresh).
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

// sweep asks, through the loopback, for every trade of this partition that
// the event-time clock has left behind by more than the retention (and every
// tombstone past its TTL) to be looked at: goka lets a callback change only
// the state of its own key, and calls one for a key by a message or a visit
// of the whole table (VisitAll), never by due time.
//
// prev is the clock before the message: when the message moved it by more
// than the retention at once, the Result says so (ClockJumpedFrom) — one
// message dated far ahead of the others (a live message sent into a
// namespace of old test data, a clock set wrong at a participant) expires
// every trade older than the retention before it, right by the contract
// (messages.md §5, Retention) but worth an operator's eye: the runtime
// warns and counts it (ste_event_time_jumps_total), the console shows it.
// The clock before is the table's, recovered with it, so the first message
// after a restart or a takeover is held to the clock the partition had.
func (d *Decider) sweep(p int32, st State, prev int64, r *Result) {
	t := d.cfg.Tables(topology.StageMatch, p)
	if t == nil {
		return
	}
	clock := t.Clock()
	r.Clock, r.ClockRead = clock, true
	if prev > 0 && clock-prev > int64(d.cfg.Retention) {
		r.ClockJumpedFrom = prev
	}
	for _, k := range t.Due(clock - 1) {
		e := &envelope.Envelope{Kind: envelope.KindExpire, Partition: -1, Offset: -1, Clock: clock}
		st.Loopback(k, e.Marshal())
	}
}

// clock is match partition p's event-time clock now (0: no table open).
func (d *Decider) clock(p int32) int64 {
	if t := d.cfg.Tables(topology.StageMatch, p); t != nil {
		return t.Clock()
	}
	return 0
}

// expire looks at a trade the clock made due: a tombstone past its TTL is
// deleted, a trade past the retention purged (a STATUS EXPIRED where one
// is due), anything else was written since and is left.
func (d *Decider) expire(in Input, st State, key schemas.TradeKey, e *envelope.Envelope, it matching.Interner) *Result {
	v := st.Value()
	if v == nil {
		return &Result{}
	}
	clock := e.Clock
	if t := d.cfg.Tables(topology.StageMatch, in.Partition); t != nil {
		clock = max(clock, t.Clock())
	}
	tomb, at, ok := matching.Header(v)
	switch {
	case !ok:
		return &Result{}
	case tomb:
		if ts, err := matching.UnmarshalTombstone(v); err != nil || clock-at > d.tombTTL(ts) {
			st.Delete()
		}
		return &Result{}
	case clock-at <= int64(d.cfg.Retention):
		return &Result{} // it moved on since it was due
	}
	t, err := matching.UnmarshalTrade(v, it)
	if err != nil {
		return &Result{}
	}
	outs, ts := t.Expire(clock)
	st.SetValue(matching.MarshalTombstone(key, ts))
	r := &Result{Envelope: &envelope.Envelope{TradeKey: key, Partition: -1, Offset: -1}, Outputs: outs,
		End: envelope.EventExpired, Outcome: "expired", Expired: ExpiredSilent}
	if len(outs) > 0 {
		r.Expired = ExpiredWithStatus
	}
	return r
}

// MatchIndex tells the trade store when each value falls due: a trade at
// Newest + retention, a tombstone at PurgedAt + TTL; the clock is the largest
// Newest (purges never remove the newest trade, so it survives restarts).
func (d *Decider) MatchIndex(v []byte) (due, watermark int64, ok bool) {
	tomb, at, ok := matching.Header(v)
	if !ok {
		return 0, 0, false
	}
	if tomb {
		ttl := int64(d.cfg.TombstoneTTL)
		if ttl < int64(d.cfg.Retention) {
			// Only then are a tombstone's flags worth reading.
			ts, _ := matching.UnmarshalTombstone(v)
			ttl = d.tombTTL(ts)
		}
		return at + ttl, at, true
	}
	return at + int64(d.cfg.Retention), at, true
}

// tombTTL is how long a tombstone lives (messages.md §5): the tombstone
// TTL, and no shorter than the retention for a trade purged while locked or
// cancelled (as matching.Book keeps them).
func (d *Decider) tombTTL(ts matching.Tombstone) int64 {
	if ts.Locked || ts.Cancelled {
		return max(int64(d.cfg.TombstoneTTL), int64(d.cfg.Retention))
	}
	return int64(d.cfg.TombstoneTTL)
}

// cutoffOf is a trade's market and cutoff (Unix µs) by the reference data
// now, for its audit events.
func (d *Decider) cutoffOf(t *matching.Trade) (market string, cutoff int64) {
	r := t.Risk()
	m, at := d.cfg.Validator.Refdata().CutoffOf(r.Market, r.TradeDate)
	if at.IsZero() {
		return m, 0
	}
	return m, at.UnixMicro()
}
