package tablestore

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/lovoo/goka/storage"

	"github.com/ste-utility/ste/processors/memstore"
)

// A test value: 8 bytes, its timer (0: none ever; negative: none now,
// minus the last one set, as a trade's value keeps it: stages.AllegeIndex).
func val(at int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(at)) }

func read(v []byte) (int64, bool) {
	if len(v) != 8 {
		return 0, false
	}
	at := int64(binary.BigEndian.Uint64(v))
	return at, at > 0
}

func keys(ts []Timer) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Key)
	}
	return out
}

// A timer follows its key's current value: handed out once, in due order;
// moved, cleared or deleted, it is not due at its old time; put back after
// a loopback that could not be written, unless a newer one was set.
func TestTimersFollowTheValues(t *testing.T) {
	set := &TimerSet{}
	b := Timed(set, read, memstore.Builder(nil, nil))
	st, err := b("tbl", 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Open(); err != nil {
		t.Fatal(err)
	}
	var ts *Timers
	set.Each(func(p int32, x *Timers) { ts = x })
	put := func(k string, at int64) {
		if err := st.Set(k, val(at)); err != nil {
			t.Fatal(err)
		}
	}
	put("b", 20)
	put("a", 10)
	put("c", 30)
	put("c", 50) // moved
	put("d", 15)
	put("d", 0) // cleared
	put("f", 25)
	put("f", -25) // cleared: a trade matched keeps minus its last timer
	put("g", -5)  // a value that says it has none, with a number
	put("e", 12)
	st.Delete("e")
	if got := keys(ts.Due(30)); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("due at 30: %v", got)
	}
	if got := ts.Due(30); len(got) != 0 {
		t.Fatalf("handed out twice: %v", got)
	}
	due := ts.Due(60)
	if !slices.Equal(keys(due), []string{"c"}) {
		t.Fatalf("due at 60: %v", keys(due))
	}
	ts.Rearm(due[0])
	if got := keys(ts.Due(60)); !slices.Equal(got, []string{"c"}) {
		t.Fatalf("rearmed: %v", got)
	}
	put("c", 70)
	ts.Rearm(Timer{Key: "c", At: 50}) // a newer timer stands
	if got := keys(ts.Due(60)); len(got) != 0 || ts.Len() != 1 {
		t.Fatalf("rearm over a newer timer: %v, %d set", got, ts.Len())
	}
	// Many moves of one key leave no pile of stale entries.
	for i := int64(1); i <= 1000; i++ {
		put("m", 1000+i)
	}
	ts.Due(0)
	if len(ts.h) > 2*ts.Len()+64 {
		t.Fatalf("%d heap entries for %d timers", len(ts.h), ts.Len())
	}
}

// A store that opens with values in it (resumed from disk) has their
// timers read at once; a partition given away is forgotten.
func TestTimersReadWhenTheStoreOpens(t *testing.T) {
	inner := memstore.New(nil)
	inner.Set("x", val(5))
	inner.Set("y", val(0))
	set := &TimerSet{}
	st, _ := Timed(set, read, func(string, int32) (storage.Storage, error) { return inner, nil })("tbl", 1)
	if err := st.Open(); err != nil {
		t.Fatal(err)
	}
	n := 0
	set.Each(func(p int32, ts *Timers) {
		n++
		if got := keys(ts.Due(10)); p != 1 || !slices.Equal(got, []string{"x"}) {
			t.Fatalf("partition %d: %v", p, got)
		}
	})
	set.Keep([]int32{2})
	set.Each(func(int32, *Timers) { n++ })
	if n != 1 {
		t.Fatalf("%d partitions timed", n)
	}
}
