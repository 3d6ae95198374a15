package index

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/date"
)

// scanPage is a page as the index answered it before its parties' queues
// were split in lists: the party's whole queue, ordered by (TradeDate,
// key), scanned from the cursor with the filter — found here from the
// records themselves, not from any list.
func scanPage(x *records, party string, day *date.Date, after *Pos, keep func(*Facts) bool, limit int) []Entry {
	id, ok := x.ids[party]
	if !ok {
		return nil
	}
	var all []uint32
	for s := range x.used {
		if r := x.rec(s); r.flags&fQueued != 0 {
			if _, _, ok := x.partyAt(s, r, id); ok {
				all = append(all, s)
			}
		}
	}
	slices.SortFunc(all, func(a, b uint32) int {
		ra, rb := x.rec(a), x.rec(b)
		return Pos{ra.date, schemas.TradeKey(ra.key)}.Compare(Pos{rb.date, schemas.TradeKey(rb.key)})
	})
	var out []Entry
	for _, s := range all {
		r := x.rec(s)
		if day != nil && r.date != *day || after != nil && (Pos{r.date, schemas.TradeKey(r.key)}).Compare(*after) <= 0 {
			continue
		}
		if e, ok := x.admit(s, id, keep); ok {
			if out = append(out, e); len(out) == limit {
				break
			}
		}
	}
	return out
}

// checkLists holds every party's lists to what the records say: each list
// ordered, holding exactly the party's trades of its status (or those the
// party owes an item of), and no party without a trade kept.
func checkLists(t *testing.T, x *records, step int) {
	t.Helper()
	want := map[uint32]*partyQueue{}
	for s := range x.used {
		r := x.rec(s)
		for _, in := range x.listsOf(s, r) {
			if want[in.party] == nil {
				want[in.party] = &partyQueue{}
			}
			for l := range nLists {
				if in.lists&(1<<l) != 0 {
					want[in.party][l] = append(want[in.party][l], s)
				}
			}
		}
	}
	for p, q := range x.byParty {
		if want[p] == nil {
			t.Fatalf("step %d: party %s has lists, no trade", step, x.names[p])
		}
		for l := range nLists {
			if !slices.IsSortedFunc(q[l], func(a, b uint32) int {
				if x.before(a, b) {
					return -1
				}
				return 1
			}) {
				t.Fatalf("step %d: party %s list %d out of order", step, x.names[p], l)
			}
			got := slices.Sorted(slices.Values(q[l]))
			slices.Sort(want[p][l])
			if !slices.Equal(got, want[p][l]) {
				t.Fatalf("step %d: party %s list %d holds %v, its trades are %v", step, x.names[p], l, got, want[p][l])
			}
		}
	}
	for p := range want {
		if x.byParty[p] == nil {
			t.Fatalf("step %d: party %s has trades, no lists", step, x.names[p])
		}
	}
}

