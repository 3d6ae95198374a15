package tablestore

import (
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/lovoo/goka/storage"

	"github.com/ste-utility/ste/processors/diskstore"
	"github.com/ste-utility/ste/processors/query"
)

// counting is a disk store whose iterators count the pairs they walk.
type counting struct {
	*diskstore.Store
	walked *int
}

func (c counting) Iterator() (storage.Iterator, error) {
	it, err := c.Store.Iterator()
	if err != nil {
		return nil, err
	}
	return &countingIter{Iterator: it, n: c.walked}, nil
}

type countingIter struct {
	storage.Iterator
	n *int
}

func (i *countingIter) Next() bool {
	ok := i.Iterator.Next()
	if ok {
		*i.n++
	}
	return ok
}

// A match partition resumed from disk is read once before it is ready: the
// read side and the timers take their values from one pass at open, and a
// recovery that replays nothing past the local offset reads the table no
// more (a restart after kill -9 of an instance holding 250,000 trades read
// it three times, all of its ~4 CPU-seconds before /readyz on 2 cores:
// docs/benchmarks.md, "Ready after kill -9"). A recovery that does replay
// records reads it again, and what it replayed is indexed and timed.
func TestMatchPartitionIsReadOnceAtARestart(t *testing.T) {
	const n = 1000
	dir := t.TempDir()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	db, err := diskstore.Open(diskstore.Options{Dir: dir, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The first run: n values replayed from the changelog, committed with
	// their offset; closed as goka closes a partition.
	st, err := db.Builder(nil, nil)("m-table", 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := st.Set(fmt.Sprintf("k%04d", i), val(int64(100+i))); err != nil {
			t.Fatal(err)
		}
		if err := st.SetOffset(int64(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.MarkRecovered(); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	restart := func(replay map[string]int64) (walked int, timers *Timers) {
		t.Helper()
		set := &TimerSet{}
		base := func(topic string, p int32) (storage.Storage, error) {
			s, err := db.Builder(nil, nil)(topic, p)
			if err != nil {
				return nil, err
			}
			return counting{Store: s.(*diskstore.Store), walked: &walked}, nil
		}
		st, err := Timed(set, read, Indexed(&query.Tables{}, base))("m-table", 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Open(); err != nil {
			t.Fatal(err)
		}
		off, _ := st.GetOffset(-1)
		for k, at := range replay { // goka's recovery past the local offset
			off++
			if err := st.Set(k, val(at)); err != nil {
				t.Fatal(err)
			}
			if err := st.SetOffset(off); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.MarkRecovered(); err != nil {
			t.Fatal(err)
		}
		set.Each(func(_ int32, ts *Timers) { timers = ts })
		t.Cleanup(func() { st.Close() })
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		return walked, timers
	}

	walked, timers := restart(nil)
	if walked != n {
		t.Errorf("a restart replaying nothing walked %d values of a table of %d before it was ready (want one pass)", walked, n)
	}
	if due := timers.Due(100 + n); len(due) != n {
		t.Errorf("%d timers read at open, want %d", len(due), n)
	}

	walked, timers = restart(map[string]int64{"k0000": 50, "knew": 60})
	if walked != 2*n+1 {
		t.Errorf("a restart replaying 2 records walked %d values, want %d (the table at open, and again after the replay)", walked, 2*n+1)
	}
	if due := keys(timers.Due(60)); len(due) != 2 || due[0] != "k0000" || due[1] != "knew" {
		t.Errorf("timers due at 60 after the replay: %v, want [k0000 knew]", due)
	}
}
