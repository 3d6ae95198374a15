package changelog

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/ste-utility/ste/topology"
)

// The identity changelog in batches (docs/ARCHITECTURE.md, "Identity
// changelog in batches"): the identity stage's producer writes many table
// writes as one record (processors/produce), keyed BatchPrefix… so that
// every batch record has a key of its own, its value a version byte and
// (key, value) pairs. Wherever the changelog is read — goka's restore and
// hot standbys (the identity table's update callback), ste migrate — a
// batch record stands for the writes it holds (EachValue).

const (
	// BatchPrefix starts every batch record's key. No identity has it: an
	// accepted identity's Sender is a participant's BIC.
	BatchPrefix = "~batch:"
	batchV1     = 1
)

// ErrBatch: a batch record's value cannot be read (from where it is said).
var ErrBatch = errors.New("table batch record unreadable")

// IsBatch says whether a changelog record's key is a batch record's.
func IsBatch(key string) bool { return strings.HasPrefix(key, BatchPrefix) }

// AppendEntry adds one write (key, value) to a batch record's value (nil
// or empty: a new one). A nil value is a deletion (a withdrawn claim,
// processors/stages): EachEntry gives it back as nil.
func AppendEntry(b []byte, key string, value []byte) []byte {
	if len(b) == 0 {
		b = append(b, batchV1)
	}
	b = binary.AppendUvarint(b, uint64(len(key)))
	b = append(b, key...)
	b = binary.AppendUvarint(b, uint64(len(value)))
	return append(b, value...)
}

// EachEntry calls fn with every write of a batch record's value, in the
// order written; ErrBatch once the rest cannot be read.
func EachEntry(b []byte, fn func(key string, value []byte) error) error {
	if len(b) == 0 || b[0] != batchV1 {
		return ErrBatch
	}
	b = b[1:]
	for len(b) > 0 {
		var parts [2][]byte
		for i := range parts {
			n, w := binary.Uvarint(b)
			if w <= 0 || n > uint64(len(b)-w) {
				return ErrBatch
			}
			parts[i], b = b[w:w+int(n)], b[w+int(n):]
		}
		v := parts[1]
		if len(v) == 0 {
			v = nil // a deletion (no table value is empty)
		}
		if err := fn(string(parts[0]), v); err != nil {
			return err
		}
	}
	return nil
}

// EachValue calls fn with the (key, value) pairs a record of the changelog
// of stage st's table stands for: a batch record's writes, or the record
// itself (ste migrate reads the changelogs with it). Only the identity
// table is written in batches.
func EachValue(st topology.Stage, key string, value []byte, fn func(key string, value []byte)) error {
	if st != topology.StageIdentity || !IsBatch(key) {
		fn(key, value)
		return nil
	}
	return EachEntry(value, func(k string, v []byte) error { fn(k, v); return nil })
}

// BatchKey is a key for a batch record of partition p of n: its own (a
// random nonce) and landing in p under the shared partitioner.
func BatchKey(p, n int32) string {
	base := BatchPrefix + strconv.FormatUint(rand.Uint64(), 16) + ":"
	for i := 0; ; i++ {
		if k := base + strconv.Itoa(i); int32(topology.Partition([]byte(k), int(n))) == p {
			return k
		}
	}
}
