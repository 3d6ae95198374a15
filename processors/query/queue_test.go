package query

import (
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/memstore"
	"github.com/ste-utility/ste/processors/query/internal/index"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/workload"
)

// queueFixture is a generated realistic set, with some of its matched
// trades affirmed (locked) and some cancelled bilaterally, folded into a
// book and stored across parts match partitions as the match table's
// storage stores it (through each partition's read side).
type queueFixture struct {
	tables Tables
	book   *matching.Book
	views  map[schemas.TradeKey]matching.View // the oracle's, once the book is complete (viewsNow)
	stores map[int32]*indexed
	keys   []schemas.TradeKey
	parts  int32
	dec    schemas.Decoder
	// feed: each write is followed by its trade handed over, as the match
	// stage does (Tables.Decided); reads counts the indexes' reads of the
	// stores.
	feed  bool
	reads atomic.Int64
}

// countedStore counts the reads of a store.
type countedStore struct {
	index.Store
	n *atomic.Int64
}

func (s countedStore) Get(key string) ([]byte, error) {
	s.n.Add(1)
	return s.Store.Get(key)
}

func (f *queueFixture) all() []int32 {
	var ps []int32
	for p := range f.parts {
		ps = append(ps, p)
	}
	return ps
}

func (f *queueFixture) partOf(k schemas.TradeKey) int32 { return int32(uint64(k) % uint64(f.parts)) }

// accept applies a message to the book and stores its trade (a
// duplicate or a key collision is left out, as the match stage does).
func (f *queueFixture) accept(t testing.TB, rec []byte) schemas.TradeKey {
	t.Helper()
	m, rej := f.dec.Decode(rec)
	if rej != nil {
		t.Fatalf("%v: %s", rej, rec)
	}
	if _, known := f.book.Known(m.ID()); known || f.book.KeyCollision(m) != nil {
		return m.Key.TradeKey()
	}
	sum := sha256.Sum256(rec)
	f.book.Accept(&matching.Inbound{Msg: m, Digest: matching.Digest(sum[:16]), NetUnits: 2})
	k := m.Key.TradeKey()
	f.store(t, k)
	return k
}

func (f *queueFixture) store(t testing.TB, k schemas.TradeKey) {
	t.Helper()
	tr := f.book.Trade(k)
	if tr == nil {
		return
	}
	val, err := tr.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.stores[f.partOf(k)].Set(k.String(), val); err != nil {
		t.Fatal(err)
	}
	if f.feed {
		// The match stage hands over the trade it decoded and applied the
		// message to; here a copy decoded from the value, as the book's
		// own goes on changing.
		decided, err := matching.UnmarshalTrade(val, matching.Interner{})
		if err != nil {
			t.Fatal(err)
		}
		f.tables.Decided(f.partOf(k), decided)
	}
	if !slices.Contains(f.keys, k) {
		f.keys = append(f.keys, k)
	}
}

const fixtureTradeDate = "2026-11-02"

