package index

import (
	"cmp"
	"hash/maphash"
	"log/slog"
	"math/bits"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/date"
)

// records are one match partition's read side in memory: one fixed-size
// record a trade, holding every fact the at-risk and status counts, the
// TradeRef lookup and the work queue select trades by. Names (BICs,
// markets, ISINs, message types) are numbers of the partition's vocabulary, a
// TradeRef is a 32-bit hash for the lookup; the strings a record keeps
// are the TradeRef a queue entry shows and the accounts of what its parties
// owe (owed). The records live in chunks, found by
// trade key through an open-addressed table of record numbers; a party's
// queue is sorted slices of record numbers, one a status, and one more of
// the trades the party owes an item of (partyQueue). ~210–250 bytes a trade in all,
// where the indexes this replaced held ~950 (docs/benchmarks.md, "Memory:
// 250,000 trades in 600 MB").
//
// A record has three facets, each fed from its own path: the at-risk and
// status facts (every value the table stores: the stage's writes, the
// changelog's replay, a disk table resumed), the TradeRefs (once the
// partition is recovered) and the queue facts (the work queue's summaries,
// drain.go). A record none of them holds is freed.
type records struct {
	mu     sync.RWMutex
	table  []uint32 // trade key → record number + 1 (0: empty), open addressing (find)
	n      int      // records in table
	chunks []*[chunkLen]rec
	free   []uint32
	used   uint32 // records ever allocated (the high-water mark)

	ids   map[string]uint32 // the vocabulary: a name's number
	names []string          // and back ("" is 0)

	byParty     map[uint32]*partyQueue // party → its queued trades' records by (TradeDate, key)
	moreParties map[uint32][]moreParty // record → its parties beyond the inline ones
	owes        map[uint32][]owed      // record → the items its parties owe
	oddFailing  map[uint32][]int       // record → failing criteria a bit mask does not hold

	refsReady atomic.Bool         // the partition is recovered: TradeRefs are followed
	byRef     map[uint32]uint32   // TradeRef hash → a record with it
	refMore   map[uint32][]uint32 // TradeRef hash → the other records with it
	moreRefs  map[uint32][]uint32 // record → its TradeRef hashes beyond the first

	groups map[riskGroup]int // unmatched trades by (market, TradeDate)
	status statusTally
}

const chunkLen = 1024

const inlineParties = 4

// owesBit marks, in a party's number in a record, that it owes an item.
const owesBit = 1 << 31

// Record flags: the facets held, and two facts.
const (
	fCounted  = 1 << iota // se is counted in the status tally
	fOpen                 // unmatched: counted in its at-risk group
	fRef                  // ref (and moreRefs) indexed
	fQueued               // in its parties' queues
	fSettled              // queue: locked or cancelled, never at risk
	fMoreRefs             // moreRefs holds more of its TradeRefs
)

// rec is what the index holds of a trade: 104 bytes and its TradeRef.
type rec struct {
	key     uint64
	ref     string      // queue: the TradeRef shown
	se      statusEntry // status tally (fCounted)
	rdate   date.Date   // at-risk group's TradeDate (fOpen); noDate if unreadable
	rmarket uint32      // at-risk group's market (fOpen)
	refHash uint32      // hash of the first TradeRef indexed (fRef)
	// The queue's facts (fQueued): what an entry shows and the filters
	// read, names by their numbers.
	date            date.Date
	market          uint32 // the NOE in force's
	isin, side      uint32
	broker, invMgr  uint32
	cls             int32
	failing         uint32                // the failing criteria, bit n for criterion n
	parties         [inlineParties]uint32 // with the owes bit; more in moreParties
	missing         [inlineParties]uint16 // each party's missing count
	status, life    uint8                 // places in Statuses, Lifecycles
	nparties, flags uint8
}

// moreParty is a party beyond a record's inline ones.
type moreParty struct{ id, missing uint32 }

// owed is an item a party of a record owes (records.owes). Its account is
// kept as text, not a number of the vocabulary: accounts are as many as the
// trades (an investment manager's clients), and the vocabulary never
// forgets a name, so numbering them grew the index by every account ever
// owed (~80 MB at 1,000,000 trades) where the text lives as long as the
// item owed (TestVocabularyKeepsNoAccounts).
type owed struct {
	party   uint8 // its place among the record's parties
	msgType uint32
	count   int32
	account string
}

