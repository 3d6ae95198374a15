// Package kafkaconn is how STE reaches a Kafka cluster: the bootstrap
// brokers, TLS and SASL, read and validated once (Load) and then applied to
// both Kafka clients STE runs — franz-go (Opts, Security) and the sarama
// inside goka (Credentials, applied by processors/gokaconf) — so that the
// two can never disagree about how to connect — and which of a cluster's
// errors are worth a second try (Transient, Retry).
//
// Secrets (the SASL password, the TLS private key) come from files or the
// environment, are held as Secret or inside a tls.Config, and are never
// written anywhere: not in errors, logs, String or JSON.
package kafkaconn

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// The SASL mechanisms STE speaks.
const (
	Plain       = "PLAIN"
	ScramSHA256 = "SCRAM-SHA-256"
	ScramSHA512 = "SCRAM-SHA-512"
)

// Mechanisms lists the SASL mechanisms, for help texts.
var Mechanisms = []string{Plain, ScramSHA256, ScramSHA512}

const redacted = "[redacted]"

// Secret is a value that must not be printed: fmt, slog and JSON all give
// "[redacted]".
type Secret string

func (Secret) String() string               { return redacted }
func (Secret) GoString() string             { return redacted }
func (Secret) LogValue() slog.Value         { return slog.StringValue(redacted) }
func (Secret) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// Settings are the connection settings as given (flags, environment),
// before they are checked. Load turns them into a Config.
type Settings struct {
	// Brokers, comma-separated host:port.
	Brokers string
	// TLS turns TLS on with the system's roots; a CA file, client
	// certificate or server name turns it on too.
	TLS        bool
	CAFile     string // PEM bundle of the CAs that may sign the brokers' certificates
	CertFile   string // client certificate (PEM), for mutual TLS; needs KeyFile
	KeyFile    string // its private key (PEM)
	ServerName string // name to verify in the brokers' certificates (default: the host dialled)
	// SASL: a mechanism turns it on and then needs a username and a
	// password, from PasswordFile or Password (the environment).
	Mechanism    string
	Username     string
	PasswordFile string
	Password     Secret
}

// Error is a setting that cannot be used. It names the setting (by its
// command-line flag) and the problem, never a secret's value.
type Error struct {
	Setting string // e.g. "--tls-ca"
	Problem string
}

func (e *Error) Error() string { return e.Setting + ": " + e.Problem }

// ErrNoBrokers is returned by Load when no broker is given.
var ErrNoBrokers = &Error{Setting: "--brokers", Problem: "no broker address given"}

// Config is a checked connection configuration. The zero value is not
// usable; make one with Load or Plaintext.
type Config struct {
	Brokers []string
	tls     *tls.Config // nil: plaintext
	sasl    *saslAuth   // nil: no SASL
}

type saslAuth struct {
	mechanism, user string
	password        Secret
}

// Plaintext is a configuration without TLS or SASL for brokers (comma-separated): the
// embedded broker, tests and unsecured clusters.
func Plaintext(brokers string) Config { return Config{Brokers: SplitBrokers(brokers)} }

// SplitBrokers splits a comma-separated broker list.
func SplitBrokers(s string) []string {
	var out []string
	for _, b := range strings.Split(s, ",") {
		if b = strings.TrimSpace(b); b != "" {
			out = append(out, b)
		}
	}
	return out
}

// Load checks the settings and reads the files they name: certificates,
// key and password are read here, once, and a problem with any of them is
// an *Error now rather than a failed handshake later.
func Load(s Settings) (Config, error) {
	c := Config{Brokers: SplitBrokers(s.Brokers)}
	if len(c.Brokers) == 0 {
		return Config{}, ErrNoBrokers
	}
	var err error
	if c.tls, err = loadTLS(s); err != nil {
		return Config{}, err
	}
	if c.sasl, err = loadSASL(s); err != nil {
		return Config{}, err
	}
	return c, nil
}

