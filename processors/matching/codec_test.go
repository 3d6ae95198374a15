package matching

import (
	"bytes"
	"fmt"
	"reflect"
	"runtime"
	"testing"

	"github.com/ste-utility/ste/schemas"
)

func TestTradeCodecRoundTrip(t *testing.T) {
	f := newFixture(t)
	ms := standard("T1")
	f.sendAll(ms)
	f.send(replaceOf(ms[5], "T1-SET1-R", 30, func(d *schemas.Draft) { d.Set("NetAmount", "1.00") })) // mismatched: a status body to keep
	tr := f.book.Trade(tradeKey("T1"))
	roundTrip(t, tr)
	ts := Tombstone{Version: 3, StatusN: 7, PurgedAt: 42, Key: tr.Keys[0], CNFN: 2, BLKN: 4,
		ALG: []ALGCount{{"B", 3}, {"I", 1}}, Cancelled: true}
	got, err := UnmarshalTombstone(MarshalTombstone(tr.Key, ts))
	if err != nil || !reflect.DeepEqual(got, ts) {
		t.Fatalf("tombstone %+v %v", got, err)
	}
}

// A locked trade with pending changes, cancel requests, custodian bodies, a
// standing CNF, BLK and ALG state, and lifecycle entries round-trips.
func TestTradeCodecRoundTripLifecycle(t *testing.T) {
	f := newFixture(t)
	ms := standard("T1")
	f.sendAll(ms[:5]) // no SETs yet: allegements stand
	f.allege()
	f.sendAll(ms[5:])
	tr := f.book.Trade(tradeKey("T1"))
	f.send(affirm("T1-AFF1", invMgr, 40, tr, ""))
	f.send(replaceOf(ms[5], "T1-SET1-R", 41, func(d *schemas.Draft) { d.Set("CashAccount", "CA-NEW") })) // pending
	f.send(cxl("T1-CXL1", broker, 42, "ERROR"))
	f.send(reject("T1-REJ", invMgr, 43, tr, "PRICE OTHER"))
	tr = f.book.Trade(tradeKey("T1"))
	if !tr.Locked || tr.Last.Status != schemas.CancelPending || !tr.CNF.Live || tr.BLK.N == 0 || len(tr.ALG) == 0 {
		t.Fatalf("fixture state: %+v", tr.Last)
	}
	roundTrip(t, tr)
}

func roundTrip(t *testing.T, tr *Trade) {
	t.Helper()
	b, err := tr.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	back, err := UnmarshalTrade(b, Interner{})
	if err != nil {
		t.Fatal(err)
	}
	// The assessment the last Apply kept is not state: a decoded trade
	// has none.
	cmp := *tr
	cmp.assessed = nil
	if !reflect.DeepEqual(&cmp, back) {
		t.Fatalf("round trip differs:\n%+v\n%+v", &cmp, back)
	}
	if again, _ := back.MarshalBinary(); !bytes.Equal(again, b) {
		t.Fatal("encoding again differs")
	}
	if tomb, at, ok := Header(b); !ok || tomb || at != tr.Newest || b[0] != layoutV2 {
		t.Fatalf("header %v %v %v", tomb, at, ok)
	}
	if live, st, newest, ok := ReadStatus(b); !ok || live != tr.Live || st != tr.Last.Status || newest != tr.Newest {
		t.Fatalf("ReadStatus %v %v %v %v", live, st, newest, ok)
	}
	if refs, err := Refs(b); err != nil || len(refs) != 1 || string(refs[0]) != tr.Keys[0].TradeRef {
		t.Fatalf("Refs %q %v", refs, err)
	}
	// Every truncation fails cleanly, but the one without the timeliness
	// tail (derived from the rest; a value too long to say its length has
	// none) and the one without the redelivery section as well.
	tail := len(appendRisk(nil, tr))
	section := len(appendRedelivery(nil, tr)) // optional too: absent before it was added
	for i := 0; i < len(b); i++ {
		if i == len(b)-tail || section > 0 && i == len(b)-tail-section {
			continue
		}
		if _, err := UnmarshalTrade(b[:i], nil); err == nil {
			t.Fatalf("truncated at %d accepted", i)
		}
	}
}

