package changelog_test

import (
	"slices"
	"testing"
	"time"

	"github.com/ste-utility/ste/processors/changelog"
	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/memstore"
	"github.com/ste-utility/ste/processors/stages"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topology"
)

// TestClockMarkerSetsTheClockAndNothingElse: a store rebuilt from copied
// values and a marker has the marker's clock; the marker is, to the match
// stage, no trade at all, and to the identity stage an identity no message
// has.
func TestClockMarkerSetsTheClockAndNothingElse(t *testing.T) {
	const ttl = 30 * 24 * time.Hour
	d := stages.New(stages.Config{Names: topology.Names{NS: "t"}, TombstoneTTL: ttl})
	trade := &matching.Trade{Key: 0x1234, Newest: 100, Keys: []schemas.Key{{TradeRef: "R"}}}
	tv, _ := trade.MarshalBinary()

	match := memstore.New(d.MatchIndex)
	match.Set(schemas.TradeKey(0x1234).String(), tv)
	if w, ok := changelog.Watermark(topology.StageMatch, tv); !ok || w != 100 || match.Clock() != 100 {
		t.Fatalf("a trade's watermark %d %v, clock %d", w, ok, match.Clock())
	}
	var tried []string
	key, v := changelog.ClockMarker(topology.StageMatch, 500, func(k string) bool { tried = append(tried, k); return len(tried) == 3 })
	if len(tried) != 3 || key != tried[2] {
		t.Fatalf("the marker key is not the first that fits: %q of %v", key, tried)
	}
	if again, _ := changelog.ClockMarker(topology.StageMatch, 500, func(k string) bool { return k == tried[2] }); again != key {
		t.Fatalf("the marker keys are not a fixed sequence: %s then %s", key, again)
	}
	match.Set(key, v)
	if w, ok := changelog.Watermark(topology.StageMatch, v); !ok || w != 500 || match.Clock() != 500 {
		t.Fatalf("marker watermark %d %v, clock %d", w, ok, match.Clock())
	}
	tomb, at, ok := matching.Header(v)
	ts, err := matching.UnmarshalTombstone(v)
	if !tomb || at != 500 || !ok || err != nil || ts.Version != 0 || ts.StatusN != 0 {
		t.Fatalf("marker: tombstone %v at %d, %+v %v", tomb, at, ts, err)
	}
	k, _ := schemas.ParseTradeKey(key)
	if nt := matching.NewTrade(k, &ts); nt.Version != 0 || nt.StatusN != 0 || nt.Newest != 0 {
		t.Fatalf("a trade under the marker's key starts with %+v", nt)
	}
	// It falls due after the tombstone TTL, like any tombstone.
	if due := match.Due(500 + int64(ttl) - 1); slices.Contains(due, key) {
		t.Fatalf("the marker is due before the TTL: %v", due)
	}
	if due := match.Due(500 + int64(ttl)); !slices.Contains(due, key) {
		t.Fatalf("the marker is not due after the TTL: %v", due)
	}

	ids := memstore.New(d.IdentityIndex)
	ik, iv := changelog.ClockMarker(topology.StageIdentity, 700, func(string) bool { return true })
	if ik != "~clock:0" || schemas.IsBIC(ik[:len(ik)-2]) {
		t.Fatalf("identity marker key %q", ik)
	}
	ids.Set(ik, iv)
	if w, ok := changelog.Watermark(topology.StageIdentity, iv); !ok || w != 700 || ids.Clock() != 700 {
		t.Fatalf("identity marker watermark %d %v, clock %d", w, ok, ids.Clock())
	}
	if _, ok := changelog.Watermark(topology.StageValidate, iv); ok {
		t.Fatal("the validate stage has no table")
	}
}
