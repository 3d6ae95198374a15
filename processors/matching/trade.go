package matching

import (
	"hash/fnv"
	"slices"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/decimal"
	"github.com/ste-utility/ste/schemas/refdata"
)

// Trade is the state of one trade: its accepted messages (compact), the
// output counters, and what was last said about it. It is the value of the
// matching table on Kafka and of Book in `ste match`.
//
// Everything the outputs say is decided by assess (lifecycle.go) from
// Entries alone; the rest of the state is what was last sent, so that the
// next evaluation sends only what changed and a duplicate re-emits what
// stands under the same MsgIds.
type Trade struct {
	Key schemas.TradeKey
	// Keys holds the trade's key fields: one tuple, from its first message
	// (or its tombstone); none before. A message whose key fields differ is
	// another trade's, rejected KEY_COLLISION (Apply's Collision): a trade
	// never holds two tuples (a state of layout v1 that did is read as the
	// first tuple's trade, codec.go).
	Keys    []schemas.Key
	Entries []Entry // every accepted message, in arrival order (never removed)
	Newest  int64   // newest Created among Entries: retention runs from it

	Version    int    // last CLS version emitted, 0 for none
	Live       bool   // CLS Version stands (not cancelled)
	LiveDigest Digest // content of the live CLS, Version excluded
	StatusN    int    // status changes so far (the n of ST:<key>:<n>:<receiver>)
	Last       LastStatus

	// Version 3 (messages.md §5a, §6).
	Locked    bool // at the last evaluation: affirmed and not cancelled (step 6)
	Cancelled bool // at the last evaluation: a CXL accepted (step 2)
	// TombCancelled: the trade continues the tombstone of a cancelled trade;
	// it is cancelled whatever it holds, its messages are ACKed and never in
	// force, and it says nothing else (section 5 "Retention").
	TombCancelled bool
	// Standing is the indices in Entries of the messages in force while a
	// match stands — the set the live CLS and the standing CNF describe —
	// and nil when none stands.
	Standing []int32
	CNF      CNFState
	BLK      BLKState
	ALG      []ALGState // by Receiver
	// AutoSent are the MsgIds of the AFFs the utility sent for the trade
	// (section 5a step 4): none is sent twice, accepted or rejected.
	AutoSent []string

	// What the Kafka path keeps to redo, after a crash, what a message
	// caused (redeliver.go); `ste match` never reads it.
	//
	// AutoPending are the utility's AFFs sent and not yet held by the
	// trade, with what rebuilds their bytes.
	AutoPending []AutoPending
	// Purged are prints of the messages of this key's purged trades, while
	// their tombstone (and then this trade and its own) lives: a copy of
	// one is a duplicate or a conflict, never a new message (messages.md §4).
	Purged []Print
	// AllegeAt is the trade's allegement timer: when positive, when (wall
	// clock, Unix µs) its allegements are to be compared with what was last
	// sent (Allege) — its last message's record time plus the allegement
	// delay, and always later than any timer the trade had before, so that
	// a timer names one moment of the trade's life; negative when no timer
	// is set, minus the last one set; 0 when none was ever set. The Kafka
	// path sets and clears it (processors/stages: allegeAfter, allege); it
	// is kept in the timeliness tail, where the table's timers read it
	// without decoding the trade.
	AllegeAt int64

	auto *schemas.Draft // the AFF the last Apply asks the caller to send
	// assessed is the assessment the last Apply settled the trade with
	// (nil: none since). Apply changes the entries and settle reads them
	// once; nothing after settle changes what the assessment reads (the
	// entries, the key tuple, TombCancelled), so the work queue's summary
	// of a decided trade reuses it (QueueFacts) instead of assessing the
	// trade again.
	assessed *assessment
}

// LastStatus is the last STATUS sent, kept so that a re-emission repeats it
// with the same MsgId and the same content, and so that the next
// evaluation knows whether the STATUS changed.
type LastStatus struct {
	Status schemas.Status
	// Criteria are the failing criteria of a MISMATCHED, or those a MATCHED
	// (or a version 3 value) held only within tolerance (state layout v1
	// wrote none for a MATCHED, which reads as "none within tolerance").
	Criteria []uint8
	// Body is the full (Broker's) body, nil when it is the bare one
	// (TradeKey, TradeRef, Status): message lists cannot be recomputed once
	// messages change.
	Body []byte
	To   []string // receivers
	// Bodies[i] is To[i]'s body where it differs from Body (a Custodian's,
	// its accounts' tokens only); nil entries, or a nil slice, mean Body.
	Bodies [][]byte
	// Requests are the CancelRequest elements of Body (a MATCHED or
	// MISMATCHED is sent again when they change).
	Requests []byte
}

