// Package signature is the utility's one Ed25519 verification rule
// (docs/spec/messages.md §2), used by every path that verifies a
// participant's signature: ste match, the validate stage of the Kafka path
// and the gateway. A signature is valid when its R and the public key A are
// canonical encodings, A is not of small order, S is below the group order
// l, and the cofactored equation [8][S]B = [8]R + [8][k]A holds.
//
// Cofactored, not Go's cofactorless crypto/ed25519, because batch
// verification can only check the cofactored equation: with one rule for
// single and batch verification, a batch never decides otherwise than the
// signatures one by one would. Honest signatures satisfy both equations;
// they differ only on an R (or A) with a small-order component, which only
// the key's holder can produce (reference data refuses keys not of order
// exactly l, refdata.KeyProblem).
//
// The curve code is github.com/oasisprotocol/curve25519-voi, whose default
// verification options are exactly this rule (docs/benchmarks.md, "The
// batch-size curve", says why it and not ed25519consensus).
package signature

import (
	"crypto/ed25519"
	"sync"
	"sync/atomic"

	voi "github.com/oasisprotocol/curve25519-voi/primitives/ed25519"
)

// options is the rule: cofactored; small-order A, non-canonical A and R
// refused; S < l; small-order R allowed (the contract does not refuse it,
// and under the cofactored equation it changes nothing).
var options = &voi.Options{Verify: &voi.VerifyOptions{AllowSmallOrderR: true}}

// Verify reports whether sig is a valid signature of msg under pub by the
// rule of the package comment.
func Verify(pub ed25519.PublicKey, msg, sig []byte) bool {
	if len(pub) != ed25519.PublicKeySize || len(sig) != ed25519.SignatureSize {
		return false
	}
	x := expand(pub)
	if x == nil {
		return false
	}
	return voi.VerifyExpandedWithOptions(x, msg, sig, options)
}

// Expanded public keys (the precomputed tables of -A) save a point
// decompression and a table build per verification. Keys come from
// reference data, a few per participant, so the cache stays small; it stops
// growing at maxExpanded (a key past it is expanded on every use).
const maxExpanded = 1 << 16

var (
	expanded  sync.Map // [32]byte -> *voi.ExpandedPublicKey
	nExpanded atomic.Int64
)

// expand returns pub's expanded form, nil when pub is not a point.
func expand(pub ed25519.PublicKey) *voi.ExpandedPublicKey {
	var k [ed25519.PublicKeySize]byte
	copy(k[:], pub)
	if x, ok := expanded.Load(k); ok {
		return x.(*voi.ExpandedPublicKey)
	}
	x, err := voi.NewExpandedPublicKey(voi.PublicKey(pub))
	if err != nil {
		return nil
	}
	if nExpanded.Load() < maxExpanded {
		if _, loaded := expanded.LoadOrStore(k, x); !loaded {
			nExpanded.Add(1)
		}
	}
	return x
}

// Sign is ed25519.Sign, computed by curve25519-voi: Ed25519 signing is
// deterministic (RFC 8032), so the bytes are the same, in about 0.6 of
// crypto/ed25519's time (docs/benchmarks.md). The utility's own outputs
// (1.7 per inbound message) are signed by Key, in batches.
func Sign(priv ed25519.PrivateKey, msg []byte) []byte {
	return voi.Sign(voi.PrivateKey(priv), msg)
}
