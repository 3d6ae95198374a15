package diskstore

import (
	"fmt"
	"testing"
	"time"
)

// filterReady waits for s's key filter to serve and says how many keys it
// holds.
func filterReady(t *testing.T, s *Store) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.mu.RLock()
		f, b := s.filt, s.building
		n := 0
		if f != nil {
			n = f.n
		}
		s.mu.RUnlock()
		if f != nil && b == nil {
			return n
		}
		if time.Now().After(deadline) {
			t.Fatal("key filter not built in 10 s")
		}
		time.Sleep(time.Millisecond)
	}
}

// Reads of keys never written are answered by the filter, reads of keys in
// Pebble from before the open still find them (the filter was built by
// scanning Pebble), and so do keys written while it was built.
func TestKeyFilterAnswersAbsentKeys(t *testing.T) {
	e := newEnv(t)
	e.open()
	s := e.store(0)
	const n = 5000
	for i := range n {
		put(t, s, fmt.Sprintf("old%d", i), val(int64(i)))
	}
	e.close()

	e.open()
	s = e.store(0)
	put(t, s, "new", val(1)) // possibly while the scan runs
	if got := filterReady(t, s); got < n {
		t.Fatalf("filter holds %d keys, the partition %d", got, n+1)
	}
	for i := range n {
		if get(t, s, fmt.Sprintf("old%d", i)) == nil {
			t.Fatalf("old%d not found after the reopen", i)
		}
	}
	must(t, s.commit())
	if get(t, s, "new") == nil {
		t.Fatal("a key written during the build is not found once committed")
	}
	before := s.Filtered()
	for i := range n {
		if get(t, s, fmt.Sprintf("absent%d", i)) != nil {
			t.Fatal("absent key found")
		}
	}
	// ~1 % false positives at 10 bits a key.
	if got := s.Filtered() - before; got < n*95/100 {
		t.Fatalf("the filter answered %d of %d reads of absent keys", got, n)
	}
	e.close()
}

// A filter rebuilt while a write is not yet committed keeps that key: the
// scan cannot see it, the write's own insert went to the filter before.
func TestKeyFilterRebuildKeepsPendingKeys(t *testing.T) {
	e := newEnv(t)
	e.open()
	s := e.store(0)
	filterReady(t, s)
	must(t, s.Set("pending", val(1))) // not acknowledged: stays pending
	s.mu.Lock()
	s.buildFilterLocked()
	s.mu.Unlock()
	filterReady(t, s)
	s.acked("pending", 0, nil)
	must(t, s.commit())
	if get(t, s, "pending") == nil {
		t.Fatal("a key pending when the filter was rebuilt is not found once committed")
	}
	e.close()
}

// Keys deleted make the filter grow stale; past twice the partition's keys
// it is replaced by one of the keys left.
func TestKeyFilterIsRebuiltWhenStale(t *testing.T) {
	e := newEnv(t)
	e.open()
	s := e.store(0)
	filterReady(t, s)
	for i := range 3 * filterMinKeys {
		k := fmt.Sprintf("k%d", i)
		put(t, s, k, val(int64(i)))
		put(t, s, k, nil)
		if i%4096 == 0 {
			must(t, s.commit())
		}
	}
	put(t, s, "kept", val(1))
	must(t, s.commit())
	if got := filterReady(t, s); got > 2*filterMinKeys {
		t.Fatalf("filter holds %d keys for a partition of %d", got, s.Len())
	}
	if get(t, s, "kept") == nil {
		t.Fatal("kept key lost by the rebuild")
	}
	e.close()
}