// A value of state layout v1 (the release before version 3), with or without
// its timeliness extension, reads as the same trade; it matches on from
// there (its next message evaluates it by version 3 and confirms the match).
func TestTradeCodecReadsLayoutV1(t *testing.T) {
	for _, withTimeliness := range []bool{false, true} {
		f := newFixture(t)
		ms := standard("T1")
		f.sendAll(ms)
		f.send(replaceOf(ms[5], "T1-SET1-R", 30, func(d *schemas.Draft) { d.Set("CashAccount", "CA-NEW") })) // v2
		tr := f.book.Trade(tradeKey("T1"))
		k := tr.Keys[0]
		old := marshalV1(tr, [][6]string{{k.TradeRef, k.TradeDate, k.ISIN, k.Side, k.Broker, k.InvMgr}},
			make([]uint8, len(tr.Entries)), withTimeliness)
		if live, st, _, ok := ReadStatus(old); !ok || !live || st != schemas.Matched {
			t.Fatalf("ReadStatus of v1: %v %v %v", live, st, ok)
		}
		back, err := UnmarshalTrade(old, Interner{})
		if err != nil {
			t.Fatal(err)
		}
		if back.Version != 2 || !back.Live || back.LiveDigest != tr.LiveDigest || back.StatusN != tr.StatusN ||
			len(back.Entries) != len(tr.Entries) || !slicesEqual(back.Standing, tr.Standing) || back.CNF.Live {
			t.Fatalf("v1 read as %+v", back)
		}
		if withTimeliness && back.Entries[0].Market != "XSES" {
			t.Fatalf("market %q", back.Entries[0].Market)
		}
		// A duplicate re-emits the same CLS v2 (from the standing set).
		e := &back.Entries[1]
		out := back.Reemit(e, &Config{})
		if cls := only(out, schemas.CLS); len(cls) != 1 || cls[0].MsgId != schemas.CLSId(tr.Key, 2) {
			t.Fatalf("re-emit after upgrade: %s", ids(out))
		}
		// Its next message: no CLS change, the CNF the v1 trade never sent.
		b2, _ := back.MarshalBinary()
		f.book.trades[tr.Key], _ = UnmarshalTrade(b2, f.book.intern)
		out = f.send(replaceOf(ms[0], "T1-NOE-R", 1, func(d *schemas.Draft) { d.Set("ExecTime", at(-9)) }))
		if len(only(out, schemas.CLS)) != 0 || len(only(out, schemas.CNF)) != 4 || len(only(out, schemas.STATUS)) != 0 {
			t.Fatalf("after upgrade: %s", ids(out))
		}
	}
	// A v1 trade that held two key tuples (a trade-key collision) reads as
	// the first tuple's trade.
	f := newFixture(t)
	f.sendAll(standard("T2")[:3])
	tr := f.book.Trade(tradeKey("T2"))
	k := tr.Keys[0]
	old := marshalV1(tr, [][6]string{{k.TradeRef, k.TradeDate, k.ISIN, k.Side, k.Broker, k.InvMgr}, {"X", k.TradeDate, k.ISIN, k.Side, k.Broker, k.InvMgr}},
		[]uint8{0, 1, 0}, true)
	back, err := UnmarshalTrade(old, nil)
	if err != nil || len(back.Keys) != 1 || back.Keys[0] != k || len(back.Entries) != 2 || back.Entries[1].MsgId != "T2-ALC2" {
		t.Fatalf("collided v1: %+v %v", back, err)
	}
	if _, err := UnmarshalTrade(marshalV1(tr, [][6]string{{k.TradeRef}}, []uint8{0, 3, 0}, false), nil); err == nil {
		t.Fatal("a key index beyond the keys accepted")
	}
	// A v1 tombstone reads, without key fields.
	ts, err := UnmarshalTombstone(marshalTombstoneV1(uint64(tr.Key), 2, 5, 99))
	if err != nil || ts.Version != 2 || ts.StatusN != 5 || ts.PurgedAt != 99 || ts.Key != (schemas.Key{}) {
		t.Fatalf("v1 tombstone %+v %v", ts, err)
	}
}

func slicesEqual(a, b []int32) bool { return reflect.DeepEqual(a, b) }