func newQueueFixture(t testing.TB, n int, parts int32) *queueFixture {
	t.Helper()
	f := &queueFixture{book: matching.NewBook(), stores: map[int32]*indexed{}, parts: parts}
	f.tables.Serve(Config{Refdata: refdata.Default})
	for p := range parts {
		store := memstore.New(nil)
		f.stores[p] = &indexed{Store: store, x: f.tables.Open(p, countedStore{store, &f.reads})}
	}
	var recs [][]byte
	// Two trade dates, so that the order and the trade_date filter have
	// something to do.
	for i, d := range []string{fixtureTradeDate, "2026-11-03"} {
		_, err := workload.Generate(workload.Options{Trades: n / 2, Mix: workload.Realistic, Seed: uint64(7 + i), TradeDate: date.MustParse(d)},
			func(b []byte) error { recs = append(recs, b); return nil }, nil)
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range recs {
		if m, rej := f.dec.Decode(r); rej == nil && m != nil {
			f.accept(t, r)
		}
	}
	// Every fourth matched trade affirmed by its InvMgr; every seventh
	// cancelled by its principals.
	i := 0
	for _, k := range slices.Clone(f.keys) {
		v := f.book.Trade(k).View()
		if v.State != "matched" || v.Cancelled || len(v.Keys) == 0 {
			continue
		}
		i++
		switch {
		case i%4 == 0:
			f.accept(t, affOf(&v, "AFF-"+k.String()))
		case i%7 == 0:
			kv := v.Keys[0]
			f.accept(t, lifecycleMsg(&v, "CXL-"+k.String(), "CXL", kv.Broker, "", schemas.Pair{Name: "CancelReason", Value: "DUPLICATE"}))
			f.accept(t, lifecycleMsg(&v, "CXA-"+k.String(), "CXA", kv.InvMgr, "CXL-"+k.String()))
		}
	}
	return f
}

func lifecycleMsg(v *matching.View, id, typ, sender, related string, body ...schemas.Pair) []byte {
	k := v.Keys[0]
	d := &schemas.Draft{MsgId: id, MsgType: typ, Function: "NEW", Sender: sender, Created: "2026-11-03T10:00:00.000Z",
		RelatedMsgId: related, Body: append([]schemas.Pair{{Name: "TradeRef", Value: k.TradeRef}, {Name: "TradeDate", Value: k.TradeDate},
			{Name: "ISIN", Value: k.ISIN}, {Name: "Side", Value: k.Side}, {Name: "Broker", Value: k.Broker}, {Name: "InvMgr", Value: k.InvMgr}}, body...)}
	return d.AppendSigned(nil, refdata.DemoPrivateKey(sender))
}

// affOf is the InvMgr's AFF of the trade's messages in force.
func affOf(v *matching.View, id string) []byte {
	var toks []string
	for _, m := range v.Messages {
		if m.InForce {
			toks = append(toks, m.Sender+":"+m.MsgId)
		}
	}
	slices.Sort(toks)
	return lifecycleMsg(v, id, "AFF", v.Keys[0].InvMgr, "", schemas.Pair{Name: "Decision", Value: "AFFIRM"},
		schemas.Pair{Name: "MatchDigest", Value: v.MatchDigest}, schemas.Pair{Name: "Affirms", Value: strings.Join(toks, " ")})
}

func (f *queueFixture) recover(t testing.TB) {
	t.Helper()
	for _, st := range f.stores {
		if err := st.MarkRecovered(); err != nil {
			t.Fatal(err)
		}
	}
	f.waitReady(t)
}

func (f *queueFixture) waitReady(t testing.TB) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		ready := true
		for _, x := range f.tables.parts {
			ready = ready && x.idx.Ready()
		}
		if ready {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("queue indexes not built in a minute")
		}
	}
}

// oracleEntry is what gateway.md §4c says party sees of the trade of view
// v in its queue, derived from the view by the contract's words alone.
func oracleEntry(v *matching.View, party string, now time.Time, lead time.Duration) (QueueTrade, bool) {
	if !v.IsParty(party) {
		return QueueTrade{}, false
	}
	pv, _ := v.For(party)
	k := v.Keys[0]
	e := QueueTrade{TradeKey: v.TradeKey, TradeRef: k.TradeRef, TradeDate: k.TradeDate, ISIN: k.ISIN, Side: k.Side,
		Broker: k.Broker, InvMgr: k.InvMgr, Status: strings.ToUpper(v.State), Lifecycle: v.Lifecycle,
		FailingCriteria: []int{}, Owes: []QueueOwed{}, MissingCount: len(pv.Missing)}
	for _, c := range v.CLS {
		if c.Standing {
			e.CLSVersion = c.Version
		}
	}
	if e.Status == "MISMATCHED" {
		for _, c := range v.Failing {
			e.FailingCriteria = append(e.FailingCriteria, c.N)
		}
	}
	others := false
	for _, m := range v.Messages {
		others = others || m.InForce && m.Sender != party
	}
	for _, o := range v.Missing {
		if others && o.From == party {
			e.Owes = append(e.Owes, QueueOwed{MsgType: o.MsgType, Account: o.Account, Count: o.Count})
		}
	}
	market, cutoff := refdata.Default().CutoffOf(v.Market, k.TradeDate)
	e.Market, e.Cutoff = market, cutoff.UTC().Format(time.RFC3339)
	e.AtRisk = !v.Locked && !v.Cancelled && !now.Before(cutoff.Add(-lead))
	e.PastCutoff = now.After(cutoff)
	return e, true
}

