package pipeline

import (
	"cmp"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/lovoo/goka/storage"

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
// riskStorage.Set (the processor's writes and the changelog's replay alike),
// and a table resumed from disk is read once when it opens.

// DefaultAtRiskLead is how far ahead of its cutoff an unmatched trade counts
// as at risk.
const DefaultAtRiskLead = 2 * time.Hour

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
		k, ok := schemas.ParseTradeKey(string(it.Key()))
		if !ok {
			continue
		}
		if v, err := it.Value(); err == nil && v != nil {
			s.idx.update(uint64(k), v)
		}
	}
	return it.Err()
}

// Set and Delete index the match table's keys, trade keys; any other key
// (there are none) is stored and not indexed.
func (s *riskStorage) Set(key string, value []byte) error {
	if err := s.Storage.Set(key, value); err != nil {
		return err
	}
	if k, ok := schemas.ParseTradeKey(key); ok {
		s.idx.update(uint64(k), value)
	}
	return nil
}

func (s *riskStorage) Delete(key string) error {
	if err := s.Storage.Delete(key); err != nil {
		return err
	}
	if k, ok := schemas.ParseTradeKey(key); ok {
		s.idx.remove(uint64(k))
	}
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
	var out []RiskGroup
	s.eachRiskGroup(partitions, func(p int32, m string, at time.Time, keys map[uint64]struct{}) {
		if market != "" && m != market {
			return
		}
		rg := RiskGroup{Partition: p, Market: m, Cutoff: at.UTC(), Keys: make([]string, 0, len(keys))}
		for key := range keys {
			rg.Keys = append(rg.Keys, schemas.TradeKey(key).String())
		}
		out = append(out, rg)
	})
	for i := range out {
		sort.Strings(out[i].Keys)
	}
	slices.SortFunc(out, func(a, b RiskGroup) int {
		return cmp.Or(a.Cutoff.Compare(b.Cutoff), cmp.Compare(a.Market, b.Market), cmp.Compare(a.Partition, b.Partition))
	})
	return out
}

// eachRiskGroup calls f with each group of the given partitions (nil: all
// this instance owns): its market and cutoff by the reference data now, and
// its trade keys (f must not keep them: the partition's lock is held).
func (s *stages) eachRiskGroup(partitions []int32, f func(p int32, market string, cutoff time.Time, keys map[uint64]struct{})) {
	ref := s.cfg.Validator.Refdata()
	s.mu.Lock()
	idxs := make(map[int32]*riskIndex, len(s.risk))
	for p, x := range s.risk {
		if partitions == nil || slices.Contains(partitions, p) {
			idxs[p] = x
		}
	}
	s.mu.Unlock()
	for p, x := range idxs {
		x.mu.Lock()
		for g, keys := range x.groups {
			m, at := ref.CutoffOf(g.market, g.tradeDate)
			f(p, m, at, keys)
		}
		x.mu.Unlock()
	}
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
	// Counted, not listed: a scrape needs no trade keys.
	s.eachRiskGroup(nil, func(_ int32, market string, cutoff time.Time, keys map[uint64]struct{}) {
		switch left := cutoff.Sub(now); {
		case left <= 0:
			past[market] += len(keys)
		case left <= s.cfg.AtRiskLead:
			atRisk[market] += len(keys)
		}
	})
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
