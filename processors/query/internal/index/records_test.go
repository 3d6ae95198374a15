package index

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/date"
)

// The records' table finds every key held and none other through any
// order of inserts and frees, with keys that share their low bits (a
// partition's) and clusters that wrap the table's end: the backward shift
// of a freed place keeps every key after it reachable.
func TestRecordTableFindsEveryKey(t *testing.T) {
	x := newRecords()
	held := map[uint64]bool{}
	rng := rand.New(rand.NewPCG(1, 2))
	key := func() uint64 { return rng.Uint64() &^ 7 } // one partition of 8
	var keys []uint64
	for step := range 200_000 {
		if len(keys) > 0 && rng.IntN(3) == 0 {
			i := rng.IntN(len(keys))
			k := keys[i]
			keys[i] = keys[len(keys)-1]
			keys = keys[:len(keys)-1]
			s, r := x.at(k)
			if r == nil {
				t.Fatalf("step %d: key %x held but not found", step, k)
			}
			r.flags = 0
			x.releaseIfEmpty(s, r)
			delete(held, k)
		} else {
			k := key()
			if held[k] {
				continue
			}
			_, r := x.alloc(k)
			r.flags = fCounted
			held[k] = true
			keys = append(keys, k)
		}
		if step%10_000 == 0 || step == 199_999 {
			if x.n != len(held) {
				t.Fatalf("step %d: %d in the table, %d held", step, x.n, len(held))
			}
			for k := range held {
				if _, r := x.at(k); r == nil || r.key != k {
					t.Fatalf("step %d: key %x not found", step, k)
				}
			}
			for range 1000 {
				if k := key(); !held[k] {
					if _, r := x.at(k); r != nil {
						t.Fatalf("step %d: key %x found, not held", step, k)
					}
				}
			}
		}
	}
	if int(x.used)-len(x.free) != len(held) {
		t.Fatalf("%d records used, %d free, %d held", x.used, len(x.free), len(held))
	}
}

// merge puts sorted records into a sorted queue list as a stable sort of
// the two would (the list's records first among equals): checked against
// that on lists of many sizes, with records sharing dates and keys.
func TestMergeIsAStableSort(t *testing.T) {
	x := newRecords()
	rng := rand.New(rand.NewPCG(3, 4))
	var slots []uint32
	for range 2000 {
		s, r := x.alloc(rng.Uint64())
		r.date = date.Date(rng.IntN(5))
		r.key = uint64(rng.IntN(40)) // many equal (date, key): the tie rule shows
		slots = append(slots, s)
	}
	cmp := x.compare
	for round := range 500 {
		pick := func(n int) []uint32 {
			out := make([]uint32, n)
			for i := range out {
				out[i] = slots[rng.IntN(len(slots))]
			}
			slices.SortStableFunc(out, cmp)
			return out
		}
		l, add := pick(rng.IntN(300)), pick(rng.IntN(60))
		want := slices.Concat(l, add)
		slices.SortStableFunc(want, cmp)
		if got := x.merge(slices.Clone(l), add); !slices.Equal(got, want) {
			t.Fatalf("round %d: merge of %d into %d:\n got %v\nwant %v", round, len(add), len(l), got, want)
		}
	}
}

// The vocabulary of a partition's names keeps no account: accounts are as
// many as the trades, and a name numbered is never forgotten, so the index
// grew by every account ever owed. The accounts owed are still shown.
func TestVocabularyKeepsNoAccounts(t *testing.T) {
	x := newRecords()
	const n = 2000
	day := date.MustParse("2026-11-02")
	for i := range n {
		k := uint64(i+1) << 3
		q := &queued{pos: Pos{Date: day, Key: schemas.TradeKey(k)}, ref: fmt.Sprintf("R%d", i), isin: "GB0002634946",
			side: "BUY", broker: "BRKAGB2L", invMgr: "IMAAGB2L", market: "XLON",
			parties: []queuedParty{{bic: "CUSAGB2L", missing: 1,
				owes: []Owed{{MsgType: "SET", Account: fmt.Sprintf("AC%06d", i), Count: 1}}}}}
		x.putQueued([]uint64{k}, []*queued{q})
	}
	if len(x.names) > 20 || len(x.ids) > 20 {
		t.Fatalf("the vocabulary holds %d names after %d trades of distinct accounts", len(x.names), n)
	}
	s, r := x.at(uint64(7+1) << 3)
	if r == nil {
		t.Fatal("trade 7 not indexed")
	}
	e := x.entry(s, r, 0, x.facts(r, r.parties[0]))
	if len(e.Owes) != 1 || e.Owes[0].Account != "AC000007" || e.Owes[0].MsgType != "SET" {
		t.Fatalf("trade 7's custodian owes %+v", e.Owes)
	}
}
