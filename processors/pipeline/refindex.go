package pipeline

import (
	"hash/maphash"
	"log/slog"
	"sync"

	"github.com/lovoo/goka/storage"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/schemas"
)

// refIndex finds the trades of one match partition by TradeRef without a
// scan: TradeRef (by its hash) → trade keys. It is built from the whole
// table once the partition is recovered (goka's MarkRecovered: the table
// then holds every trade, whichever storage kept it) and kept as the match
// stage writes, from the refs read out of each value (matching.Refs reads
// them without decoding the trade). A hash collision of two TradeRefs only
// costs a read: the trades found are checked for the TradeRef itself.
//
// Before recovery it is not ready, and a lookup of the partition says so
// rather than answering from part of the table.
type refIndex struct {
	mu    sync.RWMutex
	ready bool
	byRef map[uint64]refKeys // TradeRef hash → the trade keys with it
	refOf map[uint64]refSet  // trade key → the TradeRef hashes indexed for it
}

// refKeys holds one key inline (the common case) and any more in a slice.
type refKeys struct {
	one  uint64
	more []uint64
}

// refSet is the refs of one trade: one, barring a trade key collision.
type refSet struct {
	one  uint64
	more []uint64
}

var refSeed = maphash.MakeSeed()

func refHash(ref []byte) uint64 { return maphash.Bytes(refSeed, ref) }

func newRefIndex() *refIndex {
	return &refIndex{byRef: map[uint64]refKeys{}, refOf: map[uint64]refSet{}}
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
	out := append(make([]schemas.TradeKey, 0, 1+len(ks.more)), schemas.TradeKey(ks.one))
	for _, k := range ks.more {
		out = append(out, schemas.TradeKey(k))
	}
	return out, true
}

// putLocked indexes key under the refs of value (replacing what it had).
func (x *refIndex) putLocked(key uint64, value []byte) {
	x.deleteLocked(key)
	refs, err := matching.Refs(value)
	if err != nil || len(refs) == 0 {
		return
	}
	var rs refSet
	for i, r := range refs {
		h := refHash(r)
		if i == 0 {
			rs.one = h
		} else if h != rs.one {
			rs.more = append(rs.more, h)
		}
	}
	x.refOf[key] = rs
	x.addLocked(rs.one, key)
	for _, h := range rs.more {
		x.addLocked(h, key)
	}
}

func (x *refIndex) addLocked(h, key uint64) {
	ks, ok := x.byRef[h]
	if !ok {
		x.byRef[h] = refKeys{one: key}
		return
	}
	if ks.one == key {
		return
	}
	for _, k := range ks.more {
		if k == key {
			return
		}
	}
	ks.more = append(ks.more, key)
	x.byRef[h] = ks
}

func (x *refIndex) deleteLocked(key uint64) {
	rs, ok := x.refOf[key]
	if !ok {
		return
	}
	delete(x.refOf, key)
	x.removeLocked(rs.one, key)
	for _, h := range rs.more {
		x.removeLocked(h, key)
	}
}

func (x *refIndex) removeLocked(h, key uint64) {
	ks, ok := x.byRef[h]
	if !ok {
		return
	}
	switch {
	case ks.one == key && len(ks.more) == 0:
		delete(x.byRef, h)
		return
	case ks.one == key:
		ks.one, ks.more = ks.more[len(ks.more)-1], ks.more[:len(ks.more)-1]
	default:
		for i, k := range ks.more {
			if k == key {
				ks.more[i] = ks.more[len(ks.more)-1]
				ks.more = ks.more[:len(ks.more)-1]
				break
			}
		}
	}
	if len(ks.more) == 0 {
		ks.more = nil
	}
	x.byRef[h] = ks
}

// indexed is a match partition's storage that keeps its refIndex.
type indexed struct {
	storage.Storage
	x   *refIndex
	log *slog.Logger
}

func (s *indexed) Set(key string, value []byte) error {
	if err := s.Storage.Set(key, value); err != nil {
		return err
	}
	s.x.mu.Lock()
	defer s.x.mu.Unlock()
	if s.x.ready {
		if k, ok := schemas.ParseTradeKey(key); ok {
			s.x.putLocked(uint64(k), value)
		}
	}
	return nil
}

func (s *indexed) Delete(key string) error {
	if err := s.Storage.Delete(key); err != nil {
		return err
	}
	s.x.mu.Lock()
	defer s.x.mu.Unlock()
	if s.x.ready {
		if k, ok := schemas.ParseTradeKey(key); ok {
			s.x.deleteLocked(uint64(k))
		}
	}
	return nil
}

// MarkRecovered builds the index from the recovered table: every write
// before it was the changelog's replay, which the table now holds.
func (s *indexed) MarkRecovered() error {
	if err := s.Storage.MarkRecovered(); err != nil {
		return err
	}
	it, err := s.Storage.Iterator()
	if err != nil {
		return err
	}
	defer it.Release()
	s.x.mu.Lock()
	defer s.x.mu.Unlock()
	clear(s.x.byRef)
	clear(s.x.refOf)
	for it.Next() {
		k, ok := schemas.ParseTradeKey(string(it.Key()))
		if !ok {
			continue
		}
		v, err := it.Value()
		if err != nil {
			s.log.Warn("trade lookup index: a value not read", "key", k.String(), "err", err)
			continue
		}
		s.x.putLocked(uint64(k), v)
	}
	s.x.ready = true
	return nil
}

// indexedBuilder wraps a match table's storage builder so that each
// partition's storage keeps a refIndex, registered with the stages.
func (s *stages) indexedBuilder(b storage.Builder) storage.Builder {
	return func(topic string, p int32) (storage.Storage, error) {
		st, err := b(topic, p)
		if err != nil {
			return nil, err
		}
		x := newRefIndex()
		s.mu.Lock()
		s.matchRefs[p] = x
		s.mu.Unlock()
		return &indexed{Storage: st, x: x, log: s.cfg.Logger}, nil
	}
}
