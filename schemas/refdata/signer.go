package refdata

import (
	"crypto/ed25519"
	"log/slog"

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
