package schemas_test

import (
	"reflect"
	"testing"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/workload"
)

// decoded is what the compact form keeps of a decoded message: all but the
// record and its signature.
func decoded(m *schemas.Message) schemas.Message {
	c := *m
	c.Raw, c.SignedStart, c.SignedEnd, c.HasSig, c.Sig, c.SigAlg, c.HasSigAlg = nil, 0, 0, false, "", "", false
	return c
}

func checkCompact(t *testing.T, m *schemas.Message) {
	t.Helper()
	b := m.AppendCompact(nil)
	got, err := schemas.DecodeCompact(b)
	if err != nil {
		t.Fatalf("%s: %v", m.MsgId, err)
	}
	if want := decoded(m); !reflect.DeepEqual(*got, want) {
		t.Fatalf("compact round trip of %s:\n got %+v\nwant %+v", m.MsgId, *got, want)
	}
	for n := range b { // every truncation is an error, never a panic
		if _, err := schemas.DecodeCompact(b[:n]); err == nil {
			t.Fatalf("%s cut to %d of %d bytes decoded", m.MsgId, n, len(b))
		}
	}
}

func TestCompactRoundTrip(t *testing.T) {
	var d schemas.Decoder
	n := 0
	_, err := workload.Generate(workload.Options{Trades: 40, Mix: "realistic"}, func(rec []byte) error {
		m, rej := d.Decode(rec)
		if rej != nil {
			return nil // the realistic mix has broken records; those never travel compact
		}
		checkCompact(t, m)
		n++
		return nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n < 200 {
		t.Fatalf("only %d messages checked", n)
	}
	m, rej := d.Decode(raw("<Quantity>1000</Quantity>", "<Quantity>1234567890123456789012</Quantity>"))
	if rej != nil || m.OutOfRange == 0 {
		t.Fatalf("want an out-of-range quantity, got %v %+v", rej, m)
	}
	checkCompact(t, m)
}

// FuzzCompact: whatever decodes round-trips through the compact form, and
// no bytes make DecodeCompact panic.
func FuzzCompact(f *testing.F) {
	f.Add(raw())
	f.Add(raw("<Price>10.50</Price>", "<Price>-0.000100</Price>"))
	f.Add(raw()[:300])
	var d schemas.Decoder
	f.Fuzz(func(t *testing.T, rec []byte) {
		schemas.DecodeCompact(rec)
		if m, rej := d.Decode(rec); rej == nil || rej.Reason > schemas.Schema {
			if m != nil {
				checkCompact(t, m)
			}
		}
	})
}