// CNFState is the last confirmation (messages.md §6 CNF).
type CNFState struct {
	N      int  // the count c of the last CNF NEW, 0 for none
	Live   bool // it stands (not cancelled)
	Digest schemas.MatchDigest
	To     []string // its receivers
	// Gone are the receivers of earlier CNFs that are not receivers of
	// this one, each with the CNF whose CANCEL was the last it was sent
	// (a duplicate re-sends it, ReemitHistory).
	Gone []CNFGone
}

// CNFGone is a receiver whose last CNF was the CANCEL of confirmation N.
type CNFGone struct {
	Receiver string
	N        int
	Digest   schemas.MatchDigest
}

// BLKState is the last BLK sent.
type BLKState struct {
	N      int
	Status schemas.BlockStatus
	Body   []byte // nil when none was sent
}

// ALGState is what a receiver was last sent of the trade's allegements.
type ALGState struct {
	Receiver string
	N        int    // its ALG records so far, NEW and CANCEL
	NewN     int    // the n of its last ALG NEW
	Body     []byte // the last ALG NEW's body while it stands (the last record was a NEW); nil otherwise
}

// Config is what the engine needs beyond the messages.
type Config struct {
	// UtilityBIC is the Receiver of CLS outputs and the Sender of the AFFs
	// the utility sends for AUTO investment managers. Default
	// refdata.DefaultUtilityBIC.
	UtilityBIC string
	// ReemitHistory makes a duplicate re-emit, beyond what the contract asks
	// (the ACK, and the current CLS, STATUS and CNF of a matched trade), the
	// CANCELs of every superseded CLS version, the last CNF CANCEL to each
	// receiver whose last CNF was one, the current STATUS of an unmatched
	// trade, the last BLK and each receiver's last ALG. The Kafka
	// path sets it: after a crash its state may be ahead of its outputs, so
	// a replayed message must restore everything it may have caused.
	// Default false (`ste match` follows the contract to the letter).
	ReemitHistory bool
	// Tolerances of criteria 7 and 15 (reference data tolerances.csv), read
	// at every evaluation: the rows the processing instance has read by then.
	// Nil: none, values must be equal.
	Tolerances Tolerances
	// Affirmation says which investment managers are in AUTO mode
	// (affirmation.csv, messages.md §8), read at every evaluation. Nil:
	// every one is MANUAL, and the engine never asks for an AFF.
	Affirmation AffirmationModes
}

// Tolerances answers the largest difference criterion 7 (price) or 15 (net
// amount) allows between values in a currency, 0 for none (section 5).
// *refdata.Set and refdata.Current implement it; it must be safe for
// concurrent use by every partition of an instance.
type Tolerances interface {
	Tolerance(criterion int, ccy string) decimal.Dec
}

// AffirmationModes answers whether an investment manager's affirmation mode
// is AUTO (messages.md §8 affirmation.csv; MANUAL, the default, otherwise).
// Reference data implements it; it must be safe for concurrent use.
type AffirmationModes interface {
	AutoAffirms(invMgr string) bool
}

func (c *Config) utility() string {
	if c.UtilityBIC == "" {
		return refdata.DefaultUtilityBIC
	}
	return c.UtilityBIC
}

// Result says what happened to an inbound message at its trade.
type Result uint8

const (
	Applied   Result = iota + 1 // a new message: the trade changed
	Duplicate                   // an exact duplicate: outputs re-emitted, nothing changed
	Conflict                    // same identity, other bytes: the caller rejects it (CONFLICTING_DUPLICATE)
	Collision                   // other key fields under the trade's key: the caller rejects it (KEY_COLLISION)
)

