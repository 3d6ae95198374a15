package refdata

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"strings"

	"filippo.io/edwards25519"

	"github.com/ste-utility/ste/schemas/signature"
)

// MaxKeys is how many public keys a participant may hold at once: its
// current key and, while it rotates, the next one (contract section 8).
const MaxKeys = 2

// KeyProblem says why raw cannot be a participant's public key, or "".
//
// Signatures are verified by one rule on every path (ste match, the Kafka
// path, the gateway): signature.Verify, cofactored. A small-order A would
// verify forged signatures for many messages at once, and an A with a
// small-order component makes the cofactored and cofactorless equations
// disagree on honest-looking signatures. Refusing every key that is not the
// canonical encoding of a point of order exactly l closes both.
func KeyProblem(raw []byte) string {
	if len(raw) != ed25519.PublicKeySize {
		return fmt.Sprintf("%d bytes, an Ed25519 public key has 32", len(raw))
	}
	p, err := new(edwards25519.Point).SetBytes(raw)
	if err != nil {
		return "not a point of the Ed25519 curve"
	}
	// SetBytes accepts non-canonical encodings (y >= p, or x = 0 with the
	// sign bit set); the canonical one is what Bytes writes back.
	if !bytes.Equal(p.Bytes(), raw) {
		return "not the canonical encoding of its point"
	}
	id := edwards25519.NewIdentityPoint()
	if new(edwards25519.Point).MultByCofactor(p).Equal(id) == 1 {
		return "a point of small order (it would verify forged signatures)"
	}
	// [l]A = [l-1]A + A: a Scalar cannot hold l itself.
	if new(edwards25519.Point).Add(new(edwards25519.Point).ScalarMult(lMinusOne, p), p).Equal(id) != 1 {
		return "not of order l (it has a small-order component)"
	}
	return ""
}

// lMinusOne is l-1 = 2^252 + 27742317777372353535851937790883648492, little
// endian, the largest canonical scalar.
var lMinusOne = func() *edwards25519.Scalar {
	b := []byte{
		0xec, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
	}
	s, err := new(edwards25519.Scalar).SetCanonicalBytes(b)
	if err != nil {
		panic(err)
	}
	return s
}()

// parseKeys reads the public_key column: one base64 key, or two separated
// by ";" while the participant rotates. Each must pass KeyProblem.
func parseKeys(v string) ([]ed25519.PublicKey, error) {
	items := strings.Split(v, ";")
	if len(items) > MaxKeys {
		return nil, bad("public_key", "%d keys, at most %d (the current one and the next)", len(items), MaxKeys)
	}
	keys := make([]ed25519.PublicKey, 0, len(items))
	for i, item := range items {
		item = strings.TrimSpace(item)
		what := keyOrdinal(i, len(items))
		raw, err := base64.StdEncoding.Strict().DecodeString(item)
		if item == "" {
			return nil, bad("public_key", "%sempty", what)
		}
		if err != nil {
			return nil, bad("public_key", "%snot standard padded base64: %v", what, err)
		}
		if p := KeyProblem(raw); p != "" {
			return nil, bad("public_key", "%s%s", what, p)
		}
		for _, k := range keys {
			if k.Equal(ed25519.PublicKey(raw)) {
				return nil, bad("public_key", "the same key twice")
			}
		}
		keys = append(keys, raw)
	}
	return keys, nil
}

func keyOrdinal(i, n int) string {
	if n == 1 {
		return ""
	}
	return [...]string{"first key: ", "second key: "}[i]
}

// formatKeys writes keys as the public_key column.
func formatKeys(keys []ed25519.PublicKey) string {
	s := make([]string, len(keys))
	for i, k := range keys {
		s[i] = base64.StdEncoding.EncodeToString(k)
	}
	return strings.Join(s, ";")
}

// KeyIgnoredError reports a participant record of <ns>.refdata applied
// without a public key that fails KeyProblem: the row is in force (its
// status, its roles), the key is not, as if the participant did not hold it.
// A load refuses such a key, so it reached the topic some other way; it is
// logged, not fatal, because refusing the whole record would keep a stale
// row in force instead.
type KeyIgnoredError struct {
	Key    string // the record key, participant:BIC
	Reason string
}

func (e *KeyIgnoredError) Error() string {
	return fmt.Sprintf("refdata record %q: public key ignored: %s", e.Key, e.Reason)
}

// Verifies reports whether any of p's keys verifies sig over msg, under the
// utility's one rule (signature.Verify: cofactored, canonical R and A,
// S < l).
func (p Participant) Verifies(msg, sig []byte) bool {
	for _, k := range p.Keys {
		if signature.Verify(k, msg, sig) {
			return true
		}
	}
	return false
}

// HasKey reports whether pub is one of p's keys.
func (p Participant) HasKey(pub ed25519.PublicKey) bool {
	for _, k := range p.Keys {
		if k.Equal(pub) {
			return true
		}
	}
	return false
}

// SignerError says why the utility may not sign with its key: the public
// half is not among the keys of its row, so participants could not verify
// its outputs with the keys they are told of (GET /v1/keys, the row).
type SignerError struct {
	BIC    string
	Reason string
}

func (e *SignerError) Error() string {
	return fmt.Sprintf("utility %s: %s; add the key's public half to the utility's row in participants.csv (public_key, ';' between two keys) and load it, or give the key the row lists", e.BIC, e.Reason)
}

// CheckSigner is the start check of every process that signs as the utility
// (ste process, ste gateway): the public half of its signing key must be one
// of the keys of the utility's row, which must have the UTILITY role.
func CheckSigner(s *Set, bic string, pub ed25519.PublicKey) error {
	p, ok := s.Participant(bic)
	switch {
	case !ok:
		return &SignerError{bic, "no row in the reference data"}
	case !p.Roles.Has(RoleUtility):
		return &SignerError{bic, "its row has not the UTILITY role"}
	case len(p.Keys) == 0:
		return &SignerError{bic, "its row holds no valid public key"}
	case !p.HasKey(pub):
		return &SignerError{bic, fmt.Sprintf("the signing key's public half %s is not among the row's keys %s", base64.StdEncoding.EncodeToString(pub), formatKeys(p.Keys))}
	}
	return nil
}

// CheckDelegateSigner is the start check of a process that signs as a
// delegated signer (an adapter's --signer-bic, adapters.md §2): the signer's
// row must have the role SIGNER and be ACTIVE — otherwise every message it
// signed would be NACKed SIGNATURE — and the public half of its key must be
// one of the row's keys.
func CheckDelegateSigner(s *Set, bic string, pub ed25519.PublicKey) error {
	p, ok := s.Participant(bic)
	why := ""
	switch {
	case !ok:
		why = "no row in the reference data"
	case !p.Roles.Has(RoleSigner):
		why = "its row has not the SIGNER role"
	case p.Status != Active:
		why = "its row is " + string(p.Status) + ", not ACTIVE"
	case len(p.Keys) == 0:
		why = "its row holds no valid public key"
	case !p.HasKey(pub):
		why = fmt.Sprintf("the signing key's public half %s is not among the row's keys %s", base64.StdEncoding.EncodeToString(pub), formatKeys(p.Keys))
	default:
		return nil
	}
	return fmt.Errorf("signer %s: %s; the signer's row in participants.csv must have the role SIGNER, be ACTIVE and list the key's public half (public_key, ';' between two keys)", bic, why)
}
