// Package kafka runs a real Apache Kafka 4.x broker (KRaft, combined
// broker+controller, one node) for integration tests.
//
// The broker comes from Maven Central (org.apache.kafka:kafka_2.13) through
// kafka.sh, which this package embeds: on a machine with only bash, Java >= 17
// and Maven, the first run fetches ~45 MB of jars into
// ${STE_CACHE:-$HOME/.cache/ste}/kafka/<version>; later runs reuse them.
//
// # When the real-broker tests run
//
// They run when STE_KAFKA=1 or CI=true is set, and skip otherwise (a JVM
// start costs seconds and the first fetch tens of seconds, too much for every
// local `go test ./...`). Where java, mvn or bash is missing they skip with a
// message — except under CI=true, where every problem is a test failure, so CI
// can never go green by silently skipping the real broker.
//
// # API
//
//   - [Start] gives one test its own broker, stopped by t.Cleanup.
//   - [Shared] gives all tests of a test binary the same broker (one JVM start);
//     call [StopShared] from TestMain after m.Run. If that is forgotten or the
//     binary dies, a watchdog started by kafka.sh stops the JVM within seconds.
//   - [Launch] / [Broker.Stop] are the same without testing.TB.
package kafka

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ste-utility/ste/testgate"
)

//go:embed kafka.sh
var script []byte

// EnvEnable is the variable that turns the real-broker tests on outside CI.
const EnvEnable = "STE_KAFKA"

// Timings of the last Launch, for reports.
type Timings struct {
	Fetch time.Duration // kafka.sh fetch (a few ms when cached)
	Start time.Duration // kafka.sh start: format storage, start JVM, wait for Metadata
}

// Broker is a broker started by kafka.sh in Dir.
type Broker struct {
	Bootstrap string // "127.0.0.1:PORT"
	// SecureBootstrap is the SASL_SSL listener's "127.0.0.1:PORT" (only
	// with Secure).
	SecureBootstrap string
	Dir             string // data, logs (logs/server.log), server.properties, kafka.pid
	Timings         Timings

	script string
	env    []string
	once   sync.Once
	err    error
}

// Secure asks for a SASL_SSL listener beside the plaintext one.
type Secure struct {
	// Keystore is a PEM file with the broker's private key (PKCS#8,
	// unencrypted) and its certificate chain.
	Keystore string
	// Users maps user names to passwords, accepted with PLAIN,
	// SCRAM-SHA-256 and SCRAM-SHA-512 (letters, digits, _ . - only).
	Users map[string]string
	// Authorizer enforces ACLs on the SASL_SSL listener (StandardAuthorizer,
	// deny by default); the plaintext listener stays a super user, for the
	// test's own administration (users, ACLs, topics).
	Authorizer bool
}

// Launch fetches the broker (if not cached) and starts it in dir, which it
// creates if needed. The broker is stopped by Stop or, should this process die
// first, by kafka.sh's watchdog.
func Launch(ctx context.Context, dir string) (*Broker, error) {
	return launch(ctx, dir, nil)
}

// LaunchSecure is Launch with a SASL_SSL listener (Broker.SecureBootstrap).
func LaunchSecure(ctx context.Context, dir string, s Secure) (*Broker, error) {
	var users []string
	for u, p := range s.Users {
		users = append(users, u+":"+p)
	}
	env := []string{"KAFKA_SASL_SSL_KEYSTORE=" + s.Keystore, "KAFKA_SASL_USERS=" + strings.Join(users, " ")}
	if s.Authorizer {
		env = append(env, "KAFKA_AUTHORIZER=1")
	}
	return launch(ctx, dir, env)
}

func launch(ctx context.Context, dir string, env []string) (*Broker, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	b := &Broker{Dir: dir, script: filepath.Join(dir, "kafka.sh"), env: env}
	if err := os.WriteFile(b.script, script, 0o755); err != nil {
		return nil, err
	}

	t0 := time.Now()
	fctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	if _, err := b.run(fctx, "fetch"); err != nil {
		return nil, err
	}
	b.Timings.Fetch = time.Since(t0)

	t0 = time.Now()
	sctx, cancel2 := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel2()
	out, err := b.run(sctx, "start", dir)
	if err != nil {
		return nil, err
	}
	b.Timings.Start = time.Since(t0)
	b.Bootstrap = strings.TrimSpace(out)
	if !strings.HasPrefix(b.Bootstrap, "127.0.0.1:") {
		_ = b.Stop()
		return nil, fmt.Errorf("kafka.sh start printed %q, want 127.0.0.1:PORT", out)
	}
	if env != nil {
		sb, err := os.ReadFile(filepath.Join(dir, "bootstrap_sasl_ssl"))
		if err != nil {
			_ = b.Stop()
			return nil, fmt.Errorf("kafka.sh start wrote no SASL_SSL bootstrap: %v", err)
		}
		b.SecureBootstrap = strings.TrimSpace(string(sb))
	}
	return b, nil
}

