package diskstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/ste-utility/ste/internal/testing/duetest"
)

// values are 8-byte big-endian due times; the watermark is the due time
// (the due-index suite's values).
var index, val = duetest.Index, duetest.Val

func dueOf(v []byte) int64 { d, _, _ := index(v); return d }

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// env is one table directory reopened as often as a test likes.
type env struct {
	t     *testing.T
	dir   string
	now   time.Time
	opts  func(*Options)
	db    *DB
	mu    sync.Mutex // partitions open concurrently
	wiped map[int32]string
}

func newEnv(t *testing.T) *env {
	return &env{t: t, dir: t.TempDir(), now: time.Unix(1_700_000_000, 0)}
}

func (e *env) open() *DB {
	e.t.Helper()
	e.wiped = map[int32]string{}
	o := Options{Dir: e.dir, Now: func() time.Time { return e.now }, Logger: quiet,
		OnOpen: func(_ string, p int32, _ *Store, why string) { e.mu.Lock(); e.wiped[p] = why; e.mu.Unlock() }}
	if e.opts != nil {
		e.opts(&o)
	}
	db, err := Open(o)
	if err != nil {
		e.t.Fatal(err)
	}
	e.db = db
	return db
}

func (e *env) close() {
	e.t.Helper()
	if err := e.db.Close(); err != nil {
		e.t.Fatal(err)
	}
}

// store opens partition p of table "tab" and ends its (empty) recovery, as
// goka does before it runs callbacks.
func (e *env) store(p int32) *Store {
	e.t.Helper()
	s, err := e.db.openStore("tab", p, index)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := s.MarkRecovered(); err != nil {
		e.t.Fatal(err)
	}
	return s
}

