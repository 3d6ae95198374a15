// Package query is the read side of the match table: one trade by its key,
// the trades of a TradeRef (through each partition's TradeRef index), the
// unmatched trades by cutoff (the at-risk index) and the trades by status,
// for the instance's lookup listener, /metrics and, through them, the
// console and the gateway. Its indexes (internal/index: one compact record a
// trade) are fed by the match table's storage (every value stored passes
// through a Partition: the stage's writes and the changelog's replay alike)
// and its answers are types of its own. It links no Kafka client.
package query

import (
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/query/internal/index"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
)

// Config is what the answers need besides the tables.
type Config struct {
	// Refdata is the reference data now: the markets' cutoffs.
	Refdata func() *refdata.Set
	// Tolerances the views show criteria 7 and 15 with (nil: none).
	Tolerances matching.Tolerances
	// Now is the wall clock of the at-risk counts (default time.Now).
	Now func() time.Time
	// Lead: an unmatched trade whose cutoff is at most this far ahead is at
	// risk (default DefaultAtRiskLead).
	Lead   time.Duration
	Logger *slog.Logger // default slog.Default()
}

// DefaultAtRiskLead is how far ahead of its cutoff an unmatched trade counts
// as at risk.
const DefaultAtRiskLead = 2 * time.Hour

// Tables answers for the match partitions a running pipeline has open: one
// trade by its key (a point lookup in the partitions the instance owns) or
// the trades with a TradeRef (through each partition's TradeRef index,
// since a TradeRef alone does not give the trade key). The runtime serves
// it (Serve) and opens each owned partition in it (Open); until then, and
// without a match group, nothing is held.
//
// The tables are read through their stores' Get, so either table storage
// (in memory or on disk) serves it.
type Tables struct {
	cfg   atomic.Pointer[Config]
	mu    sync.Mutex
	parts map[int32]*Partition
	// decoy: the last trade a participant's point lookup read (Trade).
	decoy atomic.Pointer[decoy]
}

// Store is what the lookups read of a match partition's table store (the
// index's, which reads the queue's summaries from it).
type Store interface{ index.Store }

// Iterator walks a table store's keys and values (goka's storage.Iterator).
type Iterator interface{ index.Iterator }

// Partition is one match partition's read side: its store and its
// indexes, fed with every value the store takes.
type Partition struct {
	store Store
	idx   *index.Index // every trade's facts: status, at-risk group, TradeRefs, queue
	log   *slog.Logger
}