// viewsNow keeps the trades' views for the oracle (the book as it is now).
func (f *queueFixture) viewsNow() {
	f.views = map[schemas.TradeKey]matching.View{}
	for _, k := range f.keys {
		if tr := f.book.Trade(k); tr != nil {
			f.views[k] = tr.View()
		}
	}
}

func (f *queueFixture) oracle(party string, keep func(QueueTrade) bool, now time.Time, lead time.Duration) []QueueTrade {
	var out []QueueTrade
	if f.views == nil {
		f.viewsNow()
	}
	for _, k := range f.keys {
		v, ok := f.views[k]
		if !ok || len(v.Keys) == 0 {
			continue
		}
		if e, ok := oracleEntry(&v, party, now, lead); ok && keep(e) {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b QueueTrade) int {
		return cmp.Or(strings.Compare(a.TradeDate, b.TradeDate), strings.Compare(a.TradeKey, b.TradeKey))
	})
	return out
}

// walk pages through party's queue with q, limit at a time.
func (f *queueFixture) walk(t testing.TB, q QueueQuery) []QueueTrade {
	t.Helper()
	var out []QueueTrade
	for range 10000 {
		found, err := f.tables.Queue(q, f.all())
		if err != nil {
			t.Fatal(err)
		}
		for _, fd := range found {
			if fd.Partition != f.partOf(mustKey(t, fd.Trade.TradeKey)) {
				t.Fatalf("%s answered from partition %d", fd.Trade.TradeKey, fd.Partition)
			}
			out = append(out, fd.Trade)
		}
		if len(found) < q.Limit {
			return out
		}
		pos, ok := found[len(found)-1].Trade.Pos()
		if !ok {
			t.Fatalf("no position of %+v", found[len(found)-1].Trade)
		}
		q.After = &pos
	}
	t.Fatal("the walk does not end")
	return nil
}

// agree holds every party's whole queue (a lead of an hour at now) to
// what the views say, after what.
func (f *queueFixture) agree(t testing.TB, what string, now time.Time) {
	t.Helper()
	f.viewsNow()
	for _, p := range f.parties() {
		got := f.walk(t, QueueQuery{Party: p, Limit: 500, Now: now, Lead: time.Hour})
		if d := diffQueues(got, f.oracle(p, func(QueueTrade) bool { return true }, now, time.Hour)); d != "" {
			t.Fatalf("%s: %s: %s", what, p, d)
		}
	}
}

func mustKey(t testing.TB, s string) schemas.TradeKey {
	k, ok := schemas.ParseTradeKey(s)
	if !ok {
		t.Fatalf("trade key %q", s)
	}
	return k
}

func (f *queueFixture) parties() []string {
	seen := map[string]bool{}
	if f.views == nil {
		f.viewsNow()
	}
	for _, k := range f.keys {
		v := f.views[k]
		for _, p := range v.Parties {
			seen[p] = true
		}
		for _, m := range v.Messages {
			seen[m.Sender] = true // senders that are no party (a parked SET's custodian)
		}
	}
	var out []string
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

func diffQueues(got, want []QueueTrade) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d trades, want %d", len(got), len(want))
	}
	for i := range got {
		if g, w := fmt.Sprintf("%+v", got[i]), fmt.Sprintf("%+v", want[i]); g != w {
			return fmt.Sprintf("entry %d:\n got %s\nwant %s", i, g, w)
		}
	}
	return ""
}