// Stop stops the broker (SIGTERM, SIGKILL after 20 s). Dir is left as it is.
// Calling it again returns the first result.
func (b *Broker) Stop() error {
	b.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, b.err = b.run(ctx, "stop", b.Dir)
	})
	return b.err
}

// Kill kills the broker with SIGKILL, as a crash would: no shutdown, its
// data and configuration stay in Dir for Restart.
func (b *Broker) Kill() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := b.run(ctx, "kill", b.Dir)
	return err
}

// Restart starts the broker of Dir again on the same address, with its data
// (after Kill, or after Stop).
func (b *Broker) Restart(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	out, err := b.run(ctx, "restart", b.Dir)
	if err != nil {
		return err
	}
	if got := strings.TrimSpace(out); got != b.Bootstrap {
		return fmt.Errorf("kafka.sh restart printed %q, want %s", got, b.Bootstrap)
	}
	// Stop works again after a restart.
	b.once = sync.Once{}
	return nil
}

func (b *Broker) run(ctx context.Context, args ...string) (string, error) {
	return runScript(ctx, b.script, b.env, args...)
}

func runScript(ctx context.Context, script string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "bash", append([]string{script}, args...)...)
	cmd.Env = append(append(os.Environ(), "KAFKA_WATCH_PID="+strconv.Itoa(os.Getpid())), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		msg := strings.TrimPrefix(strings.TrimSpace(stderr.String()), "kafka.sh: ")
		if msg == "" {
			msg = err.Error()
		}
		what := args[0]
		if what == "tool" && len(args) > 1 {
			what += " " + args[1]
		}
		return stdout.String(), fmt.Errorf("kafka.sh %s: %s", what, msg)
	}
	return stdout.String(), nil
}

var toolScript struct {
	once sync.Once
	path string
	err  error
}

// fetchTools fetches Kafka's tools (the kafka-tools jar of the broker's
// release) unless cached, and returns the path of a kafka.sh to run them.
func fetchTools(ctx context.Context) (string, error) {
	toolScript.once.Do(func() {
		// One file per version of the script, shared by every test binary
		// and left in place: written to a temporary name, then renamed.
		sum := sha256.Sum256(script)
		toolScript.path = filepath.Join(os.TempDir(), fmt.Sprintf("ste-kafka-%x.sh", sum[:6]))
		if _, err := os.Stat(toolScript.path); err == nil {
			return
		}
		f, err := os.CreateTemp(os.TempDir(), "ste-kafka-*.sh")
		if err != nil {
			toolScript.err = err
			return
		}
		_, err = f.Write(script)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(f.Name(), toolScript.path)
		}
		if err != nil {
			os.Remove(f.Name())
		}
		toolScript.err = err
	})
	if toolScript.err != nil {
		return "", toolScript.err
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	_, err := runScript(ctx, toolScript.path, nil, "fetch-tools")
	return toolScript.path, err
}

// Tool runs one of Kafka's own command-line tools by its script name
// (kafka-topics, kafka-consumer-groups, kafka-configs, kafka-console-consumer,
// ...; see kafka.sh) and returns its standard output. A non-zero exit is an
// error carrying the tool's standard error.
func Tool(ctx context.Context, name string, args ...string) (string, error) {
	path, err := fetchTools(ctx)
	if err != nil {
		return "", err
	}
	return runScript(ctx, path, nil, append([]string{"tool", name}, args...)...)
}

// RequireTools skips or fails tb, by the rule of Start, where Kafka's tools
// cannot or should not run (they need what the broker needs), and fetches
// them if they are not cached yet.
func RequireTools(tb testing.TB) {
	tb.Helper()
	require(tb)
	if _, err := fetchTools(context.Background()); err != nil {
		launchFailed(tb, err)
	}
}

