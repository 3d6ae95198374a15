package signature

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"math/rand/v2"
	"testing"
)

// The signatures are RFC 8032's: byte for byte those of crypto/ed25519, for
// every batch size (past the no-allocation buffer too) and message length.
func TestSignBatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 4, 5, 9, 33} {
		seed := make([]byte, ed25519.SeedSize)
		for i := range seed {
			seed[i] = byte(rng.Uint32())
		}
		priv := ed25519.NewKeyFromSeed(seed)
		k := NewKey(priv)
		msgs := make([][]byte, n)
		for i := range msgs {
			msgs[i] = make([]byte, []int{0, 1, 111, 600, 5000}[i%5])
			for j := range msgs[i] {
				msgs[i][j] = byte(rng.Uint32())
			}
		}
		sigs := make([][ed25519.SignatureSize]byte, n)
		k.SignBatch(msgs, sigs)
		for i, m := range msgs {
			if want := ed25519.Sign(priv, m); !bytes.Equal(sigs[i][:], want) {
				t.Fatalf("batch of %d, message %d (%d bytes): got %x, crypto/ed25519 %x", n, i, len(m), sigs[i], want)
			}
			if !Verify(priv.Public().(ed25519.PublicKey), m, sigs[i][:]) {
				t.Fatalf("batch of %d, message %d: the signature does not verify", n, i)
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Fatal("SignBatch with fewer signatures than messages did not panic")
		}
	}()
	_, priv, _ := ed25519.GenerateKey(nil)
	NewKey(priv).SignBatch(make([][]byte, 2), make([][ed25519.SignatureSize]byte, 1))
}

// The cost a signature, one by one against batched (docs/benchmarks.md).
func BenchmarkSignBatch(b *testing.B) {
	_, priv, _ := ed25519.GenerateKey(nil)
	k := NewKey(priv)
	msg := bytes.Repeat([]byte("x"), 600)
	b.Run("Sign", func(b *testing.B) {
		for b.Loop() {
			Sign(priv, msg)
		}
	})
	for _, n := range []int{1, 2, 3, 16} {
		msgs := make([][]byte, n)
		for i := range msgs {
			msgs[i] = msg
		}
		sigs := make([][ed25519.SignatureSize]byte, n)
		b.Run(fmt.Sprint("SignBatch/", n), func(b *testing.B) {
			for b.Loop() {
				k.SignBatch(msgs, sigs)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/sig")
		})
	}
}
