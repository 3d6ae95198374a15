package tablestore

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ste-utility/ste/processors/diskstore"
	"github.com/ste-utility/ste/processors/query"
	"github.com/ste-utility/ste/processors/stages"
	"github.com/ste-utility/ste/topology"
)

// Table is what the runtime reads of a partition's table storage besides
// goka's interface: the decisions' clock and due index, and the size for
// the open-trades gauge. Both storages offer it: processors/memstore (in
// memory, rebuilt from the changelog on every start) and
// processors/diskstore (on disk, resumed from its offset).
type Table interface {
	stages.Table
	Len() int
}

// Partitions are the table partitions each stage with a table works on
// now: what its decisions read and what the gauges sample.
type Partitions struct {
	mu sync.Mutex
	of map[topology.Stage]map[int32]Table
	// Size and Gone, when set, are told a match partition's size (its
	// trades and tombstones: when it opens and at each Sample) and that it
	// was given away.
	Size func(p int32, n int)
	Gone func(p int32)
}

// Get is the decisions' view (stages.Config.Tables): nil when not open.
func (ps *Partitions) Get(st topology.Stage, p int32) stages.Table {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if t, ok := ps.of[st][p]; ok {
		return t
	}
	return nil
}

// Opened makes partition p's table of stage st the one its decisions read.
// A match partition's size is told at once, not at the next Sample: a
// scrape right after an assignment finds it.
func (ps *Partitions) Opened(st topology.Stage, p int32, t Table) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.of == nil {
		ps.of = map[topology.Stage]map[int32]Table{}
	}
	if ps.of[st] == nil {
		ps.of[st] = map[int32]Table{}
	}
	ps.of[st][p] = t
	if st == topology.StageMatch && ps.Size != nil {
		ps.Size(p, t.Len())
	}
}

// Keep forgets a stage's tables of the partitions not in keep (nil: all of
// them). goka closes a partition's table when a session ends and builds a
// new one for each partition assigned in the next; without this the old
// stores stayed reachable — their maps in memory, ste_open_trades and the
// event-time clock still reported — after the partitions had moved to
// another instance.
func (ps *Partitions) Keep(st topology.Stage, keep []int32) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for p := range ps.of[st] {
		if slices.Contains(keep, p) {
			continue
		}
		delete(ps.of[st], p)
		if st == topology.StageMatch && ps.Gone != nil {
			ps.Gone(p) // under the lock: Opened and Sample tell sizes under it
		}
	}
}

// Sample tells every match partition's size.
func (ps *Partitions) Sample() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.Size == nil {
		return
	}
	for p, t := range ps.of[topology.StageMatch] {
		ps.Size(p, t.Len())
	}
}

// Tables is a running pipeline's tables as the instance reads them: the
// match table's read side (lookups by trade key and TradeRef, the trades
// at risk: processors/query), served by the pipeline, and the disk
// tables' health.
type Tables struct {
	query.Tables
	disk atomic.Pointer[diskstore.DB]
}

// OnDisk makes Health report db's (nil: none).
func (t *Tables) OnDisk(db *diskstore.DB) { t.disk.Store(db) }

// Health is nil, or why the table storage cannot write now (a full disk:
// diskstore.DB.Health). Tables in memory have none.
func (t *Tables) Health() error {
	if db := t.disk.Load(); db != nil {
		return db.Health()
	}
	return nil
}