// NewTrade starts a trade; a tombstone of a purged trade with the same key
// carries its counters (and its key fields) over so that no output MsgId
// gets a second content, and a cancelled trade's tombstone keeps the trade
// cancelled.
func NewTrade(key schemas.TradeKey, tomb *Tombstone) *Trade {
	t := &Trade{Key: key}
	if tomb != nil {
		t.Version, t.StatusN = tomb.Version, tomb.StatusN
		t.CNF.N, t.BLK.N = tomb.CNFN, tomb.BLKN
		for _, a := range tomb.ALG {
			t.ALG = append(t.ALG, ALGState{Receiver: a.Receiver, N: a.N})
		}
		if tomb.Key != (schemas.Key{}) {
			t.Keys = []schemas.Key{tomb.Key}
		}
		t.TombCancelled = tomb.Cancelled
		t.Cancelled = tomb.Cancelled
		t.Purged = tomb.Purged
	}
	return t
}

// Holds returns the digest of the message the trade holds under an identity.
func (t *Trade) Holds(sender, msgId string) (Digest, bool) {
	for i := range t.Entries {
		if e := &t.Entries[i]; e.MsgId == msgId && e.Sender == sender {
			return e.Digest, true
		}
	}
	return Digest{}, false
}

// Collides reports whether a message with key fields k belongs to another
// trade than the one holding this trade key (KEY_COLLISION).
func (t *Trade) Collides(k schemas.Key) bool { return len(t.Keys) > 0 && t.Keys[0] != k }

// Apply adds an accepted message to the trade and returns the outputs it
// causes, the ACK first. After it, AutoAffirmation says whether the utility
// must send an AFF for the trade.
func (t *Trade) Apply(in *Inbound, cfg *Config, it Interner) ([]schemas.Output, Result) {
	t.assessed = nil
	m := in.Msg
	t.auto = nil
	for i := range t.Entries {
		e := &t.Entries[i]
		if e.MsgId == m.MsgId && e.Sender == m.Sender {
			if e.Digest == in.Digest {
				return t.Reemit(e, cfg), Duplicate
			}
			return nil, Conflict
		}
	}
	if d, ok := t.purged(m.Sender, m.MsgId); ok {
		// A message of a purged trade of this key, while its tombstone
		// lives: its ACK again (as Book.Duplicate answers), or a conflict.
		if d == in.Digest {
			return []schemas.Output{ack(m.Sender, m.MsgId)}, Duplicate
		}
		return nil, Conflict
	}
	if t.Collides(m.Key) {
		return nil, Collision
	}
	if len(t.Keys) == 0 {
		k := m.Key
		k.TradeRef, k.TradeDate, k.ISIN = clone(k.TradeRef), clone(k.TradeDate), clone(k.ISIN)
		k.Side, k.Broker, k.InvMgr = it.Intern(k.Side), it.Intern(k.Broker), it.Intern(k.InvMgr)
		t.Keys = []schemas.Key{k}
	}
	t.Entries = append(t.Entries, newEntry(in, it))
	t.Newest = max(t.Newest, m.Created)
	if m.Sender == cfg.utility() {
		t.held(m.MsgId)
	}
	out := []schemas.Output{ack(m.Sender, m.MsgId)}
	return t.settle(out, cfg), Applied
}

// AutoAffirmation returns, once, the AFF the last Apply decided the utility
// sends on the investment manager's behalf (section 5a step 4), unsigned:
// the caller signs it with the utility's key (Draft.AppendSigned: the same
// bytes whenever it is signed again) and processes it as an inbound message
// — `ste match` right after the line that made the trade match, the Kafka
// path by producing it to <ns>.inbound. Nil when none is due.
func (t *Trade) AutoAffirmation() *schemas.Draft {
	d := t.auto
	t.auto = nil
	return d
}

// settle re-evaluates the trade (section 5a, steps 1 to 11) and emits what
// changed: compensation of a live CLS and a new version, CNF, STATUS, BLK.
// Order among the records of one message: ACK, CLS CANCEL, CNF CANCELs, CLS
// NEW, STATUSes, CNF NEWs, BLKs (version 2's records keep their order).
func (t *Trade) settle(out []schemas.Output, cfg *Config) []schemas.Output {
	if t.TombCancelled {
		return out // cancelled before its purge: nothing in force, nothing to say
	}
	a := assess(t, cfg.Tolerances)
	t.assessed = a
	t.Locked, t.Cancelled = a.locked, a.cancelled
	matched := a.matched()
	var content Digest
	if matched {
		content = contentDigest(schemas.CLSBody(a.match.ev.cls)) // Version 0: the content without its version
	}
	if t.Live && (!matched || content != t.LiveDigest) {
		out = append(out, clsCancel(t.Key, t.Version, cfg))
		t.Live = false
	}
	if t.CNF.Live && (!matched || a.match.digest != t.CNF.Digest) {
		out = t.cnfCancel(out)
	}
	clsNew := false
	if matched && !t.Live {
		t.Version++
		t.Live, t.LiveDigest = true, content
		c := *a.match.ev.cls
		c.Version = t.Version
		out = append(out, clsNewOutput(&c, cfg))
		clsNew = true
	}
	t.Standing = nil
	if matched {
		t.Standing = t.indices(a.match.set)
	}
	out = t.status(out, a, clsNew)
	if matched && !t.CNF.Live {
		out = t.cnfNew(out, a)
	}
	out = t.block(out, a)
	t.auto = t.autoAffirmation(a, cfg)
	return out
}

