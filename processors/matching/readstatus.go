package matching

import (
	"encoding/binary"

	"github.com/ste-utility/ste/schemas"
)

// ReadStatus reads what a stored trade says of its status without decoding
// it: whether its CLS stands, the last STATUS sent and its newest Created.
// It reads the fixed prefix MarshalBinary writes (header, Version, Live,
// LiveDigest, StatusN, Last.Status), so the match partitions' status index
// (processors/query) can follow every write at the cost of a few bytes.
// ok is false for a tombstone or a value of another layout.
func ReadStatus(b []byte) (live bool, status schemas.Status, newest int64, ok bool) {
	tomb, at, hok := Header(b)
	if !hok || tomb || b[1] != kindTrade {
		return false, 0, 0, false
	}
	p := b[headerLen:]
	_, n := binary.Uvarint(p) // Version
	if n <= 0 || len(p) < n+1+16 {
		return false, 0, 0, false
	}
	live = p[n] == 1
	p = p[n+1+16:]
	_, n = binary.Uvarint(p) // StatusN
	if n <= 0 || len(p) < n+1 {
		return false, 0, 0, false
	}
	return live, schemas.Status(p[n]), at, true
}
