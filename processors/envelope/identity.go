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

// Release is what the match stage sends back to the identity stage, on
// <ns>.v1.verdicts keyed by the identity, for a message the identity stage
// accepted and its trade rejected (KEY_COLLISION, or CONFLICTING_DUPLICATE
// of a message the identity stage had forgotten): a rejected message does
// not claim its MsgId (messages.md §4), so the claim is withdrawn — if it
// is still the claim of these bytes. Its layout byte is its own, so that a
// build from before it reads it as a corrupt record and skips it, never as
// a verdict.
type Release struct {
	Digest   matching.Digest
	TradeKey schemas.TradeKey
}

const layoutRelease = 'R'

// Marshal encodes the release.
func (r Release) Marshal() []byte {
	b := make([]byte, 0, 25)
	b = append(b, layoutRelease)
	b = append(b, r.Digest[:]...)
	return binary.BigEndian.AppendUint64(b, uint64(r.TradeKey))
}

// UnmarshalRelease decodes Marshal; ok is false for anything else.
func UnmarshalRelease(b []byte) (r Release, ok bool) {
	if len(b) != 25 || b[0] != layoutRelease {
		return Release{}, false
	}
	copy(r.Digest[:], b[1:17])
	r.TradeKey = schemas.TradeKey(binary.BigEndian.Uint64(b[17:25]))
	return r, true
}
