package query

import (
	"cmp"
	"errors"
	"hash/maphash"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/refdata"
)

// The work queue (gateway.md v2 §4c): each participant's own trades, a
// page at a time, by TradeDate then trade key, filtered by status,
// lifecycle, what the participant owes and time to cutoff. Each match
// partition's index (index.go) keeps, for each party, its trades' record
// numbers ordered by (TradeDate, trade key), and in each trade's record
// what a queue entry shows and the filters read — summarised from the
// engine's view of the trade (matching.QueueFacts: what matching.View, the
// same the trade view of §4 is rendered from, says), so that an entry and
// the trade's view agree.
//
// Summarising a trade means decoding and evaluating it (tens of µs), too
// much to add to every write of the match stage. So the storage's writes
// only mark the trade dirty (Partition.Put: a map insert), and the trades
// marked are summarised after a short delay (drainDelay), off the stage's
// path and once for all the writes of that delay — a trade's messages
// arrive close together. A question drains what is still marked in the
// partitions it reads before it answers, so an answer reflects every write
// made before it was asked, as a point lookup does; the delay bounds what
// is left to drain. The index is built from the whole table once the
// partition is recovered (like the TradeRef index); until that build has
// run, a question of the partition gets ErrRecovering.

// QueueStatuses and QueueLifecycles are the values of the status and
// lifecycle filters, as gateway.md §4 names them.
var (
	QueueStatuses   = []string{"INCOMPLETE", "MATCHED", "MISMATCHED"}
	QueueLifecycles = []string{"NONE", "AFFIRMED", "AFFIRM_REJECTED", "CHANGE_PENDING", "CANCEL_PENDING", "CANCELLED"}
)

// MaxQueueLimit bounds a page of the work queue (gateway.md §4c).
const MaxQueueLimit = 500

// QueuePos is a position in a work queue: after the trade of this
// TradeDate and key. The order is on values a trade never changes.
type QueuePos struct {
	Date date.Date
	Key  schemas.TradeKey
}

// Compare orders positions by TradeDate, then trade key.
func (p QueuePos) Compare(q QueuePos) int {
	return cmp.Or(cmp.Compare(p.Date, q.Date), cmp.Compare(p.Key, q.Key))
}

// QueueQuery is a participant's question of its work queue.
type QueueQuery struct {
	Party     string   // required: only its trades are examined
	Date      string   // TradeDate (YYYY-MM-DD); "" for any
	Status    []string // of QueueStatuses; none for any
	Lifecycle []string // of QueueLifecycles; none for any
	Owes      bool     // only trades where Party is alleged an item
	AtRisk    bool     // only trades at risk
	After     *QueuePos
	Limit     int // 1..MaxQueueLimit
	// Now and Lead are what at_risk and past_cutoff are read against (the
	// asker's wall clock and at-risk lead).
	Now  time.Time
	Lead time.Duration
}

// ErrBadQueue: a question of the work queue out of its form.
var ErrBadQueue = errors.New("work queue: a parameter out of its form")

// QueueOwed is an item a party owes, without its `from` (it is the party).
type QueueOwed struct {
	MsgType string `json:"msg_type"`
	Account string `json:"account,omitempty"`
	Count   int    `json:"count,omitempty"`
}

// QueueTrade is one trade of a party's work queue as gateway.md §4c lists
// it, as that party sees it.
type QueueTrade struct {
	TradeKey        string      `json:"trade_key"`
	TradeRef        string      `json:"trade_ref"`
	TradeDate       string      `json:"trade_date"`
	ISIN            string      `json:"isin"`
	Side            string      `json:"side"`
	Broker          string      `json:"broker"`
	InvMgr          string      `json:"inv_mgr"`
	Status          string      `json:"status"`
	Lifecycle       string      `json:"lifecycle"`
	CLSVersion      int         `json:"cls_version"`
	FailingCriteria []int       `json:"failing_criteria"`
	Owes            []QueueOwed `json:"owes"`
	MissingCount    int         `json:"missing_count"`
	Market          string      `json:"market"`
	Cutoff          string      `json:"cutoff"`
	AtRisk          bool        `json:"at_risk"`
	PastCutoff      bool        `json:"past_cutoff"`
}

