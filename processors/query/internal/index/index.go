// Package index is what one match partition's read side holds in memory
// (processors/query answers from it): one fixed-size record a trade
// (records.go) with the trade's status and at-risk group (status.go), the
// hash of its TradeRef, and its work-queue facts, summarised off the match
// stage's path a short delay after each write (drain.go). It links no Kafka
// client and answers in its own terms; processors/query renders the
// answers.
package index

import (
	"cmp"
	"log/slog"
	"slices"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/date"
)

// Store is what the index reads of its partition's table store.
type Store interface {
	Get(key string) ([]byte, error)
}

// Iterator walks a table store's keys and values (goka's storage.Iterator).
type Iterator interface {
	Next() bool
	Key() []byte
	Value() ([]byte, error)
	Err() error
}

// Statuses and Lifecycles are the values of a queue entry's status and
// lifecycle, as gateway.md §4 names them; a record holds their places.
var (
	Statuses   = []string{"INCOMPLETE", "MATCHED", "MISMATCHED"}
	Lifecycles = []string{"NONE", "AFFIRMED", "AFFIRM_REJECTED", "CHANGE_PENDING", "CANCEL_PENDING", "CANCELLED"}
)

// Pos is a position in a party's queue: TradeDate, then trade key (values a
// trade never changes).
type Pos struct {
	Date date.Date
	Key  schemas.TradeKey
}

// Compare orders positions by TradeDate, then trade key.
func (p Pos) Compare(q Pos) int {
	return cmp.Or(cmp.Compare(p.Date, q.Date), cmp.Compare(p.Key, q.Key))
}

// Index is one match partition's read side: its records and their drain.
type Index struct {
	r      *records
	d      *drainer
	loaded []uint64 // the keys Load was given, until recovered
}

// New makes a partition's index, reading s for the queue's summaries,
// evaluated with the tolerances tol gives (nil: none).
func New(s Store, tol func() matching.Tolerances) *Index {
	r := newRecords()
	return &Index{r: r, d: newDrainer(s, tol, r)}
}

// Put indexes a value the table stored under key; Delete a key it deleted.
func (x *Index) Put(key uint64, value []byte) {
	x.r.put(key, value)
	x.d.mark(key, value)
}

// Decided hands over the trade the value Put was just given for key
// encodes, as the match stage decided it: its queue summary is made from
// it instead of reading the value back and decoding it. It must follow
// that Put, on the same goroutine, and the trade must not change after
// unless Reclaim has taken it back.
func (x *Index) Decided(key uint64, t *matching.Trade) { x.d.decided(key, t) }

// Reclaim takes back the trade last handed over for key while it waits for
// its summary (nil if none is held): the match stage applies the trade's
// next message to it, as it would to the value it read and decoded. Once
// taken it is the caller's; the write is summarised without it.
func (x *Index) Reclaim(key uint64) *matching.Trade { return x.d.reclaim(key) }

func (x *Index) Delete(key uint64) {
	x.r.remove(key)
	x.d.mark(key, nil)
}

// Recovered builds the TradeRef and work-queue facts from the recovered
// table (the status and at-risk facts followed every write already): the
// queue's summaries in the background, the partition Ready once they ran.
func (x *Index) Recovered(it Iterator, log *slog.Logger) {
	x.loaded = nil
	var keys []uint64
	x.r.rebuildRefs(it, log, func(k uint64) { keys = append(keys, k) })
	x.d.rebuild(keys)
}

// Load indexes a value a table resumed from disk held when it opened: its
// status and at-risk facts, as Put, and its TradeRefs too, which Put
// follows only once the partition is recovered. A recovery that then
// replays nothing ends with RecoveredAsLoaded instead of reading the table
// again (Recovered).
func (x *Index) Load(key uint64, value []byte) {
	x.r.load(key, value)
	x.loaded = append(x.loaded, key)
}

// RecoveredAsLoaded is Recovered for a table that took no write since the
// values Load was given (its recovery replayed nothing): they are the
// recovered table, and their TradeRefs are indexed already.
func (x *Index) RecoveredAsLoaded() {
	keys := x.loaded
	x.loaded = nil
	x.r.refsReady.Store(true)
	x.d.rebuild(keys)
}

// Close stops the summaries reading the store, waiting for one under way.
func (x *Index) Close() { x.d.close() }

// Ready says whether the queue answers: recovered, summarised, not closed.
func (x *Index) Ready() bool { return x.d.ready() }