// riskGroup is an at-risk group: a market's number and a TradeDate.
type riskGroup struct {
	market uint32
	date   date.Date
}

// noDate stands for a TradeDate that does not parse (its cutoff is none).
const noDate = date.Date(-1 << 31)

func newRecords() *records {
	return &records{ids: map[string]uint32{"": 0}, names: []string{""},
		byParty: map[uint32]*partyQueue{}, moreParties: map[uint32][]moreParty{}, owes: map[uint32][]owed{},
		oddFailing: map[uint32][]int{}, byRef: map[uint32]uint32{},
		refMore: map[uint32][]uint32{}, moreRefs: map[uint32][]uint32{}, groups: map[riskGroup]int{},
		status: statusTally{byDay: map[int32]int{}}}
}

func (x *records) rec(s uint32) *rec { return &x.chunks[s/chunkLen][s%chunkLen] }

// at is key's record, nil when none.
func (x *records) at(key uint64) (uint32, *rec) {
	if i, ok := x.find(key); ok {
		return x.table[i] - 1, x.rec(x.table[i] - 1)
	}
	return 0, nil
}

// The table of record numbers is probed linearly from a trade key's home,
// its place by the key's top bits (Fibonacci hashing: a partition's keys
// share low bits); it holds 4 bytes a place, at most three quarters full,
// where a Go map of the same took 24–38 bytes an entry.
func (x *records) home(key uint64) int {
	return int((key * 0x9E3779B97F4A7C15) >> (64 - bits.TrailingZeros(uint(len(x.table)))))
}

// find is key's place in the table, or the empty place it would take.
func (x *records) find(key uint64) (int, bool) {
	if len(x.table) == 0 {
		return 0, false
	}
	mask := len(x.table) - 1
	for i := x.home(key); ; i = (i + 1) & mask {
		switch v := x.table[i]; {
		case v == 0:
			return i, false
		case x.rec(v-1).key == key:
			return i, true
		}
	}
}

func (x *records) insert(key uint64, s uint32) {
	if (x.n+1)*4 > len(x.table)*3 {
		old := x.table
		x.table = make([]uint32, max(1024, 2*len(old)))
		for _, v := range old {
			if v != 0 {
				i, _ := x.find(x.rec(v - 1).key)
				x.table[i] = v
			}
		}
	}
	i, _ := x.find(key)
	x.table[i] = s + 1
	x.n++
}

// erase takes key out of the table, moving back the entries after it
// that would no longer be found.
func (x *records) erase(key uint64) {
	i, ok := x.find(key)
	if !ok {
		return
	}
	x.table[i] = 0
	x.n--
	mask := len(x.table) - 1
	for j := (i + 1) & mask; x.table[j] != 0; j = (j + 1) & mask {
		// The entry at j stays unless its home is cyclically outside (i, j].
		if h := x.home(x.rec(x.table[j] - 1).key); (j-h)&mask >= (j-i)&mask {
			x.table[i], x.table[j] = x.table[j], 0
			i = j
		}
	}
}

func (x *records) alloc(key uint64) (uint32, *rec) {
	var s uint32
	if n := len(x.free); n > 0 {
		s, x.free = x.free[n-1], x.free[:n-1]
	} else {
		s = x.used
		x.used++
		if int(s/chunkLen) == len(x.chunks) {
			x.chunks = append(x.chunks, new([chunkLen]rec))
		}
	}
	r := x.rec(s)
	r.key = key
	x.insert(key, s)
	return s, r
}

// releaseIfEmpty frees s when no facet holds it.
func (x *records) releaseIfEmpty(s uint32, r *rec) {
	if r.flags&(fCounted|fOpen|fRef|fQueued) != 0 {
		return
	}
	x.erase(r.key)
	*r = rec{}
	x.free = append(x.free, s)
}

// id is name's number, made when new.
func (x *records) id(name string) uint32 {
	if n, ok := x.ids[name]; ok {
		return n
	}
	n := uint32(len(x.names))
	x.ids[name] = n
	x.names = append(x.names, name)
	return n
}

