package stages

import (
	"testing"

	"github.com/ste-utility/ste/processors/envelope"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/workload"
)

// A compact form this build cannot read (a later version of it) is passed
// over: the record itself is decoded.
func TestUnknownCompactVersionFallsBackToTheRecord(t *testing.T) {
	recs := generated(t, workload.Options{Trades: 1})
	d := New(Config{})
	e := &envelope.Envelope{Raw: recs[0], Decoded: []byte{99, 1, 2, 3}}
	m := d.message(e)
	if m == nil || m.Key.TradeRef == "" {
		t.Fatalf("no message from the record: %+v", m)
	}
	var dec schemas.Decoder
	want, _ := dec.Decode(recs[0])
	if m.Key != want.Key || m.MsgId != want.MsgId {
		t.Fatalf("decoded %+v, want %+v", m.Key, want.Key)
	}
}
