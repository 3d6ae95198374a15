package pipeline

import (
	"errors"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/lovoo/goka/storage"

	"github.com/ste-utility/ste/processors/diskstore"
	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/schemas"
)

// Tables lets the runtime read a running pipeline's match table for an
// operator or a participant: one trade by its key (a point lookup in the
// partitions the instance owns) or the trades with a TradeRef (through each
// partition's TradeRef index, refindex.go, since a TradeRef alone does not
// give the trade key). Run fills it
// in; until then, and without a match group, nothing is held.
//
// The tables are read through goka's storage interface, so either table
// storage (in memory or on disk) serves it.
type Tables struct {
	s    atomic.Pointer[stages]
	disk atomic.Pointer[diskstore.DB]
	// decoy: the last trade a participant's point lookup read (Trade).
	decoy atomic.Pointer[decoy]
}

// Health is nil, or why the table storage cannot write now (a full disk:
// diskstore.DB.Health). Tables in memory have none.
func (t *Tables) Health() error {
	if db := t.disk.Load(); db != nil {
		return db.Health()
	}
	return nil
}

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

// ErrRecovering: a partition asked about is still recovering its table,
// so its trades cannot all be found yet.
var ErrRecovering = errors.New("a match partition is still recovering its table")

// Trade looks key up in the owned partitions; ok is false when none holds
// it, or when party is given and is not one of the trade's parties
// (matching.View.IsParty).
func (t *Tables) Trade(key schemas.TradeKey, party string, partitions []int32) (Found, bool, error) {
	stores, err := t.stores(partitions)
	if err != nil {
		return Found{}, false, err
	}
	tol := t.s.Load().engine.Tolerances
	for p, st := range stores {
		v, err := st.Get(key.String())
		if err != nil {
			return Found{}, false, err
		}
		if v == nil {
			continue
		}
		viewsBuilt.Add(1)
		view, err := matching.ViewOfWith(key, v, tol)
		if err != nil {
			return Found{}, false, err
		}
		if party != "" {
			t.decoy.Store(&decoy{key: key, value: slices.Clone(v)})
			if !view.IsParty(party) {
				return Found{}, false, nil
			}
		}
		return Found{Partition: p, View: view}, true, nil
	}
	if party != "" {
		// "No such trade" does the work of "not yours" (issue 45, finding
		// 12): a participant asking for a key must not tell from the time of
		// the answer that someone else's trade has it. The view of the last
		// trade a participant asked for is built again and judged, and
		// thrown away.
		if d := t.decoy.Load(); d != nil {
			viewsBuilt.Add(1)
			if view, err := matching.ViewOfWith(d.key, d.value, tol); err == nil {
				_ = view.IsParty(party)
			}
		}
	}
	return Found{}, false, nil
}

// decoy is a trade's stored value, rebuilt on a participant's miss.
type decoy struct {
	key   schemas.TradeKey
	value []byte
}

// viewsBuilt counts the views a participant's lookups built (tests).
var viewsBuilt atomic.Int64

// RefQuery is a search by TradeRef: the trades with a key of TradeRef Ref
// (and TradeDate Date, when given) to which Party is a party (when given),
// at most Limit of them (0: no limit).
type RefQuery struct {
	Ref, Date, Party string
	Limit            int
}

// FindRef answers q from the owned partitions' TradeRef indexes: the
// trades ordered by trade key, the party and date filters applied before
// the limit (another participant's trades never count against it); more
// says the limit left some off.
func (t *Tables) FindRef(q RefQuery, partitions []int32) (out []Found, more bool, err error) {
	if q.Ref == "" {
		return nil, false, nil
	}
	s := t.s.Load()
	if s == nil {
		return nil, false, ErrNoMatchTable
	}
	stores, err := t.stores(partitions)
	if err != nil {
		return nil, false, err
	}
	s.mu.Lock()
	idx := map[int32]*refIndex{}
	for p := range stores {
		idx[p] = s.matchRefs[p]
	}
	s.mu.Unlock()
	for p, st := range stores {
		x := idx[p]
		if x == nil {
			return nil, false, ErrRecovering
		}
		keys, ready := x.keys(q.Ref)
		if !ready {
			return nil, false, ErrRecovering
		}
		for _, key := range keys {
			v, err := st.Get(key.String())
			if err != nil {
				return nil, false, err
			}
			if v == nil {
				continue // written again since: the index follows
			}
			view, err := matching.ViewOfWith(key, v, t.s.Load().engine.Tolerances)
			if err != nil {
				continue
			}
			if q.Party != "" && !view.IsParty(q.Party) {
				continue
			}
			for _, k := range view.Keys {
				if k.TradeRef == q.Ref && (q.Date == "" || k.TradeDate == q.Date) {
					out = append(out, Found{Partition: p, View: view})
					break
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b Found) int { return strings.Compare(a.View.TradeKey, b.View.TradeKey) })
	if q.Limit > 0 && len(out) > q.Limit {
		out, more = out[:q.Limit], true
	}
	return out, more, nil
}
