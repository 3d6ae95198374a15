// Package embedded runs STE's analytics store on a developer machine or a
// single host: it starts, reuses and stops one ste-chdb process per data
// directory and hands out a DSN that clickhouse-go/v2 opens over HTTP — the
// same driver and code path production uses against a real ClickHouse
// server.
//
// Why a separate process rather than chDB in the ste binary: libchdb.so is
// ~560 MB and its Go binding panics at start-up when the library is missing,
// chDB allows one engine per process and one process per data directory
// (it locks the directory), and several short-lived ste commands must share
// the store. So the endpoint is a long-lived process of its own:
//
//   - Ensure starts it detached — a new session (setsid), hence its own
//     process group, no controlling terminal, stdin from /dev/null, output
//     appended to home/analytics/ste-chdb.log — so it outlives the ste
//     command that started it, survives that terminal's Ctrl-C and hang-up,
//     and later commands reuse it.
//   - Reuse is decided by the files the process writes into the data
//     directory (ste-chdb.addr, its listen address once it serves;
//     ste-chdb.pid) plus a liveness check that runs a real SELECT 1 over HTTP
//     and checks the data directory the endpoint reports
//     (X-Ste-Chdb-Data-Dir), so a recycled port is never taken for ours.
//   - An exclusive flock on home/analytics/ste-chdb.lock serialises Ensure and
//     Stop across processes, so two commands starting at once do not race to
//     start two endpoints.
//   - It stays up until Stop (SIGTERM; it finishes in-flight queries, then
//     exits), until it has served no request for its idle timeout (default
//     5 minutes, $STE_CHDB_IDLE_TIMEOUT; see idle.go), or until its data
//     directory is removed. Commands that use it for longer hold it (Hold).
//
// This package links neither chDB nor chendpoint: ste stays a small binary
// that starts without libchdb.so, and reports a one-line hint when it or the
// ste-chdb binary is missing.
package embedded

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ste-utility/ste/chendpoint/embedded/chdblib"
)

// Files in the data directory.
const (
	readyName = "ste-chdb.addr"
	pidName   = "ste-chdb.pid"
	logName   = "ste-chdb.log"
	lockName  = "ste-chdb.lock"
	// PasswordName is the endpoint's secret, beside its address file: the
	// password of ClickHouse user default on every request.
	PasswordName = "ste-chdb.password"
)

// headerDataDir is chendpoint.HeaderDataDir (not imported: this package must
// not link chDB).
const headerDataDir = "X-Ste-Chdb-Data-Dir"

// AddrEnv fixes the address a started endpoint listens on (a loopback
// host:port); default 127.0.0.1:0, a free port.
const AddrEnv = "STE_CHDB_ADDR"

// BinaryEnv names an explicit ste-chdb binary, overriding the search.
const BinaryEnv = "STE_CHDB_BIN"

// Config tunes Ensure and Stop; the zero value is what the package-level
// functions use.
type Config struct {
	// Binary is the ste-chdb executable. Default: $STE_CHDB_BIN, else
	// ste-chdb next to the running executable, else on PATH.
	Binary string
	// StartTimeout bounds a start, from exec to the first successful
	// SELECT 1. Default 60 s (a cold start takes ~0.2–1 s).
	StartTimeout time.Duration
	// StopTimeout is how long Stop waits after SIGTERM before SIGKILL.
	// Default 30 s.
	StopTimeout time.Duration
	// LogLevel is passed to ste-chdb (--log-level). Default "info".
	LogLevel string
	// IdleTimeout is passed to ste-chdb (--idle-timeout) when it starts one:
	// it stops after this long without a request. 0: ste-chdb's default
	// ($STE_CHDB_IDLE_TIMEOUT, else DefaultIdleTimeout); negative: never.
	IdleTimeout time.Duration
	// Env, if set, is the child's environment instead of os.Environ().
	Env []string
}

// DataDir is the analytics data directory for an STE home: home/analytics.
func DataDir(home string) string { return filepath.Join(home, "analytics") }

