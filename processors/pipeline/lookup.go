package pipeline

import (
	"bytes"
	"errors"
	"slices"
	"sync/atomic"

	"github.com/lovoo/goka/storage"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/schemas"
)

// Tables lets the runtime read a running pipeline's match table for an
// operator: one trade by its key (a point lookup in the partitions the
// instance owns) or the trades with a TradeRef (a scan of those partitions'
// values, since a TradeRef alone does not give the trade key). Run fills it
// in; until then, and without a match group, nothing is held.
//
// The tables are read through goka's storage interface, so either table
// storage (in memory or on disk) serves it.
type Tables struct{ s atomic.Pointer[stages] }

// ErrNoMatchTable: this pipeline runs no match group (yet).
var ErrNoMatchTable = errors.New("no match table in this instance")

// Found is one trade found, with the partition that holds it.
type Found struct {
	Partition int32
	View      matching.View
}

func (t *Tables) stores(partitions []int32) (map[int32]storage.Storage, error) {
	s := t.s.Load()
	if s == nil {
		return nil, ErrNoMatchTable
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[int32]storage.Storage{}
	for p, st := range s.matchStore {
		// Only partitions owned now: a store of a partition given away in a
		// rebalance may linger, and would answer with state that moved on.
		if ss, ok := any(st).(storage.Storage); ok && slices.Contains(partitions, p) {
			out[p] = ss
		}
	}
	return out, nil
}

// Trade looks key up in the owned partitions; ok is false when none holds it.
func (t *Tables) Trade(key schemas.TradeKey, partitions []int32) (Found, bool, error) {
	stores, err := t.stores(partitions)
	if err != nil {
		return Found{}, false, err
	}
	for p, st := range stores {
		v, err := st.Get(key.String())
		if err != nil {
			return Found{}, false, err
		}
		if v == nil {
			continue
		}
		view, err := matching.ViewOfWith(key, v, t.s.Load().engine.Tolerances)
		if err != nil {
			return Found{}, false, err
		}
		return Found{Partition: p, View: view}, true, nil
	}
	return Found{}, false, nil
}

// FindRef returns up to limit trades of the owned partitions with a
// message of that TradeRef. Values are filtered on their bytes before any
// is decoded: a scan costs a pass over the partitions' memory.
func (t *Tables) FindRef(ref string, partitions []int32, limit int) ([]Found, error) {
	stores, err := t.stores(partitions)
	if err != nil || ref == "" {
		return nil, err
	}
	var out []Found
	for p, st := range stores {
		it, err := st.Iterator()
		if err != nil {
			return out, err
		}
		for it.Next() && len(out) < limit {
			v, err := it.Value()
			if err != nil || !bytes.Contains(v, []byte(ref)) {
				continue
			}
			key, ok := schemas.ParseTradeKey(string(it.Key()))
			if !ok {
				continue
			}
			view, err := matching.ViewOfWith(key, v, t.s.Load().engine.Tolerances)
			if err != nil {
				continue
			}
			for _, k := range view.Keys {
				if k.TradeRef == ref {
					out = append(out, Found{Partition: p, View: view})
					break
				}
			}
		}
		it.Release()
	}
	slices.SortFunc(out, func(a, b Found) int { return b.View.Newest.Compare(a.View.Newest) }) // newest first
	return out, nil
}
