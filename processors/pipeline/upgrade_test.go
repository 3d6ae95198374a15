package pipeline

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"testing"
	"time"

	"github.com/lovoo/goka"

	"github.com/ste-utility/ste/processors/envelope"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/bin"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/workload"
)

// marshalEnvelopeV1 is the envelope encoder of the release before the
// compact message form (layout v1, frozen here as it was): the fields, Raw,
// and the retry extensions, and no decoded message. Envelopes of that
// release may still sit on the verdicts and accepted topics when the new
// build starts.
func marshalEnvelopeV1(e *envelope.Envelope) []byte {
	b := make([]byte, 0, 128+len(e.Detail)+len(e.Raw)+8*len(e.Steps))
	b = append(b, 1, byte(e.Kind))
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
	b = bin.AppendString(b, string(e.Raw))
	for _, x := range []struct {
		tag byte
		v   string
	}{{1, e.RetryOf}, {2, e.RetriedBy}} {
		if x.v != "" {
			b = bin.AppendString(append(b, x.tag), x.v)
		}
	}
	return b
}

// v1Emitter stands for a validate stage of the v1 release: what it emits on
// the verdicts topic is re-encoded by the frozen v1 encoder.
type v1Emitter struct {
	gokaContext // embedded under another name: goka.Context has a method Context
	t           testing.TB
	verdicts    string
	raw         []byte // the inbound record: a v1 validate stage always sent it on
}

func (c v1Emitter) Emit(topic goka.Stream, key string, value any, opts ...goka.ContextOption) {
	if string(topic) == c.verdicts {
		e, err := envelope.Unmarshal(value.([]byte))
		if err != nil {
			c.t.Fatal(err)
		}
		if e.Raw == nil {
			e.Raw = c.raw
		}
		value = marshalEnvelopeV1(e)
	}
	c.gokaContext.Emit(topic, key, value, opts...)
}

// gokaContext is goka.Context under another name, to be embedded: a field
// named Context would hide the method Context.
type gokaContext interface{ goka.Context }

// Upgrade: identity and match stages of this build, fed the envelopes a v1
// validate stage wrote (no compact message: the match stage decodes the
// record), decide exactly as when fed this build's own envelopes — the same
// CLS, outbound records, exceptions and audit journeys.
func TestUpgradeReadsV1Envelopes(t *testing.T) {
	var recs [][]byte
	if _, err := workload.Generate(workload.Options{Trades: 30, Mix: workload.Realistic, Seed: 7},
		func(b []byte) error { recs = append(recs, b); return nil }, nil); err != nil {
		t.Fatal(err)
	}
	// A duplicate and a conflicting duplicate besides what the mix has.
	recs = append(recs, recs[0], append(bytes.TrimSuffix(bytes.Clone(recs[1]), []byte("</Msg>")), "<X/></Msg>"...))
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	fixed := func(c *Config) {
		c.Now = func() time.Time { return now }
		c.Inbound = readFrom(&recs)
		c.Signer = &schemas.Signer{BIC: c.Signer.BIC, Key: c.Signer.Key, Now: c.Now}
	}
	run := func(g *graph) map[string][][]byte {
		for _, r := range recs {
			g.send("K", r)
		}
		out := map[string][][]byte{}
		for _, topic := range []string{g.names.CLS(), g.names.Outbound(), g.names.Exceptions(), g.names.Audit()} {
			out[topic] = g.drain(topic)
		}
		for i, b := range out[g.names.Audit()] {
			var a schemas.AuditEvent // inbound_at is the tester's wall clock
			if err := json.Unmarshal(b, &a); err != nil {
				t.Fatal(err)
			}
			a.InboundAt = ""
			out[g.names.Audit()][i] = a.Marshal()
		}
		return out
	}
	current := run(newGraphWith(t, fixed, nil))
	var wrote int
	upgraded := run(newGraphWith(t, fixed, func(cb Callbacks) Callbacks {
		validate := cb[topology.StageValidate]
		cb[topology.StageValidate] = func(ctx goka.Context, msg any) {
			wrote++
			raw := bytesOf(msg) // by reference (goka patch 10)
			validate(v1Emitter{gokaContext: ctx, t: t, verdicts: topology.Names{NS: "t"}.Verdicts(), raw: raw}, msg)
		}
		return cb
	}))
	if wrote != len(recs) {
		t.Fatalf("the v1 validate stage saw %d of %d records", wrote, len(recs))
	}
	if len(current["t.cls"]) == 0 || len(current["t.exceptions"]) == 0 {
		t.Fatalf("the set should match trades and reject messages: %d CLS, %d exceptions",
			len(current["t.cls"]), len(current["t.exceptions"]))
	}
	for topic, want := range current {
		got := upgraded[topic]
		if len(got) != len(want) {
			t.Errorf("%s: %d records from v1 envelopes, %d from current ones", topic, len(got), len(want))
			continue
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Errorf("%s record %d differs:\n v1: %s\nnow: %s", topic, i, got[i], want[i])
			}
		}
	}
}