// Enabled reports whether real-broker tests run here, and whether a missing
// prerequisite must fail them (CI=true) instead of skipping them.
func Enabled() (run, strict bool) {
	strict = os.Getenv("CI") == "true"
	return strict || os.Getenv(EnvEnable) == "1", strict
}

// require skips or fails tb when the real broker cannot or should not run.
func require(tb testing.TB) {
	tb.Helper()
	run, strict := Enabled()
	if !run {
		msg := fmt.Sprintf("real Kafka 4 broker tests are off: set %s=1 to run them (CI=true always runs them)", EnvEnable)
		testgate.Record(tb, "suite", msg, EnvEnable+"=1 make test")
		tb.Skip(msg)
	}
	for _, tool := range []string{"bash", "java"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing(tb, strict, tool+" is not installed (a real Kafka 4 broker needs bash and Java >= 17)")
		}
	}
}

func missing(tb testing.TB, strict bool, msg string) {
	tb.Helper()
	if strict {
		tb.Fatalf("CI=true: %s", msg)
	}
	testgate.Record(tb, "missing", msg, "")
	tb.Skip(msg)
}

// launchFailed fails tb with err, or skips it where Maven is missing (only
// needed while the broker is not cached yet) and CI=true is not set.
func launchFailed(tb testing.TB, err error) {
	tb.Helper()
	if _, lerr := exec.LookPath("mvn"); lerr != nil {
		_, strict := Enabled()
		missing(tb, strict, "mvn is not installed and Kafka is not cached yet: "+err.Error())
	}
	tb.Fatal(err)
}

func logTimings(tb testing.TB, b *Broker) {
	tb.Helper()
	tb.Logf("kafka: broker %s in %s (fetch %v, start %v)", b.Bootstrap, b.Dir,
		b.Timings.Fetch.Round(time.Millisecond), b.Timings.Start.Round(time.Millisecond))
}

// Start starts a broker of its own for this test in t.TempDir() and returns its
// bootstrap address; t.Cleanup stops it. See the package doc for when it skips.
func Start(t testing.TB) (bootstrap string) {
	t.Helper()
	return start(t, nil).Bootstrap
}

// StartSecure is Start with a SASL_SSL listener (Broker.SecureBootstrap).
func StartSecure(t testing.TB, s Secure) *Broker {
	t.Helper()
	return start(t, &s)
}

func start(t testing.TB, s *Secure) *Broker {
	t.Helper()
	require(t)
	dir := filepath.Join(t.TempDir(), "kafka")
	var b *Broker
	var err error
	if s != nil {
		b, err = LaunchSecure(context.Background(), dir, *s)
	} else {
		b, err = Launch(context.Background(), dir)
	}
	if err != nil {
		launchFailed(t, err)
	}
	logTimings(t, b)
	t.Cleanup(func() {
		if err := b.Stop(); err != nil {
			t.Errorf("stopping kafka: %v", err)
		}
	})
	return b
}

var shared struct {
	mu     sync.Mutex
	broker *Broker
	err    error // sticky: a failed start is not retried by every test
	tried  bool
}

// Shared returns the bootstrap address of a broker shared by every test of
// this test binary, starting it on first use. The skip rule is that of Start.
// Stop it from TestMain:
//
//	func TestMain(m *testing.M) {
//		code := m.Run()
//		kafka.StopShared()
//		os.Exit(code)
//	}
func Shared(t testing.TB) (bootstrap string) {
	t.Helper()
	require(t)
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if !shared.tried {
		shared.tried = true
		dir, err := os.MkdirTemp("", "ste-kafka-")
		if err == nil {
			shared.broker, err = Launch(context.Background(), dir)
		}
		if err != nil {
			shared.err = err
		} else {
			logTimings(t, shared.broker)
		}
	}
	if shared.err != nil {
		launchFailed(t, shared.err)
	}
	return shared.broker.Bootstrap
}

// StopShared stops the shared broker, if one was started, and removes its
// directory (unless KAFKA_KEEP=1, to look at its logs).
func StopShared() error {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	b := shared.broker
	if b == nil {
		return nil
	}
	err := b.Stop()
	if err == nil && os.Getenv("KAFKA_KEEP") != "1" {
		err = os.RemoveAll(b.Dir)
	}
	return err
}
