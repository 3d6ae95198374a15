package changelog

import (
	"errors"
	"slices"
	"testing"

	"github.com/ste-utility/ste/topology"
)

func TestTableBatchRecordsReadBack(t *testing.T) {
	type kv struct{ k, v string }
	want := []kv{{"BRKASGSGXXX:M1", "one"}, {"BRKBSGSGXXX:M2", ""}, {"IMAASGSGXXX:" + string(make([]byte, 300)), "long key"}}
	var b []byte
	for _, e := range want {
		b = AppendEntry(b, e.k, []byte(e.v))
	}
	var got []kv
	key := BatchKey(3, 7)
	if err := EachValue(topology.StageIdentity, key, b, func(k string, v []byte) { got = append(got, kv{k, string(v)}) }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("read back %q, want %q", got, want)
	}
	// An empty value is a deletion: read back as nil.
	nils := 0
	EachEntry(b, func(k string, v []byte) error {
		if v == nil {
			nils++
		}
		return nil
	})
	if nils != 1 {
		t.Fatalf("%d deletions read back, want 1", nils)
	}
	// A record of the match table, or an identity's, stands for itself.
	for _, st := range []topology.Stage{topology.StageMatch, topology.StageIdentity} {
		k := key
		if st == topology.StageIdentity {
			k = "BRKASGSGXXX:M1"
		}
		got = got[:0]
		if err := EachValue(st, k, b, func(k string, v []byte) { got = append(got, kv{k, string(v)}) }); err != nil || len(got) != 1 || got[0].k != k {
			t.Fatalf("%v record %q read as %q (%v)", st, k, got, err)
		}
	}
	// Cut anywhere: the entries before the cut, then ErrBatch (none
	// when the cut falls between two entries).
	for cut := 1; cut < len(b); cut++ {
		n := 0
		err := EachEntry(b[:cut], func(string, []byte) error { n++; return nil })
		if (err != nil && !errors.Is(err, ErrBatch)) || n >= len(want) {
			t.Fatalf("cut at %d: %d entries, %v", cut, n, err)
		}
	}
	if err := EachEntry([]byte{9, 1, 'a', 0}, func(string, []byte) error { return nil }); !errors.Is(err, ErrBatch) {
		t.Fatalf("unknown version: %v", err)
	}
	for n := int32(1); n <= 9; n++ {
		for p := range n {
			if k := BatchKey(p, n); int32(topology.Partition([]byte(k), int(n))) != p || !IsBatch(k) || k == BatchKey(p, n) {
				t.Fatalf("batch key %q for partition %d of %d", k, p, n)
			}
		}
	}
}