// The work queue of every participant of a generated set, walked a page at
// a time with each filter, is what gateway.md §4c derives from each
// trade's view: only the trades it is a party to, ordered by TradeDate then
// trade key, each filter applied before the limit, as the participant sees
// the trade (a Custodian's missing count of its accounts), owes its own.
func TestQueueAgreesWithTheViews(t *testing.T) {
	f := newQueueFixture(t, 300, 4)
	f.recover(t)
	// XSES's cutoff (15:59Z) is 1.5 h away, XTKS's (14:59Z) half an hour,
	// XASX's (12:59Z) passed; the next day's trades are not at risk.
	now, _ := time.Parse(time.RFC3339, "2026-11-02T14:30:00Z")
	lead := 2 * time.Hour
	any := func(QueueTrade) bool { return true }
	filters := []struct {
		name string
		q    func(*QueueQuery)
		keep func(QueueTrade) bool
	}{
		{"all", func(*QueueQuery) {}, any},
		{"date", func(q *QueueQuery) { q.Date = "2026-11-03" }, func(e QueueTrade) bool { return e.TradeDate == "2026-11-03" }},
		{"status", func(q *QueueQuery) { q.Status = []string{"MISMATCHED", "INCOMPLETE"} },
			func(e QueueTrade) bool { return e.Status == "MISMATCHED" || e.Status == "INCOMPLETE" }},
		{"lifecycle", func(q *QueueQuery) { q.Lifecycle = []string{"AFFIRMED", "CANCELLED"} },
			func(e QueueTrade) bool { return e.Lifecycle == "AFFIRMED" || e.Lifecycle == "CANCELLED" }},
		{"owes", func(q *QueueQuery) { q.Owes = true }, func(e QueueTrade) bool { return len(e.Owes) > 0 }},
		{"at risk", func(q *QueueQuery) { q.AtRisk = true }, func(e QueueTrade) bool { return e.AtRisk }},
		{"combined", func(q *QueueQuery) { q.AtRisk, q.Date, q.Status = true, fixtureTradeDate, []string{"MATCHED"} },
			func(e QueueTrade) bool { return e.AtRisk && e.TradeDate == fixtureTradeDate && e.Status == "MATCHED" }},
	}
	seen := map[string]int{}
	for _, party := range f.parties() {
		for _, fl := range filters {
			for _, limit := range []int{1, 7, 500} {
				q := QueueQuery{Party: party, Limit: limit, Now: now, Lead: lead}
				fl.q(&q)
				got := f.walk(t, q)
				want := f.oracle(party, fl.keep, now, lead)
				if d := diffQueues(got, want); d != "" {
					t.Fatalf("%s, %s, limit %d: %s", party, fl.name, limit, d)
				}
				seen[fl.name] += len(got)
			}
		}
	}
	// The fixture exercises every filter.
	for _, fl := range filters {
		if seen[fl.name] == 0 {
			t.Errorf("no trade passes filter %s: the fixture does not test it", fl.name)
		}
	}
	t.Logf("trades listed per filter (3 limits): %v", seen)
}