// Pos is the trade's position in a queue.
func (t *QueueTrade) Pos() (QueuePos, bool) {
	d, err := date.Parse(t.TradeDate)
	k, ok := schemas.ParseTradeKey(t.TradeKey)
	return QueuePos{Date: d, Key: k}, err == nil && ok
}

// QueueFound is a queue entry with the partition holding its trade.
type QueueFound struct {
	Partition int32
	Trade     QueueTrade
}

// drainDelay is how long after a write its trade is summarised (the
// writes of that time summarised once); a question drains what is left.
var drainDelay = 50 * time.Millisecond

// Index states.
const (
	queueWaiting  = iota // not recovered yet: writes are not followed
	queueBuilding        // recovered, the first summary of the table running
	queueReady
)

// queueIndex is one match partition's work-queue index: the trades to
// summarise, and the summaries' facts in the partition's index.
type queueIndex struct {
	store Store
	tol   func() matching.Tolerances
	idx   *index

	mu        sync.Mutex          // dirty, scheduled, state, closed
	dirty     map[uint64]mentions // the trades written since they were summarised
	scheduled bool
	state     int
	following atomic.Bool // state is past queueWaiting: writes are marked
	closed    bool

	drainMu sync.Mutex // one drain at a time, so a question's drain follows every write before it
}

// queued is a trade's summary: what a queue shows of it, which the index
// keeps in the trade's record (index.setQueuedLocked).
type queued struct {
	pos               QueuePos
	ref, isin, side   string
	broker, invMgr    string
	market            string // the NOE in force's Market, "" without
	status, lifecycle uint8
	settled           bool // locked or cancelled: never at risk
	cls               int32
	failing           []int
	parties           []queuedParty
}

// queuedParty is what one party sees of the trade in its queue.
type queuedParty struct {
	bic     string
	owes    []QueueOwed
	missing int32
}

func newQueueIndex(s Store, tol func() matching.Tolerances, idx *index) *queueIndex {
	return &queueIndex{store: s, tol: tol, idx: idx, dirty: map[uint64]mentions{}}
}

// mentions are who may be a party of a trade written (matching.Mentions),
// by the hash of their BICs: a question drains the trades that mention
// its party (or that its party was a party of), and leaves the others to
// the delay. A hash collision only drains a trade early.
type mentions struct {
	any  bool // unknown (a value of an older layout, a rebuild): every question drains it
	n    uint8
	bics [4]uint64
	more []uint64
}

var mentionSeed = maphash.MakeSeed()

func (m *mentions) add(bic []byte) {
	h := maphash.Bytes(mentionSeed, bic)
	if m.has(h) {
		return
	}
	if int(m.n) < len(m.bics) {
		m.bics[m.n] = h
		m.n++
		return
	}
	m.more = append(m.more, h)
}

func (m *mentions) has(h uint64) bool {
	return slices.Contains(m.bics[:m.n], h) || slices.Contains(m.more, h)
}

// mark notes a write of key (value nil: deleted): its trade is summarised
// after drainDelay, or before a question of a party it mentions.
func (x *queueIndex) mark(key uint64, value []byte) {
	if !x.following.Load() {
		return // the changelog's replay: the recovered table is read whole
	}
	// Deleted, or a tombstone: no party now; its old parties' questions
	// drain it (drainFor).
	var m mentions
	if tomb, _, ok := matching.Header(value); value != nil && !(ok && tomb) {
		if ok, err := matching.Mentions(value, m.add); !ok || err != nil {
			m = mentions{any: true}
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.state == queueWaiting || x.closed {
		return
	}
	x.dirty[key] = m
	x.scheduleLocked(drainDelay)
}

func (x *queueIndex) scheduleLocked(after time.Duration) {
	if x.scheduled || x.closed {
		return
	}
	x.scheduled = true
	time.AfterFunc(after, x.background)
}

// background drains, and again while writes keep coming.
func (x *queueIndex) background() {
	x.drain()
	x.mu.Lock()
	defer x.mu.Unlock()
	x.scheduled = false
	if x.state == queueBuilding {
		x.state = queueReady
	}
	if len(x.dirty) > 0 {
		x.scheduleLocked(drainDelay)
	}
}

// rebuild marks every trade of the recovered table and summarises them
// (in the background: the partition answers once that has run).
func (x *queueIndex) rebuild(keys []uint64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, k := range keys {
		x.dirty[k] = mentions{any: true}
	}
	x.state = queueBuilding
	x.following.Store(true)
	x.scheduleLocked(0)
}

// close stops the index reading its store: nothing is summarised any more,
// and it returns once a summary under way has finished (so that the store
// may close: a closed disk table panics when read).
func (x *queueIndex) close() {
	x.mu.Lock()
	x.closed = true
	x.dirty = map[uint64]mentions{}
	x.mu.Unlock()
	// A drain under way finishes its batch first.
	x.drainMu.Lock()
	defer x.drainMu.Unlock()
}

func (x *queueIndex) isClosed() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.closed
}

// ready says whether the partition answers questions (a closed one does
// not: its store is gone).
func (x *queueIndex) ready() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.state == queueReady && !x.closed
}

