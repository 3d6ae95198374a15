package diskstore

import (
	"testing"

	"github.com/ste-utility/ste/processors/fence"
)

// The partition's epoch (package fence) is committed with the offset it
// comes after, like the values: a store resumed from disk knows the latest
// ownership whose writes it holds, and not one whose writes it does not.
func TestEpochIsCommittedWithTheOffsetItComesAfter(t *testing.T) {
	e := newEnv(t)
	e.open()
	s := e.store(0)
	if s.RecoveredEnd() != 0 || !s.Epoch().IsZero() {
		t.Fatalf("a new partition: end %d, epoch %+v", s.RecoveredEnd(), s.Epoch())
	}
	first, second := fence.Epoch{End: 0, Generation: 1}, fence.Epoch{End: 1, Generation: 2}
	must(t, s.RaiseEpoch(first))
	put(t, s, "a", val(1))
	must(t, s.RaiseEpoch(fence.Epoch{End: 0, Generation: 0})) // earlier: no change
	if s.Epoch() != first {
		t.Fatalf("epoch %+v after an earlier one was raised, want %+v", s.Epoch(), first)
	}
	must(t, s.Set("b", val(2))) // its record not acknowledged
	must(t, s.RaiseEpoch(second))
	if s.Epoch() != second {
		t.Fatalf("epoch %+v, want %+v", s.Epoch(), second)
	}
	e.close()

	e.open()
	s = e.store(0)
	if off, _ := s.Offset(); off != 0 || s.Epoch() != first {
		t.Fatalf("resumed at offset %d with epoch %+v, want 0 and %+v (the later epoch came after an unacknowledged write)", off, s.Epoch(), first)
	}
	if s.RecoveredEnd() != 1 {
		t.Fatalf("recovered end %d, want 1", s.RecoveredEnd())
	}
	must(t, s.RaiseEpoch(second))
	put(t, s, "b", val(2))
	e.close()

	e.open()
	if s = e.store(0); s.Epoch() != second {
		t.Fatalf("resumed with epoch %+v, want %+v", s.Epoch(), second)
	}
	e.close()
}

func TestMetaKeepsTheEpoch(t *testing.T) {
	id := [16]byte{1, 2, 3}
	for _, m := range []meta{
		{version: layoutVersion, hasOffset: true, offset: 7, ref: 9, clock: 11, count: 3},
		{version: layoutVersion, hasOffset: true, offset: 7, topicID: id},
		{version: layoutVersion, hasOffset: true, offset: 7, epoch: fence.Epoch{End: 5, Generation: 2}},
		{version: layoutVersion, hasOffset: true, offset: 7, topicID: id, epoch: fence.Epoch{End: 1 << 40, Generation: 1 << 30}},
	} {
		got, err := decodeMeta(m.encode())
		if err != nil || got != m {
			t.Errorf("decodeMeta(encode(%+v)) = %+v, %v", m, got, err)
		}
	}
	// A meta written before the epoch reads as none.
	old := meta{version: layoutVersion, hasOffset: true, offset: 7, topicID: id}.encode()
	if got, err := decodeMeta(old); err != nil || !got.epoch.IsZero() || got.topicID != id {
		t.Errorf("an older meta: %+v, %v", got, err)
	}
	if _, err := decodeMeta(append(old, 0x80)); err == nil {
		t.Error("a truncated epoch was read")
	}
}
