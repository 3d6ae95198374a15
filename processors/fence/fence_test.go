package fence

import (
	"testing"
)

func TestEpochOrder(t *testing.T) {
	for _, c := range []struct {
		a, b   Epoch
		before bool
	}{
		{Epoch{End: 5, Generation: 9}, Epoch{End: 6, Generation: 1}, true}, // the end decides first: a group made again starts its generations over
		{Epoch{End: 6, Generation: 1}, Epoch{End: 5, Generation: 9}, false},
		{Epoch{End: 5, Generation: 3}, Epoch{End: 5, Generation: 4}, true}, // same end: the later assignment
		{Epoch{End: 5, Generation: 4}, Epoch{End: 5, Generation: 4}, false},
		{Epoch{}, Epoch{End: 0, Generation: 1}, true},
	} {
		if got := c.a.Before(c.b); got != c.before {
			t.Errorf("%+v.Before(%+v) = %v, want %v", c.a, c.b, got, c.before)
		}
		if c.before && c.a.Max(c.b) != c.b || !c.before && c.a.Max(c.b) != c.a {
			t.Errorf("%+v.Max(%+v) = %+v", c.a, c.b, c.a.Max(c.b))
		}
	}
}

func TestEncodeDecode(t *testing.T) {
	e := Epoch{End: 1<<40 + 7, Generation: 123456}
	got, ok := Decode(e.Encode())
	if !ok || got != e {
		t.Fatalf("Decode(Encode(%+v)) = %+v, %v", e, got, ok)
	}
	for _, b := range [][]byte{nil, {}, {2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1}, e.Encode()[:12]} {
		if _, ok := Decode(b); ok {
			t.Errorf("Decode(%x) read an epoch", b)
		}
	}
}

// A reader skips, per partition, a write stamped before one it applied,
// and applies every write without a stamp.
func TestFilterSkipsAnOlderOwnersLateWrite(t *testing.T) {
	old, owner := Epoch{End: 10, Generation: 4}, Epoch{End: 10, Generation: 5}
	var f Filter
	steps := []struct {
		p     int32
		h     []byte
		admit bool
	}{
		{0, old.Encode(), true},
		{0, nil, true}, // an older build wrote it: applied
		{0, owner.Encode(), true},
		{0, old.Encode(), false}, // the former owner's late write
		{1, old.Encode(), true},  // another partition has its own owners
		{0, owner.Encode(), true},
		{0, Epoch{End: 12, Generation: 1}.Encode(), true}, // a later owner, generations started over
		{0, owner.Encode(), false},
	}
	for i, s := range steps {
		if got := f.Admit(s.p, s.h); got != s.admit {
			t.Errorf("step %d: Admit = %v, want %v", i, got, s.admit)
		}
	}
}