// DrainFor summarises the trades written that may concern party (every
// one for ""), so that a question reflects every write before it.
func (x *Index) DrainFor(party string) { x.d.drainFor(party) }

// Keys is the trade keys indexed under ref's hash (a collision finds
// another TradeRef's: check); ready is false before recovery.
func (x *Index) Keys(ref string) (_ []schemas.TradeKey, ready bool) { return x.r.keys(ref) }

// Groups calls f with each at-risk group: its market (as the NOE in force
// names it), TradeDate ("" when unreadable) and number of unmatched trades.
func (x *Index) Groups(f func(market, tradeDate string, n int)) {
	x.r.mu.RLock()
	defer x.r.mu.RUnlock()
	for g, n := range x.r.groups {
		f(x.r.names[g.market], g.tradeDate(), n)
	}
}

// Group is the unmatched trades of one market and TradeDate.
type Group struct {
	Market, TradeDate string
	Keys              []schemas.TradeKey
}

// Open lists the groups keep keeps, with their trade keys: one pass over
// the records.
func (x *Index) Open(keep func(market, tradeDate string) bool) []Group {
	x.r.mu.RLock()
	defer x.r.mu.RUnlock()
	listed := map[riskGroup]int{}
	var out []Group
	for g := range x.r.groups {
		if m, d := x.r.names[g.market], g.tradeDate(); keep(m, d) {
			listed[g] = len(out)
			out = append(out, Group{Market: m, TradeDate: d})
		}
	}
	for s := uint32(0); s < x.r.used && len(listed) > 0; s++ {
		if r := x.r.rec(s); r.flags&fOpen != 0 {
			if i, ok := listed[riskGroup{r.rmarket, r.rdate}]; ok {
				out[i].Keys = append(out[i].Keys, schemas.TradeKey(r.key))
			}
		}
	}
	return out
}

func (g riskGroup) tradeDate() string {
	if g.date == noDate {
		return ""
	}
	return g.date.String()
}

// Tally is the partition's trades by status and by lifecycle, and its
// matched trades of day (Unix days, UTC).
func (x *Index) Tally(day int64) (counts [NStatus]int, lifecycle [NLifecycle]int, matchedDay int) {
	x.r.mu.RLock()
	defer x.r.mu.RUnlock()
	return x.r.status.counts, x.r.status.lifecycle, x.r.status.byDay[int32(day)]
}

// Stats are what the index holds, and the trades written not yet summarised.
type Stats struct {
	Records, Refs, RefHashes, Pending int
}

func (x *Index) Stats() Stats {
	x.r.mu.RLock()
	st := Stats{Records: x.r.n, RefHashes: len(x.r.byRef)}
	for s := range x.r.used {
		if x.r.rec(s).flags&fRef != 0 {
			st.Refs++
		}
	}
	x.r.mu.RUnlock()
	x.d.mu.Lock()
	defer x.d.mu.Unlock()
	st.Pending = len(x.d.dirty)
	return st
}

// Facts are what a queue's filters read of a trade, for one party.
type Facts struct {
	Status, Lifecycle uint8 // places in Statuses, Lifecycles
	Owes              bool  // the party owes an item
	Settled           bool  // locked or cancelled: never at risk
	Market            string
	Date              date.Date
}

// Owed is an item a party owes, without its `from` (it is the party).
type Owed struct {
	MsgType, Account string
	Count            int
}

// Entry is a trade of a party's queue as that party sees it.
type Entry struct {
	Key schemas.TradeKey
	Facts
	Ref, ISIN, Side, Broker, InvMgr string
	CLSVersion                      int
	Failing                         []int
	Owes                            []Owed
	Missing                         int
}

// Pos is the entry's position in the queue.
func (e *Entry) Pos() Pos { return Pos{e.Date, e.Key} }

// Narrow says which of a party's trades a question's filters may keep, so
// that the index reads only the lists holding them (partyQueue): those of
// the statuses in Status (bit n for Statuses[n]; 0: any), or, with Owes,
// the trades the party owes an item of — whichever are fewer. keep still
// decides each trade.
type Narrow struct {
	Status uint8
	Owes   bool
}

// Page is the first limit trades of party's queue after `after` (nil: from
// the first), of TradeDate day only when day is given, that keep keeps,
// among those n says it may keep.
func (x *Index) Page(party string, day *date.Date, after *Pos, n Narrow, keep func(*Facts) bool, limit int) []Entry {
	x.r.mu.RLock()
	defer x.r.mu.RUnlock()
	return x.r.page(party, day, after, n, keep, limit)
}

