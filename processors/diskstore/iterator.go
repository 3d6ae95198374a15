package diskstore

import (
	"bytes"
	"slices"
	"strings"

	"github.com/cockroachdb/pebble/v2"
	"github.com/lovoo/goka/storage"
)

// Iterator walks the keys in order: the committed values merged with the
// pending ones (goka's views and tools use it; the hot path does not).
func (s *Store) Iterator() (storage.Iterator, error) { return s.IteratorWithRange(nil, nil) }

// IteratorWithRange walks [start, limit); nil is unbounded.
func (s *Store) IteratorWithRange(start, limit []byte) (storage.Iterator, error) {
	vp := s.sub('v')
	lo, hi := append(bytes.Clone(vp), start...), prefixEnd(vp)
	if limit != nil {
		hi = append(bytes.Clone(vp), limit...)
	}
	s.mu.RLock()
	it := &iterator{vp: vp}
	for k, p := range s.pend {
		if (start == nil || k >= string(start)) && (limit == nil || k < string(limit)) {
			it.pend = append(it.pend, kv{k, p.v})
		}
	}
	// Taken under the lock: a commit cannot move a value from pend to
	// Pebble between the two snapshots.
	var err error
	it.it, err = s.db.pdb.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	s.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	slices.SortFunc(it.pend, func(a, b kv) int { return strings.Compare(a.k, b.k) })
	it.it.First()
	return it, nil
}

type kv struct {
	k string
	v []byte // nil: deleted
}

type iterator struct {
	pend []kv
	pi   int
	it   *pebble.Iterator
	vp   []byte // the value keys' prefix
	key  []byte
	val  []byte
	// Seek looks one pair ahead.
	peeked   bool
	pk, pv   []byte
	peekedOK bool
}

// next consumes the smallest candidate; ok false at the end. Deleted
// pending keys hide their committed values.
func (i *iterator) next() (k, v []byte, ok bool) {
	for {
		var dk []byte
		if i.it.Valid() {
			dk = i.it.Key()[len(i.vp):]
		}
		hasP := i.pi < len(i.pend)
		switch {
		case !hasP && dk == nil:
			return nil, nil, false
		case hasP && (dk == nil || bytes.Compare([]byte(i.pend[i.pi].k), dk) <= 0):
			p := i.pend[i.pi]
			i.pi++
			if dk != nil && p.k == string(dk) {
				i.it.Next()
			}
			if p.v == nil {
				continue
			}
			return []byte(p.k), p.v, true
		default:
			k, v := bytes.Clone(dk), bytes.Clone(i.it.Value())
			i.it.Next()
			return k, v, true
		}
	}
}

func (i *iterator) Next() bool {
	if i.peeked {
		i.peeked = false
		i.key, i.val = i.pk, i.pv
		return i.peekedOK
	}
	var ok bool
	i.key, i.val, ok = i.next()
	return ok
}

func (i *iterator) Err() error             { return i.it.Error() }
func (i *iterator) Key() []byte            { return i.key }
func (i *iterator) Value() ([]byte, error) { return i.val, nil }
func (i *iterator) Release()               { i.it.Close() }

// Seek positions before the first key >= key (Next returns it) and says
// whether there is one.
func (i *iterator) Seek(key []byte) bool {
	i.pi, _ = slices.BinarySearchFunc(i.pend, string(key), func(a kv, k string) int { return strings.Compare(a.k, k) })
	i.it.SeekGE(append(bytes.Clone(i.vp), key...))
	i.pk, i.pv, i.peekedOK = i.next()
	i.peeked = true
	return i.peekedOK
}
