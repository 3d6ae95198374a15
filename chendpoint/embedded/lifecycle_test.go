package embedded_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"github.com/ste-utility/ste/chendpoint/embedded"
	"github.com/ste-utility/ste/chendpoint/internal/gate"
)

// helperEnv makes the test binary act as a short-lived "ste command" that
// calls Ensure and exits (see TestEndpointOutlivesItsStarter).
const helperEnv = "STE_EMBEDDED_TEST_ENSURE_HOME"

func init() {
	if home := os.Getenv(helperEnv); home != "" {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		dsn, err := embedded.Config{Binary: os.Getenv(embedded.BinaryEnv)}.Ensure(ctx, home)
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString(dsn + "\n")
		os.Exit(0)
	}
}

func TestEnsureStartsReusesAndStops(t *testing.T) {
	requireLib(t)
	home := filepath.Join(tmpRoot, "lifecycle")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	start := time.Now()
	dsn, err := cfg().Ensure(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	cold := time.Since(start)
	pid := pidOf(t, home)
	t.Logf("cold start (exec to first successful SELECT 1): %v; idle RSS %.0f MiB", cold.Round(time.Millisecond), rssMiB(pid))

	// The DSN is what production code hands to clickhouse-go.
	opts, err := clickhouse.ParseDSN(dsn)
	if err != nil || opts.Protocol != clickhouse.HTTP {
		t.Fatalf("ParseDSN(%q): %+v %v", dsn, opts, err)
	}
	dsnConn, err := clickhouse.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := dsnConn.Ping(ctx); err != nil {
		t.Fatalf("Ping via DSN: %v", err)
	}
	dsnConn.Close()
	db, err := sql.Open("clickhouse", dsn)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PingContext(ctx); err != nil {
		t.Fatalf("database/sql via DSN: %v", err)
	}
	db.Close()

	// Detached: its own session and process group.
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err == nil {
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+2:]))
		if f[2] != strconv.Itoa(pid) || f[3] != strconv.Itoa(pid) {
			t.Fatalf("pgrp %s session %s, want both %d", f[2], f[3], pid)
		}
	}

	// Reuse: same address and process, whoever asks, concurrently too.
	start = time.Now()
	again, err := cfg().Ensure(ctx, home)
	if err != nil || again != dsn {
		t.Fatalf("second Ensure: %q %v, want %q", again, err, dsn)
	}
	t.Logf("warm Ensure (reuse, with liveness SELECT 1): %v", time.Since(start).Round(10*time.Microsecond))
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := cfg().Ensure(ctx, home)
			if err == nil && d != dsn {
				err = errors.New("different DSN " + d)
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if p := pidOf(t, home); p != pid {
		t.Fatalf("pid changed %d -> %d", pid, p)
	}

	// A second process on the same data directory is refused by chDB's lock
	// (what Ensure's pid/address files prevent in practice).
	out, err := exec.Command(binPath, "--data", embedded.DataDir(home)).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "cannot open the engine") {
		t.Fatalf("second ste-chdb on the same directory: %v\n%s", err, out)
	}
	t.Logf("second process on the same directory: %s", lastLine(string(out)))

	start = time.Now()
	if err := cfg().Stop(home); err != nil {
		t.Fatal(err)
	}
	t.Logf("Stop (SIGTERM to exit): %v", time.Since(start).Round(time.Millisecond))
	if err := syscall.Kill(pid, 0); err == nil {
		if st, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); !strings.Contains(string(st), ") Z") {
			t.Fatalf("pid %d still running after Stop", pid)
		}
	}
	if _, err := os.Stat(filepath.Join(embedded.DataDir(home), "ste-chdb.addr")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("ready file left behind: %v", err)
	}
	if err := cfg().Stop(home); err != nil {
		t.Fatalf("Stop when not running: %v", err)
	}

	// A stale ready/pid file (crash, kill -9) does not fool Ensure.
	dir := embedded.DataDir(home)
	os.WriteFile(filepath.Join(dir, "ste-chdb.addr"), []byte("127.0.0.1:1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "ste-chdb.pid"), []byte("999999\n"), 0o644)
	dsn2, err := cfg().Ensure(ctx, home)
	if err != nil {
		t.Fatalf("Ensure after stale files: %v", err)
	}
	if pidOf(t, home) == pid {
		t.Fatal("expected a new process")
	}
	conn := openConn(t, dsn2)
	if err := conn.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if err := cfg().Stop(home); err != nil {
		t.Fatal(err)
	}
}

func TestEndpointOutlivesItsStarter(t *testing.T) {
	requireLib(t)
	home := filepath.Join(tmpRoot, "outlive")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A separate short-lived process ("an ste command") starts it and exits.
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+home, embedded.BinaryEnv+"="+binPath)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper: %v", err)
	}
	dsn := strings.TrimSpace(string(out))
	// The endpoint is still there, and the next command reuses it.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	again, err := cfg().Ensure(ctx, home)
	if err != nil || again != dsn {
		t.Fatalf("after the starter exited: %q %v, want %q", again, err, dsn)
	}
	if err := openConn(t, again).Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if err := cfg().Stop(home); err != nil {
		t.Fatal(err)
	}
}

