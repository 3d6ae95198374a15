// Package memstore is a goka table storage held in a Go map, with an index of
// when each entry falls due. goka's LevelDB storage costs two disk writes per
// message and its memory storage re-sorts its keys on every insert (slow past
// ~100k keys); a map costs neither. The state is rebuilt from the changelog on
// every start, which also keeps instances sharing one $STE_HOME from fighting
// over local files.
//
// The due index is what retention needs: goka gives a processor no clock,
// and calls it for a key by a message or a visit of the whole table
// (VisitAll), never by due time, so the store remembers, for each key, the
// event time at which it must be looked at again, and the largest event
// time written (the partition's event-time clock).
package memstore

import (
	"container/heap"
	"sort"
	"sync"

	"github.com/lovoo/goka/storage"

	"github.com/ste-utility/ste/processors/fence"
)

// Index reads from a stored value the event time it falls due at (ok false:
// never) and its watermark contribution (the clock is the largest seen).
type Index func(value []byte) (due int64, watermark int64, ok bool)

// Store is one partition's table. It is safe for concurrent use: goka writes
// from the partition goroutine, metrics and views read from others.
type Store struct {
	mu        sync.RWMutex
	m         map[string][]byte
	offset    int64
	hasOffset bool
	index     Index
	due       dueHeap
	clock     int64
	// handedOut are keys Due returned, whose index entry is gone: their next
	// value needs an entry whatever its due time.
	handedOut map[string]bool
	// epoch is the latest ownership whose writes were applied (package
	// fence); end the changelog's end when the recovery was done.
	epoch fence.Epoch
	end   int64
}

// New returns an empty store; index may be nil.
func New(index Index) *Store {
	return &Store{m: map[string][]byte{}, index: index, handedOut: map[string]bool{}}
}

// Builder returns a goka storage builder making one Store per partition and
// reporting each to onOpen (so the processor can reach its partition's store).
func Builder(index Index, onOpen func(topic string, partition int32, s *Store)) storage.Builder {
	return func(topic string, partition int32) (storage.Storage, error) {
		s := New(index)
		if onOpen != nil {
			onOpen(topic, partition, s)
		}
		return s, nil
	}
}

func (s *Store) Open() error  { return nil }
func (s *Store) Close() error { return nil }

// MarkRecovered ends goka's replay: the changelog's end is where the offset
// reached.
func (s *Store) MarkRecovered() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hasOffset {
		s.end = s.offset + 1
	}
	return nil
}

// RecoveredEnd is the changelog's end offset when goka's replay was done
// (0 before, or for an empty changelog).
func (s *Store) RecoveredEnd() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.end
}

// Epoch is the latest ownership of the partition whose writes were applied
// (fence.Epoch; zero: none stamped).
func (s *Store) Epoch() fence.Epoch {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.epoch
}

// RaiseEpoch records that writes of ownership e are applied from now on.
func (s *Store) RaiseEpoch(e fence.Epoch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.epoch = s.epoch.Max(e)
	return nil
}

func (s *Store) Has(key string) (bool, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.m[key]
	return ok, nil
}

func (s *Store) Get(key string) ([]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.m[key], nil
}

// Set stores a value; goka hands over a buffer it does not reuse.
func (s *Store) Set(key string, value []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, existed := s.m[key]
	s.m[key] = value
	if s.index == nil {
		return nil
	}
	due, wm, ok := s.index(value)
	if !ok {
		return nil
	}
	s.clock = max(s.clock, wm)
	// The index holds, for every key, an entry due no later than its value.
	// A value due later than the one it replaces needs no new entry: the old
	// one pops early and Due re-indexes the key then. A trade updated seven
	// times keeps one entry instead of seven.
	if existed && !s.handedOut[key] {
		if oldDue, _, ok := s.index(old); ok && oldDue <= due {
			return nil
		}
	}
	delete(s.handedOut, key)
	heap.Push(&s.due, entry{due, key})
	return nil
}

func (s *Store) Delete(key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
	delete(s.handedOut, key)
	return nil
}

func (s *Store) GetOffset(def int64) (int64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if !s.hasOffset {
		return def, nil
	}
	return s.offset, nil
}

func (s *Store) SetOffset(offset int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.offset, s.hasOffset = offset, true
	return nil
}

// Clock is the largest watermark of any value written.
func (s *Store) Clock() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.clock
}

// Len is the number of keys.
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.m)
}

// Due removes from the index and returns the keys whose current value is due
// at or before now; a key whose value is due later now is indexed again.
func (s *Store) Due(now int64) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var keys []string
	var seen map[string]bool
	for len(s.due) > 0 && s.due[0].at <= now {
		e := heap.Pop(&s.due).(entry)
		v, ok := s.m[e.key]
		if !ok {
			continue
		}
		due, _, ok := s.index(v)
		switch {
		case !ok:
		case due <= now:
			if !seen[e.key] { // a key may have several entries due
				if seen == nil {
					seen = map[string]bool{}
				}
				seen[e.key] = true
				s.handedOut[e.key] = true
				keys = append(keys, e.key)
			}
		default:
			heap.Push(&s.due, entry{due, e.key}) // it moved on: index it again
		}
	}
	return keys
}

// DropDue deletes, without telling goka, the keys due at or before now: for
// tables whose changelog forgets by time on its own (no tombstone needed).
func (s *Store) DropDue(now int64) int {
	keys := s.Due(now)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keys {
		delete(s.m, k)
		delete(s.handedOut, k)
	}
	return len(keys)
}

// Iterator walks the keys in sorted order (goka's views and tools use it;
// the hot path does not).
func (s *Store) Iterator() (storage.Iterator, error) { return s.IteratorWithRange(nil, nil) }

func (s *Store) IteratorWithRange(start, limit []byte) (storage.Iterator, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	it := &iterator{pos: -1}
	for k, v := range s.m {
		if (start == nil || k >= string(start)) && (limit == nil || k < string(limit)) {
			it.keys = append(it.keys, k)
			it.vals = append(it.vals, v)
		}
	}
	sort.Sort(it)
	return it, nil
}

type iterator struct {
	keys []string
	vals [][]byte
	pos  int
}

func (it *iterator) Len() int           { return len(it.keys) }
func (it *iterator) Less(i, j int) bool { return it.keys[i] < it.keys[j] }
func (it *iterator) Swap(i, j int) {
	it.keys[i], it.keys[j] = it.keys[j], it.keys[i]
	it.vals[i], it.vals[j] = it.vals[j], it.vals[i]
}
func (it *iterator) Next() bool             { it.pos++; return it.pos < len(it.keys) }
func (it *iterator) Err() error             { return nil }
func (it *iterator) Key() []byte            { return []byte(it.keys[it.pos]) }
func (it *iterator) Value() ([]byte, error) { return it.vals[it.pos], nil }
func (it *iterator) Release()               {}
func (it *iterator) Seek(key []byte) bool {
	it.pos = sort.SearchStrings(it.keys, string(key)) - 1
	return it.pos+1 < len(it.keys)
}

type entry struct {
	at  int64
	key string
}

type dueHeap []entry

func (h dueHeap) Len() int { return len(h) }
func (h dueHeap) Less(i, j int) bool {
	return h[i].at < h[j].at || h[i].at == h[j].at && h[i].key < h[j].key
}
func (h dueHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *dueHeap) Push(x any)   { *h = append(*h, x.(entry)) }
func (h *dueHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
