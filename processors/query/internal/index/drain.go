package index

import (
	"hash/maphash"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/date"
)

// DrainDelay is how long after a write its trade is summarised (the
// writes of that time summarised once); a question drains what is left.
var DrainDelay = 50 * time.Millisecond

// MaxDecided is how many trades handed over by the match stage a partition
// keeps until they are summarised (decided). A decoded trade is some
// kilobytes where its mark is some bytes: when the drain falls behind the
// writes (a backlog on busy cores), the trades past it are read back from
// the store as before, so the memory they take stays bounded (~3 MB a
// partition: a standard trade of seven messages is ~4 KB decoded and ~2 KB
// more with the assessment its last message was settled with, which its
// summary reuses). The drain's 50 ms of writes at 14,000 messages a
// second over 8 partitions are ~90 a partition.
var MaxDecided = 512

// Index states.
const (
	queueWaiting  = iota // not recovered yet: writes are not followed
	queueBuilding        // recovered, the first summary of the table running
	queueReady
)

// drainer is one match partition's work-queue index: the trades to
// summarise, and the summaries' facts in the partition's index.
type drainer struct {
	store Store
	tol   func() matching.Tolerances
	idx   *records

	mu        sync.Mutex         // dirty, decidedN, scheduled, state, closed
	dirty     map[uint64]written // the trades written since they were summarised
	decidedN  int                // the entries of dirty holding a trade (MaxDecided)
	scheduled bool
	state     int
	following atomic.Bool // state is past queueWaiting: writes are marked
	closed    bool

	drainMu sync.Mutex // one drain at a time, so a question's drain follows every write before it
}

// queued is a trade's summary: what a queue shows of it, which the index
// keeps in the trade's record (records.setQueuedLocked).
type queued struct {
	pos               Pos
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
	owes    []Owed
	missing int32
}

func newDrainer(s Store, tol func() matching.Tolerances, idx *records) *drainer {
	return &drainer{store: s, tol: tol, idx: idx, dirty: map[uint64]written{}}
}

// written is what a trade's write leaves to summarise: who it mentions,
// and the trade itself when the match stage handed it over (decided).
type written struct {
	mentions
	// trade is the trade the last write's value encodes, as the match
	// stage decided it: summarised as it is, the value is not read back
	// from the store and decoded again. Nil: read the store.
	trade *matching.Trade
}

// mentions are who may be a party of a trade written (matching.Mentions),
// by the hash of their BICs: a question drains the trades that mention
// its party (or that its party was a party of), and leaves the others to
// the delay. A hash collision only drains a trade early.
//
// A write leaves them unread: the first question that finds its trade
// waiting reads them (mentionsOf) from the trade handed over, or else from
// the value in the store, which is the value of the last write, the one
// the entry marks. Most writes are summarised by the delay before any
// question comes, and reading who they mention at every write cost ~1.3 µs
// a message of the match stage's time (issue 50).
type mentions struct {
	any    bool // unknown (a value of an older layout, a rebuild): every question drains it
	unread bool // not read from the value yet (mentionsOf)
	n      uint8
	bics   [4]uint64
	more   []uint64
}

var mentionSeed = maphash.MakeSeed()

func (m *mentions) add(bic []byte) { m.addHash(maphash.Bytes(mentionSeed, bic)) }