// TestMissingLibraryIsAOneLineHint runs the real binary without libchdb.so:
// it must print one line and exit 2, not panic in chdb-go's init.
func TestMissingLibraryIsAOneLineHint(t *testing.T) {
	empty := t.TempDir()
	base := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + empty, "STE_CACHE=" + empty}
	for name, env := range map[string][]string{
		"bad CHDB_LIB_PATH": append(base, "CHDB_LIB_PATH="+filepath.Join(empty, "libchdb.so")),
		"nothing anywhere":  base,
	} {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(binPath, "--data", filepath.Join(empty, "data"))
			cmd.Env = env
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 {
				if name == "nothing anywhere" && err == nil {
					gate.Need(t, "a machine without a system-wide libchdb.so (the endpoint finds it)", errors.New("one is installed"))
				}
				t.Fatalf("exit: %v, want status 2; stderr:\n%s", err, stderr.String())
			}
			msg := stderr.String()
			if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "libchdb.so not found") || strings.Contains(msg, "panic") {
				t.Fatalf("want a one-line hint, got:\n%s", msg)
			}
			t.Logf("%s", strings.TrimSpace(msg))

			// Ensure reports the same as a one-line error.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_, err = embedded.Config{Binary: binPath, Env: env}.Ensure(ctx, filepath.Join(empty, "home-"+strings.ReplaceAll(name, " ", "-")))
			if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "libchdb.so not found") {
				t.Fatalf("Ensure: want a one-line libchdb hint, got %v", err)
			}
			t.Logf("Ensure: %v", err)
		})
	}
}

func TestMissingBinaryIsAOneLineHint(t *testing.T) {
	t.Setenv(embedded.BinaryEnv, "")
	t.Setenv("PATH", t.TempDir())
	_, err := embedded.Ensure(context.Background(), t.TempDir())
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "ste-chdb not found") {
		t.Fatalf("want a one-line hint, got %v", err)
	}
	t.Logf("%v", err)
}