// drain summarises the trades marked and puts them in the index.
func (x *queueIndex) drain() { x.drainFor("") }

// drainFor summarises the trades marked that may concern party (every one
// for ""): those that mention it, and those it was a party of.
func (x *queueIndex) drainFor(party string) {
	x.drainMu.Lock()
	defer x.drainMu.Unlock()
	x.mu.Lock()
	if len(x.dirty) == 0 || x.closed {
		x.mu.Unlock()
		return
	}
	var keys []uint64
	if party == "" {
		keys = make([]uint64, 0, len(x.dirty))
		for k := range x.dirty {
			keys = append(keys, k)
		}
		// A new map: a map keeps the memory of the most it held (every
		// trade, after a rebuild), and this one is mostly empty.
		x.dirty = map[uint64]mentions{}
	} else {
		h := maphash.String(mentionSeed, party)
		for k, m := range x.dirty {
			if m.any || m.has(h) || x.idx.isParty(k, party) {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			delete(x.dirty, k)
		}
		if len(x.dirty) == 0 {
			x.dirty = map[uint64]mentions{}
		}
	}
	x.mu.Unlock()
	if len(keys) == 0 {
		return
	}
	var tol matching.Tolerances
	if x.tol != nil {
		tol = x.tol()
	}
	// Summarised in batches, each put in under one lock: questions read
	// between them.
	const batch = 256
	sums := make([]*queued, 0, min(len(keys), batch))
	for len(keys) > 0 && !x.isClosed() {
		n := min(len(keys), batch)
		sums = sums[:0]
		// A batch's strings shared while it is summarised, none kept after:
		// the index keeps names by number.
		it := matching.Interner{}
		for _, k := range keys[:n] {
			sums = append(sums, x.summary(schemas.TradeKey(k), tol, it))
		}
		x.idx.putQueued(keys[:n], sums)
		keys = keys[n:]
	}
}

// summary reads key's trade from the store: nil when the table holds no
// trade of it (deleted, a tombstone: purged trades are not listed) or its
// value cannot be read. The facts are the engine's (matching.QueueFacts:
// what the trade's view says, without building it).
func (x *queueIndex) summary(key schemas.TradeKey, tol matching.Tolerances, it matching.Interner) *queued {
	v, err := x.store.Get(key.String())
	if err != nil || v == nil {
		return nil
	}
	f, ok, err := matching.QueueFactsOf(v, tol, it)
	if err != nil || !ok {
		return nil
	}
	return summarise(key, &f)
}

// summarise is what a queue shows of a trade, from its facts.
func summarise(key schemas.TradeKey, f *matching.QueueFacts) *queued {
	k := f.Key
	d, err := date.Parse(k.TradeDate)
	if err != nil {
		return nil
	}
	st := slices.Index(QueueStatuses, strings.ToUpper(f.State))
	lc := slices.Index(QueueLifecycles, f.Lifecycle)
	if st < 0 || lc < 0 {
		return nil
	}
	q := &queued{pos: QueuePos{Date: d, Key: key}, ref: k.TradeRef, isin: k.ISIN, side: k.Side, broker: k.Broker,
		invMgr: k.InvMgr, status: uint8(st), lifecycle: uint8(lc), settled: f.Locked || f.Cancelled,
		market: f.Market, cls: int32(f.CLSVersion), parties: make([]queuedParty, len(f.Parties))}
	if q.status == 2 {
		q.failing = f.Failing
	}
	for i, p := range f.Parties {
		q.parties[i] = queuedParty{bic: p.BIC, missing: int32(p.Missing)}
		for _, o := range p.Owes {
			q.parties[i].owes = append(q.parties[i].owes, QueueOwed{MsgType: o.MsgType, Account: o.Account, Count: o.Count})
		}
	}
	return q
}

// queueFilter is a question's filters, read once.
type queueFilter struct {
	party             string
	status, lifecycle uint8 // bit masks; 0: any
	owes, atRisk      bool
	day               date.Date
	hasDay            bool
	now               time.Time
	lead              time.Duration
	ref               *refdata.Set
	cutoffs           map[cutoffKey]marketCutoff
}

type cutoffKey struct {
	market string
	day    date.Date
}

type marketCutoff struct {
	market string
	at     time.Time
}

func mask(values, names []string) (uint8, bool) {
	var m uint8
	for _, v := range values {
		i := slices.Index(names, v)
		if i < 0 {
			return 0, false
		}
		m |= 1 << i
	}
	return m, true
}

func newQueueFilter(q QueueQuery, ref *refdata.Set) (*queueFilter, error) {
	f := &queueFilter{party: q.Party, owes: q.Owes, atRisk: q.AtRisk, now: q.Now, lead: q.Lead, ref: ref,
		cutoffs: map[cutoffKey]marketCutoff{}}
	var ok1, ok2 bool
	f.status, ok1 = mask(q.Status, QueueStatuses)
	f.lifecycle, ok2 = mask(q.Lifecycle, QueueLifecycles)
	if !ok1 || !ok2 || q.Party == "" || q.Limit < 1 || q.Limit > MaxQueueLimit {
		return nil, ErrBadQueue
	}
	if q.Date != "" {
		d, err := date.Parse(q.Date)
		if err != nil {
			return nil, ErrBadQueue
		}
		f.day, f.hasDay = d, true
	}
	return f, nil
}

// cutoff is a market (as markets.csv has it) and its cutoff on day, read
// once a question for each market and TradeDate.
func (f *queueFilter) cutoff(market string, day date.Date) (string, time.Time) {
	k := cutoffKey{market, day}
	c, ok := f.cutoffs[k]
	if !ok {
		c.market, c.at = f.ref.CutoffOf(market, day.String())
		f.cutoffs[k] = c
	}
	return c.market, c.at
}

// keeps says whether a trade with these facts passes f, for f's party
// (which owes an item in it or not): the index's facts when a page is
// chosen, the table's again when it is listed.
func (f *queueFilter) keeps(status, lifecycle uint8, owes, settled bool, market string, day date.Date) bool {
	switch {
	case f.status != 0 && f.status&(1<<status) == 0,
		f.lifecycle != 0 && f.lifecycle&(1<<lifecycle) == 0,
		f.owes && !owes:
		return false
	case f.atRisk:
		_, at := f.cutoff(market, day)
		return !settled && !f.now.Before(at.Add(-f.lead))
	}
	return true
}

// listed is a trade a page lists, as f's party sees it: its record and
// what is the party's of it, copied under the index's lock.
type listed struct {
	r       rec
	missing uint32
	owes    []owed
	failing []int
}

// render is the entry of l; names are the index's.
func (f *queueFilter) render(l *listed, names []string) QueueTrade {
	r := &l.r
	market, at := f.cutoff(names[r.market], r.date)
	t := QueueTrade{TradeKey: schemas.TradeKey(r.key).String(), TradeRef: r.ref, TradeDate: r.date.String(), ISIN: names[r.isin],
		Side: names[r.side], Broker: names[r.broker], InvMgr: names[r.invMgr], Status: QueueStatuses[r.status],
		Lifecycle: QueueLifecycles[r.life], CLSVersion: int(r.cls), FailingCriteria: l.failing, Owes: []QueueOwed{},
		MissingCount: int(l.missing), Market: market, Cutoff: at.UTC().Format(time.RFC3339),
		AtRisk: r.flags&fSettled == 0 && !f.now.Before(at.Add(-f.lead)), PastCutoff: f.now.After(at)}
	for _, o := range l.owes {
		t.Owes = append(t.Owes, QueueOwed{MsgType: names[o.msgType], Account: names[o.account], Count: int(o.count)})
	}
	return t
}

// page is the first limit trades of f's party after `after` that pass f,
// in order, and the names of their records.
func (x *index) page(f *queueFilter, after *QueuePos, limit int) ([]listed, []string) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	party, ok := x.ids[f.party]
	l := x.byParty[party]
	if !ok || len(l) == 0 {
		return nil, nil
	}
	// The first record at or after p.
	from := func(p QueuePos) int {
		i, _ := slices.BinarySearchFunc(l, p, func(s uint32, p QueuePos) int {
			r := x.rec(s)
			return QueuePos{r.date, schemas.TradeKey(r.key)}.Compare(p)
		})
		return i
	}
	lo, hi := 0, len(l)
	if f.hasDay {
		lo, hi = from(QueuePos{Date: f.day}), from(QueuePos{Date: f.day + 1})
	}
	if after != nil && (!f.hasDay || after.Compare(QueuePos{Date: f.day}) >= 0) {
		lo = max(lo, from(*after))
		if lo < len(l) && x.rec(l[lo]).key == uint64(after.Key) && x.rec(l[lo]).date == after.Date {
			lo++
		}
	}
	var out []listed
	for _, s := range l[lo:max(lo, hi)] {
		r := x.rec(s)
		place, p, _ := x.partyAt(s, r, party)
		if !f.keeps(r.status, r.life, p&owesBit != 0, r.flags&fSettled != 0, x.names[r.market], r.date) {
			continue
		}
		e := listed{r: *r, failing: []int{}}
		if place < inlineParties {
			e.missing = uint32(r.missing[place])
		} else {
			e.missing = x.moreParties[s][place-inlineParties].missing
		}
		for _, o := range x.owes[s] {
			if int(o.party) == place {
				e.owes = append(e.owes, o)
			}
		}
		if odd, ok := x.oddFailing[s]; ok {
			e.failing = slices.Clone(odd)
		} else {
			for c := 1; c < 32; c++ {
				if r.failing&(1<<c) != 0 {
					e.failing = append(e.failing, c)
				}
			}
		}
		if out = append(out, e); len(out) == limit {
			break
		}
	}
	return out, x.names
}