func (m *mentions) addHash(h uint64) {
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

func (m *mentions) addString(bic string) { m.addHash(maphash.String(mentionSeed, bic)) }

func (m *mentions) has(h uint64) bool {
	return slices.Contains(m.bics[:m.n], h) || slices.Contains(m.more, h)
}

// mark notes a write of key (value nil: deleted): its trade is summarised
// after DrainDelay, or before a question of a party it mentions.
func (x *drainer) mark(key uint64, value []byte) {
	if !x.following.Load() {
		return // the changelog's replay: the recovered table is read whole
	}
	// Deleted: no party now; its old parties' questions drain it
	// (drainFor). Written: read when a question needs them.
	m := mentions{unread: value != nil}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.state == queueWaiting || x.closed {
		return
	}
	x.setLocked(key, written{mentions: m})
	x.scheduleLocked(DrainDelay)
}

// setLocked makes w key's entry, deleteLocked drops it, resetLocked drops
// them all: the one place decidedN is kept, the count of entries holding
// a trade.
func (x *drainer) setLocked(key uint64, w written) {
	if x.dirty[key].trade != nil {
		x.decidedN--
	}
	if w.trade != nil {
		x.decidedN++
	}
	x.dirty[key] = w
}

func (x *drainer) deleteLocked(key uint64) {
	if x.dirty[key].trade != nil {
		x.decidedN--
	}
	delete(x.dirty, key)
}

// resetLocked starts a new map: a map keeps the memory of the most it held
// (every trade, after a rebuild).
func (x *drainer) resetLocked() { x.dirty, x.decidedN = map[uint64]written{}, 0 }

// decided hands over the trade the value just marked for key encodes (the
// match stage's, after its write: Index.Decided), so that its summary
// need not read the value back and decode it. A write not marked (the
// changelog's replay, a closed index) or summarised already is left as it
// is: a later question reads the store, as without it. The trade is not
// changed while it is handed over (reclaim takes it back first); the
// summary only reads it.
func (x *drainer) decided(key uint64, t *matching.Trade) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if w, ok := x.dirty[key]; ok && w.trade == nil && x.decidedN < MaxDecided {
		w.trade = t
		x.setLocked(key, w)
	}
}

// reclaim takes back the trade handed over for key, if it is still waiting
// for its summary: the match stage applies key's next message to it
// instead of reading the value back and decoding it (the trade is the last
// write's value, decoded: mark dropped it at any later write). The write
// stays marked and is summarised from the store, or from the trade handed
// over after the stage's next write. Nil when the trade is not held: none
// was handed over, or a drain has taken it (it is summarising it, or has).
func (x *drainer) reclaim(key uint64) *matching.Trade {
	x.mu.Lock()
	defer x.mu.Unlock()
	w, ok := x.dirty[key]
	if !ok || w.trade == nil {
		return nil
	}
	t := w.trade
	w.trade = nil
	x.setLocked(key, w)
	return t
}

func (x *drainer) scheduleLocked(after time.Duration) {
	if x.scheduled || x.closed {
		return
	}
	x.scheduled = true
	time.AfterFunc(after, x.background)
}

// background drains, and again while writes keep coming.
func (x *drainer) background() {
	x.drain()
	x.mu.Lock()
	defer x.mu.Unlock()
	x.scheduled = false
	if x.state == queueBuilding {
		x.state = queueReady
	}
	if len(x.dirty) > 0 {
		x.scheduleLocked(DrainDelay)
	}
}

// rebuild marks every trade of the recovered table and summarises them
// (in the background: the partition answers once that has run).
func (x *drainer) rebuild(keys []uint64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, k := range keys {
		x.setLocked(k, written{mentions: mentions{any: true}})
	}
	x.state = queueBuilding
	x.following.Store(true)
	x.scheduleLocked(0)
}

// close stops the index reading its store: nothing is summarised any more,
// and it returns once a summary under way has finished (so that the store
// may close: a closed disk table panics when read).
func (x *drainer) close() {
	x.mu.Lock()
	x.closed = true
	x.resetLocked()
	x.mu.Unlock()
	// A drain under way finishes its batch first.
	x.drainMu.Lock()
	defer x.drainMu.Unlock()
}

func (x *drainer) isClosed() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.closed
}

// ready says whether the partition answers questions (a closed one does
// not: its store is gone).
func (x *drainer) ready() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.state == queueReady && !x.closed
}

// drain summarises the trades marked and puts them in the index.
func (x *drainer) drain() { x.drainFor("") }

