package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lovoo/goka"
	"github.com/lovoo/goka/storage"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/processors/changelog"
	"github.com/ste-utility/ste/processors/diskstore"
	"github.com/ste-utility/ste/processors/query"
	"github.com/ste-utility/ste/topology"
)

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

// tableOptions are a stateful stage's goka options for its table (none
// for a stage without one): its storage chain (chain.go), the batch
// records of the identity changelog applied as the writes they hold
// wherever goka reads it (a restore, a standby: tablebatch.go), and with
// own set (the group's partitions; disk tables only) hot standbys: goka
// opens every partition of the table the group does not own in passive
// mode (WithHotStandby) and replays their changelogs into them as they
// grow, so that a lost instance's partitions are taken over from tables
// already at the end of their changelogs instead of after replaying them.
// A standby never serves a write: goka runs no callback on a passive
// partition, and the standby's storage is not the one the stages are given
// (opened): lookups, the due scan and the gauges see only owned
// partitions. Memory tables keep no standbys: processors/memstore starts
// empty at every open, and goka closes and reopens every table at every
// rebalance.
func (rt *wiring) tableOptions(st topology.Stage, own *owned) []goka.ProcessorOption {
	b := rt.storageChain(st, own)
	if b == nil {
		return nil
	}
	opts := []goka.ProcessorOption{goka.WithStorageBuilder(b)}
	if st == topology.StageIdentity {
		opts = append(opts, goka.WithUpdateCallback(rt.unpackTableBatches))
	}
	if own != nil {
		opts = append(opts, goka.WithHotStandby())
	}
	return opts
}

// Tables is a running pipeline's tables as the runtime reads them: the
// match table's read side (lookups by trade key and TradeRef, the trades
// at risk: processors/query), filled in by Run, and the disk tables'
// health.
type Tables struct {
	query.Tables
	disk atomic.Pointer[diskstore.DB]
}

// Health is nil, or why the table storage cannot write now (a full disk:
// diskstore.DB.Health). Tables in memory have none.
func (t *Tables) Health() error {
	if db := t.disk.Load(); db != nil {
		return db.Health()
	}
	return nil
}

// indexed is a match partition's storage that feeds its read side with
// every value it stores: the stage's writes and the changelog's replay.
type indexed struct {
	storage.Storage
	x *query.Partition
}

// Open reads a table resumed from disk into the at-risk and status
// indexes: its values are not replayed.
func (s *indexed) Open() error {
	if err := s.Storage.Open(); err != nil {
		return err
	}
	it, err := s.Storage.Iterator()
	if err != nil {
		return err
	}
	defer it.Release()
	return s.x.Loaded(it)
}

func (s *indexed) Set(key string, value []byte) error {
	if err := s.Storage.Set(key, value); err != nil {
		return err
	}
	s.x.Put(key, value)
	return nil
}

func (s *indexed) Delete(key string) error {
	if err := s.Storage.Delete(key); err != nil {
		return err
	}
	s.x.Delete(key)
	return nil
}

// MarkRecovered builds the TradeRef index from the recovered table.
func (s *indexed) MarkRecovered() error {
	if err := s.Storage.MarkRecovered(); err != nil {
		return err
	}
	it, err := s.Storage.Iterator()
	if err != nil {
		return err
	}
	defer it.Release()
	return s.x.Recovered(it)
}

// indexedBuilder wraps a match table's storage builder so that each
// partition's storage feeds a read side of its own, registered with the
// query side (replacing the partition's previous one).
func indexedBuilder(q *query.Tables, b storage.Builder) storage.Builder {
	return func(topic string, p int32) (storage.Storage, error) {
		st, err := b(topic, p)
		if err != nil {
			return nil, err
		}
		return &indexed{Storage: st, x: q.Open(p, st)}, nil
	}
}

// unpackTableBatches is the identity table's update callback: a batch
// record is applied as its writes; any other record as goka would.
func (rt *wiring) unpackTableBatches(ctx goka.UpdateContext, st storage.Storage, key string, value []byte) error {
	if !changelog.IsBatch(key) {
		return goka.DefaultUpdate(ctx, st, key, value)
	}
	n := 0
	err := changelog.EachEntry(value, func(k string, v []byte) error {
		n++
		return goka.DefaultUpdate(ctx, st, k, v)
	})
	if errors.Is(err, changelog.ErrBatch) {
		// Not ours (nothing else writes the changelog): what could be read
		// is applied, the rest is reported, and the restore goes on rather
		// than stopping the stage for good.
		rt.log.Warn("table changelog: batch record unreadable", "topic", ctx.Topic(), "partition", ctx.Partition(),
			"offset", ctx.Offset(), "applied", n)
		return nil
	}
	return err
}