// Ensure returns a clickhouse-go DSN ("http://default:SECRET@127.0.0.1:PORT") for the
// analytics endpoint of home, starting ste-chdb if none is running. See the
// package documentation.
func Ensure(ctx context.Context, home string) (dsn string, err error) {
	return Config{}.Ensure(ctx, home)
}

// Stop stops the endpoint of home, if one is running, and waits for it to
// exit.
func Stop(home string) error { return Config{}.Stop(home) }

// Ensure is the package-level Ensure with this configuration.
func (c Config) Ensure(ctx context.Context, home string) (string, error) {
	dir, err := filepath.Abs(DataDir(home))
	if err != nil {
		return "", err
	}
	if err := privateDir(dir); err != nil {
		return "", err
	}
	unlock, err := lockDir(ctx, dir)
	if err != nil {
		return "", err
	}
	defer unlock()
	pw, err := LoadOrCreatePassword(filepath.Join(dir, PasswordName))
	if err != nil {
		return "", err
	}
	dsn := func(addr string) string { return "http://default:" + pw + "@" + addr }

	if addr, _, err := probe(ctx, dir); err == nil {
		return dsn(addr), nil
	}
	// Not answering. A live ste-chdb on this directory is starting (or was
	// started by hand) — give it the start timeout; anything else is stale.
	if pid, ok := ourProcess(dir); ok {
		addr, err := c.waitReady(ctx, dir, nil)
		if err != nil {
			return "", fmt.Errorf("analytics: ste-chdb (pid %d) on %s is running but does not answer: %w; see %s or run Stop", pid, dir, err, filepath.Join(dir, logName))
		}
		return dsn(addr), nil
	}
	os.Remove(filepath.Join(dir, readyName))
	os.Remove(filepath.Join(dir, pidName))
	addr, err := c.start(ctx, dir)
	if err != nil {
		return "", err
	}
	return dsn(addr), nil
}

func (c Config) start(ctx context.Context, dir string) (string, error) {
	bin, err := c.binary()
	if err != nil {
		return "", err
	}
	if err := c.checkLibrary(); err != nil {
		return "", err
	}
	logPath := filepath.Join(dir, logName)
	if st, err := os.Stat(logPath); err == nil && st.Size() > 16<<20 {
		_ = os.Rename(logPath, logPath+".1")
	}
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return "", fmt.Errorf("analytics: %w", err)
	}
	defer logf.Close() // the child has its own copy of the descriptor
	offset, _ := logf.Seek(0, io.SeekEnd)

	level := c.LogLevel
	if level == "" {
		level = "info"
	}
	listen := "127.0.0.1:0"
	if a := os.Getenv(AddrEnv); a != "" {
		listen = a // a fixed port, for tools configured once (Grafana, DBeaver)
	}
	cmd := exec.Command(bin,
		"--data", dir,
		"--addr", listen,
		"--ready-file", filepath.Join(dir, readyName),
		"--pid-file", filepath.Join(dir, pidName),
		"--log-level", level,
		"--lock-file", filepath.Join(dir, lockName),
		"--password-file", filepath.Join(dir, PasswordName),
	)
	if c.IdleTimeout != 0 {
		cmd.Args = append(cmd.Args, "--idle-timeout", max(c.IdleTimeout, 0).String())
	}
	cmd.Dir = dir
	cmd.Env = c.Env
	cmd.Stdout = logf
	cmd.Stderr = logf
	// Detach: new session and process group, no controlling terminal.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("analytics: start %s: %w", bin, err)
	}
	// Reap it if it exits while we are alive (otherwise it would linger as
	// a zombie and look alive to Stop); once we exit, init adopts it.
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	addr, err := c.waitReady(ctx, dir, exited)
	if err != nil {
		if errors.Is(err, errExited) {
			return "", fmt.Errorf("analytics: ste-chdb exited: %s", lastLogLine(logPath, offset))
		}
		_ = cmd.Process.Signal(syscall.SIGTERM)
		return "", fmt.Errorf("analytics: ste-chdb did not become ready: %w; see %s", err, logPath)
	}
	return addr, nil
}

var errExited = errors.New("exited")

