package index

import (
	"crypto/sha256"
	"log/slog"
	"runtime"
	"testing"
	"time"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/memstore"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/workload"
)

// What the indexes of processors/query hold a trade (docs/benchmarks.md,
// "Memory: 250,000 trades in 600 MB"): n generated trades folded in a book
// and stored as the match table holds them, in parts partitions; the heap
// after a collection with every value stored and the partitions' indexes
// made and recovered but empty, then again after every value has gone
// through their update path (Index.Put, as the storage's Partition.Put
// calls it) and the work queue has summarised them all. The difference, a trade, is what the indexes
// cost; the stored values are in both.

// storedValues is n trades of mix, each as the match table stores it
// once all its messages are in.
func storedValues(t testing.TB, n int, mix workload.Mix) map[schemas.TradeKey][]byte {
	t.Helper()
	book := matching.NewBook()
	var dec schemas.Decoder
	_, err := workload.Generate(workload.Options{Trades: n, Mix: mix, Seed: 3}, func(rec []byte) error {
		m, rej := dec.Decode(rec)
		if rej != nil || m == nil {
			return nil
		}
		if _, known := book.Known(m.ID()); known || book.KeyCollision(m) != nil {
			return nil
		}
		sum := sha256.Sum256(rec)
		book.Accept(&matching.Inbound{Msg: m, Digest: matching.Digest(sum[:16]), NetUnits: 2})
		return nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[schemas.TradeKey][]byte{}
	book.Trades(func(tr *matching.Trade) {
		if len(tr.Keys) == 0 {
			return
		}
		v, err := tr.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		out[tr.Keys[0].TradeKey()] = v
	})
	return out
}

type noIterator struct{}

func (noIterator) Next() bool             { return false }
func (noIterator) Key() []byte            { return nil }
func (noIterator) Value() ([]byte, error) { return nil, nil }
func (noIterator) Err() error             { return nil }

func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// indexBytes is what the indexes hold a trade of vals, in parts partitions.
func indexBytes(t testing.TB, vals map[schemas.TradeKey][]byte, parts int32) float64 {
	t.Helper()
	stores := make([]*memstore.Store, parts)
	xs := make([]*Index, parts)
	for p := range parts {
		stores[p] = memstore.New(nil)
		xs[p] = New(stores[p], nil)
		xs[p].Recovered(noIterator{}, slog.Default())
	}
	type kv struct {
		p   int32
		key uint64
		v   []byte
	}
	writes := make([]kv, 0, len(vals))
	for k, v := range vals {
		p := int32(uint64(k) % uint64(parts))
		if err := stores[p].Set(k.String(), v); err != nil {
			t.Fatal(err)
		}
		writes = append(writes, kv{p, uint64(k), v})
	}
	settle(t, xs)
	before := liveHeap()
	for _, w := range writes {
		xs[w.p].Put(w.key, w.v)
	}
	settle(t, xs)
	after := liveHeap()
	runtime.KeepAlive(writes)
	runtime.KeepAlive(stores)
	runtime.KeepAlive(xs)
	return float64(int64(after)-int64(before)) / float64(len(vals))
}

// settle waits until every partition's work queue has summarised every
// trade written.
func settle(t testing.TB, xs []*Index) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
		left := 0
		for _, x := range xs {
			x.d.drain()
			if st := x.Stats(); st.Pending > 0 || !x.Ready() {
				left++
			}
		}
		if left == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the work queue not summarised in 5 minutes")
		}
	}
}

// BenchmarkIndexBytes reports what the indexes hold a standard trade
// (the set of deploy/experiments/tables.sh) and a realistic one, 100,000
// trades in 8 partitions:
//
//	go test -run '^$' -bench IndexBytes -benchtime 1x ./processors/query/...
func BenchmarkIndexBytes(b *testing.B) {
	for _, mix := range []workload.Mix{workload.Standard, workload.Realistic} {
		b.Run(string(mix), func(b *testing.B) {
			vals := storedValues(b, 100_000, mix)
			b.ResetTimer()
			var per float64
			for range b.N {
				per = indexBytes(b, vals, 8)
			}
			b.ReportMetric(per, "bytes/trade")
			b.ReportMetric(float64(len(vals)), "trades")
		})
	}
}

// The indexes stay compact: a standard trade costs them under 300 bytes
// (917 before the compact records; docs/benchmarks.md).
func TestIndexBytesStayCompact(t *testing.T) {
	vals := storedValues(t, 10_000, workload.Standard)
	if per := indexBytes(t, vals, 2); per > 300 {
		t.Fatalf("the indexes hold %.0f bytes a trade, want under 300", per)
	} else {
		t.Logf("%.0f bytes a trade", per)
	}
}