// put indexes a value the table stored under key: its status and at-risk
// group, and (once recovered) its TradeRefs.
func (x *records) put(key uint64, value []byte) {
	f := riskFactsOf(value)
	var refs [][]byte
	following := x.refsReady.Load()
	if following {
		refs, _ = matching.Refs(value) // unreadable: none
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.setRiskLocked(key, f)
	if following {
		x.setRefsLocked(key, refs)
	}
}

// load indexes a value as put does, its TradeRefs whether followed yet or
// not (Index.Load).
func (x *records) load(key uint64, value []byte) {
	f := riskFactsOf(value)
	refs, _ := matching.Refs(value) // unreadable: none
	x.mu.Lock()
	defer x.mu.Unlock()
	x.setRiskLocked(key, f)
	x.setRefsLocked(key, refs)
}

// remove takes a deleted key's status, group and TradeRefs out.
func (x *records) remove(key uint64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.setRiskLocked(key, riskFacts{})
	if x.refsReady.Load() {
		x.setRefsLocked(key, nil)
	}
}

// riskFacts are a value's status and at-risk group.
type riskFacts struct {
	open, counted bool
	market        string
	date          date.Date
	se            statusEntry
}

// riskFactsOf reads them: a trade still unmatched is open; anything else (a
// matched trade, a tombstone, a value that cannot be read) is not; its
// status is counted unless the value cannot be read.
func riskFactsOf(value []byte) riskFacts {
	var f riskFacts
	r, ok := matching.ReadRisk(value)
	if !ok {
		// A trade written before the timeliness extension: decoded once
		// (its market is unknown until its next message rewrites it).
		if tomb, _, hok := matching.Header(value); hok && !tomb {
			if t, err := matching.UnmarshalTrade(value, nil); err == nil {
				r, ok = t.Risk(), true
			}
		}
	}
	if ok && r.Open {
		f.open, f.market, f.date = true, r.Market, noDate
		if d, err := date.Parse(r.TradeDate); err == nil {
			f.date = d
		}
	}
	f.se, f.counted = classify(value)
	return f
}

func (x *records) setRiskLocked(key uint64, f riskFacts) {
	s, r := x.at(key)
	if r == nil {
		if !f.open && !f.counted {
			return
		}
		s, r = x.alloc(key)
	}
	var g riskGroup
	if f.open {
		g = riskGroup{x.id(f.market), f.date}
	}
	if r.flags&fOpen != 0 == f.open && r.flags&fCounted != 0 == f.counted && (!f.open || g == (riskGroup{r.rmarket, r.rdate})) &&
		(!f.counted || r.se == f.se) {
		return // most writes change neither
	}
	if r.flags&fOpen != 0 {
		old := riskGroup{r.rmarket, r.rdate}
		if x.groups[old]--; x.groups[old] <= 0 {
			delete(x.groups, old)
		}
	}
	if r.flags&fCounted != 0 {
		x.status.sub(r.se)
	}
	r.flags &^= fOpen | fCounted
	r.rmarket, r.rdate, r.se = g.market, g.date, statusEntry{}
	if f.open {
		r.flags |= fOpen
		x.groups[g]++
	}
	if f.counted {
		r.flags |= fCounted
		r.se = f.se
		x.status.add(f.se)
	}
	x.releaseIfEmpty(s, r)
}

// The TradeRef index finds the trades of one partition by TradeRef without
// a scan: a TradeRef's 32-bit hash → the records of the trades with it. It
// is built from the whole table once the partition is recovered (goka's
// MarkRecovered: the table then holds every trade, whichever storage kept
// it; Partition.Recovered) and kept as the match stage writes, from the
// refs read out of each value (matching.Refs reads them without decoding
// the trade). A hash collision only costs a read: the trades found are
// checked for the TradeRef itself. Before recovery a lookup of the
// partition says it is recovering rather than answering from part of the
// table.

var refSeed = maphash.MakeSeed()

func refHash(ref []byte) uint32 { return uint32(maphash.Bytes(refSeed, ref)) }

// refsOf is r's TradeRef hashes.
func (x *records) refsOf(s uint32, r *rec) []uint32 {
	if r.flags&fRef == 0 {
		return nil
	}
	return append([]uint32{r.refHash}, x.moreRefs[s]...)
}

func (x *records) setRefsLocked(key uint64, refs [][]byte) {
	var hs []uint32
	for _, ref := range refs {
		if h := refHash(ref); !slices.Contains(hs, h) {
			hs = append(hs, h)
		}
	}
	s, r := x.at(key)
	if r == nil {
		if len(hs) == 0 {
			return
		}
		s, r = x.alloc(key)
	}
	old := x.refsOf(s, r)
	// Most writes of a trade leave its refs as they were (a trade's refs
	// are set by its first messages).
	if len(old) == len(hs) && !slices.ContainsFunc(hs, func(h uint32) bool { return !slices.Contains(old, h) }) {
		return
	}
	for _, h := range old {
		x.refUnlink(h, s)
	}
	delete(x.moreRefs, s)
	r.flags &^= fRef | fMoreRefs
	if len(hs) > 0 {
		r.flags |= fRef
		r.refHash = hs[0]
		if len(hs) > 1 {
			r.flags |= fMoreRefs
			x.moreRefs[s] = hs[1:]
		}
		for _, h := range hs {
			if first, ok := x.byRef[h]; !ok {
				x.byRef[h] = s
			} else if first != s && !slices.Contains(x.refMore[h], s) {
				x.refMore[h] = append(x.refMore[h], s)
			}
		}
	}
	x.releaseIfEmpty(s, r)
}

func (x *records) refUnlink(h, s uint32) {
	more := x.refMore[h]
	switch first, ok := x.byRef[h]; {
	case !ok:
	case first == s && len(more) == 0:
		delete(x.byRef, h)
	case first == s:
		x.byRef[h] = more[len(more)-1]
		more = more[:len(more)-1]
	default:
		more = slices.DeleteFunc(more, func(v uint32) bool { return v == s })
	}
	if len(more) == 0 {
		delete(x.refMore, h)
	} else {
		x.refMore[h] = more
	}
}

// keys is the trade keys indexed under ref's hash; ready is false before
// the partition is recovered.
func (x *records) keys(ref string) (_ []schemas.TradeKey, ready bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if !x.refsReady.Load() {
		return nil, false
	}
	h := refHash([]byte(ref))
	first, ok := x.byRef[h]
	if !ok {
		return nil, true
	}
	out := []schemas.TradeKey{schemas.TradeKey(x.rec(first).key)}
	for _, s := range x.refMore[h] {
		out = append(out, schemas.TradeKey(x.rec(s).key))
	}
	return out, true
}

// rebuildRefs indexes the TradeRefs of every value of the table and makes
// the index follow them; each is told every trade key of the table.
func (x *records) rebuildRefs(it Iterator, log *slog.Logger, each func(uint64)) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for s := range x.used {
		if r := x.rec(s); r.flags&fRef != 0 {
			x.setRefsLocked(r.key, nil)
		}
	}
	for it.Next() {
		k, ok := schemas.ParseTradeKey(string(it.Key()))
		if !ok {
			continue
		}
		each(uint64(k))
		v, err := it.Value()
		if err != nil {
			log.Warn("trade lookup index: a value not read", "key", k.String(), "err", err)
			continue
		}
		refs, _ := matching.Refs(v)
		x.setRefsLocked(uint64(k), refs)
	}
	x.refsReady.Store(true)
}

