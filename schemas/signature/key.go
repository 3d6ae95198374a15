package signature

import (
	"crypto/ed25519"
	"crypto/sha512"

	"github.com/oasisprotocol/curve25519-voi/curve"
	"github.com/oasisprotocol/curve25519-voi/curve/scalar"
)

// Key is the utility's private key, expanded once for signing its outputs.
// Its signatures are RFC 8032's, byte for byte those of crypto/ed25519 and
// of Sign (Ed25519 signing is deterministic). What it saves over Sign:
//   - the key's expansion (a SHA-512 of the seed, once instead of once a
//     signature);
//   - SignBatch's signatures share one field inversion: compressing an R
//     inverts its Z, about a quarter of a signature's cost, and the
//     curve25519-voi fork's CompressBatch (third_party/curve25519-voi,
//     PATCHES.md 1) compresses them all with one.
//
// A Key is read-only once made, safe for concurrent use.
type Key struct {
	a      scalar.Scalar // the secret scalar: the hashed seed's first half, clamped
	prefix [32]byte      // the hashed seed's second half, for the nonces
	pub    [ed25519.PublicKeySize]byte
}

// NewKey expands priv, a 64-byte crypto/ed25519 private key (seed and
// public key).
func NewKey(priv ed25519.PrivateKey) *Key {
	h := sha512.Sum512(priv[:ed25519.SeedSize])
	h[0] &= 248
	h[31] &= 127
	h[31] |= 64
	k := &Key{}
	if _, err := k.a.SetBits(h[:32]); err != nil {
		panic("signature: a clamped scalar is refused: " + err.Error()) // 32 bytes always fit
	}
	copy(k.prefix[:], h[32:])
	copy(k.pub[:], priv[ed25519.SeedSize:])
	return k
}

// SignBatch writes the signature of msgs[i] into sigs[i]; the slices are
// of one length. Its callers sign what they hold at once: a batch of a
// producer's outputs on Kafka (processors/produce, seal.go), a batch of
// ste match's decisions, one message's outputs in goka's tester.
func (k *Key) SignBatch(msgs [][]byte, sigs [][ed25519.SignatureSize]byte) {
	n := len(msgs)
	if len(sigs) != n {
		panic("signature: SignBatch: msgs and sigs differ in length")
	}
	// Small batches (a message's outputs, an idle producer's) need no
	// allocation.
	var (
		rBuf   [4]scalar.Scalar
		ptBuf  [4]curve.EdwardsPoint
		ptrBuf [4]*curve.EdwardsPoint
		rcBuf  [4]curve.CompressedEdwardsY
	)
	rs, pts, ptrs, rcs := rBuf[:], ptBuf[:], ptrBuf[:], rcBuf[:]
	if n > len(rBuf) {
		rs, pts = make([]scalar.Scalar, n), make([]curve.EdwardsPoint, n)
		ptrs, rcs = make([]*curve.EdwardsPoint, n), make([]curve.CompressedEdwardsY, n)
	}
	rs, ptrs, rcs = rs[:n], ptrs[:n], rcs[:n]

	h := sha512.New()
	var sum [sha512.Size]byte
	for i, m := range msgs {
		// r = H(prefix, M) mod l; R = rB
		h.Reset()
		h.Write(k.prefix[:])
		h.Write(m)
		if _, err := rs[i].SetBytesModOrderWide(h.Sum(sum[:0])); err != nil {
			panic("signature: " + err.Error()) // 64 bytes always reduce
		}
		ptrs[i] = pts[i].MulBasepoint(curve.ED25519_BASEPOINT_TABLE, &rs[i])
	}
	curve.CompressBatch(rcs, ptrs)
	var s scalar.Scalar
	for i, m := range msgs {
		// S = H(R, A, M)·a + r mod l
		h.Reset()
		h.Write(rcs[i][:])
		h.Write(k.pub[:])
		h.Write(m)
		if _, err := s.SetBytesModOrderWide(h.Sum(sum[:0])); err != nil {
			panic("signature: " + err.Error())
		}
		s.Mul(&s, &k.a)
		s.Add(&s, &rs[i])
		copy(sigs[i][:32], rcs[i][:])
		if err := s.ToBytes(sigs[i][32:]); err != nil {
			panic("signature: " + err.Error()) // a reduced scalar always encodes
		}
	}
}
