// Package bin reads and writes the pieces of STE's internal binary layouts
// (the pipeline's envelopes, schemas' compact message): varints and
// length-prefixed bytes, read with every length checked against what is
// left, so that a corrupt value fails to read instead of panicking or
// allocating what its lengths claim.
package bin

import "encoding/binary"

// Reader reads from B. The first read that does not fit sets Bad; later
// reads return zero values.
type Reader struct {
	B   []byte
	Bad bool
}

// Take returns the next n bytes (aliasing B).
func (r *Reader) Take(n int) []byte {
	if n < 0 || n > len(r.B) {
		r.Bad = true
		r.B = nil
		return make([]byte, max(n, 0))
	}
	v := r.B[:n:n]
	r.B = r.B[n:]
	return v
}

// Byte reads one byte.
func (r *Reader) Byte() byte { return r.Take(1)[0] }

// Varint reads a signed varint.
func (r *Reader) Varint() int64 {
	v, n := binary.Varint(r.B)
	if n <= 0 {
		r.Bad = true
		return 0
	}
	r.B = r.B[n:]
	return v
}

// Uvarint reads an unsigned varint.
func (r *Reader) Uvarint() uint64 {
	v, n := binary.Uvarint(r.B)
	if n <= 0 {
		r.Bad = true
		return 0
	}
	r.B = r.B[n:]
	return v
}

// Bytes reads what AppendString wrote: a uvarint length and that many bytes
// (aliasing B).
func (r *Reader) Bytes() []byte {
	n := r.Uvarint()
	if n > uint64(len(r.B)) {
		r.Bad = true
		return nil
	}
	return r.Take(int(n))
}

// AppendString appends s with its length in front.
func AppendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}
