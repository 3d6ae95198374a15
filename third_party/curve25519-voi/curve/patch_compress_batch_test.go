// STE patch 1 (third_party/curve25519-voi/PATCHES.md): CompressBatch.

package curve

import (
	"testing"

	"github.com/oasisprotocol/curve25519-voi/curve/scalar"
)

func TestPatchCompressBatch(t *testing.T) {
	// Points whose Z differ (a base-point product, sums of them, the
	// identity), so that a wrong share of the one inversion shows.
	var points []*EdwardsPoint
	for i := 0; i < 40; i++ {
		var p EdwardsPoint
		p.MulBasepoint(ED25519_BASEPOINT_TABLE, newTestBenchRandomScalar(t))
		if i%3 == 1 {
			p.Add(&p, points[i-1])
		}
		points = append(points, &p)
	}
	points = append(points, NewEdwardsPoint().Identity(), NewEdwardsPoint().MulBasepoint(ED25519_BASEPOINT_TABLE, scalar.NewFromUint64(2)))

	for _, n := range []int{0, 1, 2, 3, 5, 16, len(points)} {
		in := points[len(points)-n:]
		out := make([]CompressedEdwardsY, n)
		CompressBatch(out, in)
		for i, p := range in {
			var want CompressedEdwardsY
			want.SetEdwardsPoint(p)
			if out[i] != want {
				t.Fatalf("n=%d, point %d: CompressBatch gave %x, SetEdwardsPoint %x", n, i, out[i], want)
			}
		}
	}

	defer func() {
		if recover() == nil {
			t.Fatal("CompressBatch with more points than outputs did not panic")
		}
	}()
	CompressBatch(make([]CompressedEdwardsY, 1), points[:2])
}

func BenchmarkPatchCompressBatch(b *testing.B) {
	points := make([]*EdwardsPoint, 16)
	for i := range points {
		points[i] = NewEdwardsPoint().MulBasepoint(ED25519_BASEPOINT_TABLE, newTestBenchRandomScalar(b))
	}
	out := make([]CompressedEdwardsY, len(points))
	b.Run("SetEdwardsPoint", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for j, p := range points {
				out[j].SetEdwardsPoint(p)
			}
		}
	})
	b.Run("CompressBatch", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			CompressBatch(out, points)
		}
	})
}
