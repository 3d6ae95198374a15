package pipeline

import (
	"cmp"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/lovoo/goka/storage"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/schemas/refdata"
)

// The at-risk index (docs/timeliness.md): each match partition keeps its
// unmatched trades grouped by (market, TradeDate), the two facts their cutoff
// depends on. A group's cutoff is computed from the reference data when it is
// asked for, so the groups sort by cutoff in the time it takes to sort a few
// hundred of them, a changed markets.csv row applies at once, and nothing is
// ever scanned trade by trade. The index lives in memory beside the table and
// is rebuilt with it: every value the table stores passes through
// riskStorage.Set (the processor's writes and the changelog's replay alike),
// and a table resumed from disk is read once when it opens.

// DefaultAtRiskLead is how far ahead of its cutoff an unmatched trade counts
// as at risk.
const DefaultAtRiskLead = 2 * time.Hour

type riskGroup struct{ market, tradeDate string }

// riskIndex is one partition's unmatched trades by group.
type riskIndex struct {
	status *statusIndex // the same partition's trades by status (statusindex.go)

	mu     sync.Mutex
	of     map[string]riskGroup // trade key → its group
	groups map[riskGroup]map[string]struct{}
}

func newRiskIndex() *riskIndex {
	return &riskIndex{of: map[string]riskGroup{}, groups: map[riskGroup]map[string]struct{}{}, status: newStatusIndex()}
}

// update indexes a stored value: a trade still unmatched joins its group,
// anything else (a matched trade, a tombstone, a value that cannot be read)
// leaves the index.
func (x *riskIndex) update(key string, value []byte) {
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
	x.mu.Lock()
	defer x.mu.Unlock()
	old, had := x.of[key]
	if ok && r.Open {
		g := riskGroup{r.Market, r.TradeDate}
		if had && old == g {
			return
		}
		x.removeLocked(key, old, had)
		m := x.groups[g]
		if m == nil {
			m = map[string]struct{}{}
			x.groups[g] = m
		}
		m[key] = struct{}{}
		x.of[key] = g
		return
	}
	x.removeLocked(key, old, had)
}

func (x *riskIndex) remove(key string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	old, had := x.of[key]
	x.removeLocked(key, old, had)
}

func (x *riskIndex) removeLocked(key string, g riskGroup, had bool) {
	if !had {
		return
	}
	delete(x.of, key)
	if m := x.groups[g]; m != nil {
		delete(m, key)
		if len(m) == 0 {
			delete(x.groups, g)
		}
	}
}

// riskStorage is a match partition's table storage with its index.
type riskStorage struct {
	storage.Storage
	idx *riskIndex
}

func (s *riskStorage) Open() error {
	if err := s.Storage.Open(); err != nil {
		return err
	}
	// A table resumed from disk holds values that are not replayed.
	it, err := s.Storage.Iterator()
	if err != nil {
		return err
	}
	defer it.Release()
	for it.Next() {
		if v, err := it.Value(); err == nil && v != nil {
			s.idx.update(string(it.Key()), v)
			s.idx.status.update(string(it.Key()), v)
		}
	}
	return it.Err()
}

func (s *riskStorage) Set(key string, value []byte) error {
	if err := s.Storage.Set(key, value); err != nil {
		return err
	}
	s.idx.update(key, value)
	s.idx.status.update(key, value)
	return nil
}

func (s *riskStorage) Delete(key string) error {
	if err := s.Storage.Delete(key); err != nil {
		return err
	}
	s.idx.remove(key)
	s.idx.status.remove(key)
	return nil
}

// riskBuilder wraps the match table's storage builder: each partition's
// storage gets a fresh index, which replaces the partition's previous one.
func (s *stages) riskBuilder(b storage.Builder) storage.Builder {
	return func(topic string, p int32) (storage.Storage, error) {
		st, err := b(topic, p)
		if err != nil {
			return nil, err
		}
		idx := newRiskIndex()
		s.mu.Lock()
		s.risk[p] = idx
		s.mu.Unlock()
		return &riskStorage{Storage: st, idx: idx}, nil
	}
}

// RiskGroup is a partition's unmatched trades with one market and cutoff.
type RiskGroup struct {
	Partition int32
	Market    string    // a MIC of markets.csv, or refdata.NoMarket
	Cutoff    time.Time // in UTC
	Keys      []string  // trade keys, sorted
}

// riskGroups lists the unmatched trades of the given partitions (nil: all
// this instance owns) by cutoff, the earliest first, optionally of one
// market only. It costs a sort of the groups, not a pass over the trades.
func (s *stages) riskGroups(partitions []int32, market string) []RiskGroup {
	ref := s.cfg.Validator.Refdata()
	s.mu.Lock()
	idxs := make(map[int32]*riskIndex, len(s.risk))
	for p, x := range s.risk {
		if partitions == nil || slices.Contains(partitions, p) {
			idxs[p] = x
		}
	}
	s.mu.Unlock()
	var out []RiskGroup
	for p, x := range idxs {
		x.mu.Lock()
		for g, keys := range x.groups {
			m, at := ref.CutoffOf(g.market, g.tradeDate)
			if market != "" && m != market {
				continue
			}
			rg := RiskGroup{Partition: p, Market: m, Cutoff: at.UTC(), Keys: make([]string, 0, len(keys))}
			for key := range keys {
				rg.Keys = append(rg.Keys, key)
			}
			out = append(out, rg)
		}
		x.mu.Unlock()
	}
	for i := range out {
		sort.Strings(out[i].Keys)
	}
	slices.SortFunc(out, func(a, b RiskGroup) int {
		return cmp.Or(a.Cutoff.Compare(b.Cutoff), cmp.Compare(a.Market, b.Market), cmp.Compare(a.Partition, b.Partition))
	})
	return out
}

// riskCounts is, per market, the unmatched trades whose cutoff is within the
// lead (at risk) and those past it, on the wall clock (Config.Now). Every
// market of the reference data and "-" are present, at zero when empty.
func (s *stages) riskCounts() (atRisk, past map[string]int) {
	now := s.cfg.Now()
	atRisk, past = map[string]int{refdata.NoMarket: 0}, map[string]int{refdata.NoMarket: 0}
	if ref := s.cfg.Validator.Refdata(); ref != nil {
		for _, c := range ref.Cutoffs() {
			atRisk[c.MIC], past[c.MIC] = 0, 0
		}
	}
	for _, g := range s.riskGroups(nil, "") {
		switch left := g.Cutoff.Sub(now); {
		case left <= 0:
			past[g.Market] += len(g.Keys)
		case left <= s.cfg.AtRiskLead:
			atRisk[g.Market] += len(g.Keys)
		}
	}
	return atRisk, past
}

// cutoffOf is a trade's market and cutoff (Unix µs) by the reference data
// now, for its audit events.
func (s *stages) cutoffOf(t *matching.Trade) (market string, cutoff int64) {
	r := t.Risk()
	m, at := s.cfg.Validator.Refdata().CutoffOf(r.Market, r.TradeDate)
	if at.IsZero() {
		return m, 0
	}
	return m, at.UnixMicro()
}