func get(t *testing.T, s *Store, k string) []byte {
	t.Helper()
	v, err := s.Get(k)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// put writes a value (nil deletes) and acknowledges its changelog record at
// the next offset, as a processor's write whose record went through.
func put(t *testing.T, s *Store, k string, v []byte) {
	t.Helper()
	if v == nil {
		must(t, s.Delete(k))
	} else {
		must(t, s.Set(k, v))
	}
	s.acked(k, s.lastAck+1, nil)
}

// wantDue checks what Due(now) hands out, in order.
func wantDue(t *testing.T, s *Store, now int64, keys ...string) {
	t.Helper()
	if got := s.Due(now); !slices.Equal(got, keys) && (len(got) > 0 || len(keys) > 0) {
		t.Fatalf("due at %d: %v, want %v", now, got, keys)
	}
}

// The due index suite every table store passes (memstore runs it too),
// each write acknowledged as its changelog record would be.
func TestDueIndex(t *testing.T) {
	duetest.Run(t, duetest.Backend{
		Open: func(t *testing.T) duetest.Store {
			e := newEnv(t)
			e.open()
			t.Cleanup(e.close)
			return e.store(0)
		},
		Written: func(_ *testing.T, s duetest.Store, k string) { st := s.(*Store); st.acked(k, st.lastAck+1, nil) },
		Commit:  func(t *testing.T, s duetest.Store) { must(t, s.(*Store).commit()) },
	})
}

// The index, the clock and the count survive a restart; what was handed
// out before is handed out again (its loopback may not have been made).
func TestDueIndexSurvivesARestart(t *testing.T) {
	e := newEnv(t)
	e.open()
	s := e.store(0)
	set := func(k string, d int64) { put(t, s, k, val(d)) }
	set("a", 10)
	set("b", 20)
	must(t, s.commit())
	set("a", 30)
	set("c", 1)
	wantDue(t, s, 15, "c")
	must(t, s.commit())
	wantDue(t, s, 25, "b")
	e.close()
	e.open()
	s = e.store(0)
	if s.Clock() != 30 || s.Len() != 3 {
		t.Fatalf("after restart: clock %d, len %d", s.Clock(), s.Len())
	}
	wantDue(t, s, 100, "c", "b", "a") // in due order
	e.close()
}

// What DropDue deleted stays deleted across a restart.
func TestDropDueSurvivesARestart(t *testing.T) {
	e := newEnv(t)
	e.open()
	s := e.store(0)
	for k, d := range map[string]int64{"x": 1, "y": 9} {
		put(t, s, k, val(d))
	}
	if n := s.DropDue(5); n != 1 {
		t.Fatalf("dropped %d", n)
	}
	e.close()
	e.open()
	s = e.store(0)
	if s.Len() != 1 || get(t, s, "x") != nil || get(t, s, "y") == nil {
		t.Fatalf("after restart: len %d", s.Len())
	}
	e.close()
}

// The first danger: a write whose changelog record was never acknowledged
// must not survive a crash, or the re-delivered message finds its effect
// already applied and nothing writes it to the changelog.
func TestOnlyAcknowledgedWritesAreKept(t *testing.T) {
	e := newEnv(t)
	e.open()
	s := e.store(0)
	put(t, s, "a", val(1))
	must(t, s.Set("b", val(2))) // its record is in flight
	must(t, s.Delete("a"))      // and so is this one
	if get(t, s, "b") == nil || get(t, s, "a") != nil {
		t.Fatal("a callback must read its own writes")
	}
	must(t, s.commit())
	e.close() // a crash keeps only what was committed; Close commits no more
	e.open()
	s = e.store(0)
	if get(t, s, "b") != nil || get(t, s, "a") == nil {
		t.Fatalf("unacknowledged writes survived: b=%v a=%v", get(t, s, "b"), get(t, s, "a"))
	}
	if off, ok := s.Offset(); !ok || off != 0 {
		t.Fatalf("offset %d %v, want 0", off, ok)
	}
	// Deletions are acknowledged like values; the offset follows.
	put(t, s, "a", nil)
	must(t, s.commit())
	e.close()
	e.open()
	s = e.store(0)
	if get(t, s, "a") != nil || s.Len() != 0 {
		t.Fatal("acknowledged deletion lost")
	}
	if off, _ := s.Offset(); off != 1 {
		t.Fatalf("offset %d, want 1", off)
	}
	e.close()
}

func TestLocalDropWaitsForEarlierWrites(t *testing.T) {
	e := newEnv(t)
	e.open()
	s := e.store(0)
	put(t, s, "old", val(1))
	must(t, s.Set("new", val(50))) // not acknowledged
	if n := s.DropDue(10); n != 1 {
		t.Fatalf("dropped %d", n)
	}
	must(t, s.commit())
	e.close()
	e.open()
	s = e.store(0)
	// The drop came after an unacknowledged write: it is replayed (by the
	// stage, on its next message), not committed out of order.
	if get(t, s, "old") == nil || get(t, s, "new") != nil {
		t.Fatal("a local deletion was committed ahead of an earlier unacknowledged write")
	}
	e.close()
}

func TestForeignRecordsHoldTheOffset(t *testing.T) {
	e := newEnv(t)
	e.open()
	s := e.store(0)
	put(t, s, "a", val(1))
	must(t, s.Set("b", val(1)))
	s.acked("b", 3, nil) // 1 and 2 were written by someone else
	must(t, s.Set("c", val(1)))
	s.acked("c", 4, nil)
	must(t, s.commit())
	e.close()
	e.open()
	s = e.store(0)
	if off, _ := s.Offset(); off != 0 {
		t.Fatalf("offset %d: records 1 and 2 were never applied here, want 0", off)
	}
	if get(t, s, "b") == nil || get(t, s, "c") == nil {
		t.Fatal("acknowledged writes past a gap are kept (the replay rewrites them in order)")
	}
	if e.wiped[0] != "" {
		t.Fatalf("wiped: %s", e.wiped[0])
	}
	e.close()
}

func TestInconsistenciesRebuild(t *testing.T) {
	for name, spoil := range map[string]func(s *Store){
		"unmatched ack":    func(s *Store) { s.acked("zzz", 1, nil) },
		"failed write":     func(s *Store) { s.acked("b", -1, errors.New("broker said no")) },
		"offset went back": func(s *Store) { s.acked("b", 0, nil) },
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			e.open()
			s := e.store(0)
			put(t, s, "a", val(1))
			must(t, s.Set("b", val(1)))
			spoil(s)
			must(t, s.commit())
			e.close()
			e.open()
			s = e.store(0)
			if e.wiped[0] == "" || s.Len() != 0 || get(t, s, "a") != nil {
				t.Fatalf("not rebuilt: %q len %d", e.wiped[0], s.Len())
			}
			if _, ok := s.Offset(); ok {
				t.Fatal("a rebuilt partition has no offset")
			}
			e.close()
		})
	}
}