// indices are the positions in Entries of a set of its entries, in order.
func (t *Trade) indices(set []*Entry) []int32 {
	in := make(map[*Entry]bool, len(set))
	for _, e := range set {
		in[e] = true
	}
	out := make([]int32, 0, len(set))
	for i := range t.Entries {
		if in[&t.Entries[i]] {
			out = append(out, int32(i))
		}
	}
	return out
}

// standingSet is the set Standing names.
func (t *Trade) standingSet() []*Entry {
	out := make([]*Entry, 0, len(t.Standing))
	for _, i := range t.Standing {
		if int(i) < len(t.Entries) {
			out = append(out, &t.Entries[i])
		}
	}
	return out
}

// ---- STATUS (messages.md §6, section 5a step 10) ----

// status sends a STATUS when section 5 and section 6 say so: with every CLS
// NEW (exactly one); when the value changes to, from or between version 3
// values, or the Body of a version 3 value changes; version 2's rules for
// MATCHED (criteria held within tolerance), MISMATCHED (failing criteria)
// and UNMATCHED; and when the CancelRequest elements of a MATCHED or
// MISMATCHED change. A party that joins while a version 3 value stands
// receives it.
func (t *Trade) status(out []schemas.Output, a *assessment, clsNew bool) []schemas.Output {
	cur, prev := a.value, t.Last.Status
	_, crit := a.statusCriteria(cur)
	requests := a.statusRequests(cur)
	var full []byte
	if clsNew || cur.IsV3() || prev.IsV3() {
		full, _, _ = a.statusBody(cur, "")
	}
	var emit bool
	switch {
	case clsNew:
		emit = true
	case cur.IsV3() || prev.IsV3():
		emit = cur != prev || !bytesEqual(full, t.lastBody())
	case cur == schemas.Matched, cur == schemas.Mismatched:
		emit = cur != prev || !slices.Equal(crit, t.Last.Criteria) || !bytesEqual(requests, t.Last.Requests)
	default: // not complete by count
		emit = prev == schemas.Matched || prev == schemas.Mismatched
	}
	if !emit {
		if prev.IsV3() {
			out = t.statusToNewParties(out, a)
		}
		return out
	}
	s := cur
	if s == 0 {
		s = schemas.Unmatched
	}
	if full == nil || s != cur {
		full, crit, requests = a.statusBody(s, "")
	}
	t.StatusN++
	t.Last = LastStatus{Status: s, Criteria: crit, Requests: requests}
	if !bare(full) {
		t.Last.Body = full
	}
	for _, r := range a.parties {
		out = t.statusTo(out, a, r, full)
	}
	return out
}

// statusTo sends the last STATUS (t.Last, count t.StatusN) to r, with its
// own body when r is a Custodian, and remembers it as a receiver.
func (t *Trade) statusTo(out []schemas.Output, a *assessment, r string, full []byte) []schemas.Output {
	body := full
	var own []byte
	if a.isCustodian(r) {
		if b, _, _ := a.statusBody(t.Last.Status, r); !bytesEqual(b, full) {
			body, own = b, b
		}
	}
	if own != nil && t.Last.Bodies == nil {
		t.Last.Bodies = make([][]byte, len(t.Last.To), len(t.Last.To)+1)
	}
	t.Last.To = append(t.Last.To, r)
	if t.Last.Bodies != nil {
		t.Last.Bodies = append(t.Last.Bodies, own)
	}
	return append(out, statusRecord(t.Key, t.StatusN, r, body))
}

