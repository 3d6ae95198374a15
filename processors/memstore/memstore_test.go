package memstore

import (
	"encoding/binary"
	"slices"
	"testing"
)

// values are 8-byte big-endian due times; the watermark is the due time.
func index(v []byte) (int64, int64, bool) {
	if len(v) != 8 {
		return 0, 0, false
	}
	d := int64(binary.BigEndian.Uint64(v))
	return d, d, true
}

func val(d int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(d)) }

func TestDueFollowsTheCurrentValue(t *testing.T) {
	s := New(index)
	s.Set("a", val(10))
	s.Set("b", val(20))
	s.Set("a", val(30)) // moved on: no longer due at 10
	s.Set("c", val(5))
	s.Set("c", val(1)) // due earlier than before: indexed again
	if got := s.Due(15); !slices.Equal(got, []string{"c"}) {
		t.Fatalf("due at 15: %v", got)
	}
	if got := s.Due(25); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("due at 25: %v", got)
	}
	s.Delete("a")
	if got := s.Due(100); len(got) != 0 {
		t.Fatalf("deleted key due: %v", got)
	}
	if s.Clock() != 30 {
		t.Fatalf("clock %d", s.Clock())
	}
	// One index entry per key however often it is updated forward.
	s2 := New(index)
	for i := int64(0); i < 100; i++ {
		s2.Set("k", val(i))
	}
	if len(s2.due) != 1 {
		t.Fatalf("%d index entries for one key", len(s2.due))
	}
	if got := s2.Due(99); !slices.Equal(got, []string{"k"}) {
		t.Fatalf("%v", got)
	}
}

func TestDropDue(t *testing.T) {
	s := New(index)
	s.Set("x", val(1))
	s.Set("y", val(9))
	if n := s.DropDue(5); n != 1 || s.Len() != 1 {
		t.Fatalf("dropped %d, left %d", n, s.Len())
	}
}

// A key Due handed out has no index entry left: its next value (the
// tombstone an expired trade becomes) must get one even when it is due later.
func TestValueAfterDueIsIndexed(t *testing.T) {
	s := New(index)
	s.Set("t", val(10))
	if got := s.Due(15); !slices.Equal(got, []string{"t"}) {
		t.Fatal(got)
	}
	s.Set("t", val(50))
	if got := s.Due(60); !slices.Equal(got, []string{"t"}) {
		t.Fatalf("the value written after the key fell due is never due: %v", got)
	}
}