func TestTimelinessExtension(t *testing.T) {
	f := newFixture(t)
	ms := standard("T2")
	f.sendAll(ms[:3])
	tr := f.book.Trade(tradeKey("T2"))
	b, _ := tr.MarshalBinary()
	r, ok := ReadRisk(b)
	want := Risk{Market: "XSES", TradeDate: tr.Keys[0].TradeDate, Open: true}
	if !ok || r != want || tr.Risk() != want {
		t.Fatalf("open trade: %+v %v (Risk() %+v), want %+v", r, ok, tr.Risk(), want)
	}
	// A value of layout v1 without the extension reads, without markets;
	// ReadRisk says so.
	k := tr.Keys[0]
	v1 := marshalV1(tr, [][6]string{{k.TradeRef, k.TradeDate, k.ISIN, k.Side, k.Broker, k.InvMgr}}, make([]uint8, 3), false)
	old, err := UnmarshalTrade(v1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ReadRisk(v1); ok {
		t.Error("a v1 value without the extension has a tail")
	}
	if got := old.Risk(); got.Market != "" || !got.Open {
		t.Errorf("old value's risk %+v", got)
	}
	f.sendAll(ms[3:])
	tr = f.book.Trade(tradeKey("T2"))
	b, _ = tr.MarshalBinary()
	if r, ok := ReadRisk(b); !ok || r.Open || r.Market != "XSES" {
		t.Errorf("matched trade: %+v %v", r, ok)
	}
	if _, ok := ReadRisk(MarshalTombstone(tr.Key, Tombstone{})); ok {
		t.Error("a tombstone has a risk")
	}
}

// Risk follows the messages in force: after every message of a trade with
// cancels and replaces, the two agree on the market and on whether it is
// open; a trade of parked SETs only is not open.
func TestRiskAgreesWithInForce(t *testing.T) {
	f := newFixture(t)
	ms := standard("T3")
	f.sendAll(ms)
	f.send(replaceOf(ms[0], "T3-NOE-R", 30, func(d *schemas.Draft) { d.Set("Market", "XNYS") }))
	f.send(cancelOf(ms[5], "T3-SET1-C", 40))
	tr := f.book.Trade(tradeKey("T3"))
	v := inForce(tr, nil)
	want := Risk{TradeDate: tr.Keys[0].TradeDate, Open: !tr.Live && len(v.all) > 0}
	if len(v.noe) > 0 {
		want.Market = v.noe[0].Market
	}
	if got := tr.Risk(); got != want || want.Market != "XNYS" || !want.Open {
		t.Fatalf("Risk %+v, inForce says %+v", got, want)
	}
	f.send(standard("T4")[5]) // a SET without its ALC: parked
	if r := f.book.Trade(tradeKey("T4")).Risk(); r.Open {
		t.Fatalf("parked SET only: %+v", r)
	}
}

// TestDecodedTradeTakesAMessageInPlace: the match stage decodes a trade to
// apply one message to it, so a decoded trade has room for the entry Apply
// appends. Decoded to the exact length, that append copied every entry
// into a new slice twice the size: the match stage's largest allocation
// (issue 50, docs/benchmarks.md).
func TestDecodedTradeTakesAMessageInPlace(t *testing.T) {
	f := newFixture(t)
	ms := standard("T1")
	f.sendAll(ms[:4])
	b, err := f.book.Trade(tradeKey("T1")).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := UnmarshalTrade(b, Interner{})
	if err != nil {
		t.Fatal(err)
	}
	first := &tr.Entries[0]
	rec := ms[4].AppendSigned(nil, nil)
	m, rej := decodeDraft(&f.dec, ms[4], rec)
	if rej != nil {
		t.Fatal(rej)
	}
	if _, res := tr.Apply(&Inbound{Msg: m, Digest: digestOfRecord(rec)}, &Config{}, Interner{}); res != Applied {
		t.Fatalf("apply: %v", res)
	}
	if len(tr.Entries) != 5 || &tr.Entries[0] != first {
		t.Fatalf("Apply moved the decoded trade's %d entries to a new slice", len(tr.Entries)-1)
	}
}

var entrySink Entry

// TestNewEntryCopiesItsStringsOnce: an entry's own strings (MsgId,
// Related, the accounts) are one copy, detached from the message, and
// read as they were (one allocation each made five).
func TestNewEntryCopiesItsStringsOnce(t *testing.T) {
	m := &schemas.Message{Sender: "CUSTBIC01", MsgId: "SET-1", RelatedMsgId: "SET-0", Type: schemas.SET,
		Account: "ACC-1", SafekeepingAccount: "SK-1", CashAccount: "CA-1", TradeCcy: "SGD", SettleCcy: "SGD", Custodian: "CUSTBIC01", PSET: "CDPLSGSG"}
	in := &Inbound{Msg: m}
	it := Interner{}
	entrySink = newEntry(in, it) // the interned strings are seen once
	if n := testing.AllocsPerRun(100, func() { entrySink = newEntry(in, it) }); n > 1 {
		t.Fatalf("newEntry allocates %.0f times", n)
	}
	e := newEntry(in, it)
	if e.MsgId != m.MsgId || e.Related != m.RelatedMsgId || e.Account != m.Account ||
		e.SafekeepingAccount != m.SafekeepingAccount || e.CashAccount != m.CashAccount {
		t.Fatalf("entry %+v of %+v", e, m)
	}
}

// An assessment's step 1 lists are carved from one array, and a view's
// lists from room it carries for a trade of a few messages: a standard
// trade's view was 4 allocations (1 now), its assessment 45 (39 now, the
// rest the candidate's digest and criteria) and an open trade's Risk 3 (1
// now: the array; the assessment stays on the stack).
func TestAssessmentListsShareTheirRoom(t *testing.T) {
	f := newFixture(t)
	f.sendAll(standard("T1"))
	tr := f.book.Trade(tradeKey("T1"))
	a := assess(tr, nil)
	if n := testing.AllocsPerRun(100, func() { newView(a.f0, nil) }); n > 1 {
		t.Errorf("newView allocates %.0f times, want 1", n)
	}
	if n := testing.AllocsPerRun(100, func() { assess(tr, nil) }); n > 39 {
		t.Errorf("assess allocates %.0f times, want at most 39", n)
	}
	f.sendAll(standard("T2")[:5]) // open: its risk reads step 1
	open := f.book.Trade(tradeKey("T2"))
	if n := testing.AllocsPerRun(100, func() { open.Risk() }); n > 1 {
		t.Errorf("Risk allocates %.0f times, want 1", n)
	}
	// And that one is the lists' array, not the assessment (which held its
	// lists' room for a while and took ~900 bytes a call to the heap).
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 1000 {
		open.Risk()
	}
	runtime.ReadMemStats(&after)
	if b := (after.TotalAlloc - before.TotalAlloc) / 1000; b > 512 {
		t.Errorf("Risk allocates %d bytes a call, want its lists' array (~224)", b)
	}
}

// A Custodian party's accounts are walked for a trade of a few and kept as
// a set for a trade of many (holds is asked for every item of every
// party's queue facts); both answer as the ALCs say.
func TestCustodianAccountsOfFewAndMany(t *testing.T) {
	for _, k := range []int{2, 25} {
		f := newFixture(t)
		f.sendAll(allocations("L", k))
		a := assess(f.book.Trade(tradeKey("L")), nil)
		if got := len(a.custodianAccounts()); got != k {
			t.Fatalf("k=%d: %d custodian accounts", k, got)
		}
		if (a.custSet != nil) != (k > 8) {
			t.Fatalf("k=%d: set %v", k, a.custSet != nil)
		}
		for i := range k {
			if !a.holds(cust1, fmt.Sprintf("A%04d", i)) {
				t.Fatalf("k=%d: %s does not hold A%04d", k, cust1, i)
			}
		}
		if a.holds(cust2, "A0000") || a.holds(cust1, "B0000") || a.holds(broker, "A0000") {
			t.Fatalf("k=%d: holds what no ALC names", k)
		}
	}
}

// A trade view lists each Custodian party's accounts once and sorted, when
// two ALCs name one account too.
func TestViewListsCustodianAccountsOnce(t *testing.T) {
	f := newFixture(t)
	f.sendAll([]*schemas.Draft{alc("T1", 1, "B1", "600", cust1), alc("T1", 2, "A1", "200", cust1),
		alc("T1", 3, "A1", "200", cust1), alc("T1", 4, "C1", "400", cust2)})
	v := f.book.Trade(tradeKey("T1")).View()
	if got := v.Custodians; !reflect.DeepEqual(got, map[string][]string{cust1: {"A1", "B1"}, cust2: {"C1"}}) {
		t.Fatalf("custodian accounts %v", got)
	}
}