// statusToNewParties: every party that is not a receiver of the standing
// STATUS (a version 3 value) receives it, with the same n.
func (t *Trade) statusToNewParties(out []schemas.Output, a *assessment) []schemas.Output {
	for _, p := range a.parties {
		if !slices.Contains(t.Last.To, p) {
			out = t.statusTo(out, a, p, t.lastBody())
		}
	}
	return out
}

func statusRecord(tk schemas.TradeKey, n int, r string, body []byte) schemas.Output {
	return schemas.Output{Type: schemas.STATUS, Function: schemas.NEW, MsgId: schemas.StatusId(tk, n, r),
		Receiver: r, Key: r, Body: body}
}

// appendStatus re-sends the last STATUS to its receivers, each with the
// body it was sent.
func (t *Trade) appendStatus(out []schemas.Output) []schemas.Output {
	full := t.lastBody()
	for i, r := range t.Last.To {
		body := full
		if i < len(t.Last.Bodies) && t.Last.Bodies[i] != nil {
			body = t.Last.Bodies[i]
		}
		out = append(out, statusRecord(t.Key, t.StatusN, r, body))
	}
	return out
}

func (t *Trade) lastBody() []byte {
	if t.Last.Body != nil {
		return t.Last.Body
	}
	if t.Last.Status == 0 {
		return nil
	}
	return schemas.StatusBody(t.Key, t.Keys[0].TradeRef, t.Last.Status, nil)
}

// bare reports whether a STATUS body holds only TradeKey, TradeRef and
// Status (the one lastBody rebuilds).
func bare(body []byte) bool {
	const end = "</Status>"
	return len(body) >= len(end) && string(body[len(body)-len(end):]) == end
}

func bytesEqual(a, b []byte) bool { return string(a) == string(b) }

// statusBody is the Body of a STATUS of value s as the assessment gives it:
// the full one (custodian "") or a Custodian's, whose token lists hold its
// accounts' messages only. Also the criteria numbers of its Discrepancy or
// Tolerance elements, and its CancelRequest elements.
func (a *assessment) statusBody(s schemas.Status, custodian string) (body []byte, crit []uint8, requests []byte) {
	ds, crit := a.statusCriteria(s)
	filter := func(toks []string) []string {
		if custodian == "" {
			return toks
		}
		return a.ofCustodian(custodian, toks)
	}
	if custodian != "" && ds != nil {
		own := make([]schemas.Discrepancy, len(ds))
		for i, d := range ds {
			own[i] = schemas.Discrepancy{Criterion: d.Criterion, Tokens: filter(d.Tokens)}
		}
		ds = own
	}
	v := &schemas.StatusV3{}
	switch s {
	case schemas.Affirmed, schemas.ChangePending, schemas.CancelPending:
		v.MatchDigest = a.agreement.c.hex
	case schemas.AffirmRejected:
		v.MatchDigest = a.match.hex
		v.RejectReasons = a.rejectReasons
	}
	if s == schemas.ChangePending || s == schemas.CancelPending && len(a.pending) > 0 {
		v.HasPending, v.Pending = true, filter(tokens(a.pending))
	}
	if p := a.proposal; p != nil && (s == schemas.ChangePending || s == schemas.CancelPending) {
		v.Proposal = &schemas.Proposal{Digest: p.hex, Tokens: filter(p.tokens)}
	}
	if s == schemas.Cancelled {
		v.HasCancelledBy = true
		for _, r := range a.requests {
			if r.state == requestAccepted {
				v.CancelledBy = append(v.CancelledBy, r.cxl.Token())
				for _, x := range r.answers {
					v.CancelledBy = append(v.CancelledBy, x.Token())
				}
			}
		}
		slices.Sort(v.CancelledBy)
		v.CancelledBy = slices.Compact(v.CancelledBy)
	}
	v.CancelRequests = a.cancelRequests(s)
	requests = schemas.AppendCancelRequests(nil, v.CancelRequests)
	return schemas.StatusBodyV3(a.t.Key, a.key.TradeRef, s, ds, v), crit, requests
}

// statusCriteria are the Discrepancy (MISMATCHED) or Tolerance elements of
// a STATUS of value s, and their criteria numbers.
func (a *assessment) statusCriteria(s schemas.Status) ([]schemas.Discrepancy, []uint8) {
	var ds []schemas.Discrepancy
	switch s {
	case schemas.Mismatched:
		ds = a.match.ev.failing
	case schemas.Matched, schemas.Affirmed, schemas.AffirmRejected, schemas.ChangePending, schemas.CancelPending:
		ds = a.match.ev.within
	}
	return ds, criteriaOf(ds)
}

