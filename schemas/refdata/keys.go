package refdata

import (
	"crypto/ed25519"
	"crypto/sha256"
	"sync"
)

// The demo key rule of the contract (section 2): the Ed25519 private key of
// participant BIC is NewKeyFromSeed(sha256("ste-demo-key:" + BIC)). It is
// public, so these keys are for demos and tests only: anyone can forge with
// them.

var demoKeys sync.Map // BIC -> ed25519.PrivateKey

// DemoPrivateKey returns the demo key of a BIC. Deriving a key costs a scalar
// multiplication, and message generators sign hundreds of thousands of
// messages with a few hundred keys, so keys are cached for the life of the
// process. The returned key is shared: do not modify it.
func DemoPrivateKey(bic string) ed25519.PrivateKey {
	if k, ok := demoKeys.Load(bic); ok {
		return k.(ed25519.PrivateKey)
	}
	seed := sha256.Sum256([]byte("ste-demo-key:" + bic))
	k, _ := demoKeys.LoadOrStore(bic, ed25519.NewKeyFromSeed(seed[:]))
	return k.(ed25519.PrivateKey)
}

// DemoPublicKey is the public half of DemoPrivateKey(bic), as generated
// reference data carries it.
func DemoPublicKey(bic string) ed25519.PublicKey {
	return DemoPrivateKey(bic).Public().(ed25519.PublicKey)
}
