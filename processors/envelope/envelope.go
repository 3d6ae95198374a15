// Package envelope holds the layouts of the values the stages pass each
// other and keep: the envelope that travels between the stages (the inbound
// record's origin, the verdict, the decoded message and the journey so far)
// and the identity table's value. Every value starts with its layout byte,
// and what changes within a layout is appended so that two builds read
// each other's values (docs/ARCHITECTURE.md, "Upgrades"). It links no Kafka
// client.
package envelope

import (
	"encoding/binary"
	"encoding/hex"
	"errors"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/bin"
	"github.com/ste-utility/ste/topology"
)

// Envelope is what travels between the stages: the inbound record's bytes
// and origin, what the validate stage found, and the message's journey so far
// (the audit event is written once, by the stage where the journey ends).
type Envelope struct {
	Kind        Kind
	Partition   int32 // inbound partition and offset: the record's id
	Offset      int64
	InboundTS   int64 // inbound record timestamp, Unix µs: critical time starts here
	Digest      matching.Digest
	Reason      schemas.Reason // 0: valid
	Detail      string
	SenderKnown bool
	NetUnits    int8
	TradeKey    schemas.TradeKey
	Created     int64
	Sender      string
	MsgId       string
	Type        schemas.MsgType // 0 when not read
	Function    schemas.Function
	Clock       int64 // KindExpire: the event-time clock that made the trade due; KindAllege: the allegement timer it was written for (Trade.AllegeAt)
	Steps       []Step
	// Raw is the inbound record. The stages after validation never parse
	// it: it is the payload of the exceptions they may still write
	// (docs/spec/messages.md §7). It travels only with a message found
	// invalid, or when no reader of inbound is configured; a valid
	// message's is read back for the rare exception (processors/readback).
	Raw []byte
	// Decoded is the message as validation decoded it, in schemas' compact
	// form (nil when its trade is not known: MALFORMED, SCHEMA). Envelopes
	// written before it existed (layout v1 without the extension) have
	// none: the match stage then decodes Raw.
	Decoded []byte
	// RetryOf and RetriedBy come from an operator's retry (the ste-retry-of
	// and ste-retry-by headers of the inbound record): the exception retried
	// and who asked. They travel as an extension (see Marshal).
	RetryOf, RetriedBy string
}

// Kind of envelope.
type Kind uint8

const (
	KindVerdict   Kind = iota + 1 // validate -> identity
	KindAccepted                  // identity -> match: a new message
	KindDuplicate                 // identity -> match: an exact duplicate of an accepted one
	KindExpire                    // match loopback: look at this trade's retention
	KindPoisoned                  // identity -> match: its identity entry is unreadable; the trade decides
	KindAllege                    // on accepted (the match loopback before): compare this trade's allegements with those sent (Clock: the timer it was written for, Unix µs)
	KindRewrite                   // on accepted: write this trade's state again as it is (a former owner's late write of it was seen on the match changelog)
)

// Step is one stage's handling of a message.
type Step struct {
	Stage topology.Stage
	At    int64 // Unix µs
	Event Event
}

// Event is what a stage did.
type Event uint8

const (
	EventValid     Event = iota + 1 // passed validation
	EventInvalid                    // failed a rule, identity readable (decided at identity)
	EventRejected                   // exception written
	EventAccepted                   // identity claimed
	EventDuplicate                  // exact duplicate
	EventApplied                    // applied to its trade
	EventReemitted                  // duplicate answered from the trade
	EventExpired                    // trade purged by retention
	EventPoisoned                   // identity entry unreadable: sent to the trade to decide
)

var eventNames = [...]string{"", "valid", "invalid", "rejected", "accepted", "duplicate", "applied", "reemitted", "expired", "poisoned"}

func (e Event) String() string {
	if int(e) < len(eventNames) {
		return eventNames[e]
	}
	return "?"
}

// Hash16 is the first 16 hex digits of the record's SHA-256 (NACK MsgIds).
func (e *Envelope) Hash16() string { return hex.EncodeToString(e.Digest[:8]) }

// IdentityKey is the key of the verdicts stream: Sender:MsgId (a BIC has no colon).
func IdentityKey(sender, msgId string) string { return sender + ":" + msgId }

// layoutV1 is the first byte of every value of this package.
const layoutV1 = 1

