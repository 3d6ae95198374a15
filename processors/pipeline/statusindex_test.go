package pipeline

import (
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

	x := newStatusIndex()
	for k, v := range map[string][]byte{"a": matched, "b": matchedYesterday, "c": mismatched, "d": waiting, "e": cancelledCLS, "f": tomb, "g": []byte("junk")} {
		x.update(k, v)
	}
	day := now.UnixNano() / int64(24*time.Hour)
	want := [nStatus]int{statusMatched: 2, statusMismatched: 1, statusIncomplete: 2, statusExpired: 1}
	if x.counts != want || x.byDay[day] != 1 {
		t.Fatalf("counts %v, matched today %d; want %v and 1", x.counts, x.byDay[day], want)
	}
	// A trade moves between statuses as its value is rewritten, and leaves
	// when deleted.
	x.update("c", matched)
	x.update("a", tomb)
	x.remove("f")
	x.remove("nothing")
	want = [nStatus]int{statusMatched: 2, statusMismatched: 0, statusIncomplete: 2, statusExpired: 1}
	if x.counts != want || x.byDay[day] != 1 || len(x.of) != 5 {
		t.Fatalf("after rewrites: counts %v, today %d, held %d; want %v, 1, 5", x.counts, x.byDay[day], len(x.of), want)
	}
}
