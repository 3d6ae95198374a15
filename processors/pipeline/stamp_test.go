package pipeline

import (
	"testing"

	"github.com/lovoo/goka"

	"github.com/ste-utility/ste/processors/fence"
	"github.com/ste-utility/ste/topology"
)

// epochTable is a match partition's table as the fence reads it.
type epochTable struct {
	end   int64
	epoch fence.Epoch
}

func (t *epochTable) Clock() int64                   { return 0 }
func (t *epochTable) Due(int64) []string             { return nil }
func (t *epochTable) DropDue(int64) int              { return 0 }
func (t *epochTable) Len() int                       { return 0 }
func (t *epochTable) Epoch() fence.Epoch             { return t.epoch }
func (t *epochTable) RaiseEpoch(e fence.Epoch) error { t.epoch = t.epoch.Max(e); return nil }
func (t *epochTable) RecoveredEnd() int64            { return t.end }

// partitionCtx is a callback's context on a partition.
type partitionCtx struct {
	gokaContext // upgrade_test.go
	p           int32
}

func (c partitionCtx) Partition() int32 { return c.p }
func (c partitionCtx) Fail(err error)   { panic(err) }

// A match table write is stamped with its partition's epoch at the time of
// the write: the stamp kept for a partition is made again when the
// partition's epoch changes (a new assignment, a recovery that read a
// later changelog end), and a partition's stamp is its own.
func TestStampFollowsThePartitionsEpoch(t *testing.T) {
	rt := &wiring{}
	// The epoch a write of partition p is stamped with, and its option.
	stampOf := func(p int32) (fence.Epoch, *goka.ContextOption) {
		t.Helper()
		opts := rt.stamp(partitionCtx{p: p})
		s, ok := rt.stamps.Load(p)
		if len(opts) != 1 || !ok || &s.(*epochStamp).opts[0] != &opts[0] {
			t.Fatalf("partition %d: %d options, not the stamp kept", p, len(opts))
		}
		return s.(*epochStamp).e, &opts[0]
	}
	epochOf := func(p int32) fence.Epoch { e, _ := stampOf(p); return e }
	a, b := &epochTable{end: 10}, &epochTable{end: 20}
	rt.tables.Opened(topology.StageMatch, 0, a)
	rt.tables.Opened(topology.StageMatch, 1, b)
	rt.fence.Generation(3, nil)
	rt.fence.Owned(0)
	rt.fence.Owned(1)
	e0, first := stampOf(0)
	if e0 != (fence.Epoch{End: 10, Generation: 3}) {
		t.Fatalf("partition 0 stamped %+v", e0)
	}
	if e := epochOf(1); e != (fence.Epoch{End: 20, Generation: 3}) {
		t.Fatalf("partition 1 stamped %+v: another partition's stamp", e)
	}
	if e, again := stampOf(0); e != e0 || again != first {
		t.Fatalf("partition 0 stamped %+v the second time, with a new option: not kept", e)
	}
	// Assigned again in generation 4, after a recovery to offset 15.
	rt.fence.Generation(4, nil)
	rt.fence.Owned(0)
	a.end = 15
	if e := epochOf(0); e != (fence.Epoch{End: 15, Generation: 4}) {
		t.Fatalf("partition 0 stamped %+v after its new assignment: the old epoch's stamp", e)
	}
}
