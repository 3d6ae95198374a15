package diskstore

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// L0's shape (pebbleOptions): flushes gather into sublevels until L0 is half
// l0Compaction deep (Pebble's fill factor, 2 × sublevels ÷ the threshold)
// before one compaction takes them to Lbase, and they are written
// uncompressed; the tables a compaction writes below L0 are compressed.
// Pebble's defaults (threshold 4, every level compressed) fail this test: a
// compaction runs after the second flush, and the flushed tables are snappy.
func TestLevelZeroGathersUncompressedFlushes(t *testing.T) {
	o := Options{Dir: "db", FS: vfs.NewMem(), CacheBytes: 8 << 20, MemTableBytes: 4 << 20}
	o.defaults()
	db, err := pebble.Open(o.Dir, pebbleOptions(o))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	value := bytes.Repeat([]byte("<Status>MATCHED</Status>"), 20)
	// Every flush spans the whole key space, as the trades' hashed keys do,
	// so each is a sublevel of its own.
	const flushes = l0Compaction/2 - 1
	for f := range flushes {
		for k := range 200 {
			if err := db.Set([]byte(fmt.Sprintf("trade%04d", k)), append(value, byte(f)), pebble.NoSync); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	// A compaction Pebble would schedule follows the flush that made it due.
	time.Sleep(200 * time.Millisecond)
	m := db.Metrics()
	if m.Compact.Count != 0 || m.Compact.NumInProgress != 0 {
		t.Fatalf("%d compactions (%d running) after %d flushes: L0 is compacted before %d sublevels", m.Compact.Count, m.Compact.NumInProgress, flushes, l0Compaction/2)
	}
	if got := m.Levels[0].Sublevels; got != flushes {
		t.Fatalf("L0 has %d sublevels after %d flushes", got, flushes)
	}
	if m.Table.CompressedCountNone != flushes || m.Table.CompressedCountSnappy != 0 {
		t.Fatalf("flushed tables: %d uncompressed, %d snappy; want all %d uncompressed", m.Table.CompressedCountNone, m.Table.CompressedCountSnappy, flushes)
	}

	if err := db.Compact(t.Context(), []byte("trade"), []byte("tradf"), false); err != nil {
		t.Fatal(err)
	}
	m = db.Metrics()
	if m.Levels[0].TablesCount != 0 || m.Table.CompressedCountSnappy == 0 || m.Table.CompressedCountNone != 0 {
		t.Fatalf("after a compaction: %d tables in L0, %d snappy, %d uncompressed; want the tables below L0 compressed",
			m.Levels[0].TablesCount, m.Table.CompressedCountSnappy, m.Table.CompressedCountNone)
	}
}
