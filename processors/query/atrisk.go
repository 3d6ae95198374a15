package query

import (
	"cmp"
	"slices"
	"sort"
	"time"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
)

// The at-risk index (docs/timeliness.md): each match partition counts its
// unmatched trades by (market, TradeDate), the two facts their cutoff
// depends on (index.groups; each trade's record holds its group). A
// group's cutoff is computed from the reference data when it is asked for,
// so the groups sort by cutoff in the time it takes to sort a few hundred
// of them, a changed markets.csv row applies at once, and a scrape counts
// without a pass over the trades; a listing passes once over the
// partition's records (fixed-size, in memory) for the keys of the groups
// it lists. The index lives in memory beside the table and is rebuilt with
// it: every value the table stores passes through Partition.Put (the
// processor's writes and the changelog's replay alike), and a table
// resumed from disk is read once when it opens (Partition.Loaded).

// cutoffGroup is a partition's unmatched trades with one market and cutoff.
type cutoffGroup struct {
	partition int32
	market    string    // a MIC of markets.csv, or refdata.NoMarket
	cutoff    time.Time // in UTC
	keys      []string  // trade keys, sorted
}

func (d riskGroup) tradeDate() string {
	if d.date == noDate {
		return ""
	}
	return d.date.String()
}

// cutoffGroups lists the unmatched trades of the given partitions by
// cutoff, the earliest first, optionally of one market only.
func cutoffGroups(c *Config, parts map[int32]*Partition, market string) []cutoffGroup {
	var out []cutoffGroup
	ref := c.Refdata()
	for p, x := range parts {
		x.idx.mu.RLock()
		listed := map[riskGroup]int{}
		for g := range x.idx.groups {
			m, at := ref.CutoffOf(x.idx.names[g.market], g.tradeDate())
			if market == "" || m == market {
				listed[g] = len(out)
				out = append(out, cutoffGroup{partition: p, market: m, cutoff: at.UTC()})
			}
		}
		for s := uint32(0); s < x.idx.used && len(listed) > 0; s++ {
			if r := x.idx.rec(s); r.flags&fOpen != 0 {
				if i, ok := listed[riskGroup{r.rmarket, r.rdate}]; ok {
					out[i].keys = append(out[i].keys, schemas.TradeKey(r.key).String())
				}
			}
		}
		x.idx.mu.RUnlock()
	}
	for i := range out {
		sort.Strings(out[i].keys)
	}
	slices.SortFunc(out, func(a, b cutoffGroup) int {
		return cmp.Or(a.cutoff.Compare(b.cutoff), cmp.Compare(a.market, b.market), cmp.Compare(a.partition, b.partition))
	})
	return out
}

// all is every open partition's read side.
func (t *Tables) all() map[int32]*Partition {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[int32]*Partition, len(t.parts))
	for p, x := range t.parts {
		out[p] = x
	}
	return out
}

// riskCounts is, per market, the unmatched trades whose cutoff is within the
// lead (at risk) and those past it, on the wall clock (Config.Now). Every
// market of the reference data and "-" are present, at zero when empty.
func (t *Tables) riskCounts(c *Config) (atRisk, past map[string]int) {
	now := c.Now()
	atRisk, past = map[string]int{refdata.NoMarket: 0}, map[string]int{refdata.NoMarket: 0}
	if ref := c.Refdata(); ref != nil {
		for _, cut := range ref.Cutoffs() {
			atRisk[cut.MIC], past[cut.MIC] = 0, 0
		}
	}
	// Counted, not listed: a scrape needs no trade keys.
	ref := c.Refdata()
	for _, x := range t.all() {
		x.idx.mu.RLock()
		for g, n := range x.idx.groups {
			market, cutoff := ref.CutoffOf(x.idx.names[g.market], g.tradeDate())
			switch left := cutoff.Sub(now); {
			case left <= 0:
				past[market] += n
			case left <= c.Lead:
				atRisk[market] += n
			}
		}
		x.idx.mu.RUnlock()
	}
	return atRisk, past
}