func TestUntrackedProducerIsRefused(t *testing.T) {
	e := newEnv(t)
	e.open()
	s := e.store(0)
	must(t, s.Set("a", val(1)))
	err := s.SetOffset(0) // goka's ack, with no report from DB.Producer first
	if err == nil || !strings.Contains(err.Error(), "DB.Producer") {
		t.Fatalf("err %v", err)
	}
	e.close()
}

// The second danger: tombstones written after the local offset may have
// been compacted away, so an old local state is rebuilt instead of resumed.
func TestStaleStateIsRebuilt(t *testing.T) {
	e := newEnv(t)
	e.opts = func(o *Options) { o.TombstoneRetention = 24 * time.Hour }
	e.open()
	s := e.store(0)
	put(t, s, "a", val(1))
	e.close()
	e.now = e.now.Add(17 * time.Hour)
	e.open()
	s = e.store(0)
	if e.wiped[0] != "" || get(t, s, "a") == nil {
		t.Fatalf("17 h old state wiped: %s", e.wiped[0])
	}
	e.close()
	// The reopening itself counts as fresh: every record after the offset
	// was appended after it.
	e.now = e.now.Add(17 * time.Hour)
	e.open()
	e.store(0)
	if e.wiped[0] != "" {
		t.Fatalf("wiped after a restart 17 h after the last one: %s", e.wiped[0])
	}
	e.close()
	e.now = e.now.Add(25 * time.Hour)
	e.open()
	s = e.store(0)
	if !strings.Contains(e.wiped[0], "tombstones") || get(t, s, "a") != nil {
		t.Fatalf("25 h old state kept: %q", e.wiped[0])
	}
	e.close()
}

// Dump reads what is committed and changes nothing, stale or not.
func TestDumpReadsWithoutWiping(t *testing.T) {
	e := newEnv(t)
	e.open()
	s := e.store(3)
	put(t, s, "a", val(1))
	put(t, s, "b", val(2))
	must(t, s.Set("c", val(3))) // not acknowledged
	e.close()
	dump := func() string {
		var out []string
		must(t, Dump(e.dir, "tab", 4, func(p int32, k, v []byte) error {
			out = append(out, fmt.Sprintf("%d:%s=%d", p, k, binary.BigEndian.Uint64(v)))
			return nil
		}))
		return strings.Join(out, " ")
	}
	if got := dump(); got != "3:a=1 3:b=2" {
		t.Fatal(got)
	}
	e.now = e.now.Add(100 * time.Hour) // stale: an open would wipe it
	if got := dump(); got != "3:a=1 3:b=2" {
		t.Fatal(got)
	}
}

