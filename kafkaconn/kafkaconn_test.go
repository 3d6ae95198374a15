package kafkaconn_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/kafkaconn/testca"
	"github.com/ste-utility/ste/processors/gokaconf"
)

const password = "pa55-w0rd-never-printed"

func TestLoadRefusesWithTheSettingNamed(t *testing.T) {
	dir := t.TempDir()
	ca, err := testca.Write(filepath.Join(dir, "ca"), "load")
	if err != nil {
		t.Fatal(err)
	}
	notPEM := filepath.Join(dir, "not.pem")
	os.WriteFile(notPEM, []byte("hello "+password), 0o600)
	for _, c := range []struct {
		name    string
		s       kafkaconn.Settings
		setting string
	}{
		{"no brokers", kafkaconn.Settings{Brokers: " , "}, "--brokers"},
		{"missing CA file", kafkaconn.Settings{Brokers: "b:9093", CAFile: filepath.Join(dir, "nope.pem")}, "--tls-ca"},
		{"CA file without a certificate", kafkaconn.Settings{Brokers: "b:9093", CAFile: notPEM}, "--tls-ca"},
		{"certificate without key", kafkaconn.Settings{Brokers: "b:9093", CertFile: ca.ClientCert}, "--tls-key"},
		{"key without certificate", kafkaconn.Settings{Brokers: "b:9093", KeyFile: ca.ClientKey}, "--tls-cert"},
		{"key that is not the certificate's", kafkaconn.Settings{Brokers: "b:9093", CertFile: ca.ClientCert, KeyFile: notPEM}, "--tls-cert/--tls-key"},
		{"unknown mechanism", kafkaconn.Settings{Brokers: "b:9093", Mechanism: "GSSAPI", Username: "u", Password: password}, "--sasl-mechanism"},
		{"password without mechanism", kafkaconn.Settings{Brokers: "b:9093", Password: password}, "--sasl-mechanism"},
		{"no username", kafkaconn.Settings{Brokers: "b:9093", Mechanism: "PLAIN", Password: password}, "--sasl-username"},
		{"no password", kafkaconn.Settings{Brokers: "b:9093", Mechanism: "SCRAM-SHA-256", Username: "u"}, "--sasl-password-file"},
		{"missing password file", kafkaconn.Settings{Brokers: "b:9093", Mechanism: "SCRAM-SHA-256", Username: "u", PasswordFile: filepath.Join(dir, "pw")}, "--sasl-password-file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := kafkaconn.Load(c.s)
			var ke *kafkaconn.Error
			if !errors.As(err, &ke) || ke.Setting != c.setting {
				t.Fatalf("Load: %v, want a *kafkaconn.Error for %s", err, c.setting)
			}
			if strings.Contains(err.Error(), password) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error is not one line without the secret: %q", err)
			}
		})
	}
}

func TestSecretsAreNeverFormatted(t *testing.T) {
	pwFile := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(pwFile, []byte(password+"\n"), 0o600)
	s := kafkaconn.Settings{Brokers: "b:9093", Mechanism: "scram-sha-512", Username: "alice", PasswordFile: pwFile}
	c, err := kafkaconn.Load(s)
	if err != nil {
		t.Fatal(err)
	}
	if c.Mechanism() != kafkaconn.ScramSHA512 {
		t.Fatalf("mechanism %q", c.Mechanism())
	}
	var logged strings.Builder
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("x", "conn", c, "settings", s, "secret", kafkaconn.Secret(password))
	js, _ := json.Marshal(struct {
		S kafkaconn.Secret
		T kafkaconn.Settings
	}{kafkaconn.Secret(password), kafkaconn.Settings{Password: password}})
	for _, out := range []string{c.String(), fmt.Sprintf("%v %+v %#v %s", c, c, c, c),
		fmt.Sprintf("%v %+v %#v", kafkaconn.Settings{Password: password}, kafkaconn.Settings{Password: password}, kafkaconn.Settings{Password: password}),
		logged.String(), string(js)} {
		if strings.Contains(out, password) {
			t.Fatalf("password printed: %s", out)
		}
	}
	// The password file's newline is not part of the password: the broker
	// test below authenticates with a file written the same way.
	if !strings.Contains(c.String(), "SASL SCRAM-SHA-512 as alice") {
		t.Fatalf("String: %s", c)
	}
}