// Queue answers a participant's work queue question from the owned
// partitions' queue indexes: the first q.Limit of q.Party's trades after
// q.After that pass the filters, by TradeDate then trade key. Only trades
// q.Party is a party to are examined. A partition whose index is not built
// yet makes it ErrRecovering; a question out of its form ErrBadQueue.
func (t *Tables) Queue(q QueueQuery, partitions []int32) ([]QueueFound, error) {
	c, parts, err := t.owned(partitions)
	if err != nil {
		return nil, err
	}
	f, err := newQueueFilter(q, c.Refdata())
	if err != nil {
		return nil, err
	}
	for _, p := range partitions {
		// A partition owned whose table is not open yet (a rebalance) is
		// as one recovering: its trades cannot be listed.
		if x, ok := parts[p]; !ok || !x.queue.ready() {
			return nil, ErrRecovering
		}
	}
	type hit struct {
		p     int32
		l     *listed
		names []string
	}
	var hits []hit
	for p, x := range parts {
		x.queue.drainFor(q.Party)
		ls, names := x.idx.page(f, q.After, q.Limit)
		for i := range ls {
			hits = append(hits, hit{p, &ls[i], names})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		return QueuePos{a.l.r.date, schemas.TradeKey(a.l.r.key)}.Compare(QueuePos{b.l.r.date, schemas.TradeKey(b.l.r.key)})
	})
	out := make([]QueueFound, min(len(hits), q.Limit))
	for i := range out {
		out[i] = QueueFound{Partition: hits[i].p, Trade: f.render(hits[i].l, hits[i].names)}
	}
	return out, nil
}
