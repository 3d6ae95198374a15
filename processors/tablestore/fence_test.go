package tablestore

import (
	"testing"
	"time"

	"github.com/lovoo/goka"
	"github.com/lovoo/goka/storage"

	"github.com/ste-utility/ste/processors/fence"
	"github.com/ste-utility/ste/processors/memstore"
	"github.com/ste-utility/ste/processors/query"
)

// record is one changelog record as goka hands it to an update callback.
type record struct {
	p       int32
	offset  int64
	headers goka.Headers
}

func (r record) Topic() goka.Stream    { return "t-table" }
func (r record) Partition() int32      { return r.p }
func (r record) Offset() int64         { return r.offset }
func (r record) Headers() goka.Headers { return r.headers }
func (r record) Timestamp() time.Time  { return time.Time{} }

func stamped(e fence.Epoch) goka.Headers { return goka.Headers{fence.Header: e.Encode()} }

// The match table's update callback reaches each partition's store through
// the decorators the chain puts around it (the read side, the timers), skips a write stamped
// before the latest epoch the store applied (telling Skipped), raises the
// store's epoch with each later one, and applies an unstamped write (an
// older build's) as goka would. Each partition has its own owners.
func TestFenceUpdateSkipsAFormerOwnersLateWrite(t *testing.T) {
	var f Fence
	var skipped []fence.Epoch // write, held: two a skip
	f.Skipped = func(_ goka.UpdateContext, _ string, write, held fence.Epoch) { skipped = append(skipped, write, held) }
	noTimer := func([]byte) (int64, bool) { return 0, false }
	b := f.Registry(Timed(&TimerSet{}, noTimer, Indexed(&query.Tables{}, memstore.Builder(nil, nil))))
	st := map[int32]storage.Storage{}
	for _, p := range []int32{0, 1} {
		s, err := b("t-table", p)
		if err != nil {
			t.Fatal(err)
		}
		st[p] = s
	}
	old, owner, later := fence.Epoch{End: 3, Generation: 1}, fence.Epoch{End: 3, Generation: 2}, fence.Epoch{End: 5, Generation: 1}
	steps := []struct {
		p     int32
		h     goka.Headers
		value string
		want  string // the key's value after the record
	}{
		{0, stamped(old), "a", "a"},
		{0, stamped(owner), "b", "b"},
		{0, stamped(old), "c", "b"}, // the former owner's late write
		{0, nil, "d", "d"},          // unstamped (an older build): applied
		{1, stamped(old), "e", "e"}, // another partition has its own owners
		{0, stamped(later), "f", "f"},
		{0, stamped(owner), "g", "f"}, // an earlier owner than the latest
	}
	for i, s := range steps {
		if err := f.Update(record{p: s.p, offset: int64(i), headers: s.h}, st[s.p], "k", []byte(s.value)); err != nil {
			t.Fatal(err)
		}
		if v, _ := st[s.p].Get("k"); string(v) != s.want {
			t.Fatalf("step %d: partition %d holds %q, want %q", i, s.p, v, s.want)
		}
	}
	if want := []fence.Epoch{old, owner, owner, later}; len(skipped) != len(want) ||
		skipped[0] != want[0] || skipped[1] != want[1] || skipped[2] != want[2] || skipped[3] != want[3] {
		t.Fatalf("Skipped told (write, held) %+v, want %+v", skipped, want)
	}
	if x := unwrap(st[1]).(Epochs); x.Epoch() != old {
		t.Fatalf("partition 1's store holds epoch %+v, want %+v", x.Epoch(), old)
	}
}

// An owner's stamp is the changelog end its recovery read and the
// generation its partition was assigned in, raised into its store first;
// a partition with neither (goka's tester) and one with no store get none.
func TestFenceStampIsTheOwnersEpoch(t *testing.T) {
	var f Fence
	f.Generation(7, nil)
	f.Owned(0)
	f.Generation(8, nil) // a later assignment, which did not open partition 0 again
	s := memstore.New(nil)
	if err := s.SetOffset(41); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkRecovered(); err != nil {
		t.Fatal(err)
	}
	want := fence.Epoch{End: 42, Generation: 7}
	if e, err := f.Stamp(0, s); err != nil || e != want || s.Epoch() != want {
		t.Fatalf("Stamp = %+v, %v; store's epoch %+v; want %+v", e, err, s.Epoch(), want)
	}
	if e, err := f.Stamp(1, memstore.New(nil)); err != nil || !e.IsZero() {
		t.Fatalf("a partition with no end and no generation: Stamp = %+v, %v", e, err)
	}
	if e, err := f.Stamp(0, nil); err != nil || !e.IsZero() {
		t.Fatalf("no store: Stamp = %+v, %v", e, err)
	}
}