// cancelRequests are the CancelRequest elements of a STATUS of value s: one
// per CXL not accepted, by token, on every value but CANCELLED, EXPIRED and
// UNMATCHED.
func (a *assessment) cancelRequests(s schemas.Status) []schemas.CancelRequest {
	switch s {
	case schemas.Cancelled, schemas.Expired, schemas.Unmatched:
		return nil
	}
	var crs []schemas.CancelRequest
	for _, r := range a.requests {
		if r.state != requestAccepted {
			crs = append(crs, schemas.CancelRequest{Token: r.cxl.Token(), State: r.state.String()})
		}
	}
	return crs
}

// statusRequests are those elements written.
func (a *assessment) statusRequests(s schemas.Status) []byte {
	if len(a.requests) == 0 {
		return nil
	}
	return schemas.AppendCancelRequests(nil, a.cancelRequests(s))
}

// ---- CNF (messages.md §6) ----

// cnfNew confirms the standing digest to each party: a new count c.
func (t *Trade) cnfNew(out []schemas.Output, a *assessment) []schemas.Output {
	gone := t.cnfGone(a.parties)
	t.CNF = CNFState{N: t.CNF.N + 1, Live: true, Digest: a.match.digest, To: a.parties, Gone: gone}
	return t.appendCNF(out, a.match.ev.cls, a.match.tokens)
}

// appendCNF writes the standing CNF NEW to each of its receivers.
func (t *Trade) appendCNF(out []schemas.Output, c *schemas.CLSContent, toks []string) []schemas.Output {
	hex := t.CNF.Digest.String()
	ps := principals(t.Keys[0])
	for _, r := range t.CNF.To {
		custodian := r
		if slices.Contains(ps, r) {
			custodian = ""
		}
		out = append(out, schemas.Output{Type: schemas.CNF, Function: schemas.NEW, MsgId: schemas.CNFId(t.Key, t.CNF.N, r),
			Receiver: r, Key: r, Body: schemas.CNFBody(c, hex, custodian, toks)})
	}
	return out
}

// cnfCancel cancels the standing CNF to every receiver of its NEW.
func (t *Trade) cnfCancel(out []schemas.Output) []schemas.Output {
	body := schemas.CNFCancelBody(t.Key, t.CNF.Digest.String())
	for _, r := range t.CNF.To {
		out = append(out, schemas.Output{Type: schemas.CNF, Function: schemas.CANCEL,
			MsgId: schemas.CNFCancelId(t.Key, t.CNF.N, r), Receiver: r, Key: r,
			RelatedMsgId: schemas.CNFId(t.Key, t.CNF.N, r), Body: body})
	}
	t.CNF.Live = false
	return out
}

// ---- BLK (section 5a "Block status") ----

// block sends the standing block status to the Broker and the InvMgr when
// its Body differs from the last BLK sent, and BLOCK_INCOMPLETE when none
// stands any more while the last BLK sent had another value.
func (t *Trade) block(out []schemas.Output, a *assessment) []schemas.Output {
	b := a.blockOf()
	st := b.status
	switch {
	case st != 0:
	case t.BLK.Body != nil && t.BLK.Status != schemas.BlockIncomplete:
		st = schemas.BlockIncomplete
	default:
		return out
	}
	body := schemas.BLKBody(t.Key, a.key.TradeRef, st, b.ds)
	if bytesEqual(body, t.BLK.Body) {
		return out
	}
	t.BLK = BLKState{N: t.BLK.N + 1, Status: st, Body: body}
	return t.appendBLK(out)
}

func (t *Trade) appendBLK(out []schemas.Output) []schemas.Output {
	for _, r := range principals(t.Keys[0]) {
		out = append(out, schemas.Output{Type: schemas.BLK, Function: schemas.NEW, MsgId: schemas.BLKId(t.Key, t.BLK.N, r),
			Receiver: r, Key: r, Body: t.BLK.Body})
	}
	return out
}

// ---- The utility's AFF (section 5a step 4) ----

// MaxAffirms is the most tokens an AFF's Affirms holds (messages.md §3a).
const MaxAffirms = 1000