// The lists a party's queue is read from hold, through any batches of
// summaries — trades entering, changing status, what their parties owe,
// their parties and TradeDate, leaving — exactly what the records say;
// and every page read from them, for any filter, cursor, TradeDate and
// limit, is the page the whole queue scanned with the filter gives, walks
// from page to page included (ordering, cursors, and a party sees only
// its own trades).
func TestQueueListsAgreeWithTheScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(46, 7))
	x := newRecords()
	bics := []string{"BRKAGB2L", "BRKBUS33", "IMAAGB2L", "IMABUS33", "CUSAGB2L", "CUSBUS33", "CUSCDEFF"}
	markets := []string{"XLON", "XNYS", "XETR"}
	day0 := date.MustParse("2026-11-02")
	keys := make([]uint64, 400)
	for i := range keys {
		keys[i] = rng.Uint64() &^ 7 // one partition's
	}
	dateOf := map[uint64]date.Date{}
	summary := func(k uint64) *queued {
		if rng.IntN(8) == 0 {
			return nil
		}
		d, ok := dateOf[k]
		if !ok || rng.IntN(20) == 0 {
			d = day0 + date.Date(rng.IntN(4))
			dateOf[k] = d
		}
		q := &queued{pos: Pos{Date: d, Key: schemas.TradeKey(k)}, ref: fmt.Sprintf("R%x", k>>40), isin: "GB0002634946",
			side: []string{"BUY", "SELL"}[rng.IntN(2)], broker: bics[rng.IntN(2)], invMgr: bics[2+rng.IntN(2)],
			market: markets[rng.IntN(len(markets))], status: uint8(rng.IntN(len(Statuses))),
			lifecycle: uint8(rng.IntN(len(Lifecycles))), settled: rng.IntN(3) == 0, cls: int32(rng.IntN(3))}
		if q.status == 2 {
			q.failing = []int{1 + rng.IntN(5), 7}
		}
		for _, i := range rng.Perm(len(bics))[:1+rng.IntN(6)] { // beyond the inline parties at times
			p := queuedParty{bic: bics[i], missing: int32(rng.IntN(3))}
			if rng.IntN(4) == 0 {
				p.owes = []Owed{{MsgType: "SET", Account: "ACC-" + bics[i][:4], Count: 1 + rng.IntN(2)}}
			}
			q.parties = append(q.parties, p)
		}
		if rng.IntN(30) == 0 { // a party named twice
			q.parties = append(q.parties, q.parties[0])
		}
		return q
	}
	for step := range 400 {
		var ks []uint64
		var sums []*queued
		for _, i := range rng.Perm(len(keys))[:1+rng.IntN(60)] {
			ks = append(ks, keys[i])
			sums = append(sums, summary(keys[i]))
		}
		x.putQueued(ks, sums)
		checkLists(t, x, step)
		for range 25 {
			party := bics[rng.IntN(len(bics))]
			if rng.IntN(20) == 0 {
				party = "NOBODYXX"
			}
			var n Narrow
			if rng.IntN(2) == 0 {
				n.Status = uint8(rng.IntN(8))
			}
			n.Owes = rng.IntN(3) == 0
			lifecycle := uint8(0)
			if rng.IntN(5) == 0 {
				lifecycle = uint8(1 + rng.IntN(1<<len(Lifecycles)-1))
			}
			unsettled, market := rng.IntN(5) == 0, markets[rng.IntN(len(markets))]
			keep := func(f *Facts) bool {
				return (n.Status == 0 || n.Status&(1<<f.Status) != 0) && (!n.Owes || f.Owes) &&
					(lifecycle == 0 || lifecycle&(1<<f.Lifecycle) != 0) && (!unsettled || !f.Settled && f.Market != market)
			}
			var day *date.Date
			if rng.IntN(3) == 0 {
				d := day0 + date.Date(rng.IntN(5)) - 1
				day = &d
			}
			var after *Pos
			switch rng.IntN(3) {
			case 0: // a trade's own position
				k := keys[rng.IntN(len(keys))]
				after = &Pos{dateOf[k], schemas.TradeKey(k)}
			case 1:
				after = &Pos{day0 + date.Date(rng.IntN(5)) - 1, schemas.TradeKey(rng.Uint64())}
			}
			limit := 1 + rng.IntN(40)
			got, want := x.page(party, day, after, n, keep, limit), scanPage(x, party, day, after, keep, limit)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("step %d: %s day %v after %v %+v limit %d: pages differ:\n got %d %+v\nwant %d %+v", step, party, day, after, n,
					limit, len(got), got, len(want), want)
			}
			for _, e := range got {
				if s, r := x.at(uint64(e.Key)); r == nil || !slices.Contains(partyNames(x, s, r), party) {
					t.Fatalf("step %d: %s is shown %v, not its trade", step, party, e.Key)
				}
			}
			// The walk from page to page is the whole filtered queue.
			if rng.IntN(5) == 0 {
				var walked []Entry
				var at *Pos
				for {
					pg := x.page(party, day, at, n, keep, 7)
					walked = append(walked, pg...)
					if len(pg) < 7 {
						break
					}
					p := pg[len(pg)-1].Pos()
					at = &p
				}
				if all := scanPage(x, party, day, nil, keep, 1<<30); !reflect.DeepEqual(walked, all) {
					t.Fatalf("step %d: %s %+v: the walk found %d trades, the scan %d", step, party, n, len(walked), len(all))
				}
			}
		}
	}
}

func partyNames(x *records, s uint32, r *rec) []string {
	var out []string
	for _, p := range x.partiesOf(s, r) {
		out = append(out, x.names[p&^owesBit])
	}
	return out
}
