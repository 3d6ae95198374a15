package envelope

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/bin"
	"github.com/ste-utility/ste/topology"
)

func TestEnvelopeRoundTrip(t *testing.T) {
	e := &Envelope{Kind: KindAccepted, Partition: 3, Offset: 99, InboundTS: 123, Reason: schemas.BadDate, Detail: "d",
		SenderKnown: true, NetUnits: 2, TradeKey: 0xfeedface, Created: -5, Sender: "S", MsgId: "M", Type: schemas.SET,
		Function: schemas.REPLACE, Clock: 7, Steps: []Step{{Stage: topology.StageValidate, At: 11, Event: EventValid}}, Raw: []byte("<Msg/>"),
		Decoded: (&schemas.Message{MsgId: "M", Sender: "S", Quantity: 5}).AppendCompact(nil)}
	e.Digest[3] = 9
	b := e.Marshal()
	back, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if back.Detail != e.Detail || back.Digest != e.Digest || back.TradeKey != e.TradeKey || back.Created != e.Created ||
		back.Type != e.Type || string(back.Raw) != string(e.Raw) || len(back.Steps) != 1 || back.Steps[0] != e.Steps[0] ||
		!bytes.Equal(back.Decoded, e.Decoded) {
		t.Fatalf("%+v", back)
	}
	// Cut where the extensions begin, it is a whole envelope without them
	// (one the match stage reads by decoding Raw); cut anywhere else, it is
	// no envelope.
	plain := *e
	plain.Decoded = nil
	whole := len(plain.Marshal())
	for i := 0; i < len(b); i++ {
		if _, err := Unmarshal(b[:i]); err == nil && i != whole {
			t.Fatalf("truncated at %d accepted", i)
		}
	}
}

// The extension is written only when set: an ordinary envelope is the
// version 1 layout unchanged (it ends with Raw), and one with a retry
// decodes with it.
func TestEnvelopeRetryExtension(t *testing.T) {
	e := &Envelope{Kind: KindVerdict, Sender: "S", MsgId: "M", Raw: []byte("<Msg/>")}
	plain := e.Marshal()
	if !bytes.HasSuffix(plain, append([]byte{byte(len(e.Raw))}, e.Raw...)) {
		t.Fatalf("an envelope without a retry no longer ends with Raw: %q", plain)
	}
	e.RetryOf, e.RetriedBy = "3-17", "bob"
	b := e.Marshal()
	back, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if back.RetryOf != "3-17" || back.RetriedBy != "bob" || string(back.Raw) != "<Msg/>" {
		t.Fatalf("%+v", back)
	}
	// An unknown extension is skipped.
	b = bin.AppendString(append(b, 99), "later")
	if back, err = Unmarshal(b); err != nil || back.RetryOf != "3-17" {
		t.Fatalf("unknown extension: %v %+v", err, back)
	}
	// A cut extension is an error, not a silent loss.
	if _, err := Unmarshal(b[:len(b)-2]); err == nil {
		t.Fatal("a truncated extension decoded")
	}
}

// FuzzEnvelope: whatever is on an internal topic, decoding it never panics,
// and what decodes re-encodes to an envelope that decodes the same; the same
// for identity-table values.
func FuzzEnvelope(f *testing.F) {
	e := &Envelope{Kind: KindAccepted, Partition: 3, Offset: 99, InboundTS: 123, Reason: schemas.BadDate, Detail: "d",
		SenderKnown: true, NetUnits: 2, TradeKey: 0xfeedface, Created: -5, Sender: "S", MsgId: "M", Type: schemas.SET,
		Function: schemas.REPLACE, Clock: 7, Steps: []Step{{Stage: topology.StageValidate, At: 11, Event: EventValid}}, Raw: []byte("<Msg/>")}
	f.Add(e.Marshal())
	f.Add(Identity{Created: 5, TradeKey: 9}.Marshal())
	f.Add([]byte{1, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		if e, err := Unmarshal(b); err == nil {
			back, err := Unmarshal(e.Marshal())
			if err != nil {
				t.Fatalf("re-encoded envelope does not decode: %v", err)
			}
			if len(e.Steps) == 0 {
				e.Steps = nil
			}
			if len(back.Steps) == 0 {
				back.Steps = nil
			}
			if !bytes.Equal(back.Raw, e.Raw) || (back.Raw == nil) != (e.Raw == nil) && len(e.Raw) > 0 {
				t.Fatal("raw differs")
			}
			back.Raw, e.Raw = nil, nil
			if !reflect.DeepEqual(back, e) {
				t.Fatalf("round trip:\n%+v\n%+v", back, e)
			}
		}
		if ie, ok := UnmarshalIdentity(b); ok && !bytes.Equal(ie.Marshal(), b) {
			t.Fatal("identity entry round trip")
		}
	})
}
