package pipeline

import (
	"context"
	"sync"
	"time"

	"github.com/lovoo/goka"

	"github.com/ste-utility/ste/processors/envelope"
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
	// The epoch changes with an assignment, not with a write: the option
	// made for it is kept and handed to every write of the partition in
	// that epoch (its header map is only read: goka hands it to the producer
	// as it is, goka patch 7, and the producer copies its entries into the
	// record). Made for every write, it was five allocations a message.
	if s, ok := rt.stamps.Load(p); ok && s.(*epochStamp).e == e {
		return s.(*epochStamp).opts
	}
	s := &epochStamp{e: e, opts: []goka.ContextOption{goka.WithCtxEmitHeaders(goka.Headers{fence.Header: e.Encode()})}}
	rt.stamps.Store(p, s)
	return s.opts
}

// epochStamp is the option that stamps a write with epoch e.
type epochStamp struct {
	e    fence.Epoch
	opts []goka.ContextOption
}

// lateWriteSkipped logs, rate-limited, a former owner's late write that the
// match table's update callback skipped (tablestore.Fence.Skipped), and
// has the trade written again (rewriteLate).
func (rt *wiring) lateWriteSkipped(ctx goka.UpdateContext, key string, write, held fence.Epoch) {
	rt.late.add(key)
	if suppressed, ok := rt.fenceLog.allow(rt.cfg.Now()); ok {
		rt.log.Warn("table changelog: a write of the partition's former owner landed after its new owner's and is skipped",
			"topic", ctx.Topic(), "partition", ctx.Partition(), "offset", ctx.Offset(), "key", key,
			"write_epoch", write, "partition_epoch", held, "suppressed_since_last", suppressed)
	}
}

// A late write the fence skips can still become its trade's newest record
// on the changelog, and compaction keeps only the newest record of a key: a
// rebuild after it would find the late write alone (docs/ARCHITECTURE.md,
// "Table storage", danger 3). So whoever skips one — a standby following
// the partition, the owner restoring it — writes a rewrite record
// (envelope.KindRewrite) of the trade to its partition of <ns>.accepted,
// among the trade's messages, as the timers write their allegement records
// (timers.go); the partition's owner, whichever instance that is, writes the
// trade's state again (stages: rewrite), stamped with its epoch, after the
// late write. The skipped writes are seen while the changelog is read, often
// before the stage's producer exists (a restore), so the keys wait in late
// until rewriteLate writes them.

// lateKeys are the trades whose late writes were skipped and whose rewrite
// records are not written yet.
type lateKeys struct {
	mu   sync.Mutex
	keys map[string]struct{}
}

func (l *lateKeys) add(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.keys == nil {
		l.keys = map[string]struct{}{}
	}
	l.keys[key] = struct{}{}
}

// take hands out every key waiting.
func (l *lateKeys) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]string, 0, len(l.keys))
	for k := range l.keys {
		out = append(out, k)
	}
	clear(l.keys)
	return out
}

// rewriteTick is how often the skipped late writes are looked at.
const rewriteTick = time.Second

// rewriteLate writes, until ctx ends, the rewrite record of every trade
// whose late write was skipped.
func (rt *wiring) rewriteLate(ctx context.Context) {
	accepted := rt.cfg.Names.Accepted()
	every(ctx, rewriteTick, func() { rt.rewrite(accepted) })
}

// rewrite writes to topic (<ns>.accepted) the rewrite record of every trade
// waiting; with no producer yet the keys wait, and a key whose record
// cannot be written (a producer closing in a rebalance) waits again, for
// the next tick.
func (rt *wiring) rewrite(topic string) {
	p := rt.producers[topology.StageMatch].Load()
	if p == nil {
		return
	}
	for _, k := range rt.late.take() {
		e := &envelope.Envelope{Kind: envelope.KindRewrite, Partition: -1, Offset: -1}
		(*p).Emit(topic, k, e.Marshal()).Then(func(err error) {
			if err != nil {
				rt.late.add(k)
			}
		})
	}
}
