package embedded_test

import (
	"context"
	"fmt"
	"go/build"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/ste-utility/ste/chendpoint/embedded"
	"github.com/ste-utility/ste/chendpoint/embedded/chdblib"
	"github.com/ste-utility/ste/chendpoint/internal/gate"
)

// These tests drive the real ste-chdb binary (built once in TestMain) through
// chendpoint/embedded and talk to it only through clickhouse-go/v2 over HTTP,
// the path production uses against a real server. The test binary itself
// links no chDB, so it can report a missing libchdb.so as a skip (locally) or
// a failure (CI=true) instead of dying in chdb-go's init.

var (
	binPath string // built ste-chdb
	libErr  error  // why libchdb.so is unusable, nil if found
	tmpRoot string

	sharedOnce sync.Once
	sharedHome string
	sharedDSN  string
	sharedErr  error
)

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	var err error
	tmpRoot, err = os.MkdirTemp("", "ste-embedded-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if os.Getenv("STE_TEST_KEEP") == "" {
		defer os.RemoveAll(tmpRoot)
	} else {
		fmt.Println("keeping", tmpRoot) // endpoint logs are in */analytics/ste-chdb.log
	}

	if _, libErr = chdblib.Find(); libErr != nil {
		if os.Getenv("CI") == "true" {
			fmt.Fprintf(os.Stderr, "FAIL: CI=true and %v\n", libErr)
			return 1
		}
		fmt.Printf("SKIP chDB tests: %v\n", libErr)
	}
	binPath, err = buildBinary(tmpRoot)
	if err != nil {
		fmt.Fprintln(os.Stderr, "build ste-chdb:", err)
		return 1
	}
	sharedHome = filepath.Join(tmpRoot, "shared")
	code := m.Run()
	// Every endpoint a test started lives under tmpRoot/<home>/analytics.
	homes, _ := filepath.Glob(filepath.Join(tmpRoot, "*"))
	for _, h := range homes {
		if err := cfg().Stop(h); err != nil {
			fmt.Fprintln(os.Stderr, "stop:", err)
		}
	}
	return code
}

func buildBinary(dir string) (string, error) {
	if b := os.Getenv(embedded.BinaryEnv); b != "" {
		return b, nil // prebuilt, e.g. by CI
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(build.Default.GOROOT, "bin", "go")
	}
	out := filepath.Join(dir, "bin", "ste-chdb")
	cmd := exec.Command(goBin, "build", "-o", out, "github.com/ste-utility/ste/chendpoint/cmd/ste-chdb")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%v\n%s", err, b)
	}
	return out, nil
}

func cfg() embedded.Config { return embedded.Config{Binary: binPath, LogLevel: "debug"} }

// requireLib skips (or, with CI=true, fails) a test that needs libchdb.so.
func requireLib(t testing.TB) {
	t.Helper()
	if libErr == nil {
		return
	}
	gate.Need(t, "libchdb.so (make chdb)", libErr)
}

// sharedEndpoint returns the DSN of the endpoint most tests share.
func sharedEndpoint(t testing.TB) string {
	t.Helper()
	requireLib(t)
	sharedOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		// Held for the whole test binary: tests far apart must not find it
		// stopped as idle. TestMain stops it.
		sharedDSN, _, sharedErr = cfg().Hold(ctx, sharedHome)
	})
	if sharedErr != nil {
		t.Fatalf("Ensure: %v", sharedErr)
	}
	return sharedDSN
}

func addrOf(t testing.TB, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// authOf is the DSN's credentials (the endpoint's password).
func authOf(t testing.TB, dsn string) clickhouse.Auth {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		t.Fatalf("DSN %q carries no credentials", dsn)
	}
	pw, _ := u.User.Password()
	return clickhouse.Auth{Username: u.User.Username(), Password: pw}
}

// openConn opens a clickhouse-go connection over HTTP to dsn.
func openConn(t testing.TB, dsn string, mod ...func(*clickhouse.Options)) driver.Conn {
	t.Helper()
	opts := &clickhouse.Options{
		Protocol:    clickhouse.HTTP,
		Addr:        []string{addrOf(t, dsn)},
		Auth:        authOf(t, dsn),
		DialTimeout: 10 * time.Second,
	}
	for _, f := range mod {
		f(opts)
	}
	conn, err := clickhouse.Open(opts)
	if err != nil {
		t.Fatalf("clickhouse.Open: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func exec1(t testing.TB, conn driver.Conn, q string, args ...any) {
	t.Helper()
	if err := conn.Exec(context.Background(), q, args...); err != nil {
		t.Fatalf("%s: %v", firstLine(q), err)
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func pidOf(t testing.TB, home string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(embedded.DataDir(home), "ste-chdb.pid"))
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	fmt.Sscan(string(b), &pid)
	return pid
}

// rssMiB reads a process's resident set size.
func rssMiB(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			var kb float64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
			return kb / 1024
		}
	}
	return -1
}