func loadTLS(s Settings) (*tls.Config, error) {
	if !s.TLS && s.CAFile == "" && s.CertFile == "" && s.KeyFile == "" && s.ServerName == "" {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: s.ServerName}
	if s.CAFile != "" {
		pem, err := os.ReadFile(s.CAFile)
		if err != nil {
			return nil, &Error{"--tls-ca", fileProblem(err)}
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, &Error{"--tls-ca", fmt.Sprintf("%s holds no PEM certificate", s.CAFile)}
		}
		cfg.RootCAs = pool
	}
	switch {
	case s.CertFile != "" && s.KeyFile == "":
		return nil, &Error{"--tls-key", "a client certificate (--tls-cert) needs its key"}
	case s.KeyFile != "" && s.CertFile == "":
		return nil, &Error{"--tls-cert", "a client key (--tls-key) needs its certificate"}
	case s.CertFile != "":
		certPEM, err := os.ReadFile(s.CertFile)
		if err != nil {
			return nil, &Error{"--tls-cert", fileProblem(err)}
		}
		keyPEM, err := os.ReadFile(s.KeyFile)
		if err != nil {
			return nil, &Error{"--tls-key", fileProblem(err)}
		}
		// tls.X509KeyPair's errors describe the PEM blocks, never their
		// contents.
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, &Error{"--tls-cert/--tls-key", fmt.Sprintf("%s and %s are not a certificate and its key: %v", s.CertFile, s.KeyFile, err)}
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

func loadSASL(s Settings) (*saslAuth, error) {
	if s.Mechanism == "" {
		if s.Username != "" || s.PasswordFile != "" || s.Password != "" {
			return nil, &Error{"--sasl-mechanism", "a SASL username or password is given but no mechanism (" + strings.Join(Mechanisms, ", ") + ")"}
		}
		return nil, nil
	}
	mech := strings.ToUpper(s.Mechanism)
	if !slices.Contains(Mechanisms, mech) {
		return nil, &Error{"--sasl-mechanism", fmt.Sprintf("%q is not one of %s", s.Mechanism, strings.Join(Mechanisms, ", "))}
	}
	if s.Username == "" {
		return nil, &Error{"--sasl-username", "SASL " + mech + " needs a username"}
	}
	pw := s.Password
	if s.PasswordFile != "" {
		b, err := os.ReadFile(s.PasswordFile)
		if err != nil {
			return nil, &Error{"--sasl-password-file", fileProblem(err)}
		}
		// Files written by editors and `echo` end in a newline that is not
		// part of the password; Kubernetes secrets usually do not.
		pw = Secret(strings.TrimRight(string(b), "\r\n"))
	}
	if pw == "" {
		return nil, &Error{"--sasl-password-file", "SASL " + mech + " needs a password (a file, or $STE_KAFKA_SASL_PASSWORD)"}
	}
	return &saslAuth{mechanism: mech, user: s.Username, password: pw}, nil
}

// fileProblem describes a failed read by path and reason.
func fileProblem(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Path + ": " + pe.Err.Error()
	}
	return err.Error()
}

// TLS reports whether connections are encrypted.
func (c Config) TLS() bool { return c.tls != nil }

// Mechanism is the SASL mechanism, "" without SASL.
func (c Config) Mechanism() string {
	if c.sasl == nil {
		return ""
	}
	return c.sasl.mechanism
}

// String describes the connection for logs: brokers, TLS and SASL user,
// never a secret.
func (c Config) String() string {
	s := strings.Join(c.Brokers, ",")
	var extra []string
	if c.tls != nil {
		extra = append(extra, "TLS")
		if len(c.tls.Certificates) > 0 {
			extra = append(extra, "client certificate")
		}
	}
	if c.sasl != nil {
		extra = append(extra, "SASL "+c.sasl.mechanism+" as "+c.sasl.user)
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return s
}

// LogValue is String for slog.
func (c Config) LogValue() slog.Value { return slog.StringValue(c.String()) }

// Opts are the franz-go options of a client of this cluster: its seed
// brokers and Security.
func (c Config) Opts() []kgo.Opt {
	return append([]kgo.Opt{kgo.SeedBrokers(c.Brokers...)}, c.Security()...)
}

// Security are the franz-go options for TLS and SASL alone, for builders
// that set the seed brokers themselves (goka's producer builder).
func (c Config) Security() []kgo.Opt {
	var opts []kgo.Opt
	if c.tls != nil {
		opts = append(opts, kgo.DialTLSConfig(c.tls.Clone()))
	}
	if c.sasl != nil {
		opts = append(opts, kgo.SASL(c.sasl.franz()))
	}
	return opts
}

func (a *saslAuth) franz() sasl.Mechanism {
	switch a.mechanism {
	case Plain:
		return plain.Auth{User: a.user, Pass: string(a.password)}.AsMechanism()
	case ScramSHA512:
		return scram.Auth{User: a.user, Pass: string(a.password)}.AsSha512Mechanism()
	default:
		return scram.Auth{User: a.user, Pass: string(a.password)}.AsSha256Mechanism()
	}
}

// Credentials are TLS and SASL as plain values, for a Kafka client that is
// not franz-go: goka's sarama, which processors/gokaconf configures from
// them (so that kafkaconn, and whatever only reads topics, links no sarama).
type Credentials struct {
	TLS       *tls.Config // a copy; nil: plaintext
	Mechanism string      // "" without SASL
	User      string
	Password  Secret
	// SCRAM is franz-go's implementation of a SCRAM Mechanism (nil for
	// PLAIN and without SASL), so that both clients authenticate with the
	// same code.
	SCRAM sasl.Mechanism
}

// Credentials are the configuration's TLS and SASL, for a client that is
// not franz-go.
func (c Config) Credentials() Credentials {
	var cr Credentials
	if c.tls != nil {
		cr.TLS = c.tls.Clone()
	}
	if c.sasl != nil {
		cr.Mechanism, cr.User, cr.Password = c.sasl.mechanism, c.sasl.user, c.sasl.password
		if c.sasl.mechanism != Plain {
			cr.SCRAM = c.sasl.franz()
		}
	}
	return cr
}

// Explain adds to a failed connection what an operator should check: a
// broker that refuses SASL credentials or a TLS mismatch may just close the
// connection, which clients report as a bare EOF.
func (c Config) Explain(err error) error {
	if err == nil || !errors.Is(err, io.EOF) && !strings.HasSuffix(err.Error(), "EOF") {
		return err
	}
	hint := "the broker closed the connection: is the listener plaintext, TLS or SASL as configured"
	if c.sasl != nil {
		hint += ", and are the SASL username and password right"
	}
	return fmt.Errorf("%w (%s?)", err, hint)
}
