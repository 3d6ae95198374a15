// Package diskstore is a goka table storage on disk (Pebble), for state that
// does not fit in RAM: one instance holding a million trades and seven
// million identities keeps them in its directory and in a bounded cache, and
// after a restart it resumes from the offset stored with them instead of
// re-reading the changelog.
//
// Two dangers come with keeping state across restarts, and both are designed
// out here rather than left to the stages:
//
//   - Local state ahead of the changelog. goka writes a table value to the
//     storage before its changelog record is acknowledged; a crash in between
//     leaves a value no changelog has, and the re-delivered input message then
//     finds its effect already there (a duplicate), so nothing ever writes it
//     to the changelog: an instance rebuilding from the changelog would hold
//     other state. This store therefore never makes durable a write whose
//     changelog record is not acknowledged. Writes are served at once from
//     memory (the callback reads its own writes) and committed to Pebble in
//     order, only up to the first write not yet acknowledged, together with
//     the changelog offset they reach. The acknowledgements are seen by
//     wrapping the processor's producer (DB.Producer): each changelog record
//     is matched to its write by partition, order and key. After a crash the
//     store is exactly the changelog's state at its stored offset, and goka's
//     recovery replays the rest.
//   - Local state older than the changelog's tombstone retention. A key
//     deleted after the stored offset is a tombstone in the changelog, and
//     compaction removes tombstones after delete.retention.ms: replaying from
//     an old offset would miss the deletion and keep a key nobody else has.
//     The store records the time after which every record past its offset was
//     written; if that is older than the retention (less a margin), the
//     partition is wiped and rebuilt from the changelog.
//
// Any inconsistency the store notices (a changelog write that failed, an
// acknowledgement it cannot match, an offset going backwards) marks the
// partition for a rebuild at its next start: slow, never wrong.
//
// A full disk is kept away from Pebble, which treats a failed write to its
// log as fatal (it cannot tell what reached the disk): before every write the
// store checks the free space under its directory, and below Options.Reserve
// it writes nothing. The writes wait in memory (served from there, as between
// commits), DB.Health reports the disk full, and the next commit after space
// returns writes them. A store closed meanwhile forgets them: its stored
// offset is before them, so goka replays them from the changelog at the next
// start. Nothing is half-written, and nothing acknowledged is lost.
//
// Like processors/memstore, the store keeps for each value the event time it
// falls due at (an index on disk, exact: one entry per key) and the
// partition's event-time clock (the largest watermark written), both
// committed atomically with the values.
//
// Most reads are of keys that are not there (a new identity, a trade's first
// message): an in-memory filter of each partition's keys answers those
// without Pebble (filter.go).
package diskstore

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/lovoo/goka/storage"

	"github.com/ste-utility/ste/processors/memstore"
)

// Options configure Open.
type Options struct {
	// Dir is the instance's table directory (one Pebble database for all of
	// its tables and partitions). Required.
	Dir string
	// CacheBytes is Pebble's block cache, shared by every table. Default a
	// sixteenth of the process's soft memory limit, 16–64 MiB (pebbleBytes).
	CacheBytes int64
	// MemTableBytes is the size of one memtable (Pebble keeps up to two).
	// Default a sixteenth of the soft memory limit, 16–64 MiB: 64 MiB under
	// a limit of 1 GiB or more. A trade's state is written once per
	// message, and the versions one memtable holds are not flushed; with
	// 16 MiB memtables and commits every 50 ms L0 grew faster than a
	// saturated instance compacted it (docs/benchmarks.md).
	MemTableBytes uint64
	// TombstoneRetention is the changelogs' delete.retention.ms (how long a
	// compacted changelog keeps tombstones). Default 24 h, Kafka's default.
	TombstoneRetention time.Duration
	// Changelog, if set, is asked at a partition's open about its
	// changelog: local state of another topic id (the topic was deleted and
	// created again), at or past the end (recreated, or the broker's data
	// lost) or before the start (records deleted) is rebuilt.
	Changelog func(topic string, partition int32) (Changelog, error)
	// OnOpen is told each partition opened, and why it was wiped if it was
	// (an empty reason: it was kept). OnRecovered is told, once goka has
	// replayed the changelog past the local offset, how many records that was.
	OnOpen      func(topic string, partition int32, s *Store, wiped string)
	OnRecovered func(topic string, partition int32, restored int64, took time.Duration)
	// HotWrites says whether the values a table's processor writes are kept
	// hot (store.go, "A generation of hot values"): those of a table read
	// back soon after a write (the match table: a trade's next message).
	// The others keep hot only the values read back from Pebble, and take
	// no part of the hot values' budget. Nil: every table.
	HotWrites func(topic string) bool
	Logger    *slog.Logger
	// Now is the wall clock (tests move it).
	Now func() time.Time
	// FS is the file system under Dir; default the operating system's
	// (tests put a full disk here).
	FS vfs.FS
	// Reserve is the free space under Dir below which the store writes
	// nothing (see "A full disk" above): room for a flush of both memtables
	// and a commit. Default 2 × MemTableBytes + 64 MiB.
	Reserve uint64
}