// TestLibraryGuardRunsBeforeChdbInit checks the init order the missing-library
// handling depends on (see chendpoint/cmd/ste-chdb/internal/libguard).
func TestLibraryGuardRunsBeforeChdbInit(t *testing.T) {
	requireLib(t)
	cmd := exec.Command(binPath) // no --data: prints usage after all inits ran
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, _ := cmd.CombinedOutput()
	guard := strings.Index(string(out), "init github.com/ste-utility/ste/chendpoint/cmd/ste-chdb/internal/libguard ")
	chdb := strings.Index(string(out), "init github.com/chdb-io/chdb-go/chdb-purego ")
	if guard < 0 || chdb < 0 || guard > chdb {
		t.Fatalf("libguard init at %d, chdb-purego init at %d (want guard first):\n%s", guard, chdb, out)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestGoPanicsAreNotSwallowedByChdb: libchdb installs SIGSEGV handlers when
// its first connection opens, after which a Go nil dereference hangs instead
// of panicking; chendpoint switches them off first. The binary's test hook
// dereferences nil after opening the engine: it must die with a Go panic.
func TestGoPanicsAreNotSwallowedByChdb(t *testing.T) {
	requireLib(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, "--data", t.TempDir())
	cmd.Env = append(os.Environ(), "STE_CHDB_TEST_NIL_DEREF=1")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("ste-chdb hung after a nil dereference (chDB's signal handlers are active):\n%s", out)
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), "nil pointer dereference") {
		t.Fatalf("want a Go panic (exit 2), got %v:\n%s", err, out)
	}
}

// TestEndpointStopsWhenIdle: an endpoint nobody uses stops by itself after
// its idle timeout — not while a command holds it, not while a command is
// taking its lock (being handed its address) — and the next command starts
// a new one; removing its data directory stops it too.
func TestEndpointStopsWhenIdle(t *testing.T) {
	requireLib(t)
	home := filepath.Join(tmpRoot, "idle")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := cfg()
	c.IdleTimeout = time.Second

	_, release, err := c.Hold(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	pid := pidOf(t, home)
	ep, ok := embedded.Running(ctx, home)
	if !ok || ep.PID != pid || ep.IdleTimeout != c.IdleTimeout {
		t.Fatalf("Running: %+v %v, want pid %d, idle timeout %v", ep, ok, pid, c.IdleTimeout)
	}
	time.Sleep(3 * c.IdleTimeout)
	if !alive(pid) {
		t.Fatalf("the endpoint stopped while held; log:\n%s", chdbLog(home))
	}
	release()
	waitExit(t, pid, home)
	for _, f := range []string{"ste-chdb.addr", "ste-chdb.pid"} {
		if _, err := os.Stat(filepath.Join(embedded.DataDir(home), f)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind after the idle stop: %v", f, err)
		}
	}
	if !strings.Contains(chdbLog(home), `reason="idle for 1s"`) {
		t.Errorf("the log does not say why it stopped:\n%s", chdbLog(home))
	}

	// A command holding the lock (Ensure, Stop) delays the idle stop.
	dsn, err := c.Ensure(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	pid2 := pidOf(t, home)
	if pid2 == pid {
		t.Fatal("Ensure after the idle stop: same pid")
	}
	lock, err := os.OpenFile(filepath.Join(embedded.DataDir(home), "ste-chdb.lock"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * c.IdleTimeout)
	if !alive(pid2) {
		t.Fatal("the endpoint stopped as idle while its lock was held")
	}
	if err := openConn(t, dsn).Ping(ctx); err != nil {
		t.Fatalf("the endpoint does not answer while its lock is held: %v", err)
	}
	syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	waitExit(t, pid2, home)

	// Never idle, but its data directory goes.
	c.IdleTimeout = -1
	gone := filepath.Join(tmpRoot, "idle-gone")
	if _, err := c.Ensure(ctx, gone); err != nil {
		t.Fatal(err)
	}
	pid3 := pidOf(t, gone)
	if ep, _ := embedded.Running(ctx, gone); ep.IdleTimeout != 0 {
		t.Fatalf("idle timeout %v, want 0 (never)", ep.IdleTimeout)
	}
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	waitExit(t, pid3, gone)
}

func alive(pid int) bool {
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(st), ") Z")
}

// waitExit waits for pid to exit; the test fails after a minute.
func waitExit(t *testing.T, pid int, home string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("ste-chdb (pid %d) still running; log:\n%s", pid, chdbLog(home))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func chdbLog(home string) string {
	b, _ := os.ReadFile(filepath.Join(embedded.DataDir(home), "ste-chdb.log"))
	return string(b)
}