// Writes after recovery show in the next answer (the question drains what
// its partitions still have to summarise), whatever the delay: a new trade,
// a trade whose parties change, a trade deleted, a tombstone.
func TestQueueFollowsTheTable(t *testing.T) {
	old := index.DrainDelay
	index.DrainDelay = time.Hour // only questions drain
	defer func() { index.DrainDelay = old }()
	f := newQueueFixture(t, 40, 2)
	f.recover(t)
	now := time.Now()
	q := func(party string) []QueueTrade {
		return f.walk(t, QueueQuery{Party: party, Limit: 500, Now: now, Lead: time.Hour})
	}
	check := func(what string) { t.Helper(); f.agree(t, what, now) }
	check("recovered")
	// A new trade, message by message.
	var recs [][]byte
	workload.Generate(workload.Options{Trades: 1, Seed: 99}, func(b []byte) error { recs = append(recs, b); return nil }, nil)
	for i, r := range recs {
		f.accept(t, r)
		check(fmt.Sprintf("after message %d of a new trade", i+1))
	}
	// A question drains only the trades that may concern its party: the
	// others wait for the delay (their writes summarised once).
	k0 := f.keys[0]
	v0 := f.book.Trade(k0).View()
	val0, _ := f.book.Trade(k0).MarshalBinary()
	f.stores[f.partOf(k0)].Set(k0.String(), val0)
	x0 := f.tables.parts[f.partOf(k0)].idx
	q("NOTAPARTYXXX")
	if x0.Stats().Pending != 1 { // the one trade written since the last question
		t.Fatal("a question of a participant the trade does not mention summarised it")
	}
	q(v0.Keys[0].InvMgr)
	if x0.Stats().Pending != 0 {
		t.Fatal("a question of its InvMgr did not summarise it")
	}
	// Deleted, and purged to a tombstone.
	k := f.keys[0]
	if err := f.stores[f.partOf(k)].Delete(k.String()); err != nil {
		t.Fatal(err)
	}
	gone := f.book.Trade(k).View()
	for _, p := range gone.Parties {
		for _, e := range q(p) {
			if e.TradeKey == k.String() {
				t.Fatalf("a deleted trade listed for %s", p)
			}
		}
	}
	k2 := f.keys[1]
	v2 := f.book.Trade(k2).View()
	if err := f.stores[f.partOf(k2)].Set(k2.String(), matching.MarshalTombstone(k2, matching.Tombstone{Version: 1})); err != nil {
		t.Fatal(err)
	}
	for _, p := range v2.Parties {
		for _, e := range q(p) {
			if e.TradeKey == k2.String() {
				t.Fatalf("a purged trade listed for %s", p)
			}
		}
	}
}

// A trade the match stage hands over after its write (Tables.Decided) is
// summarised as handed over, its value not read back from the store, and
// the queue still says what the views say; a write not followed by its
// trade is read back, as before.
func TestQueueSummarisesTheDecidedTrade(t *testing.T) {
	f := newQueueFixture(t, 40, 2)
	f.recover(t)
	now := time.Now()
	check := func(what string) { t.Helper(); f.agree(t, what, now) }
	var recs [][]byte
	workload.Generate(workload.Options{Trades: 3, Seed: 99}, func(b []byte) error { recs = append(recs, b); return nil }, nil)
	f.feed = true
	f.reads.Store(0)
	for i, r := range recs {
		f.accept(t, r)
		check(fmt.Sprintf("after message %d, handed over", i+1))
	}
	if n := f.reads.Load(); n != 0 {
		t.Fatalf("the queue read %d values back from the stores although each trade was handed over", n)
	}
	// Not handed over: read back.
	f.feed = false
	k := f.keys[len(f.keys)-1]
	f.store(t, k)
	check("a write not handed over")
	if f.reads.Load() == 0 {
		t.Fatal("a write not handed over was summarised without reading its value")
	}
	// A drain behind the writes keeps at most MaxDecided trades a
	// partition: those past it are read back.
	oldDelay, oldMax := index.DrainDelay, index.MaxDecided
	index.DrainDelay, index.MaxDecided = time.Hour, 1 // only questions drain
	defer func() { index.DrainDelay, index.MaxDecided = oldDelay, oldMax }()
	recs = nil
	workload.Generate(workload.Options{Trades: 6, Seed: 98}, func(b []byte) error { recs = append(recs, b); return nil }, nil)
	f.feed = true
	f.reads.Store(0)
	for _, r := range recs {
		f.accept(t, r)
	}
	check("six trades written, a question")
	// Six trades over two partitions, one handed over trade kept in each:
	// the other 4 are read back twice, for whom they mention (the first
	// question's) and for their summaries.
	if n := f.reads.Load(); n != 8 {
		t.Fatalf("the queue read %d values back; with one trade kept a partition, 4 of 6 are read twice", n)
	}
}

