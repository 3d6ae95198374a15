// Command ste-chdb is STE's embedded analytics server: the ClickHouse engine
// (chDB, in-process) behind ClickHouse's HTTP interface on a loopback
// address, so that STE talks to it through clickhouse-go/v2 exactly as it
// talks to a real ClickHouse server in production.
//
//	ste-chdb --data DIR [--addr 127.0.0.1:0] [--ready-file F] [--pid-file F] [--lock-file F]
//	         [--password-file DIR/ste-chdb.password] [--idle-timeout 5m] [--log-level info]
//
// It needs libchdb.so (chendpoint/libchdb/fetch.sh); without it, it prints a one-line
// hint and exits with status 2 (see internal/libguard for how that happens
// before chdb-go's init can panic). It writes the address it listens on to
// the ready file once it serves, removes the file and shuts down cleanly on
// SIGTERM or SIGINT (in-flight queries finish first), and logs with log/slog
// to stderr. It also stops by itself after --idle-timeout without a request
// (default $STE_CHDB_IDLE_TIMEOUT, else 5 minutes; 0 never) and when its data
// directory is removed (see chendpoint/embedded's idle.go). It is a separate binary on purpose: it must never be linked into
// the main ste binary, which would then need libchdb.so to start.
//
// Every request but /ping must carry the secret in the password file (made
// 0600 if missing) as the password of user default; requests from web
// browsers are refused, and so are table functions, engines and clauses
// reaching files or hosts and every setting not on the allow-list (see
// chendpoint). The engine itself is confined (chendpoint/confine.go): chDB's
// paths are empty private directories, and on Linux with Landlock the
// engine writes no file outside --data and opens no TCP connection.
//
//	ste-chdb --data DIR --self-check OUTSIDE,URL
//
// opens the engine so confined, runs fixed probes straight on it — past the
// SQL guard — that write and read files in OUTSIDE and fetch URL, prints
// each outcome as JSON and exits: what the engine alone would let through
// on this machine.
//
// Normally it is started, reused and stopped by chendpoint/embedded (Ensure,
// Stop); run it by hand to poke at the data with curl:
//
//	curl -u "default:$(cat DIR/ste-chdb.password)" 'http://ADDR/?query=SHOW+TABLES'
package main

import (
	// Must stay the first import: its init checks for libchdb.so before
	// chdb-go's init (pulled in by chendpoint) would panic without it.
	"github.com/ste-utility/ste/chendpoint/cmd/ste-chdb/internal/libguard"

	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ste-utility/ste/chendpoint"
	"github.com/ste-utility/ste/chendpoint/embedded"
)

func main() {
	os.Exit(run())
}