// secureCluster is a kfake cluster with TLS (client certificates optional)
// and SASL users for every mechanism.
func secureCluster(t *testing.T) (string, testca.Files) {
	t.Helper()
	ca, err := testca.Write(filepath.Join(t.TempDir(), "ca"), "kfake")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := testca.ServerTLS(ca)
	if err != nil {
		t.Fatal(err)
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.TLS(srv), kfake.EnableSASL(),
		kfake.Superuser(kafkaconn.Plain, "plain-user", password),
		kfake.Superuser(kafkaconn.ScramSHA256, "scram256-user", password),
		kfake.Superuser(kafkaconn.ScramSHA512, "scram512-user", password),
		kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()[0], ca
}

func userFor(mech string) string {
	return map[string]string{kafkaconn.Plain: "plain-user", kafkaconn.ScramSHA256: "scram256-user", kafkaconn.ScramSHA512: "scram512-user"}[mech]
}

// franzPing connects with franz-go and asks for metadata.
func franzPing(c kafkaconn.Config) error {
	cl, err := kgo.NewClient(c.Opts()...)
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return cl.Ping(ctx)
}

// saramaTopics connects with sarama, configured as goka's clients are, and
// lists the topics.
func saramaTopics(c kafkaconn.Config) ([]string, error) {
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V4_0_0_0
	cfg.Net.DialTimeout = 5 * time.Second
	cfg.Metadata.Retry.Max = 0
	gokaconf.SaramaSecurity(c, cfg)
	cl, err := sarama.NewClient(c.Brokers, cfg)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	return cl.Topics()
}

// One Config connects both clients with every mechanism, over TLS with and
// without a client certificate.
func TestBothClientsOnTLSAndSASL(t *testing.T) {
	addr, ca := secureCluster(t)
	for _, mech := range kafkaconn.Mechanisms {
		for _, mtls := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s client-cert=%v", mech, mtls), func(t *testing.T) {
				s := kafkaconn.Settings{Brokers: addr, CAFile: ca.CA, Mechanism: mech, Username: userFor(mech), Password: password}
				if mtls {
					s.CertFile, s.KeyFile = ca.ClientCert, ca.ClientKey
				}
				c, err := kafkaconn.Load(s)
				if err != nil {
					t.Fatal(err)
				}
				if err := franzPing(c); err != nil {
					t.Fatalf("franz-go: %v", err)
				}
				tps, err := saramaTopics(c)
				if err != nil || len(tps) == 0 {
					t.Fatalf("sarama: %v %v", tps, err)
				}
			})
		}
	}
}

// A wrong password and an untrusted certificate fail fast, on both
// clients, with errors that say so and do not hold the password.
func TestRefusedConnectionsFailFast(t *testing.T) {
	addr, ca := secureCluster(t)
	other, err := testca.Write(filepath.Join(t.TempDir(), "other"), "other")
	if err != nil {
		t.Fatal(err)
	}
	wrong := kafkaconn.Settings{Brokers: addr, CAFile: ca.CA, Mechanism: kafkaconn.ScramSHA256, Username: userFor(kafkaconn.ScramSHA256), Password: "not-" + password}
	untrusted := kafkaconn.Settings{Brokers: addr, CAFile: other.CA, Mechanism: kafkaconn.ScramSHA256, Username: userFor(kafkaconn.ScramSHA256), Password: password}
	noTLS := kafkaconn.Settings{Brokers: addr, Mechanism: kafkaconn.ScramSHA256, Username: userFor(kafkaconn.ScramSHA256), Password: password}
	for name, s := range map[string]kafkaconn.Settings{"wrong password": wrong, "untrusted CA": untrusted} {
		t.Run(name, func(t *testing.T) {
			c, err := kafkaconn.Load(s)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			ferr := franzPing(c)
			_, serr := saramaTopics(c)
			for client, err := range map[string]error{"franz-go": ferr, "sarama": serr} {
				if err == nil {
					t.Fatalf("%s connected", client)
				}
				if strings.Contains(err.Error(), password) {
					t.Fatalf("%s error holds the password: %v", client, err)
				}
				t.Logf("%s: %v", client, err)
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Fatalf("refusal took %v", d)
			}
		})
	}
	// Without TLS the broker's TLS listener answers nothing useful; that
	// must not connect either.
	c, _ := kafkaconn.Load(noTLS)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	cl, _ := kgo.NewClient(c.Opts()...)
	defer cl.Close()
	if err := cl.Ping(ctx); err == nil {
		t.Fatal("plaintext client reached a TLS listener")
	}
}
