package validation

import (
	"testing"

	"github.com/ste-utility/ste/schemas"
)

// BenchmarkInspect is the validate stage per message: SHA-256, decode, every
// reference-data rule and the Ed25519 verification.
func BenchmarkInspect(b *testing.B) { benchInspect(b) }

// BenchmarkInspectNoVerify is the same without the signature check: what
// everything but cryptography costs.
func BenchmarkInspectNoVerify(b *testing.B) { benchInspect(b, WithoutSignatureVerification()) }

func benchInspect(b *testing.B, opts ...Option) {
	rec := signed(npr("BUY"))
	v := New(testRef(), append([]Option{WithClock(clock)}, opts...)...)
	var dec schemas.Decoder
	b.SetBytes(int64(len(rec)))
	b.ReportAllocs()
	for b.Loop() {
		if vd := v.Inspect(&dec, rec); vd.Rej != nil {
			b.Fatal(vd.Rej)
		}
	}
}