// autoAffirmation decides the AFF the utility sends for an investment
// manager in AUTO mode: when the trade is matched, not locked, not
// cancelled and not rejected on the set in force (status value MATCHED),
// the utility has not sent this MsgId before (accepted or not), and the AFF
// keeps within the limits of sections 2 and 3a. A trade whose Broker is its
// InvMgr has no counterparty: its AFFs are NOT_AUTHORISED, so none is sent.
func (t *Trade) autoAffirmation(a *assessment, cfg *Config) *schemas.Draft {
	k := a.key
	if cfg.Affirmation == nil || a.value != schemas.Matched || k.Broker == k.InvMgr || !cfg.Affirmation.AutoAffirms(k.InvMgr) {
		return nil
	}
	c := a.match
	if len(c.tokens) > MaxAffirms {
		return nil
	}
	sender, id := cfg.utility(), schemas.AutoAFFId(t.Key, c.hex)
	if slices.Contains(t.AutoSent, id) || a.identity(sender, id) != nil {
		return nil
	}
	d := AutoAFF(k, sender, id, c.ev.cls.MatchedAt, c.hex, c.tokens)
	const sigLen = 88 // 64 bytes, standard base64 with padding
	if len(d.AppendSigned(nil, nil))+sigLen > schemas.MaxRecord {
		return nil
	}
	t.AutoSent = append(t.AutoSent, id)
	t.AutoPending = append(t.AutoPending, AutoPending{MsgId: id, MatchedAt: c.ev.cls.MatchedAt, Digest: c.digest,
		Set: t.indices(c.set)})
	return d
}

// AutoAFF is the utility's AFF for an AUTO investment manager: MsgType AFF,
// Function NEW, Sender the utility, Created the matched set's MatchedAt
// (written as every output timestamp), the trade's key fields, Decision
// AFFIRM, MatchDigest the set's digest, Affirms its tokens in byte order,
// no Amends. The same arguments give the same bytes.
func AutoAFF(k schemas.Key, utility, msgId string, matchedAt int64, digest string, toks []string) *schemas.Draft {
	body := []schemas.Pair{{Name: "TradeRef", Value: k.TradeRef}, {Name: "TradeDate", Value: k.TradeDate},
		{Name: "ISIN", Value: k.ISIN}, {Name: "Side", Value: k.Side}, {Name: "Broker", Value: k.Broker},
		{Name: "InvMgr", Value: k.InvMgr}, {Name: "Decision", Value: schemas.AFFIRM.String()},
		{Name: "MatchDigest", Value: digest}, {Name: "Affirms", Value: joinTokens(toks)}}
	return &schemas.Draft{MsgId: msgId, MsgType: schemas.AFF.String(), Function: schemas.NEW.String(), Sender: utility,
		Created: schemas.FormatTimestamp(matchedAt), Body: body}
}

func joinTokens(toks []string) string {
	n := 0
	for _, t := range toks {
		n += len(t) + 1
	}
	b := make([]byte, 0, n)
	for i, t := range toks {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, t...)
	}
	return string(b)
}

// ---- Duplicates, expiry ----

// Reemit answers an exact duplicate of e: the same ACK, and while a match
// stands the trade's current CLS, STATUS and CNF (plus, with ReemitHistory,
// the superseded versions' CANCELs, the current STATUS whatever it is, the
// last BLK and each receiver's last ALG).
func (t *Trade) Reemit(e *Entry, cfg *Config) []schemas.Output {
	out := []schemas.Output{ack(e.Sender, e.MsgId)}
	if cfg.ReemitHistory {
		for v := 1; v < t.Version || (v == t.Version && !t.Live); v++ {
			out = append(out, clsCancel(t.Key, v, cfg))
		}
		out = t.appendCNFCancels(out)
	}
	var c *schemas.CLSContent
	var set []*Entry
	if len(t.Standing) > 0 && len(t.Keys) > 0 {
		set = t.standingSet()
		c = clsOf(t, newView(set, nil)) // the CLS content does not depend on tolerances
	}
	if t.Live && c != nil {
		cv := *c
		cv.Version = t.Version
		out = append(out, clsNewOutput(&cv, cfg))
	}
	if t.Last.Status != 0 && (t.Live || cfg.ReemitHistory) {
		out = t.appendStatus(out)
	}
	if t.CNF.Live && c != nil {
		out = t.appendCNF(out, c, tokens(set))
	}
	if cfg.ReemitHistory {
		if t.BLK.Body != nil {
			out = t.appendBLK(out)
		}
		out = append(out, t.ReemitAllegements()...)
	}
	return out
}

