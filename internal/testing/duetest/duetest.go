// Package duetest is the one suite of the due index that every table store
// the processors run on must pass — memstore and diskstore both call Run
// from their tests, as watermill runs one pub/sub suite against every
// backend. What differs between stores (diskstore's changelog
// acknowledgements, commits and restarts) is their own tests'.
package duetest

import (
	"encoding/binary"
	"slices"
	"testing"
)

// Store is a table store with a due index, as the processors use it.
type Store interface {
	Get(key string) ([]byte, error)
	Set(key string, value []byte) error
	Delete(key string) error
	// Due hands out, once, the keys due at or before now, in due order.
	Due(now int64) []string
	// DropDue deletes the keys due at or before now and says how many.
	DropDue(now int64) int
	// Clock is the largest event time written; Len the number of keys.
	Clock() int64
	Len() int
}

// Backend opens stores for the suite.
type Backend struct {
	// Open returns a new, empty store indexed by Index.
	Open func(t *testing.T) Store
	// Written, when set, is called after each Set or Delete of key (a
	// store that keeps only acknowledged writes acknowledges it here).
	Written func(t *testing.T, s Store, key string)
	// Commit, when set, makes what was written so far durable; the suite
	// calls it between writes, and a store must answer alike either side.
	Commit func(t *testing.T, s Store)
}

// Index is the index of the suite's values: each is an 8-byte big-endian
// due time, which is also its event time.
func Index(v []byte) (due, event int64, ok bool) {
	if len(v) != 8 {
		return 0, 0, false
	}
	d := int64(binary.BigEndian.Uint64(v))
	return d, d, true
}

// Val is the value due at d.
func Val(d int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(d)) }

// Run runs the suite against b.
func Run(t *testing.T, b Backend) {
	t.Run("DueFollowsTheCurrentValue", func(t *testing.T) { dueFollowsTheCurrentValue(t, b) })
	t.Run("ValueAfterDueIsIndexed", func(t *testing.T) { valueAfterDueIsIndexed(t, b) })
	t.Run("DropDue", func(t *testing.T) { dropDue(t, b) })
	t.Run("PastDueIsDueAtOnce", func(t *testing.T) { pastDueIsDueAtOnce(t, b) })
}

type suite struct {
	t *testing.T
	b Backend
	s Store
}

func open(t *testing.T, b Backend) *suite { return &suite{t: t, b: b, s: b.Open(t)} }

func (x *suite) set(k string, d int64) {
	x.t.Helper()
	if err := x.s.Set(k, Val(d)); err != nil {
		x.t.Fatal(err)
	}
	if x.b.Written != nil {
		x.b.Written(x.t, x.s, k)
	}
}

func (x *suite) del(k string) {
	x.t.Helper()
	if err := x.s.Delete(k); err != nil {
		x.t.Fatal(err)
	}
	if x.b.Written != nil {
		x.b.Written(x.t, x.s, k)
	}
}

func (x *suite) commit() {
	if x.b.Commit != nil {
		x.b.Commit(x.t, x.s)
	}
}

// wantDue checks what Due(now) hands out, in order.
func (x *suite) wantDue(now int64, keys ...string) {
	x.t.Helper()
	if got := x.s.Due(now); !slices.Equal(got, keys) && (len(got) > 0 || len(keys) > 0) {
		x.t.Fatalf("due at %d: %v, want %v", now, got, keys)
	}
}

// A key is due by its current value only: one moved on is not due at its
// old time, one moved earlier is due at its new one; a key is handed out
// once; a deleted key is never due; the clock is the largest time written.
func dueFollowsTheCurrentValue(t *testing.T, b Backend) {
	x := open(t, b)
	x.set("a", 10)
	x.set("b", 20)
	x.commit()
	x.set("a", 30) // moved on: no longer due at 10 (over a committed entry)
	x.set("c", 5)
	x.set("c", 1) // due earlier than before
	x.wantDue(15, "c")
	x.wantDue(15)
	x.commit()
	x.wantDue(25, "b")
	x.del("a")
	x.wantDue(100)
	if x.s.Clock() != 30 || x.s.Len() != 2 {
		t.Fatalf("clock %d, len %d; want 30, 2", x.s.Clock(), x.s.Len())
	}
}

// A key Due handed out has no index entry left: its next value (the
// tombstone an expired trade becomes) must get one even when it is due
// later.
func valueAfterDueIsIndexed(t *testing.T, b Backend) {
	x := open(t, b)
	x.set("t", 10)
	x.commit()
	x.wantDue(15, "t")
	x.set("t", 50)
	x.commit()
	x.wantDue(60, "t")
}

func dropDue(t *testing.T, b Backend) {
	x := open(t, b)
	x.set("x", 1)
	x.set("y", 9)
	if n := x.s.DropDue(5); n != 1 || x.s.Len() != 1 {
		t.Fatalf("dropped %d, left %d; want 1, 1", n, x.s.Len())
	}
	if v, err := x.s.Get("x"); err != nil || v != nil {
		t.Fatalf("the dropped key reads %v, %v", v, err)
	}
	if v, err := x.s.Get("y"); err != nil || v == nil {
		t.Fatalf("the key not due reads %v, %v", v, err)
	}
}

// A value written due in the past is due at once, committed or not; keys
// are handed out in due order.
func pastDueIsDueAtOnce(t *testing.T, b Backend) {
	x := open(t, b)
	x.set("late", 2)
	x.wantDue(100, "late")
	x.set("later", 3)
	x.commit()
	x.wantDue(100, "later")
	x.set("b", 20)
	x.set("a", 10)
	x.commit()
	x.wantDue(100, "a", "b")
}
