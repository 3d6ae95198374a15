package stages

import (
	"github.com/ste-utility/ste/processors/envelope"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topology"
)

// ---- validate: stateless, runs on inbound partitions ----

// Validate decides an inbound record, its signature verified here.
func (d *Decider) Validate(in Input) *Result {
	dec := d.decoders.Get().(*schemas.Decoder)
	var vd validation.Verdict
	if d.cfg.Sandbox {
		vd = d.cfg.Validator.InspectAt(dec, in.Value, in.Timestamp)
	} else {
		vd = d.cfg.Validator.Inspect(dec, in.Value)
	}
	d.decoders.Put(dec)
	return d.Validated(vd, in)
}

// InspectDeferred is Validate's first half for batch verification: the
// record decoded and validated with its signature's verification left out
// (validation.InspectDeferred). The runtime verifies the pending signatures
// of many records together, resolves each verdict and calls Validated.
func (d *Decider) InspectDeferred(in Input) (validation.Verdict, *validation.Pending) {
	now := in.Timestamp
	if !d.cfg.Sandbox {
		now = d.cfg.Validator.Now()
	}
	dec := d.decoders.Get().(*schemas.Decoder)
	defer d.decoders.Put(dec)
	return d.cfg.Validator.InspectDeferred(dec, in.Value, now)
}

// Validated decides what becomes of an inbound record given its verdict.
func (d *Decider) Validated(vd validation.Verdict, in Input) *Result {
	// The envelope and room for its steps are one allocation.
	e := envelope.New()
	*e = envelope.Envelope{Kind: envelope.KindVerdict, Partition: in.Partition, Offset: in.Offset,
		InboundTS: in.Timestamp.UnixMicro(), Digest: vd.Digest, SenderKnown: vd.SenderKnown,
		NetUnits: int8(vd.NetUnits), Raw: in.Value, Steps: e.Steps}
	if vd.Msg != nil {
		// Cut as outputs echo them: the audit event carries them too.
		e.Sender, e.MsgId, e.Created = schemas.Echo(vd.Msg.Sender), schemas.Echo(vd.Msg.MsgId), vd.Msg.Created
		e.Type, e.Function = vd.Msg.Type, vd.Msg.Function
		if vd.Rej == nil || vd.Rej.Reason > schemas.Schema {
			// Its trade is known: the match stage reads the decoded
			// message instead of decoding the record again.
			e.TradeKey = vd.Msg.Key.TradeKey()
			e.Decoded = vd.Msg.AppendCompact(make([]byte, 0, 256))
		}
	}
	e.RetryOf, e.RetriedBy = retryOf(in.Headers)
	if _, ok := vd.Identity(); !ok {
		// No readable identity: it cannot be a duplicate of anything accepted.
		return d.reject(topology.StageValidate, e, vd.Msg, vd.Rej)
	}
	// Whether it is an exact duplicate of an accepted message (recognised
	// before validation) is decided where identities are kept.
	ev := envelope.EventValid
	if vd.Rej != nil {
		e.Reason, e.Detail, ev = vd.Rej.Reason, vd.Rej.Detail, envelope.EventInvalid
	}
	d.Step(e, topology.StageValidate, ev)
	if e.Reason == 0 && e.Decoded != nil && d.cfg.Inbound != nil {
		// A valid message travels decoded: its bytes are needed only for
		// the rare exception a later stage writes (a conflicting
		// duplicate, an INTERNAL failure), read back from inbound then.
		// Carried, they were a sixth of every byte the brokers wrote
		// (docs/benchmarks.md). A message already invalid keeps them: its
		// exception is certain.
		e.Raw = nil
	}
	return forward(e, d.verdicts, envelope.IdentityKey(e.Sender, e.MsgId))
}