func TestChangelogCheck(t *testing.T) {
	e := newEnv(t)
	var cl Changelog
	e.opts = func(o *Options) {
		o.Changelog = func(string, int32) (Changelog, error) { return cl, nil }
	}
	idA, idB := [16]byte{'A'}, [16]byte{'B'}
	e.open()
	s := e.store(0)
	for range 3 {
		put(t, s, "a", val(1))
	}
	e.close()
	// The first open knew no id (a broker without topic ids, or state
	// written before ids were kept): the first id seen is adopted.
	for _, c := range []struct {
		cl    Changelog
		wiped string
	}{
		{Changelog{Start: 0, End: 3}, ""},
		{Changelog{TopicID: idA, Start: 3, End: 9}, ""},
		{Changelog{TopicID: idA, Start: 0, End: 3}, ""},
		{Changelog{TopicID: idB, Start: 0, End: 9}, "another topic id"},
		{Changelog{TopicID: idA, Start: 4, End: 9}, "before the changelog's start"},
		{Changelog{TopicID: idA, Start: 0, End: 2}, "past the changelog's end"},
	} {
		cl = c.cl
		e.open()
		e.store(0)
		if got := e.wiped[0]; c.wiped == "" && got != "" || !strings.Contains(got, c.wiped) {
			t.Fatalf("changelog %+v: wiped %q, want %q", cl, got, c.wiped)
		}
		e.close()
		if c.wiped != "" {
			// Wiped and rebuilt: fill it again under id A for the next case.
			cl = Changelog{TopicID: idA, Start: 0, End: 9}
			e.open()
			s := e.store(0)
			for range 3 {
				put(t, s, "a", val(1))
			}
			e.close()
		}
	}
}

func TestLayoutChangeRebuilds(t *testing.T) {
	e := newEnv(t)
	e.open()
	s := e.store(0)
	put(t, s, "a", val(1))
	must(t, s.commit())
	m := s.meta
	m.version++
	must(t, e.db.pdb.Set(s.sub('m'), m.encode(), nil))
	e.close()
	e.open()
	s = e.store(0)
	if !strings.Contains(e.wiped[0], "layout") || get(t, s, "a") != nil {
		t.Fatalf("wiped %q", e.wiped[0])
	}
	e.close()
}

func TestRecoveryCommitsAndCounts(t *testing.T) {
	e := newEnv(t)
	var restored int64
	e.opts = func(o *Options) {
		o.OnRecovered = func(_ string, _ int32, n int64, _ time.Duration) { restored = n }
	}
	e.open()
	s, err := e.db.openStore("tab", 0, index)
	must(t, err)
	if off, _ := s.GetOffset(-3); off != -3 {
		t.Fatalf("fresh offset %d", off)
	}
	n := recoveryBatch + 10
	for i := range n { // goka's storeEvent: write, then the record's offset
		must(t, s.Set(fmt.Sprint(i%100), val(int64(i))))
		must(t, s.SetOffset(int64(i)))
	}
	must(t, s.Delete("7"))
	must(t, s.SetOffset(int64(n)))
	if len(s.ops) >= recoveryBatch {
		t.Fatalf("%d ops pending during recovery", len(s.ops))
	}
	must(t, s.MarkRecovered())
	if restored != int64(n+1) || s.Restored() != int64(n+1) {
		t.Fatalf("restored %d", restored)
	}
	e.close()
	e.open()
	s, err = e.db.openStore("tab", 0, index)
	must(t, err)
	if off, _ := s.GetOffset(-3); off != int64(n) || s.Len() != 99 || s.Clock() != int64(n-1) {
		t.Fatalf("offset %d len %d clock %d", off, s.Len(), s.Clock())
	}
	e.close()
}

func TestIteratorMergesPending(t *testing.T) {
	e := newEnv(t)
	e.open()
	s := e.store(0)
	for i, k := range []string{"a", "c", "e", "g"} {
		must(t, s.Set(k, val(int64(i))))
		s.acked(k, int64(i), nil)
	}
	must(t, s.commit())
	must(t, s.Set("b", val(9))) // pending
	must(t, s.Delete("e"))      // pending deletion hides a committed value
	must(t, s.Set("g", val(8))) // pending overwrite
	walk := func(start, limit []byte, seek string) string {
		it, err := s.IteratorWithRange(start, limit)
		must(t, err)
		defer it.Release()
		var out []string
		if seek != "" {
			it.Seek([]byte(seek))
		}
		for it.Next() {
			v, _ := it.Value()
			out = append(out, fmt.Sprintf("%s=%d", it.Key(), binary.BigEndian.Uint64(v)))
		}
		return strings.Join(out, " ")
	}
	if got := walk(nil, nil, ""); got != "a=0 b=9 c=1 g=8" {
		t.Fatal(got)
	}
	if got := walk([]byte("b"), []byte("g"), ""); got != "b=9 c=1" {
		t.Fatal(got)
	}
	if got := walk(nil, nil, "c"); got != "c=1 g=8" {
		t.Fatal(got)
	}
	e.close()
}

