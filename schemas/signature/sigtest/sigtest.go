// Package sigtest crafts Ed25519 signatures on which the cofactorless and
// the cofactored verification equations disagree, for tests that every path
// of the utility reaches one verdict (docs/spec/messages.md §2). Only the
// holder of a private key can craft them: they are what a participant could
// send, not a forgery.
package sigtest

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"

	"filippo.io/edwards25519"
)

// Torsion8 is the canonical encoding of a point of order 8 (one of the
// curve's eight small-order points).
const Torsion8 = "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"

// NonCanonicalIdentity encodes the identity point with the sign bit of x
// set (x = 0 has no sign): a point, but not its canonical encoding.
const NonCanonicalIdentity = "0100000000000000000000000000000000000000000000000000000000000080"

func point(h string) *edwards25519.Point {
	b, err := hex.DecodeString(h)
	if err != nil {
		panic(err)
	}
	p, err := new(edwards25519.Point).SetBytes(b)
	if err != nil {
		panic(err)
	}
	return p
}

// secret returns priv's scalar a (A = [a]B) and its nonce prefix.
func secret(priv ed25519.PrivateKey) (*edwards25519.Scalar, []byte) {
	h := sha512.Sum512(priv.Seed())
	a, err := new(edwards25519.Scalar).SetBytesWithClamping(h[:32])
	if err != nil {
		panic(err)
	}
	return a, h[32:]
}

func wide(parts ...[]byte) *edwards25519.Scalar {
	h := sha512.New()
	for _, p := range parts {
		h.Write(p)
	}
	s, err := new(edwards25519.Scalar).SetUniformBytes(h.Sum(nil))
	if err != nil {
		panic(err)
	}
	return s
}

// signWithR signs msg with the nonce point R = [r]B + T and the encoding
// rEnc of R (nil: canonical), S = r + k·a for k = H(rEnc || A || msg).
func signWithR(priv ed25519.PrivateKey, msg []byte, t *edwards25519.Point, rEnc []byte) []byte {
	a, prefix := secret(priv)
	r := wide(prefix, msg, []byte("sigtest"))
	R := new(edwards25519.Point).ScalarBaseMult(r)
	R.Add(R, t)
	if rEnc == nil {
		rEnc = R.Bytes()
	}
	pub := priv.Public().(ed25519.PublicKey)
	k := wide(rEnc, pub, msg)
	S := new(edwards25519.Scalar).MultiplyAdd(k, a, r)
	return append(append([]byte{}, rEnc...), S.Bytes()...)
}

// MixedR signs msg with an R that has a component of order 8: the
// cofactored equation holds, the cofactorless one ([S]B = R + [k]A, Go's
// crypto/ed25519) does not. Valid under the utility's rule.
func MixedR(priv ed25519.PrivateKey, msg []byte) []byte {
	return signWithR(priv, msg, point(Torsion8), nil)
}

// NonCanonicalR signs msg with R the identity (r = 0) written in its
// non-canonical encoding: the cofactored equation holds for the point it
// decodes to (as ZIP-215, and so ed25519consensus, accept), but R is not
// canonical, so it is invalid under the utility's rule, and cofactorless
// verification refuses it too.
func NonCanonicalR(priv ed25519.PrivateKey, msg []byte) []byte {
	enc, _ := hex.DecodeString(NonCanonicalIdentity)
	a, _ := secret(priv)
	pub := priv.Public().(ed25519.PublicKey)
	k := wide(enc, pub, msg)
	S := new(edwards25519.Scalar).Multiply(k, a)
	return append(enc, S.Bytes()...)
}

// SPlusL returns sig with l added to its S (when the sum fits 256 bits):
// the same point equation, but S is not below l. Invalid under every rule.
func SPlusL(sig []byte) []byte {
	l := [32]byte{0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10}
	out := append([]byte{}, sig...)
	carry := 0
	for i := 0; i < 32; i++ {
		v := int(out[32+i]) + int(l[i]) + carry
		out[32+i], carry = byte(v), v>>8
	}
	return out
}

// Resign replaces the signature of the inbound record rec (the <Sig> text)
// with craft's signature over its signed range, <Header> through </Body>.
// rec must be a record as the utility's drafts write it.
func Resign(rec []byte, priv ed25519.PrivateKey, craft func(ed25519.PrivateKey, []byte) []byte) []byte {
	start := bytes.Index(rec, []byte("<Header>"))
	end := bytes.Index(rec, []byte("</Body>"))
	open := []byte(`<Sig alg="ed25519">`)
	s := bytes.Index(rec, open)
	e := bytes.Index(rec, []byte("</Sig>"))
	if start < 0 || end < start || s < end || e < s {
		panic("sigtest.Resign: not a signed record")
	}
	sig := craft(priv, rec[start:end+len("</Body>")])
	out := append([]byte{}, rec[:s+len(open)]...)
	out = append(out, base64.StdEncoding.EncodeToString(sig)...)
	return append(out, rec[e:]...)
}