func run() int {
	var (
		dataDir   = flag.String("data", "", "chDB data directory (required; one process per directory)")
		addr      = flag.String("addr", "127.0.0.1:0", "loopback address to listen on; port 0 picks a free one")
		readyFile = flag.String("ready-file", "", "write the listen address here once serving; removed on shutdown")
		pidFile   = flag.String("pid-file", "", "write the process id here once the engine is open; removed on shutdown")
		logLevel  = flag.String("log-level", "info", "debug, info, warn or error")
		grace     = flag.Duration("shutdown-timeout", 30*time.Second, "how long in-flight queries may run after SIGTERM")
		lockFile  = flag.String("lock-file", "", "the lock chendpoint/embedded takes to start or stop this endpoint; taken before an idle stop")
		pwFile    = flag.String("password-file", "", "the secret every request carries as user default's password; made (0600) if missing (default: DIR/"+embedded.PasswordName+")")
		selfCheck = flag.String("self-check", "", "DIR,URL: confine and open the engine, run fixed probes past the SQL guard (write and read files in DIR, fetch URL), print each outcome as JSON and exit")
	)
	idleDefault, envErr := embedded.IdleTimeoutFromEnv()
	idleTimeout := flag.Duration("idle-timeout", idleDefault, "stop after this long without a request; 0 never (default: $"+embedded.IdleEnv+", else 5m)")
	flag.Parse()
	if envErr != nil && !isFlagSet("idle-timeout") {
		fmt.Fprintln(os.Stderr, "ste-chdb:", envErr)
		return 1
	}
	if *idleTimeout < 0 {
		fmt.Fprintln(os.Stderr, "ste-chdb: --idle-timeout must not be negative (0 never stops)")
		return 1
	}

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(os.Stderr, "ste-chdb: bad --log-level %q\n", *logLevel)
		return 1
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	slog.SetDefault(log)

	if *dataDir == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: ste-chdb --data DIR [--addr 127.0.0.1:0] [--ready-file F] [--pid-file F] [--lock-file F] [--idle-timeout 5m]")
		return 1
	}
	if *pwFile == "" {
		*pwFile = filepath.Join(*dataDir, embedded.PasswordName)
	}
	if err := os.MkdirAll(*dataDir, 0o700); err != nil {
		fmt.Fprintln(os.Stderr, "ste-chdb:", err)
		return 1
	}
	password, err := embedded.LoadOrCreatePassword(*pwFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ste-chdb:", strings.TrimPrefix(err.Error(), "analytics: "))
		return 1
	}
	// chendpoint.Open moves the process into an empty private directory:
	// every path given relative to where we were started is made absolute.
	for _, p := range []*string{dataDir, readyFile, pidFile, lockFile, pwFile} {
		if *p != "" {
			abs, err := filepath.Abs(*p)
			if err != nil {
				fmt.Fprintln(os.Stderr, "ste-chdb:", err)
				return 1
			}
			*p = abs
		}
	}
	ln, err := listenLoopback(*addr)
	if err != nil {
		log.Error("cannot listen", "addr", *addr, "err", err)
		return 1
	}
	// The engine thread is confined with Landlock (chendpoint/confine.go);
	// the files ste-chdb keeps are written from other threads.
	confine := &chendpoint.Confinement{RO: []string{filepath.Dir(libguard.Path)}}
	start := time.Now()
	ep, err := chendpoint.Open(chendpoint.Options{DataDir: *dataDir, Logger: log, Password: password, Confine: confine})
	if err != nil {
		log.Error("cannot open the engine", "err", err)
		return 1
	}
	if *selfCheck != "" {
		dir, u, _ := strings.Cut(*selfCheck, ",")
		b, _ := json.Marshal(ep.SelfCheck(dir, u))
		fmt.Println(string(b))
		_ = ep.Close()
		return 0
	}
	// Only now that chDB holds the directory's lock are the pid and ready
	// files ours to write: a second process on the same directory fails
	// above without touching the first one's files.
	if *pidFile != "" {
		if err := writeAtomic(*pidFile, strconv.Itoa(os.Getpid())+"\n"); err != nil {
			log.Error("cannot write pid file", "err", err)
			_ = ep.Close()
			return 1
		}
		defer os.Remove(*pidFile)
	}
	log.Info("serving", "addr", ln.Addr().String(), "lib", libguard.Path, "startup", time.Since(start).Round(time.Millisecond))
	if os.Getenv(nilDerefTestEnv) == "1" {
		nilDeref() // test hook, see below
	}

	idle := embedded.NewIdle(*idleTimeout)
	srv := &http.Server{
		Handler:           idle.Wrap(ep),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()

	if *readyFile != "" {
		if err := writeAtomic(*readyFile, ln.Addr().String()+"\n"); err != nil {
			log.Error("cannot write ready file", "err", err)
			_ = srv.Close()
			_ = ep.Close()
			return 1
		}
		defer os.Remove(*readyFile)
	}

	idleCtx, stopIdle := context.WithCancel(ctx)
	defer stopIdle()
	idleStop := make(chan string, 1)
	go func() { idleStop <- idle.Wait(idleCtx, *dataDir, *lockFile) }()

	code := 0
	select {
	case <-ctx.Done():
		log.Info("shutting down", "signal", context.Cause(ctx))
	case err := <-serveErr:
		log.Error("server failed", "err", err)
		code = 1
	case reason := <-idleStop:
		log.Info("shutting down by itself", "reason", reason)
	}
	if *readyFile != "" {
		_ = os.Remove(*readyFile) // new clients must not find us while we drain
	}
	sctx, cancel := context.WithTimeout(context.Background(), *grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Warn("shutdown did not drain", "err", err)
	}
	if err := ep.Close(); err != nil {
		log.Warn("engine close", "err", err)
	}
	log.Info("stopped")
	return code
}

func isFlagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// nilDerefTestEnv makes ste-chdb dereference nil once the engine is open.
// Test-only: chendpoint/embedded checks that the process then dies with Go's
// panic (exit 2) instead of hanging in libchdb's own SIGSEGV handler, i.e.
// that chendpoint really disabled chDB's signal handlers.
const nilDerefTestEnv = "STE_CHDB_TEST_NIL_DEREF"

//go:noinline
func nilDeref() {
	var p *int
	fmt.Println(*p)
}

// listenLoopback refuses anything but a loopback address: the endpoint's
// only defence is its password, sent in clear over HTTP.
func listenLoopback(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if host == "localhost" {
		addr = net.JoinHostPort("127.0.0.1", addr[len(host)+1:])
	} else if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("%s is not a loopback address (the endpoint speaks plain HTTP)", host)
	}
	return net.Listen("tcp", addr)
}

// writeAtomic writes content via a temp file and rename, so a reader never
// sees a half-written address.
func writeAtomic(path, content string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	if _, err := tmp.WriteString(content); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
