package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/lovoo/goka"
	"github.com/lovoo/goka/storage"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/processors/diskstore"
	"github.com/ste-utility/ste/processors/memstore"
	"github.com/ste-utility/ste/topology"
)

// table is what the stages need of a partition's table storage besides
// goka's interface: the event-time clock and the due index. Both storages
// offer it: processors/memstore (in memory, rebuilt from the changelog on
// every start) and processors/diskstore (on disk, resumed from its offset).
type table interface {
	Clock() int64
	Due(now int64) []string
	DropDue(now int64) int
	Len() int
	epochs // the match table's ownership epochs (fence.go)
}

// openTables opens the disk table storage under o.TableDir (nil when the
// tables are kept in memory) and returns what closes it.
func openTables(o Options, m *Metrics, log *slog.Logger) (*diskstore.DB, func(), error) {
	if o.TableDir == "" {
		return nil, func() {}, nil
	}
	cl, err := kgo.NewClient(o.Kafka.Opts()...)
	if err != nil {
		return nil, nil, err
	}
	adm := kadm.NewClient(cl)
	stage := map[string]string{} // changelog → stage, the metrics' label
	for _, g := range topology.Describe(o.Config.Names.NS).Groups {
		if g.Table != "" {
			stage[g.Table] = g.Stage.String()
		}
	}
	db, err := diskstore.Open(diskstore.Options{Dir: o.TableDir, Logger: log,
		Changelog: func(topic string, p int32) (diskstore.Changelog, error) { return changelogOf(adm, topic, p) },
		OnOpen: func(topic string, p int32, _ *diskstore.Store, wiped string) {
			if wiped != "" && m != nil {
				m.TableRebuilds.WithLabelValues(stage[topic]).Inc()
			}
		},
		OnRecovered: func(topic string, p int32, restored int64, took time.Duration) {
			if m != nil {
				m.TableRestored.WithLabelValues(stage[topic]).Add(float64(restored))
			}
			log.Info("table partition recovered", "table", stage[topic], "partition", p,
				"restored", restored, "seconds", took.Seconds())
		}})
	if err != nil {
		cl.Close()
		return nil, nil, err
	}
	return db, func() {
		if err := db.Close(); err != nil {
			log.Error("closing the tables", "err", err)
		}
		cl.Close()
	}, nil
}

// changelogOf is a changelog partition's topic id, first and next offsets.
func changelogOf(adm *kadm.Client, topic string, p int32) (diskstore.Changelog, error) {
	var cl diskstore.Changelog
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	td, err := adm.ListTopics(ctx, topic)
	if err != nil {
		return cl, err
	}
	t, ok := td[topic]
	if !ok || t.Err != nil {
		return cl, fmt.Errorf("%s: no such topic (%v)", topic, t.Err)
	}
	cl.TopicID = t.ID
	for _, l := range []struct {
		list func(context.Context, ...string) (kadm.ListedOffsets, error)
		into *int64
	}{{adm.ListStartOffsets, &cl.Start}, {adm.ListEndOffsets, &cl.End}} {
		offs, err := l.list(ctx, topic)
		if err != nil {
			return cl, err
		}
		o, ok := offs.Lookup(topic, p)
		if !ok {
			return cl, fmt.Errorf("%s/%d: no such partition", topic, p)
		}
		if o.Err != nil {
			return cl, o.Err
		}
		*l.into = o.Offset
	}
	return cl, nil
}

// owned is one group's partitions in the current generation. goka's
// rebalance callback tells them before it opens any table of that
// generation, so the storage builder can tell a partition the group owns
// from one it keeps as a standby. A group built anew owns nothing until its
// first assignment.
//
// goka's WithRecoverAhead (every partition brought to its changelog's end
// before the group joins) is not used: a restarted instance must rejoin
// within the session timeout to get its partitions back without a
// rebalance (static membership), and with it the restart read all of the
// tables before joining — on a loaded machine past the session timeout,
// and a rebalance for everyone. The generation's setup opens the
// standbys anyway.
type owned struct {
	mu    sync.Mutex
	parts []int32
}

