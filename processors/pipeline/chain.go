package pipeline

import (
	"hash"
	"sync/atomic"

	"github.com/lovoo/goka"
	"github.com/lovoo/goka/storage"

	"github.com/ste-utility/ste/processors/diskstore"
	"github.com/ste-utility/ste/processors/memstore"
	"github.com/ste-utility/ste/processors/produce"
	"github.com/ste-utility/ste/processors/stages"
	"github.com/ste-utility/ste/processors/tablestore"
	"github.com/ste-utility/ste/topology"
)

// The decorators of a stage's goka producer and of its table storage: each
// chain is declared here, once, in order, innermost first (as watermill's
// middleware and publisher decorators), and nothing else wraps either.
//
//	producer  franz-go          the records in emit order, outputs sealed, the identity
//	                            changelog in batches, watched (processors/produce)
//	          changelog acks    the disk tables learn each changelog record's fate
//	                            (diskstore.DB.Producer; stages with a table, on disk)
//	          recorded          the stage's producer of its current run, for the writes
//	                            made outside its callbacks (the verify queue, the audit
//	                            batches)
//
//	storage   store             memstore, or diskstore: an owned partition (opened) or,
//	                            with standbys, a partition the group does not own
//	          read side         the match table's TradeRef, at-risk and status indexes
//	                            (processors/query; owned match partitions)
//	          timers            the match table's wall-clock timers, read from its values
//	                            (tablestore.Timed: the trades' allegement timers; owned
//	                            match partitions)
//	          epochs            the match table's update callback reaches each
//	                            partition's store, owned or standby, for its ownership
//	                            epoch (tablestore.Fence; outermost, around the standbys;
//	                            it unwraps every decorator above)
//	          opened            the decisions' clock and due index, the gauges, an owned
//	                            match partition's generation (the store's own open
//	                            callback, innermost)

// link is one named decorator of a chain.
type link[B any] struct {
	name string
	wrap func(B) B
}

// producerChain is stage st's producer builder.
func (rt *wiring) producerChain(st topology.Stage, o Options) goka.ProducerBuilder {
	po := produce.Options{Watch: o.Produce, Seal: rt.seal, Extra: o.Kafka.Security()}
	if st == topology.StageIdentity && rt.idTableParts != nil {
		po.Table, po.Partitions = topology.Table(rt.cfg.Names.IdentityGroup()), rt.idTableParts
		if m := rt.cfg.Metrics; m != nil {
			po.TableSize = m.TableBatch
		}
	}
	if tb, ok := topology.Describe(rt.cfg.Names.NS).Table(st); ok {
		po.Changelog = tb.Changelog
	} else {
		po.Stateless = true
	}
	b := produce.Builder(po)
	links := []link[goka.ProducerBuilder]{}
	if rt.db != nil && rt.hasTable(st) {
		links = append(links, link[goka.ProducerBuilder]{"changelog acks", rt.db.Producer})
	}
	links = append(links, link[goka.ProducerBuilder]{"recorded", func(b goka.ProducerBuilder) goka.ProducerBuilder {
		return recorded(b, rt.producers[st])
	}})
	for _, l := range links {
		b = l.wrap(b)
	}
	return b
}

// recorded is inner, storing in at every producer it builds: the
// processor's producer of its current run, for writing outside its
// callbacks.
func recorded(inner goka.ProducerBuilder, at *atomic.Pointer[goka.Producer]) goka.ProducerBuilder {
	return func(brokers []string, clientID string, hasher func() hash.Hash32) (goka.Producer, error) {
		p, err := inner(brokers, clientID, hasher)
		if err == nil {
			at.Store(&p)
		}
		return p, err
	}
}

// storageChain is a stateful stage's storage builder (nil for a stage
// without a table): the partitions the group owns open as the stages'
// tables, the others (with own set) as standbys.
func (rt *wiring) storageChain(st topology.Stage, own *tablestore.Owned) storage.Builder {
	if !rt.hasTable(st) {
		return nil
	}
	index := rt.decide.IdentityIndex
	if st == topology.StageMatch {
		index = rt.decide.MatchIndex
	}
	var store, standby storage.Builder
	if rt.db == nil {
		store = memstore.Builder(index, func(_ string, p int32, t *memstore.Store) { rt.opened(st, p, t) })
	} else {
		store = rt.db.Builder(index, func(_ string, p int32, t *diskstore.Store) { rt.opened(st, p, t) })
		standby = rt.db.StandbyBuilder(index)
	}
	links := []link[storage.Builder]{}
	if st == topology.StageMatch {
		links = append(links, link[storage.Builder]{"read side", func(b storage.Builder) storage.Builder {
			return tablestore.Indexed(rt.query, b)
		}}, link[storage.Builder]{"timers", func(b storage.Builder) storage.Builder {
			return tablestore.Timed(&rt.timers, stages.AllegeIndex, b)
		}})
	}
	for _, l := range links {
		store = l.wrap(store)
	}
	b := store
	if own != nil && standby != nil {
		b = func(topic string, p int32) (storage.Storage, error) {
			if own.Has(p) {
				return store(topic, p)
			}
			return standby(topic, p)
		}
	}
	if st == topology.StageMatch {
		b = rt.fence.Registry(b) // epochs
	}
	return b
}

// opened makes partition p's table of stage st, owned and just opened, the
// one its decisions read; a match partition's assignment generation is
// recorded for its epoch (fence.go).
func (rt *wiring) opened(st topology.Stage, p int32, t tablestore.Table) {
	if st == topology.StageMatch {
		rt.fence.Owned(p) // goka told the generation before opening the assignment's tables
	}
	rt.tables.Opened(st, p, t)
}

// hasTable says whether stage st keeps a table, by the declaration.
func (rt *wiring) hasTable(st topology.Stage) bool {
	_, ok := topology.Describe(rt.cfg.Names.NS).Table(st)
	return ok
}

// tableOptions are a stateful stage's goka options for its table (none
// for a stage without one): its storage chain (chain.go), the batch
// records of the identity changelog applied as the writes they hold
// wherever goka reads it (a restore, a standby: tablestore.Unpack), a
// former owner's late match table writes skipped wherever goka reads the
// match changelog and each assignment's generation told (tablestore.Fence:
// fence.go), and with own set (the group's partitions; disk tables only)
// hot standbys: goka opens every partition of the table the group does not
// own in passive mode (WithHotStandby) and replays their changelogs into
// them as they grow, so that a lost instance's partitions are taken over
// from tables already at the end of their changelogs instead of after
// replaying them.
// A standby never serves a write: goka runs no callback on a passive
// partition, and the standby's storage is not the one the stages are given
// (opened): lookups, the due scan and the gauges see only owned
// partitions. Memory tables keep no standbys: processors/memstore starts
// empty at every open, and goka closes and reopens every table at every
// rebalance.
func (rt *wiring) tableOptions(st topology.Stage, own *tablestore.Owned) []goka.ProcessorOption {
	b := rt.storageChain(st, own)
	if b == nil {
		return nil
	}
	opts := []goka.ProcessorOption{goka.WithStorageBuilder(b)}
	if st == topology.StageIdentity {
		opts = append(opts, goka.WithUpdateCallback(tablestore.Unpack(rt.log)))
	}
	if st == topology.StageMatch {
		// Its writes are stamped with their ownership epoch (fence.go): a
		// former owner's late write is skipped wherever goka reads it.
		opts = append(opts, goka.WithUpdateCallback(rt.fence.Update), goka.WithGenerationCallback(rt.fence.Generation))
	}
	if own != nil {
		opts = append(opts, goka.WithHotStandby())
	}
	return opts
}