// waitReady polls the ready file and the SELECT 1 probe until the endpoint
// answers, the process exits, or the start timeout passes.
func (c Config) waitReady(ctx context.Context, dir string, exited <-chan error) (string, error) {
	timeout := c.StartTimeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	lastErr := errors.New("no ready file yet")
	for {
		if _, err := os.Stat(filepath.Join(dir, readyName)); err == nil {
			addr, _, err := probe(ctx, dir)
			if err == nil {
				return addr, nil
			}
			lastErr = err
		}
		select {
		case <-exited:
			return "", errExited
		case <-ctx.Done():
			return "", fmt.Errorf("%w (last: %v)", ctx.Err(), lastErr)
		case <-tick.C:
		}
	}
}

// Stop is the package-level Stop with this configuration.
func (c Config) Stop(home string) error {
	dir, err := filepath.Abs(DataDir(home))
	if err != nil {
		return err
	}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	unlock, err := lockDir(context.Background(), dir)
	if err != nil {
		return err
	}
	defer unlock()
	defer os.Remove(filepath.Join(dir, readyName))

	pid, ok := ourProcess(dir)
	if !ok {
		os.Remove(filepath.Join(dir, pidName))
		return nil
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("analytics: stop ste-chdb (pid %d): %w", pid, err)
	}
	timeout := c.StopTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	if waitGone(pid, timeout) {
		os.Remove(filepath.Join(dir, pidName))
		return nil
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	if !waitGone(pid, 5*time.Second) {
		return fmt.Errorf("analytics: ste-chdb (pid %d) survived SIGKILL", pid)
	}
	os.Remove(filepath.Join(dir, pidName))
	return fmt.Errorf("analytics: ste-chdb (pid %d) ignored SIGTERM for %v and was killed", pid, timeout)
}

// binary finds ste-chdb and returns a one-line hint if it cannot.
func (c Config) binary() (string, error) {
	if c.Binary != "" {
		return c.Binary, nil
	}
	if b := os.Getenv(BinaryEnv); b != "" {
		return b, nil
	}
	if exe, err := os.Executable(); err == nil {
		b := filepath.Join(filepath.Dir(exe), "ste-chdb")
		if st, err := os.Stat(b); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return b, nil
		}
	}
	if b, err := exec.LookPath("ste-chdb"); err == nil {
		return b, nil
	}
	return "", errors.New("ste-chdb not found next to the ste binary or on PATH: go build -o <bin dir> ./chendpoint/cmd/ste-chdb, or set " + BinaryEnv)
}

// checkLibrary runs the check ste-chdb would, against the child's
// environment, so a missing library is reported without starting anything.
func (c Config) checkLibrary() error {
	if c.Env == nil {
		_, err := chdblib.Find()
		return err
	}
	for _, kv := range c.Env {
		if v, ok := strings.CutPrefix(kv, chdblib.EnvPath+"="); ok && v != "" {
			if st, err := os.Stat(v); err != nil || !st.Mode().IsRegular() {
				return errors.New("libchdb.so not found: CHDB_LIB_PATH=" + v + " is not a file; run chendpoint/libchdb/fetch.sh or fix CHDB_LIB_PATH")
			}
			return nil
		}
	}
	return nil // ste-chdb does its own search and reports a miss
}