// The match stage takes back the trade it handed over (Tables.Reclaim) to
// apply the trade's next message to it: only while the index holds it for
// the value the table holds — not after a later write, nor once a drain
// took it — and once. The write it was handed over with is still
// summarised (from the store), and the queues still say what the views say.
func TestReclaimOnlyTheTradeOfTheLastWrite(t *testing.T) {
	f := newQueueFixture(t, 20, 2)
	f.recover(t)
	oldDelay := index.DrainDelay
	index.DrainDelay = time.Hour // only questions drain
	defer func() { index.DrainDelay = oldDelay }()
	k := f.keys[0]
	p := f.partOf(k)
	f.feed = true
	f.store(t, k)
	got := f.tables.Reclaim(p, k)
	if got == nil || got.Key != k {
		t.Fatalf("the trade handed over was not given back: %v", got)
	}
	if f.tables.Reclaim(p, k) != nil {
		t.Fatal("a trade given back twice")
	}
	f.agree(t, "a reclaimed write, summarised from the store", time.Now())
	// A later write not handed over: the trade held is not the value's.
	f.store(t, k)
	f.feed = false
	f.store(t, k)
	if f.tables.Reclaim(p, k) != nil {
		t.Fatal("the trade of an earlier write given back after a later one")
	}
	// Taken by a drain: the drain is summarising it, or has.
	f.feed = true
	f.store(t, k)
	f.agree(t, "drained", time.Now())
	if f.tables.Reclaim(p, k) != nil {
		t.Fatal("a trade given back after a drain took it")
	}
	if f.tables.Reclaim(p+1, k) != nil || f.tables.Reclaim(99, k) != nil {
		t.Fatal("given back by another partition")
	}
}

// Before its table is recovered a partition does not follow the writes,
// and a question of it is ErrRecovering until the index is built; a
// question out of form is ErrBadQueue; a partition not owned is not read.
func TestQueueRecoveringAndForm(t *testing.T) {
	f := newQueueFixture(t, 20, 2)
	base := QueueQuery{Party: f.book.Trade(f.keys[0]).View().Keys[0].Broker, Limit: 10, Now: time.Now()}
	if _, err := f.tables.Queue(base, f.all()); !errors.Is(err, ErrRecovering) {
		t.Fatalf("before recovery: %v", err)
	}
	for _, x := range f.tables.parts {
		if x.idx.Stats().Pending != 0 {
			t.Fatal("writes before recovery were followed")
		}
	}
	f.recover(t)
	if got, err := f.tables.Queue(base, f.all()); err != nil || len(got) == 0 {
		t.Fatalf("after recovery: %d, %v", len(got), err)
	}
	for _, bad := range []func(*QueueQuery){
		func(q *QueueQuery) { q.Party = "" },
		func(q *QueueQuery) { q.Limit = 0 },
		func(q *QueueQuery) { q.Limit = MaxQueueLimit + 1 },
		func(q *QueueQuery) { q.Status = []string{"matched"} },
		func(q *QueueQuery) { q.Lifecycle = []string{"LOCKED"} },
		func(q *QueueQuery) { q.Date = "2026-13-01" },
	} {
		q := base
		bad(&q)
		if _, err := f.tables.Queue(q, f.all()); !errors.Is(err, ErrBadQueue) {
			t.Errorf("%+v: %v", q, err)
		}
	}
	// Only the partitions asked about: a party with trades in both.
	var all, one []QueueFound
	for _, k := range f.keys {
		party := f.book.Trade(k).View().Keys[0].InvMgr
		all, _ = f.tables.Queue(QueueQuery{Party: party, Limit: 500, Now: time.Now()}, f.all())
		one, _ = f.tables.Queue(QueueQuery{Party: party, Limit: 500, Now: time.Now()}, []int32{1})
		if len(one) > 0 && len(one) < len(all) {
			break
		}
	}
	for _, fd := range one {
		if fd.Partition != 1 {
			t.Fatalf("partition %d answered", fd.Partition)
		}
	}
	if len(one) >= len(all) {
		t.Fatalf("partition 1 alone gave %d of %d", len(one), len(all))
	}
	// A partition owned whose table is not open (a rebalance under way)
	// cannot be listed: recovering, not a page without it.
	if _, err := f.tables.Queue(base, append(f.all(), 9)); !errors.Is(err, ErrRecovering) {
		t.Fatalf("a partition owned but not open: %v", err)
	}
}