// partiesOf is r's queue parties, each with its owes bit.
func (x *records) partiesOf(s uint32, r *rec) []uint32 {
	if r.flags&fQueued == 0 {
		return nil
	}
	out := append([]uint32(nil), r.parties[:min(int(r.nparties), inlineParties)]...)
	for _, p := range x.moreParties[s] {
		out = append(out, p.id)
	}
	return out
}

// partyAt is party's place among r's queue parties and its number with
// the owes bit; ok false when it is no party of r's queue.
func (x *records) partyAt(s uint32, r *rec, party uint32) (place int, id uint32, ok bool) {
	for i := range min(int(r.nparties), inlineParties) {
		if r.parties[i]&^owesBit == party {
			return i, r.parties[i], true
		}
	}
	if int(r.nparties) > inlineParties {
		for i, p := range x.moreParties[s] {
			if p.id&^owesBit == party {
				return inlineParties + i, p.id, true
			}
		}
	}
	return 0, 0, false
}

// isParty says whether party is in key's queue facts.
func (x *records) isParty(key uint64, party string) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	p, ok := x.ids[party]
	if !ok {
		return false
	}
	s, r := x.at(key)
	if r == nil {
		return false
	}
	_, _, ok = x.partyAt(s, r, p)
	return ok
}

// A party's queue is its trades' records in lists, each ordered by the
// queue's (TradeDate, key): one list a status, every trade of the party in
// the list of its status, and the list of the trades where the party owes
// an item (in its status list as well). A question reads the lists that
// hold what its filters keep — status=MISMATCHED its MISMATCHED list,
// owes=true the owes list, no filter the status lists merged — rather than
// every trade of the party: the selective filters keep few of a party's
// trades, and scanning all of them to find those few was what their
// questions cost (docs/benchmarks.md, the work queue). The lists take the
// memory one list of all did, and the owes list's 4 bytes a trade owed.
type partyQueue [nLists][]uint32

