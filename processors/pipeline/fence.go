package pipeline

import (
	"github.com/lovoo/goka"

	"github.com/ste-utility/ste/processors/fence"
	"github.com/ste-utility/ste/processors/tablestore"
	"github.com/ste-utility/ste/topology"
)

// The match table's writes are stamped with their partition's ownership
// epoch, and its readers skip a write older than one they applied (package
// fence; docs/ARCHITECTURE.md, "Non-obvious"). The decisions
// (processors/stages) write the trade's state through stages.State and
// know nothing of it: the match stage's State in goka (gokaState, handle.go)
// stamps each SetValue and Delete here. The epochs themselves — the
// generation of each assignment, the stores registered, the update callback
// that skips a former owner's late write — are the table chain's
// (tablestore.Fence; chain.go).

// stamp returns the option that stamps a match table write of ctx's
// partition with its epoch, having raised the partition's store to it
// (none when the partition has no epoch: goka's tester).
func (rt *wiring) stamp(ctx goka.Context) []goka.ContextOption {
	p := ctx.Partition()
	x, _ := rt.tables.Get(topology.StageMatch, p).(tablestore.Epochs)
	e, err := rt.fence.Stamp(p, x)
	if err != nil {
		ctx.Fail(err)
	}
	if e.IsZero() {
		return nil
	}
	return []goka.ContextOption{goka.WithCtxEmitHeaders(goka.Headers{fence.Header: e.Encode()})}
}

// lateWriteSkipped logs, rate-limited, a former owner's late write that the
// match table's update callback skipped (tablestore.Fence.Skipped).
func (rt *wiring) lateWriteSkipped(ctx goka.UpdateContext, key string, write, held fence.Epoch) {
	if suppressed, ok := rt.fenceLog.allow(rt.cfg.Now()); ok {
		rt.log.Warn("table changelog: a write of the partition's former owner landed after its new owner's and is skipped",
			"topic", ctx.Topic(), "partition", ctx.Partition(), "offset", ctx.Offset(), "key", key,
			"write_epoch", write, "partition_epoch", held, "suppressed_since_last", suppressed)
	}
}
