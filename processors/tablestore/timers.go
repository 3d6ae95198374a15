package tablestore

import (
	"container/heap"
	"slices"
	"sync"

	"github.com/lovoo/goka/storage"
)

// Timers is one match partition's wall-clock timers: for every key whose
// value holds one (a trade's allegement timer, matching.Trade.AllegeAt),
// when it falls due. goka calls a callback for a key only by a message, so
// the runtime asks the timers what is due and writes those keys'
// allegement records to their partition of <ns>.accepted
// (processors/pipeline, timers.go), as retention's due index loops its
// keys back on event time.
//
// The timers are read from the values, never kept apart: every value the
// storage takes passes through them (the stage's writes, the changelog's
// replay), and when a store opens with values already in it (resumed from
// disk) they are read by a scan. A timer therefore lives exactly as long as
// the value that holds it — through a kill -9, a restart and a rebalance
// (the new owner's storage reads it) — and needs no persistence of its own.
// (Retention's due index is kept on disk because every value has a due
// time; few have a timer, only trades waiting for their quiet delay, and
// the scan at open is the one the read side makes anyway.)
type Timers struct {
	mu sync.Mutex
	at map[string]int64 // key → its timer, while not handed out
	// h holds, for every key of at, an entry due no later than its timer
	// (a timer moved later keeps its entry, re-indexed when it pops: a
	// trade's every message moves its timer), and stale entries of keys
	// cleared or handed out.
	h timerHeap
}

// NewTimers is an empty set of timers.
func NewTimers() *Timers { return &Timers{at: map[string]int64{}} }

// Put sets key's timer (0: none).
func (t *Timers) Put(key string, at int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if at == 0 {
		delete(t.at, key)
		return
	}
	old, ok := t.at[key]
	t.at[key] = at
	if ok && old <= at {
		return // its entry pops first and is re-indexed then
	}
	heap.Push(&t.h, timer{at, key})
}

// Due hands out, once, the timers due at or before now, in due order: a
// key handed out is due again only when its value sets a timer again (or
// Rearm puts it back).
func (t *Timers) Due(now int64) []Timer {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []Timer
	for len(t.h) > 0 && t.h[0].at <= now {
		e := heap.Pop(&t.h).(timer)
		at, ok := t.at[e.key]
		switch {
		case !ok:
			continue // stale: cleared or handed out
		case at > now:
			heap.Push(&t.h, timer{at, e.key}) // moved on: indexed again
			continue
		}
		delete(t.at, e.key)
		out = append(out, Timer{Key: e.key, At: at})
	}
	if len(t.h) > 2*len(t.at)+64 {
		t.compactLocked()
	}
	return out
}

// Rearm puts back a timer handed out whose allegement record could not be written,
// unless the key's value set another since.
func (t *Timers) Rearm(tm Timer) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.at[tm.Key]; ok {
		return
	}
	t.at[tm.Key] = tm.At
	heap.Push(&t.h, timer{tm.At, tm.Key})
}

// Len is the number of timers set and not handed out.
func (t *Timers) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.at)
}

// compactLocked rebuilds the heap from the timers, dropping the stale
// entries (timers cleared, or moved earlier).
func (t *Timers) compactLocked() {
	h := make(timerHeap, 0, len(t.at))
	for k, at := range t.at {
		h = append(h, timer{at, k})
	}
	t.h = h
	heap.Init(&t.h)
}

// Timer is one timer handed out.
type Timer struct {
	Key string
	At  int64
}

type timer struct {
	at  int64
	key string
}

type timerHeap []timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	return h[i].at < h[j].at || h[i].at == h[j].at && h[i].key < h[j].key
}
func (h timerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)   { *h = append(*h, x.(timer)) }
func (h *timerHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// TimerRead reads a value's timer (ok false: none).
type TimerRead func(value []byte) (at int64, ok bool)

// timed is a partition's storage that feeds its timers with every value it
// stores, and with those it holds when it opens.
type timed struct {
	storage.Storage
	t    *Timers
	read TimerRead
}

// Unwrap is the store under the timers (the fence's registry).
func (s *timed) Unwrap() storage.Storage { return s.Storage }

// openReader is a storage whose Open reads every value it holds (the read
// side, tablestore.go): the timers ride on that pass.
type openReader interface {
	alsoAtOpen(func(key string, value []byte))
}

func (s *timed) Open() error {
	if r, ok := s.Storage.(openReader); ok {
		r.alsoAtOpen(s.put)
		return s.Storage.Open()
	}
	if err := s.Storage.Open(); err != nil {
		return err
	}
	it, err := s.Storage.Iterator()
	if err != nil {
		return err
	}
	defer it.Release()
	for it.Next() {
		if v, err := it.Value(); err == nil && v != nil {
			s.put(string(it.Key()), v)
		}
	}
	return it.Err()
}

// timerOf is value's timer, 0 when its reader says it has none, whatever
// number comes with that (a trade's value keeps minus its last timer: put
// as a time, it was due at once, and every matched trade wrote an
// allegement record that found nothing to send).
func (s *timed) timerOf(value []byte) int64 {
	if at, ok := s.read(value); ok {
		return at
	}
	return 0
}

// put reads a value held at open into the timers.
func (s *timed) put(key string, v []byte) { s.t.Put(key, s.timerOf(v)) }

func (s *timed) Set(key string, value []byte) error {
	if err := s.Storage.Set(key, value); err != nil {
		return err
	}
	s.t.Put(key, s.timerOf(value))
	return nil
}

func (s *timed) Delete(key string) error {
	if err := s.Storage.Delete(key); err != nil {
		return err
	}
	s.t.Put(key, 0)
	return nil
}

// Timed wraps a table's storage builder so that each partition's storage
// keeps timers of its own, read from its values by read, registered with
// set (replacing the partition's previous ones).
func Timed(set *TimerSet, read TimerRead, b storage.Builder) storage.Builder {
	return func(topic string, p int32) (storage.Storage, error) {
		st, err := b(topic, p)
		if err != nil {
			return nil, err
		}
		t := NewTimers()
		set.opened(p, t)
		return &timed{Storage: st, t: t, read: read}, nil
	}
}

// TimerSet is the timers of the partitions a stage owns now.
type TimerSet struct {
	mu sync.Mutex
	of map[int32]*Timers
}

func (ts *TimerSet) opened(p int32, t *Timers) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.of == nil {
		ts.of = map[int32]*Timers{}
	}
	ts.of[p] = t
}

// Keep forgets the timers of the partitions not in keep (nil: all): a
// partition given away is timed by its new owner.
func (ts *TimerSet) Keep(keep []int32) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for p := range ts.of {
		if !slices.Contains(keep, p) {
			delete(ts.of, p)
		}
	}
}

// Each calls f with each partition's timers.
func (ts *TimerSet) Each(f func(p int32, t *Timers)) {
	ts.mu.Lock()
	parts := make(map[int32]*Timers, len(ts.of))
	for p, t := range ts.of {
		parts[p] = t
	}
	ts.mu.Unlock()
	for p, t := range parts {
		f(p, t)
	}
}
