package stages

import (
	"github.com/ste-utility/ste/processors/envelope"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topology"
)

// ---- identity: keyed by Sender:MsgId, remembers accepted identities ----

// Identity decides a verdict at the identity stage: an exact duplicate of
// an accepted message, a conflicting one, a rejection, or the message
// accepted under its identity (its table value written) and sent on to
// its trade.
func (d *Decider) Identity(in Input, st State) *Result {
	if rl, ok := envelope.UnmarshalRelease(in.Value); ok {
		return d.released(st, rl)
	}
	e, err := envelope.Unmarshal(in.Value)
	if err != nil {
		return &Result{Corrupt: "record is not an envelope"} // not ours: nothing to answer, never crash on input
	}
	var known envelope.Identity
	isKnown := false
	if v := st.Value(); v != nil {
		if known, isKnown = envelope.UnmarshalIdentity(v); !isKnown {
			r := d.poisoned(e)
			r.Corrupt, r.Table = "identity entry unreadable: poisoned", topology.Table(d.cfg.Names.IdentityGroup())
			return r
		}
	}
	vd := validation.Verdict{Msg: &schemas.Message{Sender: e.Sender, MsgId: e.MsgId}, Digest: e.Digest}
	if e.Reason != 0 {
		vd.Rej = &schemas.Rejection{Reason: e.Reason, Detail: e.Detail}
	}
	switch vd.Decide(known.Digest, isKnown) {
	case validation.Duplicate:
		e.Kind, e.TradeKey = envelope.KindDuplicate, known.TradeKey
		d.Step(e, topology.StageIdentity, envelope.EventDuplicate)
		return d.toMatch(e)
	case validation.Accept:
		st.SetValue(envelope.Identity{Digest: e.Digest, Created: e.Created, TradeKey: e.TradeKey}.Marshal())
		d.forgetIdentities(in.Partition)
		e.Kind = envelope.KindAccepted
		d.Step(e, topology.StageIdentity, envelope.EventAccepted)
		return d.toMatch(e)
	default: // Reject, Conflict
		return d.reject(topology.StageIdentity, e, nil, vd.Rej)
	}
}

// released withdraws the claim of a message its trade rejected (a Release
// from the match stage): the identity is forgotten if the claim is still
// that message's bytes — another message's claim since stays. Nothing is
// answered: the rejection was.
func (d *Decider) released(st State, rl envelope.Release) *Result {
	if known, ok := envelope.UnmarshalIdentity(st.Value()); ok && known.Digest == rl.Digest {
		st.Delete()
	}
	return &Result{}
}

// toMatch sends an accepted message or an exact duplicate to its trade: the
// decoded message without the record when the match stage can read the
// record back for an exception (Config.Inbound), and when the message
// travels decoded (an envelope of the release before decode-once has no
// Decoded: its record is all the match stage can read).
func (d *Decider) toMatch(e *envelope.Envelope) *Result {
	if d.cfg.Inbound != nil && e.Decoded != nil {
		e.Raw = nil
	}
	return forward(e, d.accepted, e.TradeKey.String())
}

// poisoned decides for a message whose identity entry cannot be read. The
// entry is neither absent (accepting the message would overwrite what an
// accepted message claimed, and the genuine message's resend would then be
// NACKed) nor known: it stays as it is. Only the bytes of the record decide
// what they can: a record rejected before its trade is known (MALFORMED,
// SCHEMA) can never be an accepted message's copy, so it is rejected as
// usual; any other goes to its trade, which recognises an exact duplicate or
// another content under an identity it holds, and turns anything else into
// an INTERNAL exception (docs/matching.md).
func (d *Decider) poisoned(e *envelope.Envelope) *Result {
	if e.Reason != 0 && e.Reason <= schemas.Schema {
		return d.reject(topology.StageIdentity, e, nil, &schemas.Rejection{Reason: e.Reason, Detail: e.Detail})
	}
	e.Kind = envelope.KindPoisoned
	d.Step(e, topology.StageIdentity, envelope.EventPoisoned)
	return forward(e, d.accepted, e.TradeKey.String())
}

// forgetIdentities drops identities accepted more than retention+margin of
// event time ago, from the local store only: the identity changelog is
// compacted with no time retention (topics.Specs), so it keeps every
// identity and a rebuild drops the old ones again. A duplicate of a
// forgotten message is still recognised by its trade while the trade lives.
func (d *Decider) forgetIdentities(p int32) {
	if t := d.cfg.Tables(topology.StageIdentity, p); t != nil {
		t.DropDue(t.Clock() - 1)
	}
}

// IdentityIndex tells the identity table's store when each value falls
// due: retention + margin after its Created, the clock being the largest
// Created.
func (d *Decider) IdentityIndex(v []byte) (due, watermark int64, ok bool) {
	ie, ok := envelope.UnmarshalIdentity(v)
	if !ok {
		return 0, 0, false
	}
	return ie.Created + int64(d.cfg.Retention+d.cfg.IdentityMargin), ie.Created, true
}