// span is the part of the list l after `after` and of TradeDate day when
// given.
func (x *records) span(l []uint32, day *date.Date, after *Pos) []uint32 {
	// The first record at or after p.
	from := func(p Pos) int {
		i, _ := slices.BinarySearchFunc(l, p, func(s uint32, p Pos) int {
			r := x.rec(s)
			return Pos{r.date, schemas.TradeKey(r.key)}.Compare(p)
		})
		return i
	}
	lo, hi := 0, len(l)
	if day != nil {
		lo, hi = from(Pos{Date: *day}), from(Pos{Date: *day + 1})
	}
	if after != nil && (day == nil || after.Compare(Pos{Date: *day}) >= 0) {
		lo = max(lo, from(*after))
		if lo < len(l) && x.rec(l[lo]).key == uint64(after.Key) && x.rec(l[lo]).date == after.Date {
			lo++
		}
	}
	return l[lo:max(lo, hi)]
}

// sources is the spans of the lists of q that hold what n may keep: its
// statuses' (disjoint), or the owes list when that holds fewer.
func (x *records) sources(q *partyQueue, day *date.Date, after *Pos, n Narrow) ([listOwes][]uint32, int) {
	var src [listOwes][]uint32
	k, total := 0, 0
	for st := range listOwes {
		if n.Status == 0 || n.Status&(1<<st) != 0 {
			src[k] = x.span(q[st], day, after)
			total += len(src[k])
			k++
		}
	}
	if n.Owes {
		if owes := x.span(q[listOwes], day, after); len(owes) < total {
			return [listOwes][]uint32{owes}, 1
		}
	}
	return src, k
}

func (x *records) page(party string, day *date.Date, after *Pos, n Narrow, keep func(*Facts) bool, limit int) []Entry {
	id, ok := x.ids[party]
	q := x.byParty[id]
	if !ok || q == nil {
		return nil
	}
	src, k := x.sources(q, day, after, n)
	var out []Entry
	for {
		// The first of the sources' heads (the lists are disjoint).
		best := -1
		for i := range k {
			if len(src[i]) > 0 && (best < 0 || x.before(src[i][0], src[best][0])) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		s := src[best][0]
		src[best] = src[best][1:]
		if e, ok := x.admit(s, id, keep); ok {
			if out = append(out, e); len(out) == limit {
				break
			}
		}
	}
	return out
}

// admit is record s's entry in the queue of party id, when keep takes the
// facts the party sees of it.
func (x *records) admit(s, id uint32, keep func(*Facts) bool) (Entry, bool) {
	r := x.rec(s)
	place, p, _ := x.partyAt(s, r, id)
	f := x.facts(r, p)
	if !keep(&f) {
		return Entry{}, false
	}
	return x.entry(s, r, place, f), true
}

// facts is what the queue's filters read of r for the party whose number
// in r is p (with its owes bit).
func (x *records) facts(r *rec, p uint32) Facts {
	return Facts{Status: r.status, Lifecycle: r.life, Owes: p&owesBit != 0, Settled: r.flags&fSettled != 0,
		Market: x.names[r.market], Date: r.date}
}

// entry is the record s as the party at place among its parties sees it.
func (x *records) entry(s uint32, r *rec, place int, f Facts) Entry {
	e := Entry{Key: schemas.TradeKey(r.key), Facts: f, Ref: r.ref, ISIN: x.names[r.isin], Side: x.names[r.side],
		Broker: x.names[r.broker], InvMgr: x.names[r.invMgr], CLSVersion: int(r.cls), Failing: []int{}}
	if place < inlineParties {
		e.Missing = int(r.missing[place])
	} else {
		e.Missing = int(x.moreParties[s][place-inlineParties].missing)
	}
	for _, o := range x.owes[s] {
		if int(o.party) == place {
			e.Owes = append(e.Owes, Owed{MsgType: x.names[o.msgType], Account: o.account, Count: int(o.count)})
		}
	}
	if odd, ok := x.oddFailing[s]; ok {
		e.Failing = slices.Clone(odd)
	} else {
		for c := 1; c < 32; c++ {
			if r.failing&(1<<c) != 0 {
				e.Failing = append(e.Failing, c)
			}
		}
	}
	return e
}
