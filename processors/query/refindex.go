package query

import (
	"hash/maphash"
	"log/slog"
	"slices"
	"sync"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/schemas"
)

// refIndex finds the trades of one match partition by TradeRef without a
// scan: TradeRef (by its hash) → trade keys. It is built from the whole
// table once the partition is recovered (goka's MarkRecovered: the table
// then holds every trade, whichever storage kept it; Partition.Recovered)
// and kept as the match stage writes, from the refs read out of each value
// (matching.Refs reads them without decoding the trade). A hash collision of two TradeRefs only
// costs a read: the trades found are checked for the TradeRef itself.
//
// Before recovery it is not ready, and a lookup of the partition says so
// rather than answering from part of the table.
type refIndex struct {
	mu    sync.RWMutex
	ready bool
	byRef map[uint64]set64 // TradeRef hash → the trade keys with it
	refOf map[uint64]set64 // trade key → the TradeRef hashes indexed for it
}

// set64 is a small set of uint64s, never empty (an empty one is deleted
// from its map): one inline (the common case: one trade per TradeRef, one
// TradeRef per trade), any more in a slice.
type set64 struct {
	one  uint64
	more []uint64
}

func (s set64) has(v uint64) bool { return s.one == v || slices.Contains(s.more, v) }

func (s set64) add(v uint64) set64 {
	if !s.has(v) {
		s.more = append(s.more, v)
	}
	return s
}

// remove returns the set without v; ok is false when nothing is left.
func (s set64) remove(v uint64) (_ set64, ok bool) {
	switch {
	case s.one == v && len(s.more) == 0:
		return set64{}, false
	case s.one == v:
		s.one, s.more = s.more[len(s.more)-1], s.more[:len(s.more)-1]
	default:
		if i := slices.Index(s.more, v); i >= 0 {
			s.more = slices.Delete(s.more, i, i+1)
		}
	}
	if len(s.more) == 0 {
		s.more = nil
	}
	return s, true
}

// equal reports whether s and t hold the same values (in any order).
func (s set64) equal(t set64) bool {
	if len(s.more) != len(t.more) {
		return false
	}
	if !t.has(s.one) {
		return false
	}
	for _, v := range s.more {
		if !t.has(v) {
			return false
		}
	}
	return true
}

func (s set64) each(f func(uint64)) {
	f(s.one)
	for _, v := range s.more {
		f(v)
	}
}

var refSeed = maphash.MakeSeed()

func newRefIndex() *refIndex {
	return &refIndex{byRef: map[uint64]set64{}, refOf: map[uint64]set64{}}
}

func (x *refIndex) keys(ref string) ([]schemas.TradeKey, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if !x.ready {
		return nil, false
	}
	ks, ok := x.byRef[maphash.String(refSeed, ref)]
	if !ok {
		return nil, true
	}
	var out []schemas.TradeKey
	ks.each(func(k uint64) { out = append(out, schemas.TradeKey(k)) })
	return out, true
}

// putLocked indexes key under the refs of value (replacing what it had).
func (x *refIndex) putLocked(key uint64, value []byte) {
	refs, err := matching.Refs(value)
	if err != nil || len(refs) == 0 {
		x.deleteLocked(key)
		return
	}
	rs := set64{one: maphash.Bytes(refSeed, refs[0])}
	for _, r := range refs[1:] {
		rs = rs.add(maphash.Bytes(refSeed, r))
	}
	// Most writes of a trade leave its refs as they were (a trade's refs
	// are set by its first messages): the maps, an entry a trade of the
	// partition, are then left alone rather than emptied and refilled.
	if old, ok := x.refOf[key]; ok && old.equal(rs) {
		return
	}
	x.deleteLocked(key)
	x.refOf[key] = rs
	rs.each(func(h uint64) {
		if ks, ok := x.byRef[h]; ok {
			x.byRef[h] = ks.add(key)
		} else {
			x.byRef[h] = set64{one: key}
		}
	})
}

func (x *refIndex) deleteLocked(key uint64) {
	rs, ok := x.refOf[key]
	if !ok {
		return
	}
	delete(x.refOf, key)
	rs.each(func(h uint64) {
		if ks, ok := x.byRef[h].remove(key); ok {
			x.byRef[h] = ks
		} else {
			delete(x.byRef, h)
		}
	})
}

// put indexes key under the refs of value, once the index is built.
func (x *refIndex) put(key uint64, value []byte) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.ready {
		x.putLocked(key, value)
	}
}

// delete takes key out of the index, once it is built.
func (x *refIndex) delete(key uint64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.ready {
		x.deleteLocked(key)
	}
}

// rebuild builds the index from every value of the table and makes it
// ready; each is told every trade key of the table.
func (x *refIndex) rebuild(it Iterator, log *slog.Logger, each func(uint64)) {
	x.mu.Lock()
	defer x.mu.Unlock()
	clear(x.byRef)
	clear(x.refOf)
	for it.Next() {
		k, ok := schemas.ParseTradeKey(string(it.Key()))
		if !ok {
			continue
		}
		each(uint64(k))
		v, err := it.Value()
		if err != nil {
			log.Warn("trade lookup index: a value not read", "key", k.String(), "err", err)
			continue
		}
		x.putLocked(uint64(k), v)
	}
	x.ready = true
}
