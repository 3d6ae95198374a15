package refdata

import (
	"crypto/ed25519"
	"testing"

	"github.com/ste-utility/ste/schemas/signature/sigtest"
)

// Participant.Verifies (the gateway's check) is the one rule: cofactored,
// canonical R, S < l.
func TestVerifiesIsTheOneRule(t *testing.T) {
	priv := DemoPrivateKey("BRKASGSGXXX")
	p := Participant{BIC: "BRKASGSGXXX", Keys: []ed25519.PublicKey{DemoPublicKey("BRKASGSGXXX")}}
	msg := []byte("sig-base")
	for name, c := range map[string]struct {
		sig  []byte
		want bool
	}{
		"R with an order-8 component": {sigtest.MixedR(priv, msg), true},
		"non-canonical R":             {sigtest.NonCanonicalR(priv, msg), false},
		"S not below l":               {sigtest.SPlusL(ed25519.Sign(priv, msg)), false},
	} {
		if got := p.Verifies(msg, c.sig); got != c.want {
			t.Errorf("%s: %v, want %v", name, got, c.want)
		}
	}
}