// Three participants — a Broker, an InvMgr and a Custodian — and the
// trades between them and others, their messages in shuffled orders: every
// order gives every participant the same queue, holding only its own
// trades, and nothing of another party's (no trade it is no party to, no
// item owed by another, a Custodian's counts of its accounts only). A
// rogue Custodian's SET makes it no party. The isolation and commutativity
// of the queue (gateway.md §4c, messages.md §5).
func TestQueueIsolationShuffled(t *testing.T) {
	set := refdata.Default()
	var recs [][]byte
	if _, err := workload.Generate(workload.Options{Trades: 24, Mix: workload.Realistic, Seed: 11, Ref: set},
		func(b []byte) error { recs = append(recs, b); return nil }, nil); err != nil {
		t.Fatal(err)
	}
	// The three: the Broker and the InvMgr of the first trade, a Custodian
	// of its ALCs; a rogue: a custodian of no ALC of that trade sending a
	// SET naming itself for one of its accounts.
	var dec schemas.Decoder
	var broker, invMgr, cust, rogue string
	var first schemas.TradeKey
	var alcSET []byte
	for _, r := range recs {
		m, rej := dec.Decode(r)
		if rej != nil {
			continue
		}
		if broker == "" {
			broker, invMgr, first = m.Key.Broker, m.Key.InvMgr, m.Key.TradeKey()
		}
		if m.Key.TradeKey() == first && m.Type == schemas.SET && m.Function == schemas.NEW && cust == "" {
			cust, alcSET = m.Custodian, r
		}
	}
	for _, p := range set.Participants() {
		if p.Roles.Has(refdata.RoleCustodian) && p.Status == refdata.Active && p.BIC != cust && rogue == "" {
			rogue = p.BIC
		}
	}
	if cust == "" || rogue == "" {
		t.Fatal("no custodian in the set")
	}
	rm, _ := dec.Decode(alcSET)
	rd := &schemas.Draft{MsgId: "ROGUE-1", MsgType: "SET", Function: "NEW", Sender: rogue, Created: "2026-11-02T03:00:00.000Z",
		Body: []schemas.Pair{{Name: "TradeRef", Value: rm.Key.TradeRef}, {Name: "TradeDate", Value: rm.Key.TradeDate},
			{Name: "ISIN", Value: rm.Key.ISIN}, {Name: "Side", Value: rm.Key.Side}, {Name: "Broker", Value: rm.Key.Broker},
			{Name: "InvMgr", Value: rm.Key.InvMgr}, {Name: "Account", Value: rm.Account}, {Name: "Quantity", Value: fmt.Sprint(rm.Quantity)},
			{Name: "SettleDate", Value: rm.SettleDate.String()}, {Name: "SettleCcy", Value: rm.SettleCcy},
			{Name: "NetAmount", Value: rm.NetAmount.Fixed(2)}, {Name: "Custodian", Value: rogue}, {Name: "PSET", Value: rm.PSET},
			{Name: "SafekeepingAccount", Value: "ROGUE"}, {Name: "CashAccount", Value: "ROGUE"}}}
	recs = append(recs, rd.AppendSigned(nil, refdata.DemoPrivateKey(rogue)))
	now := time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)
	var first3 map[string][]QueueTrade
	rng := rand.New(rand.NewPCG(5, 6))
	for order := range 12 {
		shuffled := slices.Clone(recs)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		f := &queueFixture{book: matching.NewBook(), stores: map[int32]*indexed{}, parts: 3}
		f.tables.Serve(Config{Refdata: refdata.Default})
		for p := range f.parts {
			store := memstore.New(nil)
			f.stores[p] = &indexed{Store: store, x: f.tables.Open(p, store)}
		}
		half := len(shuffled) / 2
		for _, r := range shuffled[:half] { // before recovery: the replay
			if m, rej := f.dec.Decode(r); rej == nil && m != nil {
				f.accept(t, r)
			}
		}
		f.recover(t)
		for _, r := range shuffled[half:] { // after: the stage's writes
			if m, rej := f.dec.Decode(r); rej == nil && m != nil {
				f.accept(t, r)
			}
		}
		got := map[string][]QueueTrade{}
		for _, p := range []string{broker, invMgr, cust, rogue} {
			got[p] = f.walk(t, QueueQuery{Party: p, Limit: 5, Now: now, Lead: 2 * time.Hour})
			for _, e := range got[p] {
				v := f.book.Trade(mustKey(t, e.TradeKey)).View()
				if !v.IsParty(p) {
					t.Fatalf("order %d: %s listed trade %s it is no party to", order, p, e.TradeKey)
				}
				want, _ := oracleEntry(&v, p, now, 2*time.Hour)
				if d := diffQueues([]QueueTrade{e}, []QueueTrade{want}); d != "" {
					t.Fatalf("order %d, %s: %s", order, p, d)
				}
				for _, o := range e.Owes {
					if o.MsgType == "SET" && !slices.Contains(v.Custodians[p], o.Account) {
						t.Fatalf("order %d: %s owes a SET of account %s, not its own", order, p, o.Account)
					}
				}
			}
			if p == rogue && slices.ContainsFunc(got[p], func(e QueueTrade) bool { return e.TradeKey == first.String() }) {
				t.Fatalf("order %d: the rogue custodian's SET made it a party", order)
			}
		}
		if len(got[broker]) == 0 || len(got[invMgr]) == 0 || len(got[cust]) == 0 {
			t.Fatalf("order %d: empty queues %d %d %d", order, len(got[broker]), len(got[invMgr]), len(got[cust]))
		}
		if first3 == nil {
			first3 = got
			continue
		}
		for p, q := range got {
			if d := diffQueues(q, first3[p]); d != "" {
				t.Fatalf("order %d gives %s another queue than order 0: %s", order, p, d)
			}
		}
	}
}