// Serve makes t answer with c (the runtime, when it starts).
func (t *Tables) Serve(c Config) {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Lead <= 0 {
		c.Lead = DefaultAtRiskLead
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Refdata == nil {
		c.Refdata = func() *refdata.Set { return nil }
	}
	t.cfg.Store(&c)
}

// Open registers the store of match partition p, opened for the stages,
// with fresh indexes (replacing the partition's previous ones), and
// returns what its storage feeds them through.
func (t *Tables) Open(p int32, s Store) *Partition {
	tol := func() matching.Tolerances {
		if c := t.cfg.Load(); c != nil {
			return c.Tolerances
		}
		return nil
	}
	x := &Partition{store: s, idx: index.New(s, tol), log: slog.Default()}
	if c := t.cfg.Load(); c != nil {
		x.log = c.Logger
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.parts == nil {
		t.parts = map[int32]*Partition{}
	}
	if old := t.parts[p]; old != nil {
		old.idx.Close()
	}
	t.parts[p] = x
	return x
}

// Keep forgets the partitions not in keep (nil: all of them): goka closes a
// partition's table when a session ends and opens a new one for each
// partition assigned in the next; a store of a partition given away would
// otherwise stay reachable here and answer with state that moved on.
func (t *Tables) Keep(keep []int32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for p, x := range t.parts {
		if !slices.Contains(keep, p) {
			x.idx.Close()
			delete(t.parts, p)
		}
	}
}

// Decided hands partition p's index the trade the match stage just wrote
// there (stages.Config.Decided): its work-queue summary is made from it,
// not from the value read back. Called after the write, on the stage's
// goroutine; the trade is not changed after, unless Reclaim takes it back.
func (t *Tables) Decided(p int32, tr *matching.Trade) {
	if x := t.part(p); x != nil {
		x.idx.Decided(uint64(tr.Key), tr)
	}
}

// Reclaim takes back from partition p's index the trade last handed over
// for key, while it waits for its summary (stages.Config.Reclaim): the
// value the table holds for key, decoded. Nil when none is held.
func (t *Tables) Reclaim(p int32, key schemas.TradeKey) *matching.Trade {
	if x := t.part(p); x != nil {
		return x.idx.Reclaim(uint64(key))
	}
	return nil
}

func (t *Tables) part(p int32) *Partition {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.parts[p]
}

// Put indexes a value the store took under key; Delete a key it deleted.
// Keys other than trade keys (there are none) are not indexed.
func (x *Partition) Put(key string, value []byte) {
	k, ok := schemas.ParseTradeKey(key)
	if !ok {
		return
	}
	x.idx.Put(uint64(k), value)
}

func (x *Partition) Delete(key string) {
	k, ok := schemas.ParseTradeKey(key)
	if !ok {
		return
	}
	x.idx.Delete(uint64(k))
}

// Close stops what reads the partition's store off the stage's goroutine
// (the work-queue index's summaries), waiting for a read under way: its
// storage calls it before the store closes.
func (x *Partition) Close() { x.idx.Close() }

// Loaded indexes the values a store resumed from disk holds when it opens
// (they are not replayed): for the at-risk and status counts, and their
// TradeRefs, so that a recovery that replays nothing past them ends
// without reading the table again (RecoveredAsLoaded).
func (x *Partition) Loaded(it Iterator) error {
	for it.Next() {
		k, ok := schemas.ParseTradeKey(string(it.Key()))
		if !ok {
			continue
		}
		if v, err := it.Value(); err == nil && v != nil {
			x.idx.Load(uint64(k), v)
		}
	}
	return it.Err()
}

// RecoveredAsLoaded is Recovered for a store whose recovery wrote nothing
// after Loaded read it (a restart resumed at its changelog's end): what
// Loaded read is the recovered table, and the TradeRef index is built.
func (x *Partition) RecoveredAsLoaded() { x.idx.RecoveredAsLoaded() }

// Recovered builds the TradeRef and work-queue indexes from the recovered
// table (goka's MarkRecovered): every write before it was the changelog's
// replay, which the table now holds. Until then a lookup of the
// partition's TradeRefs or queues says it is recovering rather than
// answering from part of the table. The queue index is summarised in the
// background (internal/index), and says it is recovering until that has run.
func (x *Partition) Recovered(it Iterator) error {
	x.idx.Recovered(it, x.log)
	return nil
}

// ErrNoMatchTable: this pipeline runs no match group (yet).
var ErrNoMatchTable = errors.New("no match table in this instance")

// ErrRecovering: a partition asked about is still recovering its table,
// so its trades cannot all be found yet.
var ErrRecovering = errors.New("a match partition is still recovering its table")

// Found is one trade found, with the partition that holds it.
type Found struct {
	Partition int32
	View      matching.View
}

// owned is the read sides of the partitions given, of those open: only
// partitions owned now, since a store of a partition given away in a
// rebalance may linger, and would answer with state that moved on.
func (t *Tables) owned(partitions []int32) (*Config, map[int32]*Partition, error) {
	c := t.cfg.Load()
	if c == nil {
		return nil, nil, ErrNoMatchTable
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[int32]*Partition{}
	for p, x := range t.parts {
		if slices.Contains(partitions, p) {
			out[p] = x
		}
	}
	return c, out, nil
}

// Trade looks key up in the owned partitions; ok is false when none holds
// it, or when party is given and is not one of the trade's parties
// (matching.View.IsParty).
func (t *Tables) Trade(key schemas.TradeKey, party string, partitions []int32) (Found, bool, error) {
	c, parts, err := t.owned(partitions)
	if err != nil {
		return Found{}, false, err
	}
	for p, x := range parts {
		v, err := x.store.Get(key.String())
		if err != nil {
			return Found{}, false, err
		}
		if v == nil {
			continue
		}
		viewsBuilt.Add(1)
		view, err := matching.ViewOfWith(key, v, c.Tolerances)
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
			if view, err := matching.ViewOfWith(d.key, d.value, c.Tolerances); err == nil {
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
	c, parts, err := t.owned(partitions)
	if err != nil {
		return nil, false, err
	}
	for p, x := range parts {
		keys, ready := x.idx.Keys(q.Ref)
		if !ready {
			return nil, false, ErrRecovering
		}
		for _, key := range keys {
			v, err := x.store.Get(key.String())
			if err != nil {
				return nil, false, err
			}
			if v == nil {
				continue // written again since: the index follows
			}
			view, err := matching.ViewOfWith(key, v, c.Tolerances)
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
