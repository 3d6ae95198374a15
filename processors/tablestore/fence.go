package tablestore

import (
	"sync"
	"sync/atomic"

	"github.com/lovoo/goka"
	"github.com/lovoo/goka/storage"

	"github.com/ste-utility/ste/processors/fence"
)

// The match table's ownership epochs (package fence; docs/ARCHITECTURE.md,
// "Non-obvious" and "Table storage", danger 3).
//
// A member the group leaves out of a generation goes on processing until
// it learns, and its writes can land on the changelog after those of the
// member that took its partitions over: read back (a restore, a rebuild, a
// standby), the old owner's stale value was the trade's state, and the
// messages the new owner had applied in between were lost, answered and
// committed (the full kfake chaos run's two unmatched trades, seed
// 1796315316104640256; TestZombieWriteAfterTakeoverIsFenced,
// processors/pipeline).
//
// The epoch of an owned partition is the changelog's end when its recovery
// was done and the generation that assigned it (goka's generation callback,
// third_party/goka patch 4), taken when its table is opened. The owner
// raises its store's epoch before its first write (Fence.Stamp, which the
// runtime's match stage state calls for each write: processors/pipeline,
// fence.go), so that the store, resumed from disk, skips an old owner's
// writes that landed after its own; wherever goka reads the changelog, the
// update callback (Fence.Update) skips a write stamped before the epoch the
// partition's store holds.
//
// The identity table is not stamped: an identity is written once, with the
// digest of the first message accepted under it, and two owners processing
// the verdicts in offset order write the same value.

// Epochs is what a table store keeps of its partition's ownerships
// (processors/memstore, processors/diskstore).
type Epochs interface {
	Epoch() fence.Epoch
	RaiseEpoch(fence.Epoch) error
	RecoveredEnd() int64
}

// Fence is what the match stage knows of its partitions' ownerships: the
// generation of each owned partition's assignment and each partition's
// store, owned or standby. Its zero value is ready; one serves a stage's
// processor across its restarts.
type Fence struct {
	generation atomic.Int32 // of the group's latest assignment (goka's generation callback)
	mu         sync.Mutex
	gen        map[int32]int32  // the generation each owned partition was assigned in
	stores     map[int32]Epochs // each partition's store, owned or standby
	// Skipped, when set, is told each late write the update callback skips:
	// where it is, its epoch and the later one the partition's store holds.
	Skipped func(ctx goka.UpdateContext, key string, write, held fence.Epoch)
}

// Generation is goka's generation callback (goka.WithGenerationCallback):
// the generation of the assignment whose tables are about to be opened.
func (f *Fence) Generation(gen int32, _ goka.Assignment) { f.generation.Store(gen) }

// Owned records that partition p was assigned in the latest generation:
// its table is being opened (goka tells the generation before that). The
// owned store's own open callback calls it; a standby is not owned.
func (f *Fence) Owned(p int32) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.gen == nil {
		f.gen = map[int32]int32{}
	}
	f.gen[p] = f.generation.Load()
}

// Stamp is the epoch the owner of partition p stamps its next write with,
// having raised store x's epoch to it (x: the partition's opened store).
// The zero epoch (no stamp) when there is none: no store, or a partition
// with neither a recovered end nor a generation (goka's tester).
func (f *Fence) Stamp(p int32, x Epochs) (fence.Epoch, error) {
	if x == nil {
		return fence.Epoch{}, nil
	}
	f.mu.Lock()
	gen := f.gen[p]
	f.mu.Unlock()
	e := fence.Epoch{End: x.RecoveredEnd(), Generation: gen}
	if e.IsZero() {
		return e, nil
	}
	return e, x.RaiseEpoch(e)
}

func (f *Fence) setStore(p int32, x Epochs) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stores == nil {
		f.stores = map[int32]Epochs{}
	}
	f.stores[p] = x
}

func (f *Fence) store(p int32) Epochs {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stores[p]
}

// Registry wraps a match table's storage builder so that the update
// callback reaches each partition's store as b builds it: goka hands the
// callback its own proxy of the storage, through which the store cannot be
// reached. goka builds a partition's table, owned or standby, once per
// generation, after closing the previous one.
func (f *Fence) Registry(b storage.Builder) storage.Builder {
	return func(topic string, p int32) (storage.Storage, error) {
		st, err := b(topic, p)
		if err != nil {
			return nil, err
		}
		x, _ := unwrap(st).(Epochs)
		f.setStore(p, x)
		return st, nil
	}
}

// Update is the match table's update callback (goka.WithUpdateCallback),
// wherever goka reads its changelog (a restore, a standby): a write stamped
// before the latest epoch the partition's store holds is a former owner's
// late write and is skipped (told to Skipped); any other is applied as goka
// would, its epoch raising the store's.
func (f *Fence) Update(ctx goka.UpdateContext, st storage.Storage, key string, value []byte) error {
	if e, ok := fence.Decode(ctx.Headers()[fence.Header]); ok {
		if x := f.store(ctx.Partition()); x != nil {
			if held := x.Epoch(); e.Before(held) {
				if f.Skipped != nil {
					f.Skipped(ctx, key, e, held)
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

// wrapper is a decorator of the storage chain (pipeline/chain.go): the
// read side (indexed), the timers (timed). Every decorator that embeds a
// store implements it, so the fence reaches the store under any chain.
type wrapper interface{ Unwrap() storage.Storage }

// unwrap is the table store under the match table's decorators.
func unwrap(st storage.Storage) storage.Storage {
	for {
		w, ok := st.(wrapper)
		if !ok {
			return st
		}
		st = w.Unwrap()
	}
}
