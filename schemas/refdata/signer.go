package refdata

import (
	"crypto/ed25519"
	"log/slog"
	"slices"
	"strings"

	"github.com/ste-utility/ste/schemas"
)

// UtilitySigner is the signing-key policy of every command that signs as
// the utility bic: the key in keyFile (schemas.LoadUtilityKey), or, with no
// file given, the public demo key of the contract — said loudly, since
// anyone can forge with it (demos, benchmarks and tests only). Whether the
// key is the one the utility's row publishes is CheckSigner's question,
// asked once the reference data is read.
func UtilitySigner(bic, keyFile string, log *slog.Logger) (*schemas.Signer, error) {
	var key ed25519.PrivateKey
	if keyFile != "" {
		k, err := schemas.LoadUtilityKey(keyFile)
		if err != nil {
			return nil, err
		}
		key = k
		log.Info("utility signing key loaded", "file", keyFile, "bic", bic)
	} else {
		key = DemoPrivateKey(bic)
		log.Warn("signing outputs with the PUBLIC DEMO KEY of the utility: anyone can forge with it; for demos, benchmarks and tests only — give --utility-key FILE (or STE_UTILITY_KEY) in production", "bic", bic)
	}
	return &schemas.Signer{BIC: bic, Key: key}, nil
}

// DemoKeyed lists, sorted, the participants whose public key in s is their
// public demo key (DemoPublicKey: what `ste refdata gen` writes). Anyone can
// sign as them: messages, gateway requests, adapter sessions.
func DemoKeyed(s *Set) []string {
	var out []string
	for _, p := range s.Participants() {
		demo := DemoPublicKey(p.BIC)
		for _, k := range p.Keys {
			if k.Equal(demo) {
				out = append(out, p.BIC)
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

// WarnDemoKeys says loudly, once for s, that participants hold public demo
// keys, naming a few: the utility's own demo key is warned of where it
// signs (UtilitySigner), the participants' wherever reference data is
// loaded. It reports whether it warned.
func WarnDemoKeys(s *Set, log *slog.Logger) bool {
	bics := DemoKeyed(s)
	if len(bics) == 0 {
		return false
	}
	some := bics
	if len(some) > 5 {
		some = some[:5]
	}
	log.Warn("reference data gives participants their PUBLIC DEMO KEYS (ste refdata gen): anyone can sign as them; for demos, benchmarks and tests only — load the participants' own public keys in production",
		"participants", len(bics), "e.g.", strings.Join(some, ","))
	return true
}