const (
	listOwes = iota + 3 // lists 0–2: by status (places in Statuses)
	nLists
)

func init() {
	if len(Statuses) != listOwes {
		panic("index: a list a status")
	}
}

func (q *partyQueue) empty() bool {
	return !slices.ContainsFunc(q[:], func(l []uint32) bool { return len(l) > 0 })
}

// listRef is one list of a party's queue.
type listRef struct {
	party uint32
	list  uint8
}

// inLists is a party of a record and the lists of its queue that hold
// the record: bit l for list l.
type inLists struct {
	party uint32
	lists uint8
}

// listsOf is the lists of its parties' queues r belongs in (none when it
// is in no queue); a party named twice is once, in the lists of both.
func (x *records) listsOf(s uint32, r *rec) []inLists {
	var out []inLists
	for _, p := range x.partiesOf(s, r) {
		l := uint8(1) << r.status
		if p&owesBit != 0 {
			l |= 1 << listOwes
		}
		if i := slices.IndexFunc(out, func(o inLists) bool { return o.party == p&^owesBit }); i >= 0 {
			out[i].lists |= l
		} else {
			out = append(out, inLists{p &^ owesBit, l})
		}
	}
	return out
}

func listsIn(ls []inLists, party uint32) uint8 {
	for _, l := range ls {
		if l.party == party {
			return l.lists
		}
	}
	return 0
}

// compare orders records by the queue's (TradeDate, key), three-way
// (slices.SortFunc); before is the same order as a test.
func (x *records) compare(a, b uint32) int {
	ra, rb := x.rec(a), x.rec(b)
	return cmp.Or(cmp.Compare(ra.date, rb.date), cmp.Compare(ra.key, rb.key))
}

func (x *records) before(a, b uint32) bool { return x.compare(a, b) < 0 }

