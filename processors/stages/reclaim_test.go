package stages

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/ste-utility/ste/internal/testing/orders"
	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/workload"
)

// held is the work-queue index's side of the hand-over as the match stage
// sees it: the trade decided for a key is held until the key's next write
// (the index's mark drops it) or until it is reclaimed.
type held struct {
	trades    map[schemas.TradeKey]*matching.Trade
	reclaimed int
}

func (h *held) config(cfg *Config) {
	h.trades = map[schemas.TradeKey]*matching.Trade{}
	cfg.Decided = func(_ int32, t *matching.Trade) { h.trades[t.Key] = t }
	cfg.Reclaim = func(_ int32, k schemas.TradeKey) *matching.Trade {
		t := h.trades[k]
		delete(h.trades, k)
		if t != nil {
			h.reclaimed++
		}
		return t
	}
}

func (h *held) wrote(key string) {
	if k, ok := schemas.ParseTradeKey(key); ok {
		delete(h.trades, k)
	}
}

// The match stage applies a trade's next message to the trade it decided
// last, taken back from the work queue (Config.Reclaim), instead of the
// value read back and decoded: the outcome must be the same. Every order
// of a trade's messages, and random orders of a realistic set (cancels,
// replaces, duplicates, affirmations, AUTO investment managers, bad
// messages), give the same outputs, exceptions, records to inbound and
// table values, message by message, with the trade reclaimed and without.
func TestReclaimedTradeDecidesAsTheDecodedValue(t *testing.T) {
	now := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	run := func(ref *refdata.Set, recs [][]byte, order []int, what string) int {
		t.Helper()
		cfg := Config{Now: func() time.Time { return now }}
		plain := newPipe(t, ref, cfg)
		var h held
		h.config(&cfg)
		kept := newPipe(t, ref, cfg)
		kept.wrote = h.wrote
		seen := 0 // outputs compared
		for step, i := range order {
			plain.send(recs[i])
			kept.send(recs[i])
			same := len(plain.outputs) == len(kept.outputs) && reflect.DeepEqual(plain.outputs[seen:], kept.outputs[seen:]) &&
				plain.excs == kept.excs && slices.EqualFunc(plain.inbound, kept.inbound, bytes.Equal) &&
				len(plain.trades) == len(kept.trades)
			seen = len(plain.outputs)
			for k, v := range plain.trades {
				same = same && bytes.Equal(v, kept.trades[k])
			}
			if !same {
				t.Fatalf("%s, order %v, message %d: the reclaimed trade decided otherwise than the decoded value (outputs %d/%d, exceptions %d/%d)",
					what, order, step+1, len(plain.outputs), len(kept.outputs), plain.excs, kept.excs)
			}
		}
		return h.reclaimed
	}
	reclaimed := 0
	// Every order of one standard trade, its investment manager AUTO (the
	// utility's AFF goes through inbound and locks the trade).
	recs, _, _, ref := oneTrade(t)
	perms := 0
	orders.Each(len(recs), func(order []int) { perms++; reclaimed += run(ref, recs, order, "one trade") })
	// Random orders of a realistic set.
	set := generated(t, workload.Options{Trades: 30, Seed: 7, Mix: workload.Realistic})
	r := rand.New(rand.NewPCG(7, 50))
	const randomOrders = 10
	for range randomOrders {
		reclaimed += run(refdata.Default(), set, r.Perm(len(set)), "realistic set")
	}
	if reclaimed == 0 {
		t.Fatal("no trade was reclaimed: the test compared nothing")
	}
	t.Logf("%d orders of one trade, %d of %d messages; %d trades reclaimed", perms, randomOrders, len(set), reclaimed)
}