func (o *owned) set(parts []int32) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.parts = parts
}

func (o *owned) has(p int32) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Contains(o.parts, p)
}

// tableOptions are a stateful stage's goka options for its table: the
// storage, and with disk tables the producer that tells the store which
// changelog records were acknowledged (wrapping prod, the group's own
// producer builder, so its connection settings are kept).
//
// With own set (the group's partitions; disk tables only), the group also keeps every partition
// of its table it does not own as a hot standby: goka opens them in passive
// mode (WithHotStandby) and replays their changelogs into them as they
// grow. A lost instance's partitions are then
// taken over from tables already at the end of their changelogs instead of
// after replaying them. A standby never serves a write: goka runs no
// callback on a passive partition, and the standby's storage is not the one
// the stages are given (opened): lookups, the due scan and the gauges see
// only owned partitions. Memory tables keep no standbys: processors/memstore
// starts empty at every open, and goka closes and reopens every table at
// every rebalance.
//
// The identity table's changelog may hold batch records (tablebatch.go):
// wherever goka reads it (a restore, a standby) they are applied as the
// writes they hold.
func (s *stages) tableOptions(st topology.Stage, prod goka.ProducerBuilder, own *owned) []goka.ProcessorOption {
	b := s.tableBuilder(st, own)
	if b == nil {
		return nil
	}
	opts := []goka.ProcessorOption{goka.WithStorageBuilder(b)}
	if st == topology.StageIdentity {
		opts = append(opts, goka.WithUpdateCallback(s.unpackTableBatches))
	}
	if st == topology.StageMatch {
		// Its writes are stamped with their ownership epoch (fence.go).
		opts = append(opts, goka.WithUpdateCallback(s.fenceMatchTable),
			goka.WithGenerationCallback(func(gen int32, _ goka.Assignment) { s.owners.generation.Store(gen) }))
	}
	if s.tables == nil {
		return opts
	}
	opts = append(opts, goka.WithProducerBuilder(s.tables.Producer(prod)))
	if own != nil {
		opts = append(opts, goka.WithHotStandby())
	}
	return opts
}

// tableBuilder is a stateful stage's storage builder (nil for a stateless
// stage): the partitions the group owns open as the stages' tables, the
// others (with own set) as standbys.
func (s *stages) tableBuilder(st topology.Stage, own *owned) storage.Builder {
	var index memstore.Index
	var stores map[int32]table
	switch st {
	case topology.StageIdentity:
		index, stores = s.identityIndex, s.idStore
	case topology.StageMatch:
		index, stores = s.matchIndex, s.matchStore
	default:
		return nil
	}
	opened := func(p int32, t table) {
		s.mu.Lock()
		defer s.mu.Unlock()
		stores[p] = t
		if st == topology.StageMatch {
			s.owners.owned(p) // goka told the generation before opening the assignment's tables
		}
		// The gauge exists from the moment the partition is owned, not from
		// the next sample (reportOpenTrades): a scrape right after an
		// assignment finds it.
		if st == topology.StageMatch {
			s.sampleOpenTradesLocked(p, t)
		}
	}
	// The match table's partitions keep a TradeRef index (refindex.go)
	// and an at-risk index (atrisk.go).
	wrap := func(b storage.Builder) storage.Builder { return b }
	if st == topology.StageMatch {
		// Its update callback reaches each partition's store (fence.go).
		wrap = func(b storage.Builder) storage.Builder { return s.fenceRegistry(s.indexedBuilder(s.riskBuilder(b))) }
	}
	if s.tables == nil {
		return wrap(memstore.Builder(index, func(_ string, p int32, t *memstore.Store) { opened(p, t) }))
	}
	active := wrap(s.tables.Builder(index, func(_ string, p int32, t *diskstore.Store) { opened(p, t) }))
	if own == nil {
		return active
	}
	passive := s.tables.StandbyBuilder(index)
	if st == topology.StageMatch {
		passive = s.fenceRegistry(passive)
	}
	return func(topic string, p int32) (storage.Storage, error) {
		if own.has(p) {
			return active(topic, p)
		}
		return passive(topic, p)
	}
}