// drainFor summarises the trades marked that may concern party (every one
// for ""): those that mention it, and those it was a party of.
func (x *drainer) drainFor(party string) {
	x.drainMu.Lock()
	defer x.drainMu.Unlock()
	x.mu.Lock()
	if len(x.dirty) == 0 || x.closed {
		x.mu.Unlock()
		return
	}
	var keys []uint64
	var fed []*matching.Trade // keys[i]'s trade as decided, or nil
	if party == "" {
		keys = make([]uint64, 0, len(x.dirty))
		fed = make([]*matching.Trade, 0, len(x.dirty))
		for k, w := range x.dirty {
			keys, fed = append(keys, k), append(fed, w.trade)
		}
		x.resetLocked()
	} else {
		h := maphash.String(mentionSeed, party)
		for k, w := range x.dirty {
			if w.unread {
				w.mentions = x.mentionsOf(k, w.trade)
				x.setLocked(k, w)
			}
			if w.any || w.has(h) || x.idx.isParty(k, party) {
				keys, fed = append(keys, k), append(fed, w.trade)
			}
		}
		for _, k := range keys {
			x.deleteLocked(k)
		}
		if len(x.dirty) == 0 {
			x.resetLocked()
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
		for i, k := range keys[:n] {
			sums = append(sums, x.summary(schemas.TradeKey(k), fed[i], tol, it))
		}
		x.idx.putQueued(keys[:n], sums)
		keys, fed = keys[n:], fed[n:]
	}
}

// mentionsOf are who key's trade mentions: the trade the match stage
// decided (fed), or else the value in the store: none for a trade deleted
// or a tombstone (its old parties' questions drain it), any for a value
// that cannot be read. Called under mu, which holds off close: the store
// is open.
func (x *drainer) mentionsOf(key uint64, fed *matching.Trade) mentions {
	var m mentions
	if fed != nil {
		if !fed.Mentions(m.addString) {
			return mentions{any: true}
		}
		return m
	}
	v, err := x.store.Get(schemas.TradeKey(key).String())
	if err != nil {
		return mentions{any: true}
	}
	if tomb, _, ok := matching.Header(v); v != nil && !(ok && tomb) {
		if ok, err := matching.Mentions(v, m.add); !ok || err != nil {
			m = mentions{any: true}
		}
	}
	return m
}

// summary is key's trade's summary: of the trade the match stage decided
// (fed, the value it wrote last), or else of the value read from the
// store; nil when the table holds no trade of it (deleted, a tombstone:
// purged trades are not listed) or its value cannot be read. The facts are
// the engine's (matching.QueueFacts: what the trade's view says, without
// building it).
func (x *drainer) summary(key schemas.TradeKey, fed *matching.Trade, tol matching.Tolerances, it matching.Interner) *queued {
	if fed != nil && len(fed.Keys) > 0 {
		f := fed.QueueFacts(tol)
		return summarise(key, &f)
	}
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
	st := slices.IndexFunc(Statuses, func(s string) bool { return strings.EqualFold(s, f.State) })
	lc := slices.Index(Lifecycles, f.Lifecycle)
	if st < 0 || lc < 0 {
		return nil
	}
	q := &queued{pos: Pos{Date: d, Key: key}, ref: k.TradeRef, isin: k.ISIN, side: k.Side, broker: k.Broker,
		invMgr: k.InvMgr, status: uint8(st), lifecycle: uint8(lc), settled: f.Locked || f.Cancelled,
		market: f.Market, cls: int32(f.CLSVersion), parties: make([]queuedParty, len(f.Parties))}
	if q.status == 2 {
		q.failing = f.Failing
	}
	for i, p := range f.Parties {
		q.parties[i] = queuedParty{bic: p.BIC, missing: int32(p.Missing)}
		if len(p.Owes) > 0 {
			q.parties[i].owes = make([]Owed, 0, len(p.Owes))
		}
		for _, o := range p.Owes {
			q.parties[i].owes = append(q.parties[i].owes, Owed{MsgType: o.MsgType, Account: o.Account, Count: o.Count})
		}
	}
	return q
}