func TestPartitionsAreApart(t *testing.T) {
	e := newEnv(t)
	e.open()
	// goka opens the partitions of different tables at the same time: each
	// gets a prefix of its own.
	var wg sync.WaitGroup
	stores := make([]*Store, 16)
	for i := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := e.db.openStore(fmt.Sprint("t", i%2), int32(i/2), index)
			if err != nil {
				t.Error(err)
				return
			}
			stores[i] = s
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, s := range stores {
		if s == nil || seen[string(s.pfx)] {
			t.Fatal("two partitions share a prefix")
		}
		seen[string(s.pfx)] = true
		s.Close()
	}
	a, b := e.store(0), e.store(1)
	must(t, a.Set("k", val(1)))
	a.acked("k", 0, nil)
	if get(t, b, "k") != nil || b.Len() != 0 {
		t.Fatal("partition 1 sees partition 0")
	}
	if _, err := e.db.openStore("tab", 0, index); err == nil {
		t.Fatal("a partition opened twice")
	}
	e.close()
}

// Values committed or read back are kept in memory; each commit keeps them
// current.
func TestHotValuesFollowCommits(t *testing.T) {
	// Registered before the env's cleanups, so restored after they close
	// the stores (which read it).
	prev := memLimit
	t.Cleanup(func() { memLimit = prev })
	memLimit = func() int64 { return 64 << 20 }
	e := newEnv(t)
	e.open()
	s := e.store(0)
	off := int64(0)
	write := func(k string, v []byte) {
		if v == nil {
			must(t, s.Delete(k))
		} else {
			must(t, s.Set(k, v))
		}
		s.acked(k, off, nil)
		off++
		must(t, s.commit())
	}
	write("k", val(1))
	if _, hot := s.hot["k"]; !hot {
		t.Fatal("a committed value is not kept")
	}
	if v := get(t, s, "k"); binary.BigEndian.Uint64(v) != 1 {
		t.Fatal(v)
	}
	write("k", val(2))
	if v := get(t, s, "k"); binary.BigEndian.Uint64(v) != 2 {
		t.Fatalf("stale hot value %v", v)
	}
	// Large values: k moves to the older generation, then out, and the two
	// generations together never hold more than twice a generation's bytes
	// (4 MiB of hot values for the partitions open, under a 64 MiB limit).
	genBytes := hotGenBytes(memLimit(), int(e.db.nHot.Load()))
	big := make([]byte, genBytes/4)
	for i := 0; ; i++ {
		if _, hot := s.hotValue("k"); !hot {
			break
		}
		if i > 16 {
			t.Fatalf("k still hot after %d values of %d bytes", i, len(big))
		}
		write(fmt.Sprint("x", i), big)
		size := 0
		for _, g := range []map[string][]byte{s.hot, s.hotOld} {
			for k, v := range g {
				size += len(k) + len(v) + hotEntryBytes
			}
		}
		if size > 2*genBytes {
			t.Fatalf("%d bytes kept hot, more than two generations of %d", size, genBytes)
		}
	}
	write("k", nil)
	if v := get(t, s, "k"); v != nil {
		t.Fatalf("deleted value still served: %v", v)
	}

	// A partition replaying its changelog (a restore, a standby) keeps
	// none of what it replays: nothing reads it meanwhile.
	r, err := e.db.openStore("tab", 1, index)
	must(t, err)
	for i := range recoveryBatch + 1 { // goka's storeEvent: write, then the record's offset
		must(t, r.Set(fmt.Sprint("r", i), val(int64(i))))
		must(t, r.SetOffset(int64(i)))
	}
	must(t, r.commit())
	if len(r.hot)+len(r.hotOld) != 0 {
		t.Fatalf("a replaying partition keeps %d values hot", len(r.hot)+len(r.hotOld))
	}
	must(t, r.MarkRecovered())
	if v := get(t, r, "r0"); binary.BigEndian.Uint64(v) != 0 {
		t.Fatalf("replayed value %v", v)
	}
	e.close()
}