// Changelog is what Options.Changelog reports of a changelog partition.
type Changelog struct {
	// TopicID is the topic's id (zero if the broker has none).
	TopicID [16]byte
	// Start and End are its first and next offsets.
	Start, End int64
}

func (o *Options) defaults() {
	if o.CacheBytes <= 0 {
		o.CacheBytes = pebbleBytes(memLimit())
	}
	if o.MemTableBytes == 0 {
		o.MemTableBytes = uint64(pebbleBytes(memLimit()))
	}
	if o.TombstoneRetention <= 0 {
		o.TombstoneRetention = 24 * time.Hour
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.FS == nil {
		o.FS = vfs.Default
	}
	if o.Reserve == 0 {
		o.Reserve = 2*o.MemTableBytes + 64<<20
	}
}

// pebbleBytes is the default block cache and memtable size under the soft
// memory limit limit: a sixteenth of it, at least 16 MiB and at most 64
// MiB. In the static build (no cgo) both are Go memory: with two memtables
// and the cache, Pebble takes at most three sixteenths of the limit.
func pebbleBytes(limit int64) int64 {
	if limit <= 0 {
		return 64 << 20
	}
	return min(max(limit/16, 16<<20), 64<<20)
}

// DiskFullError is a write the store did not make: the disk under its
// directory has less free space than the store keeps in reserve. It unwraps
// to syscall.ENOSPC.
type DiskFullError struct {
	Dir            string
	Free, Reserved uint64
}

func (e *DiskFullError) Error() string {
	return fmt.Sprintf("disk full: %s has %d MiB free, below the %d MiB the table store keeps in reserve (writes held in memory until space returns)",
		e.Dir, e.Free>>20, e.Reserved>>20)
}

func (e *DiskFullError) Unwrap() error { return syscall.ENOSPC }

// room says whether the disk under o.Dir has the reserve free. A disk that
// cannot say counts as having room: Pebble then finds out by writing.
func (o *Options) room() error {
	du, err := o.FS.GetDiskUsage(o.Dir)
	if err != nil || du.AvailBytes >= o.Reserve {
		return nil
	}
	return &DiskFullError{Dir: o.Dir, Free: du.AvailBytes, Reserved: o.Reserve}
}

// How much sooner than the tombstone retention local state counts as stale:
// covers the broker's clock running ahead of ours and the time between a
// record's append and its acknowledgement.
func (o *Options) staleAfter() time.Duration {
	return o.TombstoneRetention - min(time.Hour, o.TombstoneRetention/4)
}

// DB is one instance's table storage: a Pebble database holding every table
// partition the instance has owned, each under its own key prefix.
type DB struct {
	o     Options
	pdb   *pebble.DB
	cache interface{ Unref() }

	mu     sync.Mutex
	open   map[tp]*Store
	nOpen  atomic.Int32    // len(open), read without mu
	nHot   atomic.Int32    // the open stores keeping written values hot (their budget)
	catMu  sync.Mutex      // partitions of different tables open concurrently
	topics map[string]bool // changelogs whose writes the producer reports

	kick chan *Store
	stop chan struct{}
	done chan struct{}

	// full is the last room check's DiskFullError (nil: room); bgErr is a
	// background write (flush, compaction) that failed for want of space
	// and has not been followed by one that succeeded.
	full  atomic.Pointer[DiskFullError]
	bgErr atomic.Pointer[error]
	// stall is Pebble's write stall under way (nil: none).
	stall atomic.Pointer[stallInfo]
}

type stallInfo struct {
	at     time.Time
	reason string
}

type tp struct {
	topic     string
	partition int32
}

// How often acknowledged writes are committed, and how many make a commit
// happen sooner.
const (
	commitEvery   = 3 * time.Second
	commitOps     = 8192
	recoveryBatch = 8192
)

// Open opens (or creates) the table storage in o.Dir.
func Open(o Options) (*DB, error) {
	o.defaults()
	if o.Dir == "" {
		return nil, errors.New("diskstore: no directory")
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("diskstore: %w", err)
	}
	// Opening writes (a new log, a manifest): not on a full disk.
	if err := o.room(); err != nil {
		return nil, fmt.Errorf("diskstore: open %s: %w", o.Dir, err)
	}
	db := &DB{o: o, open: map[tp]*Store{}, topics: map[string]bool{},
		kick: make(chan *Store, 64), stop: make(chan struct{}), done: make(chan struct{})}
	po := pebbleOptions(o)
	po.EventListener = db.events()
	db.cache = po.Cache
	began := time.Now()
	pdb, err := pebble.Open(o.Dir, po)
	if err != nil {
		db.cache.Unref()
		return nil, fmt.Errorf("diskstore: open %s: %w", o.Dir, err)
	}
	db.pdb = pdb
	// What a restart starts from: the log replayed into memtables (after a
	// crash) and the LSM's shape, which the partitions' first reads pay for.
	o.Logger.Info("table storage opened", append([]any{"dir", o.Dir, "seconds", time.Since(began).Seconds()},
		lsmAttrs(pdb.Metrics())...)...)
	go db.committer()
	return db, nil
}

// room checks the free space before a write, and logs the disk filling up
// and space returning.
func (db *DB) room() error {
	err := db.o.room()
	var full *DiskFullError
	if err != nil {
		full = err.(*DiskFullError)
	}
	switch was := db.full.Swap(full); {
	case was == nil && full != nil:
		db.o.Logger.Error("table storage: disk full, writes held in memory until space returns", "err", full)
	case was != nil && full == nil:
		db.o.Logger.Info("table storage: space returned, held writes are being committed", "dir", db.o.Dir)
	}
	if full == nil {
		return nil
	}
	return full
}

// events follows Pebble's background writes: one that failed for want of
// space makes the storage unhealthy until one succeeds.
func (db *DB) events() *pebble.EventListener {
	l := &pebble.EventListener{
		BackgroundError: func(err error) {
			db.o.Logger.Error("table storage: background write failed", "component", "pebble", "err", err)
			if errors.Is(err, syscall.ENOSPC) {
				db.bgErr.Store(&err)
			}
		},
		FlushEnd: func(fi pebble.FlushInfo) {
			if fi.Err == nil {
				db.bgErr.Store(nil)
			}
			db.o.Logger.Debug(fi.String(), "component", "pebble")
		},
		CompactionEnd: func(ci pebble.CompactionInfo) {
			if ci.Err == nil {
				db.bgErr.Store(nil)
			}
			db.o.Logger.Debug(ci.String(), "component", "pebble")
		},
		// A stall holds every commit of every partition (and a commit holds
		// the partition's acknowledged writes in memory): one line when it
		// ends, with why and how long.
		WriteStallBegin: func(wi pebble.WriteStallBeginInfo) {
			db.stall.Store(&stallInfo{time.Now(), wi.Reason})
		},
		WriteStallEnd: func() {
			if st := db.stall.Swap(nil); st != nil {
				db.o.Logger.Info("table storage: writes were stalled", "component", "pebble",
					"reason", st.reason, "seconds", time.Since(st.at).Seconds())
			}
		},
	}
	return l
}

// Health is nil, or why the storage cannot write now: the disk is full
// (*DiskFullError), or a background write failed for want of space.
func (db *DB) Health() error {
	if full := db.full.Load(); full != nil {
		return full
	}
	if err := db.bgErr.Load(); err != nil {
		return fmt.Errorf("table storage: a background write failed: %w", *err)
	}
	return nil
}

// L0's shape (docs/ARCHITECTURE.md, "L0's shape"): flushes are
// compacted into Lbase once L0 is half l0Compaction sublevels deep (Pebble's
// fill factor is 2 × sublevels ÷ the threshold), 8 instead of Pebble's
// default 2, and writes stop at three times the threshold, as by default.
// Every trade key is a hash, so each flushed table spans the whole key space
// of its partitions and every L0 → Lbase compaction rewrites Lbase: with
// four times as many sublevels to a compaction, Lbase is rewritten a quarter
// as often. The reads L0 adds are few: a trade is read back from the hot
// values while its messages arrive, and a missing key stops at the
// partition's key filter and each table's bloom filter. The price is the
// read pass of a restart (ready after kill -9 ~1 s later at 250,000 trades)
// and a larger directory (L0 uncompressed).
const (
	l0Compaction = 16
	l0StopWrites = 3 * l0Compaction
)

// pebbleOptions are Pebble's settings for o (with a new block cache).
func pebbleOptions(o Options) *pebble.Options {
	po := &pebble.Options{
		Cache:                 pebble.NewCache(o.CacheBytes),
		MemTableSize:          o.MemTableBytes,
		FormatMajorVersion:    pebble.FormatNewest,
		Logger:                pebbleLogger{o.Logger},
		FS:                    o.FS,
		L0CompactionThreshold: l0Compaction,
		L0StopWritesThreshold: l0StopWrites,
	}
	// Point reads of keys that are not there (a new trade, a new identity)
	// stop at the filters instead of reading a block of every level.
	for i := range po.Levels {
		po.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
		// L0's tables live until the next compaction reads them back: they
		// are written uncompressed (compressing them and decompressing
		// them again cost more CPU than their bytes), the levels below,
		// which keep the tables, with snappy, Pebble's default. Each
		// level is set: a level left unset takes the one above it.
		po.Levels[i].Compression = compressedLevel
		if i == 0 {
			po.Levels[i].Compression = uncompressedLevel
		}
	}
	return po
}

func compressedLevel() *sstable.CompressionProfile   { return sstable.SnappyCompression }
func uncompressedLevel() *sstable.CompressionProfile { return sstable.NoCompression }

// Close commits what may be committed in every open partition and closes the
// database.
func (db *DB) Close() error {
	close(db.stop)
	<-db.done
	db.mu.Lock()
	var open []*Store
	for _, s := range db.open {
		open = append(open, s)
	}
	db.mu.Unlock()
	var errs []error
	for _, s := range open {
		errs = append(errs, s.Close())
	}
	errs = append(errs, db.pdb.Close())
	db.cache.Unref()
	return errors.Join(errs...)
}

// Builder returns a goka storage builder for one table: each partition is a
// Store under its own prefix, reported to onOpen (so the processor can reach
// its partition's clock and due index). The processor must produce through
// DB.Producer, or the store refuses to run.
func (db *DB) Builder(index memstore.Index, onOpen func(topic string, partition int32, s *Store)) storage.Builder {
	return func(topic string, partition int32) (storage.Storage, error) {
		s, err := db.openStore(topic, partition, index)
		if err != nil {
			return nil, err
		}
		if onOpen != nil {
			onOpen(topic, partition, s)
		}
		return s, nil
	}
}

// StandbyBuilder returns a goka storage builder for the partitions of one
// table that this instance does not own but may take over: goka's hot
// standby (WithHotStandby) opens them in passive mode and replays their
// changelogs into them for as long as the group's generation lasts. Such a
// store takes only replayed records — goka runs no callback on a passive
// partition, and STE's stages are never given one — and commits them with
// their offset as it goes, so that when the partition is assigned to this
// instance its store opens (through Builder) at the changelog's end, less
// what came in since, instead of replaying the whole changelog: the takeover
// of a lost instance's partitions waits for no recovery.
func (db *DB) StandbyBuilder(index memstore.Index) storage.Builder {
	return func(topic string, partition int32) (storage.Storage, error) {
		return db.openAs(topic, partition, index, true)
	}
}

// Store returns the open store of a table partition, or nil.
func (db *DB) Store(topic string, partition int32) *Store {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.open[tp{topic, partition}]
}

func (db *DB) openStore(topic string, partition int32, index memstore.Index) (*Store, error) {
	return db.openAs(topic, partition, index, false)
}

func (db *DB) openAs(topic string, partition int32, index memstore.Index, standby bool) (*Store, error) {
	k := tp{topic, partition}
	db.mu.Lock()
	if db.open[k] != nil {
		db.mu.Unlock()
		return nil, fmt.Errorf("diskstore: %s/%d is already open", topic, partition)
	}
	db.topics[topic] = true
	db.mu.Unlock()
	s, wiped, err := newStore(db, topic, partition, index)
	if err != nil {
		return nil, err
	}
	s.standby = standby
	s.hotWrites = !standby && (db.o.HotWrites == nil || db.o.HotWrites(topic))
	db.mu.Lock()
	db.open[k] = s
	db.nOpen.Store(int32(len(db.open)))
	if s.hotWrites {
		db.nHot.Add(1)
	}
	db.mu.Unlock()
	if wiped != "" {
		db.o.Logger.Info("table partition rebuilt from its changelog", "topic", topic, "partition", partition, "reason", wiped)
	}
	if db.o.OnOpen != nil {
		db.o.OnOpen(topic, partition, s, wiped)
	}
	return s, nil
}

func (db *DB) closed(s *Store) {
	db.mu.Lock()
	if db.open[tp{s.topic, s.partition}] == s {
		delete(db.open, tp{s.topic, s.partition})
		db.nOpen.Store(int32(len(db.open)))
		if s.hotWrites {
			db.nHot.Add(-1)
		}
	}
	db.mu.Unlock()
}

// committer commits acknowledged writes in the background: every
// commitEvery, or sooner for a store with commitOps waiting.
func (db *DB) committer() {
	defer close(db.done)
	t := time.NewTicker(commitEvery)
	defer t.Stop()
	for {
		select {
		case <-db.stop:
			return
		case s := <-db.kick:
			db.commitOrFail(s)
		case <-t.C:
			db.mu.Lock()
			open := make([]*Store, 0, len(db.open))
			for _, s := range db.open {
				open = append(open, s)
			}
			db.mu.Unlock()
			for _, s := range open {
				db.commitOrFail(s)
			}
		}
	}
}

func (db *DB) commitOrFail(s *Store) {
	var full *DiskFullError
	if err := s.commit(); err != nil && !errors.As(err, &full) { // a full disk is logged by room
		// The writes stay in memory and are served from there; the next
		// commit (or Close) tries again.
		db.o.Logger.Error("table commit failed", "topic", s.topic, "partition", s.partition, "err", err)
	}
}

// catalogue: each (topic, partition) gets a 4-byte id, the prefix of all its
// keys. Ids are never reused.
func (db *DB) prefixOf(topic string, partition int32) ([]byte, error) {
	db.catMu.Lock()
	defer db.catMu.Unlock()
	ck := catalogueKey(topic, partition)
	v, closer, err := db.pdb.Get(ck)
	if err == nil {
		defer closer.Close()
		if len(v) != 4 {
			return nil, fmt.Errorf("diskstore: bad catalogue entry for %s/%d", topic, partition)
		}
		return tablePrefix(v), nil
	}
	if !errors.Is(err, pebble.ErrNotFound) {
		return nil, err
	}
	next := uint32(1)
	if v, closer, err := db.pdb.Get([]byte(nextIDKey)); err == nil {
		if len(v) == 4 {
			next = be32(v)
		}
		closer.Close()
	} else if !errors.Is(err, pebble.ErrNotFound) {
		return nil, err
	}
	if err := db.room(); err != nil {
		return nil, err
	}
	id := put32(nil, next)
	b := db.pdb.NewBatch()
	defer b.Close()
	b.Set(ck, id, nil)
	b.Set([]byte(nextIDKey), put32(nil, next+1), nil)
	if err := b.Commit(pebble.Sync); err != nil {
		return nil, err
	}
	return tablePrefix(id), nil
}

// lsmAttrs are the log attributes of the LSM's shape: the memtables (those
// replayed from the log at an open included), level 0's files and
// sublevels (each a file every read of its range consults), the tables,
// and the compactions owed.
func lsmAttrs(m *pebble.Metrics) []any {
	var files, bytes int64
	for _, l := range m.Levels {
		files += l.TablesCount
		bytes += l.TablesSize
	}
	return []any{"memtables", m.MemTable.Count, "memtable_mib", m.MemTable.Size >> 20,
		"l0_files", m.Levels[0].TablesCount, "l0_sublevels", m.Levels[0].Sublevels,
		"tables", files, "tables_mib", bytes >> 20,
		"compaction_debt_mib", m.Compact.EstimatedDebt >> 20, "compactions_running", m.Compact.NumInProgress}
}

// pebbleLogger sends Pebble's chatter to slog at debug level; its errors and
// fatal errors at error level.
type pebbleLogger struct{ l *slog.Logger }

func (p pebbleLogger) Infof(f string, v ...any) {
	p.l.Debug(fmt.Sprintf(f, v...), "component", "pebble")
}
func (p pebbleLogger) Errorf(f string, v ...any) {
	p.l.Error(fmt.Sprintf(f, v...), "component", "pebble")
}
func (p pebbleLogger) Fatalf(f string, v ...any) {
	p.l.Error(fmt.Sprintf(f, v...), "component", "pebble")
	os.Exit(1)
}

// Dump hands every key and value of a table's partitions 0..partitions-1
// kept in dir to fn, in key order per partition, as committed (what a
// restart would start from): for comparing local state with a changelog.
// It opens the database read-only and changes nothing, stale or not; no
// process may have it open.
func Dump(dir, topic string, partitions int32, fn func(partition int32, key, value []byte) error) error {
	o := Options{Dir: dir, Logger: slog.New(slog.DiscardHandler)}
	o.defaults()
	po := pebbleOptions(o)
	defer po.Cache.Unref()
	po.ReadOnly = true
	pdb, err := pebble.Open(dir, po)
	if err != nil {
		return fmt.Errorf("diskstore: open %s: %w", dir, err)
	}
	defer pdb.Close()
	for p := range partitions {
		id, closer, err := pdb.Get(catalogueKey(topic, p))
		if errors.Is(err, pebble.ErrNotFound) {
			continue // never opened here
		}
		if err != nil {
			return err
		}
		vp := append(tablePrefix(id), 'v')
		closer.Close()
		it, err := pdb.NewIter(&pebble.IterOptions{LowerBound: vp, UpperBound: prefixEnd(vp)})
		if err != nil {
			return err
		}
		for ok := it.First(); ok; ok = it.Next() {
			if err := fn(p, it.Key()[len(vp):], it.Value()); err != nil {
				it.Close()
				return err
			}
		}
		if err := it.Close(); err != nil {
			return err
		}
	}
	return nil
}