// closingStore fails the test when read once closed, as a closed disk
// table panics.
type closingStore struct {
	*memstore.Store
	closed atomic.Bool
	t      *testing.T
}

func (s *closingStore) Get(key string) ([]byte, error) {
	if s.closed.Load() {
		s.t.Error("a closed store was read")
	}
	time.Sleep(50 * time.Microsecond) // a read takes a while
	return s.Store.Get(key)
}

// Closing a partition's read side (its storage does before the store
// closes) waits for a summary under way and stops every later one: the
// store is never read once closed, though writes were marked.
func TestQueueStopsReadingAClosedStore(t *testing.T) {
	old := index.DrainDelay
	index.DrainDelay = time.Millisecond
	defer func() { index.DrainDelay = old }()
	f := newQueueFixture(t, 60, 1)
	var tables Tables
	tables.Serve(Config{Refdata: refdata.Default})
	st := &closingStore{Store: memstore.New(nil), t: t}
	x := tables.Open(0, st)
	for _, k := range f.keys {
		v, _ := f.book.Trade(k).MarshalBinary()
		st.Set(k.String(), v)
		x.Put(k.String(), v)
	}
	it, _ := st.Iterator()
	x.Recovered(it) // a background summary of every trade begins
	it.Release()
	for _, k := range f.keys { // and writes keep coming
		v, _ := f.book.Trade(k).MarshalBinary()
		x.Put(k.String(), v)
	}
	x.Close()
	st.closed.Store(true)
	for _, k := range f.keys {
		v, _ := f.book.Trade(k).MarshalBinary()
		x.Put(k.String(), v)
	}
	time.Sleep(20 * time.Millisecond)
	if _, err := tables.Queue(QueueQuery{Party: "X", Limit: 1}, []int32{0}); !errors.Is(err, ErrRecovering) {
		t.Fatalf("a closed partition: %v", err)
	}
}