// Tombstone is what a purged trade leaves (section 5 "Retention"): its
// counters, so that a later message for the same key continues them, its
// key fields (KEY_COLLISION) and whether it was cancelled (a message of a
// cancelled trade is never in force while the tombstone lives).
type Tombstone struct {
	Version  int
	StatusN  int
	PurgedAt int64 // event time of the purge

	// Version 3 (state layout v2; a v1 tombstone has none of these).
	Key       schemas.Key // zero when unknown
	CNFN      int
	BLKN      int
	ALG       []ALGCount // each receiver's ALG count
	Cancelled bool
	Locked    bool // purged while locked: lives no shorter than the retention
	// Purged are prints of the messages of the trade (and of the key's
	// earlier purged trades it continued), remembered while the tombstone
	// lives (messages.md §4).
	Purged []Print
}

// ALGCount is a receiver's ALG count kept by a tombstone.
type ALGCount struct {
	Receiver string
	N        int
}

// Expire purges the trade: a STATUS EXPIRED to its parties if it is not
// matched, not cancelled and still has messages in force; nothing for a
// matched or locked trade (its CLS and CNF stand) or a cancelled one; and
// an ALG CANCEL for every standing allegement.
func (t *Trade) Expire(now int64) ([]schemas.Output, Tombstone) {
	var out []schemas.Output
	if !t.Live && !t.Cancelled && !t.TombCancelled && len(t.Keys) > 0 {
		a := &assessment{t: t, key: t.Keys[0]}
		a.unlockedView()
		if len(a.f0) > 0 {
			a.inForce = a.f0
			a.partiesOf()
			t.StatusN++
			t.Last = LastStatus{Status: schemas.Expired}
			full := t.lastBody()
			for _, r := range a.parties {
				out = t.statusTo(out, a, r, full)
			}
		}
	}
	out = append(out, t.withdrawAllegements()...)
	return out, t.Tombstone(now)
}

// Tombstone is what the trade leaves when purged at now.
func (t *Trade) Tombstone(now int64) Tombstone {
	ts := Tombstone{Version: t.Version, StatusN: t.StatusN, PurgedAt: now, CNFN: t.CNF.N, BLKN: t.BLK.N,
		Cancelled: t.Cancelled || t.TombCancelled, Locked: t.Locked}
	if len(t.Keys) > 0 {
		ts.Key = t.Keys[0]
	}
	for _, s := range t.ALG {
		if s.N > 0 {
			ts.ALG = append(ts.ALG, ALGCount{s.Receiver, s.N})
		}
	}
	ts.Purged = t.prints()
	return ts
}

// Matched reports whether the trade's CLS stands; Mismatched whether the last
// status says MISMATCHED. Together they are the "final outcome" of a trade.
func (t *Trade) Matched() bool    { return t.Live }
func (t *Trade) Mismatched() bool { return !t.Live && t.Last.Status == schemas.Mismatched }

func criteriaOf(ds []schemas.Discrepancy) []uint8 {
	var cs []uint8
	for _, d := range ds {
		cs = append(cs, uint8(d.Criterion))
	}
	return cs
}

func contentDigest(body []byte) Digest {
	h := fnv.New128a()
	h.Write(body)
	var d Digest
	h.Sum(d[:0])
	return d
}

func ack(sender, msgId string) schemas.Output {
	return schemas.Output{Type: schemas.ACK, Function: schemas.NEW, MsgId: schemas.ACKId(sender, msgId),
		Receiver: sender, RelatedMsgId: msgId, Key: sender, Body: schemas.ACKBody(msgId)}
}

func clsNewOutput(c *schemas.CLSContent, cfg *Config) schemas.Output {
	return schemas.Output{Type: schemas.CLS, Function: schemas.NEW, MsgId: schemas.CLSId(c.TradeKey, c.Version),
		Receiver: cfg.utility(), Key: c.TradeKey.String(), Body: schemas.CLSBody(c)}
}

func clsCancel(tk schemas.TradeKey, v int, cfg *Config) schemas.Output {
	return schemas.Output{Type: schemas.CLS, Function: schemas.CANCEL, MsgId: schemas.CLSCancelId(tk, v),
		Receiver: cfg.utility(), RelatedMsgId: schemas.CLSId(tk, v), Key: tk.String(),
		Body: schemas.CLSCancelBody(tk, v)}
}