// A table whose writes are not kept hot (Options.HotWrites: the identity
// table) keeps only the values read back, and takes none of the budget:
// the match table's partitions share it.
func TestHotWritesOnlyWhereAsked(t *testing.T) {
	e := newEnv(t)
	e.opts = func(o *Options) { o.HotWrites = func(topic string) bool { return topic == "tab" } }
	e.open()
	hot := e.store(0)
	cold, err := e.db.openStore("ids", 0, index)
	must(t, err)
	must(t, cold.MarkRecovered())
	if n := e.db.nHot.Load(); n != 1 {
		t.Fatalf("%d stores counted in the hot budget, want 1 (the match table's)", n)
	}
	for i, s := range []*Store{hot, cold} {
		must(t, s.Set("k", val(int64(i))))
		s.acked("k", 0, nil)
		must(t, s.commit())
	}
	if _, ok := hot.hotValue("k"); !ok {
		t.Fatal("a written value of a hot table is not kept")
	}
	if _, ok := cold.hotValue("k"); ok {
		t.Fatal("a written value of a table not asked for is kept hot")
	}
	if v := get(t, cold, "k"); binary.BigEndian.Uint64(v) != 1 {
		t.Fatalf("read back %v", v)
	}
	if _, ok := cold.hotValue("k"); !ok {
		t.Fatal("a value read back from Pebble is not kept")
	}
	must(t, cold.Close())
	must(t, hot.Close())
	if n := e.db.nHot.Load(); n != 0 {
		t.Fatalf("%d stores counted after closing", n)
	}
	e.close()
}

// The hot values of all open partitions share a sixteenth of the memory
// limit, two generations a partition.
func TestHotGenerationBytes(t *testing.T) {
	for _, c := range []struct {
		limit int64
		open  int
		want  int
	}{
		{768 << 20, 8, 3 << 20},            // disk tables, the broker elsewhere: 8 match partitions
		{1 << 30, 16, 2 << 20},             // a 1 GiB limit, 16 partitions
		{18 << 30, 16, 36 << 20},           // ¾ of 24 GiB: the key bound decides
		{math.MaxInt64, 1, hotNoLimit / 2}, // no limit
		{1 << 30, 0, 32 << 20},             // the first partition opening
	} {
		if got := hotGenBytes(c.limit, c.open); got != c.want {
			t.Errorf("hotGenBytes(%d, %d) = %d, want %d", c.limit, c.open, got, c.want)
		}
	}
}

// A key written several times before a commit is committed once: its newest
// value and the index entry of that value, the entry Pebble had removed.
func TestCommitWritesAKeyOnce(t *testing.T) {
	e := newEnv(t)
	e.open()
	s := e.store(0)
	put(t, s, "a", val(5))
	must(t, s.commit())
	before := s.entries.Load()
	put(t, s, "a", val(10))
	put(t, s, "a", val(20))
	put(t, s, "b", val(7))
	put(t, s, "a", val(30))
	put(t, s, "b", nil)
	put(t, s, "c", val(8))
	put(t, s, "c", val(9))
	must(t, s.commit())
	// a: value, old entry deleted, new entry; b: delete (nothing indexed
	// was committed); c: value, entry; the meta.
	if got := s.entries.Load() - before; got != 3+1+2+1 {
		t.Fatalf("commit wrote %d entries, want 7", got)
	}
	e.close()
	e.open()
	s = e.store(0)
	if v := get(t, s, "a"); v == nil || dueOf(v) != 30 {
		t.Fatalf("a = %v after the reopen", v)
	}
	if get(t, s, "b") != nil || dueOf(get(t, s, "c")) != 9 {
		t.Fatal("b or c wrong after the reopen")
	}
	var entries []string
	lo := s.sub('d')
	it, err := s.db.pdb.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: prefixEnd(lo)})
	must(t, err)
	for ok := it.First(); ok; ok = it.Next() {
		due, key, _ := parseDue(it.Key()[len(lo):])
		entries = append(entries, fmt.Sprintf("%s@%d", key, due))
	}
	must(t, it.Close())
	if want := []string{"c@9", "a@30"}; !slices.Equal(entries, want) {
		t.Fatalf("due index %v, want %v", entries, want)
	}
	wantDue(t, s, 8)
	wantDue(t, s, 9, "c")
	wantDue(t, s, 29)
	wantDue(t, s, 30, "a")
	e.close()
}

