package query

import (
	"cmp"
	"slices"
	"sort"
	"time"

	"github.com/ste-utility/ste/schemas/refdata"
)

// The at-risk index (docs/timeliness.md): each match partition counts its
// unmatched trades by (market, TradeDate), the two facts their cutoff
// depends on (internal/index: each trade's record holds its group). A
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

// cutoffGroups lists the unmatched trades of the given partitions by
// cutoff, the earliest first, optionally of one market only.
func cutoffGroups(c *Config, parts map[int32]*Partition, market string) []cutoffGroup {
	var out []cutoffGroup
	ref := c.Refdata()
	for p, x := range parts {
		for _, g := range x.idx.Open(func(m, d string) bool { m, _ = ref.CutoffOf(m, d); return market == "" || m == market }) {
			m, at := ref.CutoffOf(g.Market, g.TradeDate)
			cg := cutoffGroup{partition: p, market: m, cutoff: at.UTC(), keys: make([]string, len(g.Keys))}
			for i, k := range g.Keys {
				cg.keys[i] = k.String()
			}
			out = append(out, cg)
		}
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
		x.idx.Groups(func(m, d string, n int) {
			market, cutoff := ref.CutoffOf(m, d)
			switch left := cutoff.Sub(now); {
			case left <= 0:
				past[market] += n
			case left <= c.Lead:
				atRisk[market] += n
			}
		})
	}
	return atRisk, past
}
