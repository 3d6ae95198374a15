package query

import (
	"cmp"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
)

// The at-risk index (docs/timeliness.md): each match partition keeps its
// unmatched trades grouped by (market, TradeDate), the two facts their cutoff
// depends on. A group's cutoff is computed from the reference data when it is
// asked for, so the groups sort by cutoff in the time it takes to sort a few
// hundred of them, a changed markets.csv row applies at once, and nothing is
// ever scanned trade by trade. The index lives in memory beside the table and
// is rebuilt with it: every value the table stores passes through
// Partition.Put (the processor's writes and the changelog's replay alike),
// and a table resumed from disk is read once when it opens (Partition.Loaded).

type riskGroup struct{ market, tradeDate string }

// riskIndex is one partition's unmatched trades by group, and its trades
// by status (statusindex.go). One map holds both facts of every trade, keyed
// by the trade key's number: the table is written for every message the
// match stage applies, and one lookup of a big map costs less than two of
// string keys.
type riskIndex struct {
	mu     sync.Mutex
	of     map[uint64]tradeFacts
	groups map[riskGroup]map[uint64]struct{}
	status statusTally
}

// tradeFacts is what the index holds of one trade.
type tradeFacts struct {
	group   riskGroup
	open    bool // unmatched: a member of group
	st      statusEntry
	counted bool // st is in the status tally
}

func newRiskIndex() *riskIndex {
	return &riskIndex{of: map[uint64]tradeFacts{}, groups: map[riskGroup]map[uint64]struct{}{},
		status: statusTally{byDay: map[int64]int{}}}
}

// update indexes a stored value: a trade still unmatched joins its group,
// anything else (a matched trade, a tombstone, a value that cannot be read)
// leaves the groups; its status is counted unless the value cannot be read.
func (x *riskIndex) update(key uint64, value []byte) {
	var f tradeFacts
	r, ok := matching.ReadRisk(value)
	if !ok {
		// A trade written before the timeliness extension: decoded once
		// (its market is unknown until its next message rewrites it).
		if tomb, _, hok := matching.Header(value); hok && !tomb {
			if t, err := matching.UnmarshalTrade(value, nil); err == nil {
				r, ok = t.Risk(), true
			}
		}
	}
	if ok && r.Open {
		f.group, f.open = riskGroup{r.Market, r.TradeDate}, true
	}
	f.st, f.counted = classify(value)
	x.mu.Lock()
	defer x.mu.Unlock()
	old, had := x.of[key]
	if had && old == f {
		return // most writes change neither
	}
	x.leaveLocked(key, old, f)
	if f.open && !(old.open && old.group == f.group) {
		m := x.groups[f.group]
		if m == nil {
			m = map[uint64]struct{}{}
			x.groups[f.group] = m
		}
		m[key] = struct{}{}
	}
	if f.counted {
		x.status.add(f.st)
	}
	if f.open || f.counted {
		x.of[key] = f
	} else if had {
		delete(x.of, key)
	}
}

func (x *riskIndex) remove(key uint64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if old, had := x.of[key]; had {
		x.leaveLocked(key, old, tradeFacts{})
		delete(x.of, key)
	}
}

// leaveLocked takes what old counted out of the index, where next differs:
// its group unless next is open in the same one, and its status.
func (x *riskIndex) leaveLocked(key uint64, old, next tradeFacts) {
	if old.open && !(next.open && next.group == old.group) {
		if m := x.groups[old.group]; m != nil {
			delete(m, key)
			if len(m) == 0 {
				delete(x.groups, old.group)
			}
		}
	}
	if old.counted {
		x.status.sub(old.st)
	}
}

// cutoffGroup is a partition's unmatched trades with one market and cutoff.
type cutoffGroup struct {
	partition int32
	market    string    // a MIC of markets.csv, or refdata.NoMarket
	cutoff    time.Time // in UTC
	keys      []string  // trade keys, sorted
}

// cutoffGroups lists the unmatched trades of the given partitions by
// cutoff, the earliest first, optionally of one market only. It costs a
// sort of the groups, not a pass over the trades.
func cutoffGroups(c *Config, parts map[int32]*Partition, market string) []cutoffGroup {
	var out []cutoffGroup
	eachRiskGroup(c, parts, func(p int32, m string, at time.Time, keys map[uint64]struct{}) {
		if market != "" && m != market {
			return
		}
		g := cutoffGroup{partition: p, market: m, cutoff: at.UTC(), keys: make([]string, 0, len(keys))}
		for key := range keys {
			g.keys = append(g.keys, schemas.TradeKey(key).String())
		}
		out = append(out, g)
	})
	for i := range out {
		sort.Strings(out[i].keys)
	}
	slices.SortFunc(out, func(a, b cutoffGroup) int {
		return cmp.Or(a.cutoff.Compare(b.cutoff), cmp.Compare(a.market, b.market), cmp.Compare(a.partition, b.partition))
	})
	return out
}

// eachRiskGroup calls f with each group of the partitions: its market and
// cutoff by the reference data now, and its trade keys (f must not keep
// them: the partition's lock is held).
func eachRiskGroup(c *Config, parts map[int32]*Partition, f func(p int32, market string, cutoff time.Time, keys map[uint64]struct{})) {
	ref := c.Refdata()
	for p, x := range parts {
		x.risk.mu.Lock()
		for g, keys := range x.risk.groups {
			m, at := ref.CutoffOf(g.market, g.tradeDate)
			f(p, m, at, keys)
		}
		x.risk.mu.Unlock()
	}
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
	eachRiskGroup(c, t.all(), func(_ int32, market string, cutoff time.Time, keys map[uint64]struct{}) {
		switch left := cutoff.Sub(now); {
		case left <= 0:
			past[market] += len(keys)
		case left <= c.Lead:
			atRisk[market] += len(keys)
		}
	})
	return atRisk, past
}
