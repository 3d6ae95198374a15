package diskstore

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	gokastorage "github.com/lovoo/goka/storage"
	"github.com/syndtr/goleveldb/leveldb"

	"github.com/ste-utility/ste/processors/memstore"
)

// The benchmarks compare the three storages a goka table can have here:
// memstore (a map), this store (Pebble, commits acknowledged writes in
// batches) and goka's own LevelDB storage (writes through: the value and the
// offset, two writes per message). Values are 160 bytes, about a trade's
// state; the first 8 bytes are the due time.

const benchKeys = 200_000

func benchVal(rnd *rand.Rand, due int64) []byte {
	v := make([]byte, 160)
	binary.BigEndian.PutUint64(v, uint64(due))
	for i := 8; i < len(v); i += 8 {
		binary.BigEndian.PutUint64(v[i:], rnd.Uint64())
	}
	return v
}

func benchIndex(v []byte) (int64, int64, bool) {
	if len(v) < 8 {
		return 0, 0, false
	}
	d := int64(binary.BigEndian.Uint64(v))
	return d + 1_000_000, d, true
}

// table is what a stage does to its storage per message.
type table interface {
	Get(string) ([]byte, error)
	Set(string, []byte) error
	SetOffset(int64) error
}

type benchStore struct {
	table
	ack  func(key string, off int64) // the producer's report (disk)
	due  func(now int64) []string
	drop func(now int64) int
	done func()
}

func openBench(b *testing.B, kind string) benchStore {
	dir := b.TempDir()
	switch kind {
	case "mem":
		s := memstore.New(benchIndex)
		return benchStore{table: s, ack: func(string, int64) {}, due: s.Due, drop: s.DropDue, done: func() {}}
	case "disk":
		db, err := Open(Options{Dir: dir, Logger: quiet})
		if err != nil {
			b.Fatal(err)
		}
		s, err := db.openStore("bench", 0, benchIndex)
		if err != nil {
			b.Fatal(err)
		}
		s.MarkRecovered()
		// Commits every 30 writes: the committer's batches when it
		// committed every 50 ms (~600 messages a second per partition, a
		// saturated instance with 8). It now commits every 3 s, which only
		// coalesces more; the figures in docs/benchmarks.md are of 30.
		return benchStore{table: s, ack: func(k string, off int64) {
			s.acked(k, off, nil)
			if off%30 == 0 {
				s.commit()
			}
		}, due: s.Due, drop: s.DropDue, done: func() { db.Close() }}
	case "leveldb":
		ldb, err := leveldb.OpenFile(filepath.Join(dir, "ldb"), nil)
		if err != nil {
			b.Fatal(err)
		}
		s, _ := gokastorage.New(ldb)
		s.Open()
		s.MarkRecovered()
		return benchStore{table: s, ack: func(string, int64) {}, due: func(int64) []string { return nil },
			done: func() { s.Close() }}
	}
	panic(kind)
}

// BenchmarkMessage is one stage callback's storage work on a table already
// holding benchKeys keys, in the access patterns of STE's two tables:
//
//   - match: a trade's seven messages arrive shuffled with those of 63 other
//     trades (workload's window): read the trade (absent for its first
//     message), write it back later due, acknowledge the changelog record,
//     ask what is due (the sweep);
//   - identity: every message a new key: read (absent), write, acknowledge,
//     drop what fell due.
//
// goka's LevelDB storage has no due index (it could not run STE's stages);
// it is here for what its reads and writes cost.
func BenchmarkMessage(b *testing.B) {
	for _, pattern := range []string{"match", "identity"} {
		for _, kind := range []string{"mem", "disk", "leveldb"} {
			b.Run(pattern+"/"+kind, func(b *testing.B) {
				s := openBench(b, kind)
				defer s.done()
				rnd := rand.New(rand.NewPCG(1, 2))
				off := int64(0)
				for i := range benchKeys {
					k := fmt.Sprintf("%016x", i)
					s.Set(k, benchVal(rnd, int64(i)))
					s.ack(k, off)
					s.SetOffset(off)
					off++
				}
				keys := messageKeys(pattern, b.N, rnd)
				b.ResetTimer()
				cpu := cpuTime()
				for i, k := range keys {
					if _, err := s.Get(k); err != nil {
						b.Fatal(err)
					}
					if err := s.Set(k, benchVal(rnd, int64(benchKeys+i))); err != nil {
						b.Fatal(err)
					}
					s.ack(k, off)
					s.SetOffset(off)
					off++
					if pattern == "identity" && s.drop != nil {
						s.drop(int64(benchKeys + i - 1_000_000))
					} else {
						s.due(int64(benchKeys + i - 1_000_000))
					}
				}
				reportCPU(b, cpu)
			})
		}
	}
}

// messageKeys are the keys of n messages in a pattern, after the
// benchKeys preloaded ones.
func messageKeys(pattern string, n int, rnd *rand.Rand) []string {
	keys := make([]string, 0, n)
	next := benchKeys
	for len(keys) < n {
		if pattern == "identity" {
			keys = append(keys, fmt.Sprintf("%016x", next))
			next++
			continue
		}
		var window []string
		for range 64 {
			for range 7 {
				window = append(window, fmt.Sprintf("%016x", next))
			}
			next++
		}
		rnd.Shuffle(len(window), func(i, j int) { window[i], window[j] = window[j], window[i] })
		keys = append(keys, window...)
	}
	return keys[:n]
}

