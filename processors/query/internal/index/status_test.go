package index

import (
	"fmt"
	"testing"
	"time"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/schemas"
)

func TestStatusIndexCountsWhatTheTableHolds(t *testing.T) {
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	val := func(tr matching.Trade) []byte {
		tr.Keys = []schemas.Key{{TradeRef: "R1"}}
		b, err := tr.MarshalBinary()
		if _, err := matching.UnmarshalTrade(b, nil); err != nil {
			t.Fatal(err) // a value the stage would read
		}
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	matched := val(matching.Trade{Key: 1, Version: 1, Live: true, Newest: now.UnixNano()})
	matchedYesterday := val(matching.Trade{Key: 2, Version: 1, Live: true, Newest: now.Add(-24 * time.Hour).UnixNano()})
	mismatched := val(matching.Trade{Key: 3, Last: matching.LastStatus{Status: schemas.Mismatched}})
	waiting := val(matching.Trade{Key: 4})
	cancelledCLS := val(matching.Trade{Key: 5, Version: 2, Live: false})
	tomb := matching.MarshalTombstone(6, matching.Tombstone{PurgedAt: now.UnixNano()})

	x := newRecords()
	const a, b, c, d, e, f, g = 1, 2, 3, 4, 5, 6, 7
	for k, v := range map[uint64][]byte{a: matched, b: matchedYesterday, c: mismatched, d: waiting, e: cancelledCLS, f: tomb, g: []byte("junk")} {
		x.put(k, v)
	}
	day := int32(now.UnixNano() / int64(24*time.Hour))
	want := [NStatus]int{statusMatched: 2, statusMismatched: 1, statusIncomplete: 2, statusExpired: 1}
	if x.status.counts != want || x.status.byDay[day] != 1 {
		t.Fatalf("counts %v, matched today %d; want %v and 1", x.status.counts, x.status.byDay[day], want)
	}
	// A trade moves between statuses as its value is rewritten, and leaves
	// when deleted.
	x.put(c, matched)
	x.put(a, tomb)
	x.put(b, matchedYesterday) // unchanged
	x.remove(f)
	x.remove(99) // nothing
	want = [NStatus]int{statusMatched: 2, statusMismatched: 0, statusIncomplete: 2, statusExpired: 1}
	if x.status.counts != want || x.status.byDay[day] != 1 || x.n != 5 {
		t.Fatalf("after rewrites: counts %v, today %d, held %d; want %v, 1, 5", x.status.counts, x.status.byDay[day], x.n, want)
	}
}

// The lifecycle tally (ste_trades_lifecycle) follows each trade's last
// STATUS: a locked trade is matched and affirmed, a cancelled one
// incomplete and cancelled; a rewrite moves it, a delete takes it out.
func TestStatusIndexCountsLifecycle(t *testing.T) {
	val := func(tr matching.Trade) []byte {
		tr.Keys = []schemas.Key{{TradeRef: "R1"}}
		b, err := tr.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	affirmed := val(matching.Trade{Key: 1, Version: 1, Live: true, Last: matching.LastStatus{Status: schemas.Affirmed}})
	pending := val(matching.Trade{Key: 2, Version: 1, Live: true, Last: matching.LastStatus{Status: schemas.ChangePending}})
	cancelled := val(matching.Trade{Key: 3, Version: 1, Cancelled: true, Last: matching.LastStatus{Status: schemas.Cancelled}})
	matched := val(matching.Trade{Key: 4, Version: 1, Live: true, Last: matching.LastStatus{Status: schemas.Matched}})
	x := newRecords()
	for k, v := range map[uint64][]byte{1: affirmed, 2: pending, 3: cancelled, 4: matched} {
		x.put(k, v)
	}
	want := [NLifecycle]int{lifecycleNone: 1, lifecycleAffirmed: 1, lifecycleChangePending: 1, lifecycleCancelled: 1}
	if x.status.lifecycle != want || x.status.counts[statusMatched] != 3 || x.status.counts[statusIncomplete] != 1 {
		t.Fatalf("lifecycle %v, counts %v; want %v, 3 matched, 1 incomplete", x.status.lifecycle, x.status.counts, want)
	}
	x.put(2, affirmed)
	x.remove(3)
	want = [NLifecycle]int{lifecycleNone: 1, lifecycleAffirmed: 2}
	if x.status.lifecycle != want {
		t.Fatalf("after a rewrite and a delete: %v, want %v", x.status.lifecycle, want)
	}
}

// One record holds a trade's at-risk group and its status: a trade moves
// between groups, leaves them when matched, and its status follows, each
// write counted once; a delete takes both out.
func TestRiskIndexFollowsATrade(t *testing.T) {
	val := func(tr matching.Trade) []byte {
		tr.Key = 42
		tr.Keys = []schemas.Key{{TradeRef: "R1", TradeDate: "2026-12-02"}}
		b, err := tr.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	noe := func(market string) []matching.Entry {
		return []matching.Entry{{Type: schemas.NOE, Function: schemas.NEW, Sender: "BRKRSGSGXXX", MsgId: "M1", Market: market}}
	}
	x := newRecords()
	check := func(step string, groups map[string]int, st [NStatus]int) {
		t.Helper()
		got := map[string]int{}
		for g, n := range x.groups {
			got[x.names[g.market]] += n
		}
		if fmt.Sprint(got) != fmt.Sprint(groups) || x.status.counts != st {
			t.Fatalf("%s: groups %v, status %v; want %v and %v", step, got, x.status.counts, groups, st)
		}
	}
	x.put(42, val(matching.Trade{Entries: noe("XSES")}))
	x.put(42, val(matching.Trade{Entries: noe("XSES")}))
	check("open in XSES, written twice", map[string]int{"XSES": 1}, [NStatus]int{statusIncomplete: 1})
	x.put(42, val(matching.Trade{Entries: noe("XHKG")}))
	check("moved to XHKG", map[string]int{"XHKG": 1}, [NStatus]int{statusIncomplete: 1})
	x.put(42, val(matching.Trade{Entries: noe("XHKG"), Version: 1, Live: true}))
	check("matched", map[string]int{}, [NStatus]int{statusMatched: 1})
	x.put(42, val(matching.Trade{Entries: noe("XHKG"), Version: 2}))
	check("CLS cancelled: open again", map[string]int{"XHKG": 1}, [NStatus]int{statusIncomplete: 1})
	x.put(42, []byte("junk"))
	check("unreadable", map[string]int{}, [NStatus]int{})
	if x.n != 0 {
		t.Fatalf("an unreadable value left %d entries", x.n)
	}
	x.put(42, val(matching.Trade{Entries: noe("XSES")}))
	x.remove(42)
	check("deleted", map[string]int{}, [NStatus]int{})
	if x.n != 0 || len(x.groups) != 0 || len(x.free) != int(x.used) {
		t.Fatalf("after the delete: %d entries, %d groups, %d of %d records free", x.n, len(x.groups), len(x.free), x.used)
	}
}

// A summary is its entry, its parties, and one list a party that owes
// something: the status was upper-cased into a new string for every
// summary, and a party's owed items grew one append at a time.
func TestSummaryAllocations(t *testing.T) {
	f := matching.QueueFacts{Key: schemas.Key{TradeRef: "BT1", TradeDate: "2026-11-02", ISIN: "SG1L01001701", Side: "BUY",
		Broker: "BRKASGSGXXX", InvMgr: "INVMSGSGXXX"}, State: "incomplete", Lifecycle: "NONE",
		Parties: []matching.PartyFacts{{BIC: "BRKASGSGXXX", Missing: 2}, {BIC: "CUSTSGSGXXX", Missing: 2,
			Owes: []matching.Owed{{MsgType: "NPR", Account: "A1"}, {MsgType: "SET", Account: "A1"}}}}}
	if q := summarise(1, &f); q == nil || q.status != 0 || len(q.parties[1].owes) != 2 {
		t.Fatalf("summary %+v", q)
	}
	if n := testing.AllocsPerRun(100, func() { summarise(1, &f) }); n > 3 {
		t.Errorf("summarise allocates %.0f times, want 3", n)
	}
}
