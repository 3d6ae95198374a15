package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ste-utility/ste/internal/testing/kafka"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/kafkaconn/testca"
	"github.com/ste-utility/ste/topics/broker"
)

// The SASL password of the secured tests: it must appear in no output.
const securedPassword = "Scram-pw-4b1f9e27"

// securedBackend is a cluster reachable only with TLS and SASL, and the
// environment that reaches it.
type securedBackend struct {
	name  string
	start func(t *testing.T, ca testca.Files) (addr string, settings kafkaconn.Settings)
}

var securedBackends = []securedBackend{
	// kfake with TLS and SCRAM-SHA-256; the password from the environment.
	{"kfake", func(t *testing.T, ca testca.Files) (string, kafkaconn.Settings) {
		srv, err := testca.ServerTLS(ca)
		must(t, err)
		c, err := broker.Start(broker.Options{Addr: "127.0.0.1:0", TLS: srv,
			SASL: map[string]map[string]string{kafkaconn.ScramSHA256: {"ste": securedPassword}}})
		must(t, err)
		t.Cleanup(c.Close)
		return broker.Addr(c), kafkaconn.Settings{Mechanism: kafkaconn.ScramSHA256, Username: "ste", Password: securedPassword}
	}},
	// Apache Kafka 4 on a SASL_SSL listener with SCRAM-SHA-512; the
	// password from a file, as a mounted Kubernetes secret would give it.
	{"kafka", func(t *testing.T, ca testca.Files) (string, kafkaconn.Settings) {
		b := kafka.StartSecure(t, kafka.Secure{Keystore: ca.ServerKeystore, Users: map[string]string{"ste": securedPassword}})
		pw := filepath.Join(t.TempDir(), "password")
		must(t, os.WriteFile(pw, []byte(securedPassword+"\n"), 0o600))
		return b.SecureBootstrap, kafkaconn.Settings{Mechanism: kafkaconn.ScramSHA512, Username: "ste", PasswordFile: pw}
	}},
}

// env is the environment that gives ste s (brokers addr, TLS with ca).
func securedEnv(addr string, ca string, s kafkaconn.Settings) []string {
	env := []string{"STE_BROKERS=" + addr, "STE_KAFKA_TLS_CA=" + ca,
		"STE_KAFKA_SASL_MECHANISM=" + s.Mechanism, "STE_KAFKA_SASL_USERNAME=" + s.Username}
	if s.PasswordFile != "" {
		return append(env, "STE_KAFKA_SASL_PASSWORD_FILE="+s.PasswordFile)
	}
	return append(env, "STE_KAFKA_SASL_PASSWORD="+string(s.Password))
}

// TestSecuredCluster runs the pipeline on a cluster that takes only TLS
// and SASL, on both brokers: topics, reference data, two processes (the
// groups apart, so goka's sarama and franz-go both authenticate) and the
// driver, against ste match. A wrong password and an untrusted certificate
// are one-line errors and a non-zero exit within seconds; the password is
// in no output, log or --help.
func TestSecuredCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("runs brokers and processes")
	}
	for _, b := range securedBackends {
		t.Run(b.name, func(t *testing.T) {
			ca, err := testca.Write(filepath.Join(t.TempDir(), "ca"), "ste-e2e")
			must(t, err)
			addr, settings := b.start(t, ca)
			settings.Brokers, settings.CAFile = addr, ca.CA
			f := prepareFixture(t, addr, 100)
			f.env = append(f.env, securedEnv(addr, ca.CA, settings)...)
			f.conn, err = kafkaconn.Load(settings)
			must(t, err)
			var outputs bytes.Buffer
			outputs.WriteString(steAll(t, f.env, 0, "topics", "create"))
			outputs.WriteString(steAll(t, f.env, 0, "refdata", "load", "--dir", f.refdata))
			procs := []*proc{startProcess(t, f.env, "--groups", "validate"), startProcess(t, f.env, "--groups", "identity,match")}
			outputs.WriteString(steAll(t, f.env, 0, "drive", "--in", f.set))
			f.check(f.waitComplete(3 * time.Minute))
			for _, p := range procs {
				must(t, p.stop(t, syscall.SIGTERM))
				outputs.Write(p.log.Bytes())
			}

			// Refusals: fast, one line, non-zero.
			other, err := testca.Write(filepath.Join(t.TempDir(), "other"), "other")
			must(t, err)
			wrongPW := filepath.Join(t.TempDir(), "wrong")
			must(t, os.WriteFile(wrongPW, []byte("not-"+securedPassword), 0o600))
			for name, env := range map[string][]string{
				"wrong password":        append(slicesClone(f.env), "STE_KAFKA_SASL_PASSWORD_FILE="+wrongPW),
				"untrusted certificate": append(slicesClone(f.env), "STE_KAFKA_TLS_CA="+other.CA),
			} {
				for _, args := range [][]string{{"topics", "create"}, {"process", "--http", ""}} {
					start := time.Now()
					out := steAll(t, env, 1, args...)
					if d := time.Since(start); d > 30*time.Second {
						t.Fatalf("%s: ste %s took %v to fail", name, args[0], d)
					}
					if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "ste ") {
						t.Fatalf("%s: ste %s: want one line, got:\n%s", name, args[0], out)
					}
					t.Logf("%s: %s", name, strings.TrimSpace(out))
					outputs.WriteString(out)
				}
			}
			// --help shows where the password comes from, never the password.
			for _, cmd := range []string{"process", "drive", "topics create", "refdata load", "analytics", "instances", "topics dump", "monitor"} {
				outputs.WriteString(steAll(t, append(slicesClone(f.env), "STE_KAFKA_SASL_PASSWORD="+securedPassword), 0,
					append(strings.Fields(cmd), "--help")...))
			}
			if strings.Contains(outputs.String(), securedPassword) {
				t.Fatalf("the SASL password was printed:\n%s", outputs.String())
			}
		})
	}
}

// steAll runs ste and returns stdout and stderr together; it fails the
// test unless the exit code is want (0, or 1 for "any failure").
func steAll(t *testing.T, env []string, want int, args ...string) string {
	t.Helper()
	cmd := exec.Command(steBin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil && want == 0:
	case errors.As(err, &ee) && want != 0 && ee.ExitCode() > 0:
	default:
		t.Fatalf("ste %s: %v (want exit %d)\n%s", strings.Join(args, " "), err, want, out.String())
	}
	return out.String()
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }
