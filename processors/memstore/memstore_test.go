package memstore

import (
	"slices"
	"testing"

	"github.com/ste-utility/ste/internal/testing/duetest"
)

// The due index suite every table store passes (diskstore runs it too).
func TestDueIndex(t *testing.T) {
	duetest.Run(t, duetest.Backend{Open: func(*testing.T) duetest.Store { return New(duetest.Index) }})
}

// One index entry per key however often it is updated forward: the heap
// does not grow with updates.
func TestOneIndexEntryPerKey(t *testing.T) {
	s := New(duetest.Index)
	for i := int64(0); i < 100; i++ {
		s.Set("k", duetest.Val(i))
	}
	if len(s.due) != 1 {
		t.Fatalf("%d index entries for one key", len(s.due))
	}
	if got := s.Due(99); !slices.Equal(got, []string{"k"}) {
		t.Fatalf("%v", got)
	}
}
