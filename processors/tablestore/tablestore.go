// Package tablestore is how the stages' tables are kept: the disk tables
// opened (processors/diskstore: Pebble, resumed from their local offsets),
// the partitions a group owns told from the standbys it keeps, the match
// table's storage feeding its read side (processors/query), and the
// identity changelog's batch records applied wherever goka reads them. The
// chain of storages a stage's table is built from is declared in
// processors/pipeline (chain.go).
package tablestore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/lovoo/goka"
	"github.com/lovoo/goka/storage"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/processors/changelog"
	"github.com/ste-utility/ste/processors/diskstore"
	"github.com/ste-utility/ste/processors/query"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
)

// Disk says where and how the disk tables are kept.
type Disk struct {
	Dir    string // "": tables in memory
	Kafka  kafkaconn.Config
	Names  topology.Names
	Logger *slog.Logger
	// Rebuilt is told a partition of a stage's table whose local state was
	// wiped (to be rebuilt from the changelog), Restored the records
	// replayed into one on start (either nil: not told).
	Rebuilt  func(stage string)
	Restored func(stage string, records int64)
}

// Open opens the disk table storage under d.Dir (nil when the tables are
// kept in memory) and returns what closes it.
func Open(d Disk) (*diskstore.DB, func(), error) {
	if d.Dir == "" {
		return nil, func() {}, nil
	}
	log := d.Logger
	cl, err := kgo.NewClient(append(d.Kafka.Opts(), kgo.MetadataMinAge(topics.MetadataMinAge), kgo.RetryBackoffFn(topics.RetryBackoff))...)
	if err != nil {
		return nil, nil, err
	}
	adm := kadm.NewClient(cl)
	stage := map[string]string{} // changelog → stage, the metrics' label
	for _, g := range topology.Describe(d.Names.NS).Groups {
		if g.Table != "" {
			stage[g.Table] = g.Stage.String()
		}
	}
	db, err := diskstore.Open(diskstore.Options{Dir: d.Dir, Logger: log,
		Changelog: func(topic string, p int32) (diskstore.Changelog, error) { return changelogOf(adm, topic, p) },
		OnOpen: func(topic string, p int32, _ *diskstore.Store, wiped string) {
			if wiped != "" && d.Rebuilt != nil {
				d.Rebuilt(stage[topic])
			}
		},
		// Only the match table's writes are read back soon (a trade's next
		// message); an identity is read again only for a duplicate.
		HotWrites: func(topic string) bool { return topic == topology.Table(d.Names.MatchGroup()) },
		OnRecovered: func(topic string, p int32, restored int64, took time.Duration) {
			if d.Restored != nil {
				d.Restored(stage[topic], restored)
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
// What a healing cluster answers — the partition's leader moving
// (NOT_LEADER_OR_FOLLOWER) or not answering until it is fenced, another
// partition's leader down — is tried again (kafkaconn.Retry) for up to 30
// s: failing here failed the table's setup, and the supervisor rebuilt the
// whole group after a backoff (docs/benchmarks.md, "Kafka 4: the brokers'
// rolling restart").
func changelogOf(adm *kadm.Client, topic string, p int32) (diskstore.Changelog, error) {
	var cl diskstore.Changelog
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := kafkaconn.Retry(ctx, nil, "", func() error {
		td, err := adm.ListTopics(ctx, topic)
		if err != nil {
			return err
		}
		t, ok := td[topic]
		if !ok || t.Err != nil {
			return fmt.Errorf("%s: no such topic (%v)", topic, t.Err)
		}
		cl.TopicID = t.ID
		return nil
	})
	if err != nil {
		return cl, err
	}
	for _, l := range []struct {
		list func(context.Context, ...string) (kadm.ListedOffsets, error)
		into *int64
	}{{adm.ListStartOffsets, &cl.Start}, {adm.ListEndOffsets, &cl.End}} {
		err := kafkaconn.Retry(ctx, nil, "", func() error {
			// Another partition's leader down fails its shard of the
			// request; this one's answer may be there all the same.
			offs, err := l.list(ctx, topic)
			if o, ok := offs.Lookup(topic, p); ok {
				*l.into = o.Offset
				return o.Err
			}
			if err == nil {
				err = fmt.Errorf("%s/%d: no such partition", topic, p)
			}
			return err
		})
		if err != nil {
			return cl, err
		}
	}
	return cl, nil
}

// Owned is one group's partitions in the current generation. goka's
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
type Owned struct {
	mu    sync.Mutex
	parts []int32
}

// Set makes parts the group's partitions.
func (o *Owned) Set(parts []int32) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.parts = parts
}

// Has says whether the group owns p.
func (o *Owned) Has(p int32) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Contains(o.parts, p)
}

// indexed is a match partition's storage that feeds its read side with
// every value it stores: the stage's writes and the changelog's replay.
type indexed struct {
	storage.Storage
	x *query.Partition
	// also is handed every value Open reads (the timers' reading, timers.go:
	// one pass over the table at open instead of one a reader).
	also func(key string, value []byte)
	// loaded: Open read the table (a store that counts what its recovery
	// replays, diskstore's); MarkRecovered then needs no second pass if the
	// recovery replayed nothing.
	loaded bool
}

// Unwrap is the store under the read side (the fence's registry).
func (s *indexed) Unwrap() storage.Storage { return s.Storage }

// alsoAtOpen makes Open hand f every value it reads.
func (s *indexed) alsoAtOpen(f func(key string, value []byte)) { s.also = f }

// replayCounter is a store that counts the records its recovery replayed
// (diskstore.Store.Restored).
type replayCounter interface{ Restored() int64 }

// Open reads a table resumed from disk into the read side's indexes: its
// values are not replayed. A restart's readiness waits for this pass
// (docs/benchmarks.md, "Ready after kill -9"): it is made once, for the
// read side and the timers together, and, when the recovery replays
// nothing past it, it is the only one.
func (s *indexed) Open() error {
	if err := s.Storage.Open(); err != nil {
		return err
	}
	it, err := s.Storage.Iterator()
	if err != nil {
		return err
	}
	defer it.Release()
	_, s.loaded = s.Storage.(replayCounter)
	if s.also != nil {
		return s.x.Loaded(&teeIterator{Iterator: it, f: s.also})
	}
	return s.x.Loaded(it)
}

// teeIterator hands f each pair it walks.
type teeIterator struct {
	storage.Iterator
	f func(key string, value []byte)
}

func (i *teeIterator) Next() bool {
	if !i.Iterator.Next() {
		return false
	}
	if v, err := i.Iterator.Value(); err == nil && v != nil {
		i.f(string(i.Iterator.Key()), v)
	}
	return true
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

// Close stops the read side's reads of the store (the work-queue index
// summarises off the stage's goroutine) before the store closes.
func (s *indexed) Close() error {
	s.x.Close()
	return s.Storage.Close()
}

// MarkRecovered builds the TradeRef index from the recovered table: from
// what Open read if the recovery replayed nothing since, by reading the
// table again otherwise.
func (s *indexed) MarkRecovered() error {
	if err := s.Storage.MarkRecovered(); err != nil {
		return err
	}
	if rc, ok := s.Storage.(replayCounter); ok && s.loaded && rc.Restored() == 0 {
		s.x.RecoveredAsLoaded()
		return nil
	}
	it, err := s.Storage.Iterator()
	if err != nil {
		return err
	}
	defer it.Release()
	return s.x.Recovered(it)
}

// Indexed wraps a match table's storage builder so that each partition's
// storage feeds a read side of its own, registered with the query side
// (replacing the partition's previous one).
func Indexed(q *query.Tables, b storage.Builder) storage.Builder {
	return func(topic string, p int32) (storage.Storage, error) {
		st, err := b(topic, p)
		if err != nil {
			return nil, err
		}
		return &indexed{Storage: st, x: q.Open(p, st)}, nil
	}
}

// Unpack is the identity table's update callback (goka.WithUpdateCallback):
// a batch record of its changelog (processors/changelog) is applied as the
// writes it holds, wherever goka reads the changelog (a restore, a hot
// standby); any other record as goka would.
func Unpack(log *slog.Logger) goka.UpdateCallback {
	return func(ctx goka.UpdateContext, st storage.Storage, key string, value []byte) error {
		return unpack(log, ctx, st, key, value)
	}
}

func unpack(log *slog.Logger, ctx goka.UpdateContext, st storage.Storage, key string, value []byte) error {
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
		log.Warn("table changelog: batch record unreadable", "topic", ctx.Topic(), "partition", ctx.Partition(),
			"offset", ctx.Offset(), "applied", n)
		return nil
	}
	return err
}