// BenchmarkRecovery is goka's replay of a changelog into an empty store:
// per record a write and its offset.
func BenchmarkRecovery(b *testing.B) {
	for _, kind := range []string{"mem", "disk", "leveldb"} {
		b.Run(kind, func(b *testing.B) {
			dir := b.TempDir()
			rnd := rand.New(rand.NewPCG(1, 2))
			var s interface {
				table
				MarkRecovered() error
				Close() error
			}
			var closeDB func()
			switch kind {
			case "mem":
				s, closeDB = memstore.New(benchIndex), func() {}
			case "disk":
				db, err := Open(Options{Dir: dir, Logger: quiet})
				if err != nil {
					b.Fatal(err)
				}
				st, err := db.openStore("bench", 0, benchIndex)
				if err != nil {
					b.Fatal(err)
				}
				s, closeDB = st, func() { db.Close() }
			case "leveldb":
				ldb, err := leveldb.OpenFile(filepath.Join(dir, "ldb"), nil)
				if err != nil {
					b.Fatal(err)
				}
				st, _ := gokastorage.New(ldb)
				st.Open()
				s, closeDB = st, func() {}
			}
			vals := make([][]byte, 1024)
			for i := range vals {
				vals[i] = benchVal(rnd, int64(i))
			}
			b.ResetTimer()
			cpu := cpuTime()
			for i := 0; i < b.N; i++ {
				s.Set(fmt.Sprintf("%016x", i), vals[i%len(vals)])
				s.SetOffset(int64(i))
			}
			if err := s.MarkRecovered(); err != nil {
				b.Fatal(err)
			}
			reportCPU(b, cpu)
			b.StopTimer()
			s.Close()
			closeDB()
		})
	}
}

// BenchmarkHeldBytes reports the Go heap a partition holding benchKeys keys
// costs (Pebble's cache and memtables are off the Go heap's books but in
// RSS: see docs/benchmarks.md for a process's RSS).
func BenchmarkHeldBytes(b *testing.B) {
	for _, kind := range []string{"mem", "disk"} {
		b.Run(kind, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				b.StartTimer()
				s := openBench(b, kind)
				rnd := rand.New(rand.NewPCG(1, 2))
				for j := range benchKeys {
					k := fmt.Sprintf("%016x", j)
					s.Set(k, benchVal(rnd, int64(j)))
					s.ack(k, int64(j))
				}
				if d, ok := s.table.(*Store); ok {
					d.commit()
				}
				b.StopTimer()
				runtime.GC()
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/benchKeys, "heap-B/key")
				s.done()
				b.StartTimer()
			}
		})
	}
}

// The machine these run on is shared: wall time per op says more about the
// neighbours than about the code. CPU time of the whole process (background
// compactions and commits included) per op is reported beside it.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, since time.Duration) {
	b.ReportMetric(float64(cpuTime()-since)/float64(b.N), "cpu-ns/op")
}

// BenchmarkEngine compares the two LSM engines without the store, under its
// pattern of work on the match table: per message a point read of the
// trade, and its write in a batch of 30 (the committer's batches when it
// committed every 50 ms, at ~600 messages a second per partition).
func BenchmarkEngine(b *testing.B) {
	for _, engine := range []string{"pebble", "leveldb"} {
		b.Run(engine, func(b *testing.B) {
			dir := b.TempDir()
			var get func(k []byte)
			var commit func(keys, vals [][]byte)
			switch engine {
			case "pebble":
				o := Options{Logger: quiet}
				o.defaults()
				po := pebbleOptions(o)
				defer po.Cache.Unref()
				db, err := pebble.Open(dir, po)
				if err != nil {
					b.Fatal(err)
				}
				defer db.Close()
				get = func(k []byte) {
					if _, c, err := db.Get(k); err == nil {
						c.Close()
					}
				}
				commit = func(keys, vals [][]byte) {
					batch := db.NewBatch()
					for i := range keys {
						batch.Set(keys[i], vals[i], nil)
					}
					batch.Commit(pebble.NoSync)
					batch.Close()
				}
			case "leveldb":
				db, err := leveldb.OpenFile(dir, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer db.Close()
				get = func(k []byte) { db.Get(k, nil) }
				commit = func(keys, vals [][]byte) {
					var batch leveldb.Batch
					for i := range keys {
						batch.Put(keys[i], vals[i])
					}
					db.Write(&batch, nil)
				}
			}
			rnd := rand.New(rand.NewPCG(1, 2))
			var keys, vals [][]byte
			flush := func() {
				commit(keys, vals)
				keys, vals = keys[:0], vals[:0]
			}
			for i := range benchKeys {
				keys, vals = append(keys, fmt.Appendf(nil, "%016x", i)), append(vals, benchVal(rnd, int64(i)))
				if len(keys) == 1000 {
					flush()
				}
			}
			flush()
			msgs := messageKeys("match", b.N, rnd)
			b.ResetTimer()
			cpu := cpuTime()
			for i, k := range msgs {
				get([]byte(k))
				keys, vals = append(keys, []byte(k)), append(vals, benchVal(rnd, int64(i)))
				if len(keys) == 30 {
					flush()
				}
			}
			flush()
			reportCPU(b, cpu)
		})
	}
}