// Marshal encodes the envelope.
func (e *Envelope) Marshal() []byte {
	b := make([]byte, 0, 128+len(e.Detail)+len(e.Raw)+len(e.Decoded)+8*len(e.Steps))
	b = append(b, layoutV1, byte(e.Kind))
	b = binary.AppendVarint(b, int64(e.Partition))
	b = binary.AppendVarint(b, e.Offset)
	b = binary.AppendVarint(b, e.InboundTS)
	b = append(b, e.Digest[:]...)
	b = append(b, byte(e.Reason))
	b = bin.AppendString(b, e.Detail)
	if e.SenderKnown {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = append(b, byte(e.NetUnits))
	b = binary.BigEndian.AppendUint64(b, uint64(e.TradeKey))
	b = binary.AppendVarint(b, e.Created)
	b = bin.AppendString(b, e.Sender)
	b = bin.AppendString(b, e.MsgId)
	b = append(b, byte(e.Type), byte(e.Function))
	b = binary.AppendVarint(b, e.Clock)
	b = binary.AppendUvarint(b, uint64(len(e.Steps)))
	for _, s := range e.Steps {
		b = append(b, byte(s.Stage), byte(s.Event))
		b = binary.AppendVarint(b, s.At)
	}
	b = bin.AppendString(b, string(e.Raw)) // Raw last of the fixed fields: the bulk of the bytes
	return e.appendExtensions(b)
}

// Extensions follow Raw: zero or more (tag, string) pairs, written only
// when set, and a reader skips a tag it does not know. (Version 1 readers
// stopped after Raw, so they read these envelopes too.) So the layout stays
// version 1 both ways: a build from before an extension reads the envelopes
// of a newer one, and a newer one reads the older envelopes, which only
// lack the extension (docs/ARCHITECTURE.md, "Upgrades").
const (
	extRetryOf   = 1
	extRetriedBy = 2
	extDecoded   = 3
)

func (e *Envelope) appendExtensions(b []byte) []byte {
	for _, x := range [...]struct {
		tag byte
		v   string
	}{{extRetryOf, e.RetryOf}, {extRetriedBy, e.RetriedBy}} {
		if x.v != "" {
			b = bin.AppendString(append(b, x.tag), x.v)
		}
	}
	if len(e.Decoded) > 0 {
		b = binary.AppendUvarint(append(b, extDecoded), uint64(len(e.Decoded)))
		b = append(b, e.Decoded...)
	}
	return b
}

func (e *Envelope) readExtensions(r *bin.Reader) {
	for len(r.B) > 0 && !r.Bad {
		tag, v := r.Byte(), r.Bytes()
		switch tag {
		case extRetryOf:
			e.RetryOf = string(v)
		case extRetriedBy:
			e.RetriedBy = string(v)
		case extDecoded:
			if len(v) > 0 {
				e.Decoded = v
			}
		}
	}
}

var errEnvelope = errors.New("envelope: bad layout")

// envelopeAndSteps is an envelope with room for the steps of a journey
// through the three stages and a retry's.
type envelopeAndSteps struct {
	e     Envelope
	steps [4]Step
}

// New is an empty envelope whose Steps have room for a journey's steps in
// the same allocation (a stage makes or decodes an envelope a message).
func New() *Envelope {
	e, room := withRoom()
	e.Steps = room
	return e
}

// withRoom is an empty envelope and the room for its steps, unused.
func withRoom() (*Envelope, []Step) {
	x := new(envelopeAndSteps)
	return &x.e, x.steps[:0]
}

// Unmarshal decodes Marshal. Raw and Decoded alias b.
func Unmarshal(b []byte) (*Envelope, error) {
	if len(b) < 2 || b[0] != layoutV1 {
		return nil, errEnvelope
	}
	r := &bin.Reader{B: b[2:]}
	// The envelope and room for its steps are one allocation, and the
	// sender and MsgId one string: a stage decodes an envelope a message.
	e, room := withRoom()
	e.Kind = Kind(b[1])
	e.Partition = int32(r.Varint())
	e.Offset = r.Varint()
	e.InboundTS = r.Varint()
	copy(e.Digest[:], r.Take(16))
	e.Reason = schemas.Reason(r.Byte())
	e.Detail = string(r.Bytes())
	e.SenderKnown = r.Byte() == 1
	e.NetUnits = int8(r.Byte())
	e.TradeKey = schemas.TradeKey(binary.BigEndian.Uint64(r.Take(8)))
	e.Created = r.Varint()
	sender := r.Bytes()
	senderEnd := len(b) - len(r.B)
	msgId := r.Bytes()
	if !r.Bad {
		both := string(b[senderEnd-len(sender) : len(b)-len(r.B)])
		e.Sender, e.MsgId = both[:len(sender)], both[len(both)-len(msgId):]
	}
	e.Type, e.Function = schemas.MsgType(r.Byte()), schemas.Function(r.Byte())
	e.Clock = r.Varint()
	n := r.Uvarint()
	if n > uint64(len(r.B)) {
		return nil, errEnvelope
	}
	switch {
	case n > 0 && n < uint64(cap(room)):
		// Room for the step the reading stage adds (stages.Decider.Step).
		e.Steps = room[: 0 : n+1]
	case n > 0:
		e.Steps = make([]Step, 0, n+1)
	}
	for i := uint64(0); i < n; i++ {
		st := Step{Stage: topology.Stage(r.Byte()), Event: Event(r.Byte())}
		st.At = r.Varint()
		e.Steps = append(e.Steps, st)
	}
	if raw := r.Bytes(); len(raw) > 0 {
		e.Raw = raw // none: the stages read it back when they need it (stages.Config.Inbound)
	}
	e.readExtensions(r)
	if r.Bad {
		return nil, errEnvelope
	}
	return e, nil
}
