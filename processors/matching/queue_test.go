package matching

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ste-utility/ste/internal/testing/orders"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/workload"
)

// checkMentions holds Mentions to the decoded trade: its Broker, its
// InvMgr and every ALC's Custodian, among which are all its parties.
func checkMentions(t *testing.T, what string, tr *Trade) {
	t.Helper()
	b, err := tr.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	ok, err := Mentions(b, func(bic []byte) { got = append(got, string(bic)) })
	if !ok || err != nil {
		t.Fatalf("%s: Mentions %v %v", what, ok, err)
	}
	want := []string{tr.Keys[0].Broker, tr.Keys[0].InvMgr}
	for _, e := range tr.Entries {
		if e.Type == schemas.ALC && e.Custodian != "" {
			want = append(want, e.Custodian)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s: Mentions %v, want %v", what, got, want)
	}
	for _, p := range tr.View().Parties {
		if !slices.Contains(got, p) {
			t.Fatalf("%s: party %s not mentioned", what, p)
		}
	}
}

// checkFacts holds a trade's queue facts, read back from its table value,
// to what its view and each party's view say.
func checkFacts(t *testing.T, what string, tr *Trade, tol Tolerances) {
	t.Helper()
	checkMentions(t, what, tr)
	b, err := tr.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	f, ok, err := QueueFactsOf(b, tol, Interner{})
	if err != nil || !ok {
		t.Fatalf("%s: %v %v", what, ok, err)
	}
	v := tr.ViewWith(tol)
	want := QueueFacts{Key: tr.Keys[0], State: v.State, Lifecycle: v.Lifecycle, Locked: v.Locked, Cancelled: v.Cancelled, Market: v.Market}
	for _, c := range v.CLS {
		if c.Standing {
			want.CLSVersion = c.Version
		}
	}
	for _, r := range v.Failing {
		want.Failing = append(want.Failing, r.N)
	}
	for _, p := range v.Parties {
		pv, ok := v.For(p)
		if !ok {
			t.Fatalf("%s: party %s has no view", what, p)
		}
		pf := PartyFacts{BIC: p, Missing: len(pv.Missing)}
		if slices.ContainsFunc(v.Messages, func(m MessageView) bool { return m.InForce && m.Sender != p }) {
			for _, o := range v.Missing {
				if o.From == p {
					pf.Owes = append(pf.Owes, o)
				}
			}
		}
		want.Parties = append(want.Parties, pf)
	}
	if g, w := fmt.Sprintf("%+v", f), fmt.Sprintf("%+v", want); g != w {
		t.Fatalf("%s: queue facts\n%s\nthe view says\n%s", what, g, w)
	}
}

// The queue facts are what the view says (gateway.md v2 §4, §4c): after
// every message of a trade through its lifecycle — incomplete, matched, a
// rogue SET parked, affirmed, a change pending, a cancellation requested,
// cancelled — and for every trade of a realistic generated set.
func TestQueueFactsAgreeWithTheView(t *testing.T) {
	f := newFixture(t)
	ms := standard("T1")
	for i, d := range ms {
		f.send(d)
		checkFacts(t, fmt.Sprintf("after message %d", i+1), f.book.Trade(tradeKey("T1")), nil)
	}
	tr := f.book.Trade(tradeKey("T1"))
	for _, step := range []struct {
		what string
		d    func() *schemas.Draft
	}{
		{"a rogue SET", func() *schemas.Draft { return set("T1", 9, "A1", "600", "6306.29", rogue) }},
		{"affirmed", func() *schemas.Draft { return affirm("T1-AFF1", invMgr, 40, tr, "") }},
		{"a change pending", func() *schemas.Draft {
			return replaceOf(ms[5], "T1-SET1-R", 41, func(d *schemas.Draft) { d.Set("CashAccount", "X") })
		}},
		{"a cancellation requested", func() *schemas.Draft { return cxl("T1-CXL1", broker, 42, "ERROR") }},
		{"cancelled", func() *schemas.Draft { return cxa("T1-CXA1", invMgr, 43, "T1-CXL1") }},
	} {
		f.send(step.d())
		checkFacts(t, step.what, tr, nil)
	}
	if !tr.Cancelled {
		t.Fatal("the trade was not cancelled")
	}
	// An incomplete trade: owed by its Broker and a Custodian.
	g := newFixture(t)
	for _, d := range standard("T2")[1:5] {
		g.send(d)
	}
	checkFacts(t, "incomplete", g.book.Trade(tradeKey("T2")), nil)

	book := NewBook()
	var dec schemas.Decoder
	seen := map[schemas.TradeKey]bool{}
	if _, err := workload.Generate(workload.Options{Trades: 200, Mix: workload.Realistic, Seed: 9}, func(b []byte) error {
		m, rej := dec.Decode(b)
		if rej != nil {
			return nil
		}
		if _, known := book.Known(m.ID()); known || book.KeyCollision(m) != nil {
			return nil
		}
		book.Accept(&Inbound{Msg: m, Digest: digestOfRecord(b), NetUnits: 2})
		seen[m.Key.TradeKey()] = true
		return nil
	}, nil); err != nil {
		t.Fatal(err)
	}
	for k := range seen {
		checkFacts(t, "generated "+k.String(), book.Trade(k), nil)
	}
}

// A tombstone is in no queue and mentions nobody; a truncated value is an
// error.
func TestQueueFactsOfATombstone(t *testing.T) {
	tomb := MarshalTombstone(tradeKey("T1"), Tombstone{Version: 1})
	if _, ok, err := QueueFactsOf(tomb, nil, Interner{}); ok || err != nil {
		t.Fatalf("tombstone: %v %v", ok, err)
	}
	if ok, err := Mentions(tomb, func([]byte) { t.Fatal("a tombstone mentions someone") }); ok || err != nil {
		t.Fatalf("tombstone: %v %v", ok, err)
	}
	f := newFixture(t)
	f.sendAll(standard("T1"))
	b, _ := f.book.Trade(tradeKey("T1")).MarshalBinary()
	for _, n := range []int{30, len(b) / 3, len(b) / 2} { // within the key and the entries, all it reads
		if _, err := Mentions(b[:n], func([]byte) {}); err == nil {
			t.Errorf("a value cut at %d read", n)
		}
	}
}

// BenchmarkMentions is what the work-queue index reads of every value the
// match table takes (beside Refs and ReadRisk), and BenchmarkQueueFacts
// what it pays for each trade it summarises.
func BenchmarkMentions(b *testing.B) {
	f := newFixture(b)
	f.sendAll(standard("T1"))
	v, _ := f.book.Trade(tradeKey("T1")).MarshalBinary()
	b.ReportAllocs()
	for b.Loop() {
		Mentions(v, func([]byte) {})
	}
}

func BenchmarkQueueFacts(b *testing.B) {
	f := newFixture(b)
	f.sendAll(standard("T1"))
	v, _ := f.book.Trade(tradeKey("T1")).MarshalBinary()
	it := Interner{}
	b.ReportAllocs()
	for b.Loop() {
		QueueFactsOf(v, nil, it)
	}
}

// eachOrder calls f with every order of n messages up to 6, and with 300
// random orders (seeded) of more.
func eachOrder(n int, f func([]int)) {
	if n <= 6 {
		orders.Each(n, f)
		return
	}
	r := rand.New(rand.NewPCG(uint64(n), 50))
	for range 300 {
		f(r.Perm(n))
	}
}

// The match stage hands the work queue the trade it decided instead of the
// value it wrote (processors/query, Tables.Decided): a trade decoded from
// its value, a message applied, has the queue facts of the value it is
// then written as, and mentions whom that value mentions — in every order of every lifecycle scenario up to six
// messages, and random orders of the larger, the stage's
// decode-apply-encode at each message.
func TestDecidedTradeHasItsValuesQueueFacts(t *testing.T) {
	seen := 0
	for _, sc := range lifecycleScenarios(t) {
		var dec schemas.Decoder
		cfg := sc.cfg
		eachOrder(len(sc.msgs), func(order []int) {
			seen++
			var value []byte
			for step, i := range order {
				d := sc.msgs[i]
				rec := d.AppendSigned(nil, nil)
				m, rej := decodeDraft(&dec, d, rec)
				if rej != nil {
					t.Fatal(rej)
				}
				tr := NewTrade(m.Key.TradeKey(), nil)
				if value != nil {
					var err error
					if tr, err = UnmarshalTrade(value, Interner{}); err != nil {
						t.Fatal(err)
					}
				}
				if _, res := tr.Apply(&Inbound{Msg: m, Digest: digestOfRecord(rec), NetUnits: 2}, &cfg, Interner{}); res != Applied {
					continue
				}
				var err error
				if value, err = tr.MarshalBinary(); err != nil {
					t.Fatal(err)
				}
				read, ok, err := QueueFactsOf(value, cfg.Tolerances, Interner{})
				if err != nil || !ok {
					t.Fatalf("%s, order %v: %v %v", sc.name, order, ok, err)
				}
				if tr.assessed == nil {
					t.Fatalf("%s, order %v, message %d: applied, and no assessment kept", sc.name, order, step+1)
				}
				if g, w := fmt.Sprintf("%+v", tr.QueueFacts(cfg.Tolerances)), fmt.Sprintf("%+v", read); g != w {
					t.Fatalf("%s, order %v, message %d: the decided trade's facts\n%s\nits value's\n%s", sc.name, order, step+1, g, w)
				}
				// And whom it mentions (the queue's drain reads them from the
				// decided trade).
				var fromTrade, fromValue []string
				okT := tr.Mentions(func(bic string) { fromTrade = append(fromTrade, bic) })
				okV, err := Mentions(value, func(bic []byte) { fromValue = append(fromValue, string(bic)) })
				if err != nil || !okT || !okV || !slices.Equal(fromTrade, fromValue) {
					t.Fatalf("%s, order %v, message %d: the decided trade mentions %q (%v), its value %q (%v, %v)", sc.name, order, step+1, fromTrade, okT, fromValue, okV, err)
				}
			}
		})
	}
	t.Logf("%d orders", seen)
}
