package schemas_test

import (
	"crypto/ed25519"
	"testing"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
)

func BenchmarkDecode(b *testing.B) {
	rec := raw()
	var d schemas.Decoder
	b.SetBytes(int64(len(rec)))
	b.ReportAllocs()
	for b.Loop() {
		if _, rej := d.Decode(rec); rej != nil {
			b.Fatal(rej)
		}
	}
}

func BenchmarkVerify(b *testing.B) {
	rec := raw()
	var d schemas.Decoder
	m, _ := d.Decode(rec)
	pub := refdata.DemoPublicKey(m.Sender)
	b.SetBytes(int64(len(rec)))
	for b.Loop() {
		if p := schemas.SignatureProblem([]ed25519.PublicKey{pub}, m); p != "" {
			b.Fatal(p)
		}
	}
}

// BenchmarkEncodeOutput is one signed output (an ACK): XML and Ed25519 sign.
func BenchmarkEncodeOutput(b *testing.B) {
	s := &schemas.Signer{BIC: "STEUTLSGXXX", Key: refdata.DemoPrivateKey("STEUTLSGXXX")}
	o := schemas.Output{Type: schemas.ACK, Function: schemas.NEW, MsgId: schemas.ACKId("BRKASGSGXXX", "BRKASGSGXXX-1"),
		Receiver: "BRKASGSGXXX", RelatedMsgId: "BRKASGSGXXX-1", Key: "BRKASGSGXXX", Body: schemas.ACKBody("BRKASGSGXXX-1")}
	b.ReportAllocs()
	for b.Loop() {
		s.Encode(&o)
	}
}

// BenchmarkDecodeCompact is what the match stage pays for a message instead
// of BenchmarkDecode: reading its compact form.
func BenchmarkDecodeCompact(b *testing.B) {
	var d schemas.Decoder
	m, _ := d.Decode(raw())
	c := m.AppendCompact(nil)
	b.SetBytes(int64(len(c)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := schemas.DecodeCompact(c); err != nil {
			b.Fatal(err)
		}
	}
}
