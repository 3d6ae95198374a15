package validation

import (
	"time"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/schemas"
)

// Decision is what becomes of a record once the identity memory is consulted.
type Decision uint8

const (
	Accept    Decision = iota + 1 // valid and new: apply it to its trade
	Duplicate                     // exact duplicate of an accepted message: re-emit
	Reject                        // fails a rule of section 4 (Verdict.Rej)
	Conflict                      // valid, but its identity was accepted with other bytes
)

// Decide applies the contract's order: an exact duplicate is recognised before
// validation (reference data may have changed since), CONFLICTING_DUPLICATE is
// the last rule. known is the digest accepted under the record's identity.
func (vd *Verdict) Decide(known matching.Digest, isKnown bool) Decision {
	switch {
	case isKnown && known == vd.Digest:
		return Duplicate
	case vd.Rej != nil:
		return Reject
	case isKnown:
		vd.Rej = schemas.ConflictingDuplicateOf(vd.Msg.Sender, vd.Msg.MsgId)
		return Conflict
	}
	return Accept
}

// Rejected builds the exception record and, when the sender is a known
// participant and the code is answered, the NACK.
func (vd *Verdict) Rejected(id string, rec []byte, partition int32, offset int64, now time.Time) (*schemas.Exception, *schemas.Output) {
	exc := schemas.NewException(id, rec, vd.Msg, vd.Rej, partition, offset, now)
	if !vd.SenderKnown || !vd.Rej.Reason.Nacked() {
		return exc, nil
	}
	m := vd.Msg
	nack := &schemas.Output{Type: schemas.NACK, Function: schemas.NEW,
		MsgId: schemas.NACKId(m.Sender, m.MsgId, vd.Hash16), Receiver: m.Sender, Key: m.Sender,
		Body: schemas.NACKBody(schemas.Echo(m.MsgId), vd.Rej.Reason, schemas.EchoDetail(vd.Rej.Detail))}
	if schemas.IsMsgId(m.MsgId) {
		nack.RelatedMsgId = m.MsgId
	}
	exc.NACK = nack.MsgId
	return exc, nack
}