// probe reads the ready file and runs SELECT 1 against the address,
// checking that the endpoint serves dir. It also returns the endpoint's idle
// timeout (-1 if it does not say).
func probe(ctx context.Context, dir string) (addr string, idle time.Duration, err error) {
	b, err := os.ReadFile(filepath.Join(dir, readyName))
	if err != nil {
		return "", 0, err
	}
	addr = strings.TrimSpace(string(b))
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return "", 0, fmt.Errorf("bad ready file: %q", addr)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	pw, err := os.ReadFile(filepath.Join(dir, PasswordName))
	if err != nil {
		return "", 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/?default_format=TabSeparated", strings.NewReader("SELECT 1"))
	if err != nil {
		return "", 0, err
	}
	req.SetBasicAuth("default", strings.TrimSpace(string(pw)))
	res, err := probeClient.Do(req)
	if err != nil {
		return "", 0, err
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
	if res.StatusCode != http.StatusOK || strings.TrimSpace(string(body)) != "1" {
		return "", 0, fmt.Errorf("SELECT 1 on %s: HTTP %d %q", addr, res.StatusCode, strings.TrimSpace(string(body)))
	}
	if got := res.Header.Get(headerDataDir); got != dir {
		return "", 0, fmt.Errorf("%s serves %q, not %q", addr, got, dir)
	}
	idle, err = time.ParseDuration(res.Header.Get(headerIdle))
	if err != nil {
		idle = -1
	}
	return addr, idle, nil
}

// Endpoint is a running endpoint, as Running finds it.
type Endpoint struct {
	PID     int
	DataDir string
	// DSN is "" when the process runs but does not answer (starting,
	// stopping, or stuck).
	DSN string
	// IdleTimeout: it stops after this long without a request (0: never;
	// -1: it does not say).
	IdleTimeout time.Duration
}

// Running returns the endpoint of home if its process is running.
func Running(ctx context.Context, home string) (Endpoint, bool) {
	dir, err := filepath.Abs(DataDir(home))
	if err != nil {
		return Endpoint{}, false
	}
	pid, ok := ourProcess(dir)
	if !ok {
		return Endpoint{}, false
	}
	ep := Endpoint{PID: pid, DataDir: dir, IdleTimeout: -1}
	if addr, idle, err := probe(ctx, dir); err == nil {
		ep.DSN, ep.IdleTimeout = "http://"+addr, idle
		if pw, err := os.ReadFile(filepath.Join(dir, PasswordName)); err == nil {
			ep.DSN = "http://default:" + strings.TrimSpace(string(pw)) + "@" + addr
		}
	}
	return ep, true
}

var probeClient = &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}

// ourProcess returns the pid from the pid file if that process is alive and
// is a ste-chdb serving dir (a recycled pid is not).
func ourProcess(dir string) (int, bool) {
	b, err := os.ReadFile(filepath.Join(dir, pidName))
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0, false
	}
	if !alive(pid) {
		return 0, false
	}
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return pid, true // no procfs: trust the pid file
	}
	args := strings.Split(string(cmdline), "\x00")
	if len(args) == 0 || !strings.Contains(filepath.Base(args[0]), "ste-chdb") {
		return 0, false
	}
	for i, a := range args {
		if (a == "--data" || a == "-data") && i+1 < len(args) && args[i+1] == dir {
			return pid, true
		}
		if v, ok := strings.CutPrefix(a, "--data="); ok && v == dir {
			return pid, true
		}
	}
	return 0, false
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// Format: pid (comm) state ...; comm may contain spaces or parentheses.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}

func waitGone(pid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if !alive(pid) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return !alive(pid)
}

// lockDir takes an exclusive flock on dir/ste-chdb.lock, polling so that ctx
// can interrupt the wait.
func lockDir(ctx context.Context, dir string) (func(), error) {
	path := filepath.Join(dir, lockName)
	for {
		f, ok, err := tryLockErr(path)
		if err != nil {
			return nil, err
		}
		if ok {
			return func() { unlock(f) }, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("analytics: waiting for %s: %w", path, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// tryLockErr takes an exclusive flock on path without waiting: ok is false
// when another process holds it.
func tryLockErr(path string) (f *os.File, ok bool, err error) {
	f, err = os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("analytics: %w", err)
	}
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil {
		return f, true, nil
	}
	f.Close()
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, false, nil
	}
	return nil, false, fmt.Errorf("analytics: lock %s: %w", path, err)
}

func tryLock(path string) (*os.File, bool) {
	f, ok, _ := tryLockErr(path)
	return f, ok
}

func unlock(f *os.File) {
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	f.Close()
}

// lastLogLine returns the last non-empty line the child wrote to the log
// after offset: ste-chdb's fatal errors are one line.
func lastLogLine(path string, offset int64) string {
	f, err := os.Open(path)
	if err != nil {
		return "(no log)"
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return "(no log)"
	}
	b, _ := io.ReadAll(io.LimitReader(f, 1<<20))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return strings.TrimPrefix(l, "ste-chdb: ")
		}
	}
	return "no output (see " + path + ")"
}
