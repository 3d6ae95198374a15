package diskstore

import (
	"hash/maphash"
	"math/bits"
)

// keyFilter is an in-memory Bloom filter of a partition's keys: a key it
// does not hold was never written and is not in Pebble, so its read is
// answered without one. Most reads of STE's tables are of keys that are not
// there — every message's identity is new, every trade's first message finds
// none — and a Pebble read of an absent key still walks every memtable and
// level (each level's bloom filter, behind a file and block cache lookup):
// the filter in front of Pebble is what makes disk tables cost little more
// than memory ones for those reads.
//
// It grows as keys are added (a chain of filters, each twice the capacity
// of the one before, all asked), never forgets a key (a deleted key is a
// false positive: one Pebble read), and is replaced by a fresh one built from
// Pebble once it holds far more keys than the partition has (see
// Store.addKeyLocked).
type keyFilter struct {
	parts []part
	n     int // keys added (distinct, give or take the false positives)
}

type part struct {
	bits []uint64
	mask uint64 // bit index mask (the length in bits is a power of two)
	cap  int    // keys before the next part is started
	n    int
}

const (
	filterBitsPerKey = 10 // with filterProbes: ~1% false positives a part
	filterProbes     = 7
	filterMinKeys    = 1 << 16
)

// One seed per process: the filter is never stored.
var filterSeed = maphash.MakeSeed()

func newKeyFilter(keys int) *keyFilter {
	f := &keyFilter{}
	f.grow(max(keys, filterMinKeys))
	return f
}

func (f *keyFilter) grow(keys int) {
	nbits := uint64(1) << bits.Len64(uint64(keys*filterBitsPerKey-1))
	f.parts = append(f.parts, part{bits: make([]uint64, nbits/64), mask: nbits - 1, cap: keys})
}

// add puts key in the filter. A key the filter already seems to hold is not
// added again (it will always seem to: bits are never cleared), so n counts
// distinct keys, give or take the false positives.
func (f *keyFilter) add(key string) {
	if f.has(key) {
		return
	}
	p := &f.parts[len(f.parts)-1]
	if p.n >= p.cap {
		f.grow(p.cap * 2)
		p = &f.parts[len(f.parts)-1]
	}
	h1, h2 := filterHash(key)
	for i := uint64(0); i < filterProbes; i++ {
		b := (h1 + i*h2) & p.mask
		p.bits[b/64] |= 1 << (b % 64)
	}
	p.n++
	f.n++
}

// has says whether key may have been added (false: it certainly was not).
func (f *keyFilter) has(key string) bool {
	h1, h2 := filterHash(key)
	for i := range f.parts {
		p := &f.parts[i]
		if p.n == 0 {
			continue
		}
		in := true
		for j := uint64(0); j < filterProbes && in; j++ {
			b := (h1 + j*h2) & p.mask
			in = p.bits[b/64]&(1<<(b%64)) != 0
		}
		if in {
			return true
		}
	}
	return false
}

// filterHash is the pair of hashes the probes combine (Kirsch and
// Mitzenmacher): the halves of one 64-bit hash, the step odd.
func filterHash(key string) (uint64, uint64) {
	h := maphash.String(filterSeed, key)
	return h & 0xffffffff, h>>32 | 1
}
