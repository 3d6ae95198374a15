package signature_test

import (
	"crypto/ed25519"
	"fmt"
	"testing"

	"github.com/hdevalence/ed25519consensus"
	voi "github.com/oasisprotocol/curve25519-voi/primitives/ed25519"

	"github.com/ste-utility/ste/schemas/signature"
)

// The batch-size curve of docs/benchmarks.md: ns per signature of Go's
// crypto/ed25519 (the ceiling's), the rule one by one, and the batches of
// both candidates, ed25519consensus (ZIP-215) and curve25519-voi (used).

func benchItems(n int) []signature.Item {
	items, _ := batchCase(n, func(int) bool { return false })
	for i := range items { // honest signatures only: what both libraries accept
		priv := key(items[i].Sender)
		items[i].Sig = ed25519.Sign(priv, items[i].Msg)
	}
	return items
}

var curve = []int{1, 2, 4, 8, 16, 32, 64, 128, 256}

func BenchmarkSingle(b *testing.B) {
	items := benchItems(64)
	b.Run("stdlib", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			it := &items[i%64]
			ed25519.Verify(it.Keys[0], it.Msg, it.Sig)
		}
	})
	b.Run("rule", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			it := &items[i%64]
			signature.Verify(it.Keys[0], it.Msg, it.Sig)
		}
	})
}

func perSig(b *testing.B, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/sig")
}

func BenchmarkBatcher(b *testing.B) {
	for _, n := range curve {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			items := benchItems(n)
			ok := make([]bool, n)
			var bt signature.Batcher
			for b.Loop() {
				bt.Verify(items, ok)
			}
			perSig(b, n)
		})
	}
}

func BenchmarkConsensusBatch(b *testing.B) {
	for _, n := range curve {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			items := benchItems(n)
			for b.Loop() {
				v := ed25519consensus.NewPreallocatedBatchVerifier(n)
				for _, it := range items {
					v.Add(it.Keys[0], it.Msg, it.Sig)
				}
				v.Verify()
			}
			perSig(b, n)
		})
	}
}

func BenchmarkVoiBatchUnexpanded(b *testing.B) {
	for _, n := range curve {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			items := benchItems(n)
			for b.Loop() {
				v := voi.NewBatchVerifierWithCapacity(n).ForceNoPublicKeyExpansion()
				for _, it := range items {
					v.Add(voi.PublicKey(it.Keys[0]), it.Msg, it.Sig)
				}
				v.VerifyBatchOnly(nil)
			}
			perSig(b, n)
		})
	}
}
