package pipeline

import (
	"sync"
	"sync/atomic"

	"github.com/lovoo/goka"
	"github.com/lovoo/goka/storage"

	"github.com/ste-utility/ste/processors/fence"
)

// The match table's writes are stamped with their partition's ownership
// epoch, and its readers skip a write older than one they applied (package
// fence; docs/ARCHITECTURE.md, "Non-obvious").
//
// A member the group leaves out of a generation goes on processing until
// it learns, and its writes can land on the changelog after those of the
// member that took its partitions over: read back (a restore, a rebuild, a
// standby), the old owner's stale value was the trade's state, and the
// messages the new owner had applied in between were lost, answered and
// committed (the full kfake chaos run's two unmatched trades, seed
// 1796315316104640256; TestZombieWriteAfterTakeoverIsFenced).
//
// The epoch of an owned partition is the changelog's end when its recovery
// was done and the generation that assigned it (goka's generation callback,
// third_party/goka patch 4), taken when its table is opened. The owner
// raises its store's epoch before its first write, so that the store,
// resumed from disk, skips an old owner's writes that landed after its own.
//
// The identity table is not stamped: an identity is written once, with the
// digest of the first message accepted under it, and two owners processing
// the verdicts in offset order write the same value.

// epochs is what a table store keeps of the partition's ownerships.
type epochs interface {
	Epoch() fence.Epoch
	RaiseEpoch(fence.Epoch) error
	RecoveredEnd() int64
}

// owners is what the match stage knows of its partitions' ownerships.
type owners struct {
	generation atomic.Int32 // of the group's latest assignment (goka's generation callback)
	mu         sync.Mutex
	gen        map[int32]int32  // the generation each owned partition was assigned in
	stores     map[int32]epochs // each partition's store, owned or standby
	log        rateLimit        // the late writes skipped
}

// owned records that partition p was assigned in the latest generation
// (its table is being opened: goka tells the generation before that).
func (o *owners) owned(p int32) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.gen == nil {
		o.gen = map[int32]int32{}
	}
	o.gen[p] = o.generation.Load()
}

func (o *owners) genOf(p int32) int32 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.gen[p]
}

func (o *owners) setStore(p int32, x epochs) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.stores == nil {
		o.stores = map[int32]epochs{}
	}
	o.stores[p] = x
}

func (o *owners) store(p int32) epochs {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.stores[p]
}

// stamp returns the option that stamps a match table write of ctx's
// partition with its epoch, having raised the store's to it (none when the
// partition has no epoch: goka's tester).
func (s *stages) stamp(ctx goka.Context) []goka.ContextOption {
	p := ctx.Partition()
	s.mu.Lock()
	st := s.matchStore[p]
	s.mu.Unlock()
	if st == nil {
		return nil
	}
	e := fence.Epoch{End: st.RecoveredEnd(), Generation: s.owners.genOf(p)}
	if e.IsZero() {
		return nil
	}
	if err := st.RaiseEpoch(e); err != nil {
		ctx.Fail(err)
	}
	return []goka.ContextOption{goka.WithCtxEmitHeaders(goka.Headers{fence.Header: e.Encode()})}
}

// fenceRegistry records, for the match table's update callback, each
// partition's store as b builds it (goka hands the callback its own proxy of
// the storage, through which the store cannot be reached). goka builds a
// partition's table, owned or standby, once per generation, after closing
// the previous one.
func (s *stages) fenceRegistry(b storage.Builder) storage.Builder {
	return func(topic string, p int32) (storage.Storage, error) {
		st, err := b(topic, p)
		if err != nil {
			return nil, err
		}
		x, _ := unwrapStorage(st).(epochs)
		s.owners.setStore(p, x)
		return st, nil
	}
}

// fenceMatchTable is the match table's update callback (wherever goka reads
// its changelog: a restore, a standby): a write stamped before the latest
// epoch the partition's store holds is an old owner's late write and is
// skipped; any other is applied as goka would.
func (s *stages) fenceMatchTable(ctx goka.UpdateContext, st storage.Storage, key string, value []byte) error {
	if e, ok := fence.Decode(ctx.Headers()[fence.Header]); ok {
		if x := s.owners.store(ctx.Partition()); x != nil {
			if e.Before(x.Epoch()) {
				if suppressed, ok := s.owners.log.allow(s.cfg.Now()); ok {
					s.cfg.Logger.Warn("table changelog: a write of the partition's former owner landed after its new owner's and is skipped",
						"topic", ctx.Topic(), "partition", ctx.Partition(), "offset", ctx.Offset(), "key", key,
						"write_epoch", e, "partition_epoch", x.Epoch(), "suppressed_since_last", suppressed)
				}
				return nil
			}
			if err := x.RaiseEpoch(e); err != nil {
				return err
			}
		}
	}
	return goka.DefaultUpdate(ctx, st, key, value)
}

// unwrapStorage is the table store under the match table's index wrappers.
func unwrapStorage(st storage.Storage) storage.Storage {
	for {
		switch w := st.(type) {
		case *indexed:
			st = w.Storage
		case *riskStorage:
			st = w.Storage
		default:
			return st
		}
	}
}
