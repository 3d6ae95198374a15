package diskstore

import (
	"encoding/binary"
	"errors"

	"github.com/ste-utility/ste/processors/fence"
)

// Key layout of the Pebble database (all integers big-endian):
//
//	\x00c <topic> \x00 <partition:4>     catalogue: the partition's 4-byte id
//	\x00n                                the next id
//	T <id:4> v <key>                     a value
//	T <id:4> d <due:8> <key>             the due index (due with its sign bit flipped, so it sorts)
//	T <id:4> m                           the partition's meta (layout below)
//	T <id:4> p                           present: rebuild at the next open
//
// Everything of a partition shares its prefix T<id>, so wiping a partition is
// one range deletion.

const nextIDKey = "\x00n"

func catalogueKey(topic string, partition int32) []byte {
	k := append([]byte("\x00c"), topic...)
	k = append(k, 0)
	return put32(k, uint32(partition))
}

func tablePrefix(id []byte) []byte { return append([]byte{'T'}, id...) }

func put32(b []byte, v uint32) []byte { return binary.BigEndian.AppendUint32(b, v) }
func be32(b []byte) uint32            { return binary.BigEndian.Uint32(b) }

func (s *Store) valueKey(key string) []byte {
	k := make([]byte, 0, len(s.pfx)+1+len(key))
	k = append(append(k, s.pfx...), 'v')
	return append(k, key...)
}

func (s *Store) dueKey(due int64, key string) []byte {
	k := make([]byte, 0, len(s.pfx)+9+len(key))
	k = append(append(k, s.pfx...), 'd')
	k = binary.BigEndian.AppendUint64(k, uint64(due)^1<<63)
	return append(k, key...)
}

func (s *Store) sub(c byte) []byte { return append(append([]byte{}, s.pfx...), c) }

// parseDue splits a due index key (without the prefix and 'd').
func parseDue(rest []byte) (int64, string, bool) {
	if len(rest) < 8 {
		return 0, "", false
	}
	return int64(binary.BigEndian.Uint64(rest) ^ 1<<63), string(rest[8:]), true
}

// prefixEnd is the smallest key after every key starting with p.
func prefixEnd(p []byte) []byte {
	end := append([]byte{}, p...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// layoutVersion changes when the meaning of stored bytes changes; a
// partition written by another layout is rebuilt from its changelog.
const layoutVersion = 1

// meta is what a partition's commit records besides its values.
type meta struct {
	version   byte
	hasOffset bool
	offset    int64 // every changelog record up to it is reflected
	ref       int64 // unix ns: every record after offset was appended after it
	clock     int64 // the largest watermark written
	count     int64 // keys
	// topicID is the changelog's topic id (zero: not known). A changelog
	// deleted and created again under the same name has another id, and
	// offsets that mean nothing for the local state.
	topicID [16]byte
	// epoch is the latest ownership of the partition whose writes are
	// reflected up to offset (package fence; zero: none stamped).
	epoch fence.Epoch
}

func (m meta) encode() []byte {
	b := []byte{m.version, 0}
	if m.hasOffset {
		b[1] = 1
	}
	b = binary.AppendVarint(b, m.offset)
	b = binary.AppendVarint(b, m.ref)
	b = binary.AppendVarint(b, m.clock)
	b = binary.AppendVarint(b, m.count)
	if m.topicID != ([16]byte{}) || !m.epoch.IsZero() {
		b = append(b, m.topicID[:]...)
	}
	if !m.epoch.IsZero() {
		b = binary.AppendVarint(b, m.epoch.End)
		b = binary.AppendVarint(b, int64(m.epoch.Generation))
	}
	return b
}

var errMeta = errors.New("diskstore: unreadable partition meta")

func decodeMeta(b []byte) (meta, error) {
	if len(b) < 2 {
		return meta{}, errMeta
	}
	m := meta{version: b[0], hasOffset: b[1]&1 != 0}
	b = b[2:]
	for _, p := range []*int64{&m.offset, &m.ref, &m.clock, &m.count} {
		v, n := binary.Varint(b)
		if n <= 0 {
			return meta{}, errMeta
		}
		*p, b = v, b[n:]
	}
	// The topic id came later, in the same layout: a meta without it is
	// read as "not known" and gains it at the next commit. The epoch came
	// after it (written with the id, zero if unknown): a meta without it
	// reads as none, and a build before it reads the id and stops there.
	if len(b) >= len(m.topicID) {
		copy(m.topicID[:], b)
		b = b[len(m.topicID):]
		if len(b) > 0 {
			end, n := binary.Varint(b)
			if n <= 0 {
				return meta{}, errMeta
			}
			gen, k := binary.Varint(b[n:])
			if k <= 0 {
				return meta{}, errMeta
			}
			m.epoch = fence.Epoch{End: end, Generation: int32(gen)}
		}
	}
	return m, nil
}
