package envelope

import (
	"encoding/binary"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/schemas"
)

// Identity is the identity table's value: the digest accepted under an
// identity, its Created (for forgetting it after the retention) and its
// trade. Its layout: the layout byte, the digest, Created and the trade key
// (33 bytes).
type Identity struct {
	Digest   matching.Digest
	Created  int64
	TradeKey schemas.TradeKey
}

// Marshal encodes the identity table value.
func (ie Identity) Marshal() []byte {
	b := make([]byte, 0, 33)
	b = append(b, layoutV1)
	b = append(b, ie.Digest[:]...)
	b = binary.BigEndian.AppendUint64(b, uint64(ie.Created))
	return binary.BigEndian.AppendUint64(b, uint64(ie.TradeKey))
}

// UnmarshalIdentity decodes Marshal; ok is false for anything else.
func UnmarshalIdentity(b []byte) (ie Identity, ok bool) {
	if len(b) != 33 || b[0] != layoutV1 {
		return Identity{}, false
	}
	copy(ie.Digest[:], b[1:17])
	ie.Created = int64(binary.BigEndian.Uint64(b[17:25]))
	ie.TradeKey = schemas.TradeKey(binary.BigEndian.Uint64(b[25:33]))
	return ie, true
}