// putQueued makes the queue facts of keys those of sums (nil: in no
// queue), moving each trade in and out of its parties' lists. The lists
// are changed once a batch: each list's removals in one pass, its
// insertions sorted and merged.
func (x *records) putQueued(keys []uint64, sums []*queued) {
	x.mu.Lock()
	defer x.mu.Unlock()
	adds, dels := map[listRef][]uint32{}, map[listRef][]uint32{}
	each := func(m map[listRef][]uint32, party uint32, lists uint8, s uint32) {
		for l := range uint8(nLists) {
			if lists&(1<<l) != 0 {
				k := listRef{party, l}
				m[k] = append(m[k], s)
			}
		}
	}
	var touched []uint32
	for i, key := range keys {
		q := sums[i]
		s, r := x.at(key)
		if r == nil {
			if q == nil {
				continue
			}
			s, r = x.alloc(key)
		}
		touched = append(touched, s)
		old := x.listsOf(s, r)
		// A trade whose position changes leaves all its lists and enters
		// them again at its new place.
		moved := q == nil || r.flags&fQueued != 0 && q.pos.Date != r.date
		x.setQueuedLocked(s, r, q)
		next := x.listsOf(s, r)
		for _, o := range old {
			if moved {
				each(dels, o.party, o.lists, s)
			} else {
				each(dels, o.party, o.lists&^listsIn(next, o.party), s)
			}
		}
		for _, n := range next {
			if moved {
				each(adds, n.party, n.lists, s)
			} else {
				each(adds, n.party, n.lists&^listsIn(old, n.party), s)
			}
		}
	}
	queueOf := func(p uint32) *partyQueue {
		pq := x.byParty[p]
		if pq == nil {
			pq = &partyQueue{}
			x.byParty[p] = pq
		}
		return pq
	}
	for k, ss := range dels {
		slices.Sort(ss)
		pq := queueOf(k.party)
		pq[k.list] = slices.DeleteFunc(pq[k.list], func(s uint32) bool { _, found := slices.BinarySearch(ss, s); return found })
		if len(pq[k.list]) == 0 {
			pq[k.list] = nil // its memory freed
		}
	}
	for k, ss := range adds {
		slices.SortFunc(ss, x.compare)
		pq := queueOf(k.party)
		pq[k.list] = x.merge(pq[k.list], ss)
	}
	for k := range dels {
		if pq := x.byParty[k.party]; pq != nil && pq.empty() {
			delete(x.byParty, k.party)
		}
	}
	for _, s := range touched {
		x.releaseIfEmpty(s, x.rec(s))
	}
}

// setQueuedLocked makes q (nil: none) r's queue facts.
func (x *records) setQueuedLocked(s uint32, r *rec, q *queued) {
	key, se, rdate, rmarket, refHash, flags := r.key, r.se, r.rdate, r.rmarket, r.refHash, r.flags
	*r = rec{key: key, se: se, rdate: rdate, rmarket: rmarket, refHash: refHash, flags: flags &^ (fQueued | fSettled)}
	delete(x.moreParties, s)
	delete(x.owes, s)
	delete(x.oddFailing, s)
	if q == nil {
		return
	}
	r.flags |= fQueued
	if q.settled {
		r.flags |= fSettled
	}
	r.ref, r.date, r.market, r.status, r.life, r.cls = q.ref, q.pos.Date, x.id(q.market), q.status, q.lifecycle, q.cls
	r.isin, r.side, r.broker, r.invMgr = x.id(q.isin), x.id(q.side), x.id(q.broker), x.id(q.invMgr)
	prev := 0
	for _, c := range q.failing {
		if c <= prev || c > 31 {
			x.oddFailing[s] = q.failing // not ascending, or beyond the mask: kept as it is
			break
		}
		r.failing |= 1 << c
		prev = c
	}
	for j, qp := range q.parties {
		p := x.id(qp.bic)
		if len(qp.owes) > 0 {
			p |= owesBit
		}
		if j < inlineParties {
			r.parties[j], r.missing[j] = p, uint16(min(qp.missing, 1<<16-1))
		} else {
			x.moreParties[s] = append(x.moreParties[s], moreParty{p, uint32(qp.missing)})
		}
		for _, o := range qp.owes {
			x.owes[s] = append(x.owes[s], owed{party: uint8(min(j, 255)), msgType: x.id(o.MsgType), count: int32(o.Count), account: o.Account})
		}
	}
	r.nparties = uint8(min(len(q.parties), 255))
}

// merge puts the sorted records add into the sorted list l, in place from
// the end: each one's place found by a binary search of the records not
// moved yet, and the records after it moved up at once. (Comparing every
// record of the tail, as a textbook merge does, read two records a step and
// grew with the queue: at 250,000 trades it was half of a drain's index
// work.) A record equal to one in l goes after it.
func (x *records) merge(l, add []uint32) []uint32 {
	n := len(l)
	l = slices.Grow(l, len(add))[:n+len(add)]
	hi, end := n, len(l) // l[:hi] not moved yet; l[end:] final
	for j := len(add) - 1; j >= 0; j-- {
		a := add[j]
		p := sort.Search(hi, func(i int) bool { return x.before(a, l[i]) })
		m := hi - p
		copy(l[end-m:end], l[p:hi])
		end -= m + 1
		l[end] = a
		hi = p
	}
	return l
}