// The writes of one changelog record (a batch: RecordPart) are
// acknowledged one by one; the offset moves to the record only with the
// last, so a commit between them never claims a record held in part —
// the next start replays it whole.
func TestBatchRecordMovesTheOffsetWithItsLastWrite(t *testing.T) {
	e := newEnv(t)
	e.open()
	s := e.store(0)
	put(t, s, "a", val(1))
	for _, k := range []string{"b", "c", "d"} {
		must(t, s.Set(k, val(2)))
	}
	s.ackedPart("b", 1, true, nil)
	must(t, s.commit())
	if off, _ := s.Offset(); off != 0 {
		t.Fatalf("offset %d after the first write of record 1, want 0", off)
	}
	s.ackedPart("c", 1, true, nil)
	s.ackedPart("d", 1, false, nil)
	must(t, s.Set("e", val(3)))
	s.ackedPart("e", 2, false, nil)
	must(t, s.commit())
	e.close()
	e.open()
	s = e.store(0)
	if off, _ := s.Offset(); off != 2 || e.wiped[0] != "" {
		t.Fatalf("offset %d (wiped %q), want 2", off, e.wiped[0])
	}
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		if get(t, s, k) == nil {
			t.Fatalf("%s lost", k)
		}
	}
	e.close()

	// A record acknowledged before the rest of the one before it: the
	// store cannot tell what the changelog holds.
	e.open()
	s = e.store(0)
	must(t, s.Set("f", val(4)))
	must(t, s.Set("g", val(4)))
	s.ackedPart("f", 3, true, nil)
	s.ackedPart("g", 4, false, nil)
	must(t, s.commit())
	e.close()
	e.open()
	if s = e.store(0); e.wiped[0] == "" || get(t, s, "a") != nil {
		t.Fatal("an unfinished record was not taken for an inconsistency")
	}
	e.close()
}

// Pebble's memtables and block cache follow the soft memory limit: a
// sixteenth each, within 16–64 MiB.
func TestPebbleBytesFollowTheLimit(t *testing.T) {
	for _, c := range []struct {
		limit int64
		want  int64
	}{
		{768 << 20, 48 << 20}, // disk tables, the broker elsewhere (instance/gc.go)
		{512 << 20, 32 << 20},
		{1 << 30, 64 << 20},       // a 1 GiB limit: the 64 MiB measured for speed
		{18 << 30, 64 << 20},      // ¾ of 24 GiB: tables in memory, the broker in the process
		{128 << 20, 16 << 20},     // a small limit: not below 16 MiB
		{math.MaxInt64, 64 << 20}, // no limit
		{0, 64 << 20},             // unknown
	} {
		if got := pebbleBytes(c.limit); got != c.want {
			t.Errorf("pebbleBytes(%d) = %d, want %d", c.limit, got, c.want)
		}
	}
	prev := memLimit
	t.Cleanup(func() { memLimit = prev })
	memLimit = func() int64 { return 512 << 20 }
	o := Options{Dir: t.TempDir()}
	o.defaults()
	if o.MemTableBytes != 32<<20 || o.CacheBytes != 32<<20 || o.Reserve != 2*(32<<20)+64<<20 {
		t.Fatalf("under a 512 MiB limit: memtables %d, cache %d, reserve %d", o.MemTableBytes, o.CacheBytes, o.Reserve)
	}
}
