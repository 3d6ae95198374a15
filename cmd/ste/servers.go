package main

import (
	"log/slog"
	"os"

	"github.com/ste-utility/ste/adapters"
	"github.com/ste-utility/ste/cli"
	"github.com/ste-utility/ste/kafkaconn"
)

// The flags the long-running servers (ste gateway, ste iso20022, ste
// fixgw) share, declared once.

// serverKafkaFlags are a server's --brokers and --kafka-* flags (the
// prefix keeps --tls-cert and --tls-key for its own listener).
func serverKafkaFlags(fs *cli.FlagSet) func() (kafkaconn.Config, error) {
	brokers := fs.String("brokers", cli.EnvOr("STE_BROKERS", "127.0.0.1:9092"), "Kafka bootstrap brokers, comma-separated ($STE_BROKERS)")
	return cli.KafkaSecurityFlagsNamed(fs, brokers, "kafka-")
}

// serverLogFlags are the log flags, JSON by default unless $STE_LOG_FORMAT
// says otherwise: a server's logs (the gateway's access log) are for
// machines.
func serverLogFlags(fs *cli.FlagSet) {
	fs.LogFlags()
	if os.Getenv("STE_LOG_FORMAT") == "" {
		fs.Lookup("log-format").Value.Set("json")
		fs.Lookup("log-format").DefValue = "json"
	}
}

// signerFlags are an adapter's delegated signer (adapters.md §2):
// --signer-bic, --signer-key FILE or --demo-key, from $<env>_SIGNER_BIC
// and $<env>_SIGNER_KEY.
type signerFlags struct {
	bic, key *string
	demo     *bool
}

// newSignerFlags declares them: the signer defaultBIC, whom the
// participants who list it are (for --help).
func newSignerFlags(fs *cli.FlagSet, env, defaultBIC, whoLists string) signerFlags {
	return signerFlags{
		bic:  fs.String("signer-bic", cli.EnvOr(env+"_SIGNER_BIC", defaultBIC), "the delegated signer the adapter signs "+whoLists+" ($"+env+"_SIGNER_BIC)"),
		key:  fs.String("signer-key", os.Getenv(env+"_SIGNER_KEY"), "the signer's Ed25519 private key file (PEM PKCS#8, or base64 of the seed); its public half must be in the signer's row ($"+env+"_SIGNER_KEY)"),
		demo: fs.Bool("demo-key", false, "sign with the signer's PUBLIC DEMO KEY (messages.md §2): demos and tests only, said in the log"),
	}
}

// load loads the signer's key (a demo key is said in log): the last step,
// once the other flags are good.
func (s signerFlags) load(log *slog.Logger) (*adapters.Signer, error) {
	return adapters.LoadSigner(*s.bic, *s.key, *s.demo, log)
}
