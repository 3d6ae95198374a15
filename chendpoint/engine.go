package chendpoint

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"time"

	chdbpurego "github.com/chdb-io/chdb-go/chdb-purego"
	"github.com/ebitengine/purego"

	"github.com/ste-utility/ste/chendpoint/internal/wire"
)

// chDB is one engine per process: the library boots a single ClickHouse
// "local server" on the first connection's --path and refuses another path
// until every connection is closed. processDir records which data directory
// this process has open.
var (
	processMu  sync.Mutex
	processDir string

	signalOnce sync.Once
	signalErr  error
)

// disableChdbSignalHandlers stops libchdb from installing its own
// SIGSEGV/SIGBUS/SIGILL/SIGFPE handlers when the first connection opens.
// With them installed, a nil dereference in Go code no longer reaches the Go
// runtime's handler: the process hangs instead of panicking (measured). The
// switch must be flipped before the first connection; chdb-go v1.11.0 does
// not bind it, but the library is already loaded RTLD_GLOBAL by chdb-go's
// init, so the symbol is reachable through dlsym(RTLD_DEFAULT).
func disableChdbSignalHandlers() error {
	signalOnce.Do(func() {
		sym, err := purego.Dlsym(purego.RTLD_DEFAULT, "chdb_set_signal_handlers_enabled")
		if err != nil {
			signalErr = fmt.Errorf("chdb_set_signal_handlers_enabled not exported by libchdb.so: %w", err)
			return
		}
		var set func(enabled int32)
		purego.RegisterFunc(&set, sym)
		set(0)
	})
	return signalErr
}

// engine owns chDB for the process. Every request runs on a connection of
// its own — chDB gives each connection its own session context (settings,
// current database, query parameters, temporary tables), so a SET or USE in
// one request cannot leak into the next, just like requests without
// session_id on a real server. Opening one costs ~0.4–0.8 ms. The long-lived
// main connection keeps the engine booted and the data directory locked.
//
// All chDB calls run on one goroutine locked to one OS thread (loop). That
// serialises queries — one at a time, as chDB sessions require — and keeps
// ClickHouse's thread-local state (CurrentThread, memory tracking) on the
// thread that created it; a plain goroutine may hop OS threads between
// calls.
type engine struct {
	dir  string
	conn string // chdb-go's connection string: dir and chDB's confined paths (confine.go)
	jobs chan func()
	main chdbpurego.ChdbConn

	closed      bool                // only touched on the engine thread
	sessions    map[string]*session // likewise
	maxSessions int
	version     string
	displayName string
	timezone    string
}

// loop is the engine thread.
func (e *engine) loop() {
	runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
	for job := range e.jobs {
		job()
	}
}

// do runs fn on the engine thread and waits for it. It gives up only while
// fn is still queued (ctx ended: the client left); once started, fn runs to
// completion and watches ctx itself where it can.
func (e *engine) do(ctx context.Context, fn func()) *wire.Exception {
	done := make(chan struct{})
	job := func() { defer close(done); fn() }
	select {
	case e.jobs <- job:
	case <-ctx.Done():
		return wire.Errorf(wire.CodeAborted, "Query was cancelled before it started: %v", ctx.Err())
	}
	<-done
	return nil
}

// landlockPlan is a Landlock ruleset for the engine thread (fd -1: none).
type landlockPlan struct {
	fd    int
	flags uint32
}

func openEngine(dir, connString string, ll landlockPlan, log *slog.Logger, maxSessions int) (*engine, error) {
	if strings.ContainsAny(dir, "?&\x00") {
		return nil, fmt.Errorf("data directory %q: '?' and '&' are not allowed (chdb-go reads them as connection-string options)", dir)
	}
	processMu.Lock()
	defer processMu.Unlock()
	if processDir != "" {
		return nil, fmt.Errorf("chDB is already open on %s in this process (one data directory per process)", processDir)
	}
	e := &engine{dir: dir, conn: connString, jobs: make(chan func()), sessions: map[string]*session{}, maxSessions: maxSessions}
	go e.loop()
	var err error
	e.do(context.Background(), func() {
		if ll.fd >= 0 {
			if err = restrictThisThread(ll.fd, ll.flags); err != nil {
				return
			}
		}
		err = e.boot(log)
	})
	if err != nil {
		close(e.jobs)
		return nil, err
	}
	processDir = dir
	return e, nil
}

// boot runs on the engine thread.
func (e *engine) boot(log *slog.Logger) error {
	if err := disableChdbSignalHandlers(); err != nil {
		// Not fatal: the engine works, only Go's crash reporting degrades.
		log.Warn("cannot disable chDB signal handlers; a Go nil dereference may hang instead of panicking", "err", err)
	}
	conn, err := chdbpurego.NewConnectionFromConnString(e.conn)
	if err != nil {
		return fmt.Errorf("open chDB on %s: %w (is another process using this data directory?)", e.dir, err)
	}
	res, err := conn.Query("SELECT version(), displayName(), timezone()", "TabSeparated")
	if err != nil {
		conn.Close()
		return fmt.Errorf("probe chDB on %s: %w", e.dir, err)
	}
	fields := strings.Split(strings.TrimRight(res.String(), "\n"), "\t")
	res.Free()
	if len(fields) != 3 {
		conn.Close()
		return fmt.Errorf("probe chDB on %s: unexpected answer %q", e.dir, fields)
	}
	// The names the engine knows, so that the settings guard answers a
	// misspelt one as a server would (UNKNOWN_SETTING).
	res, err = conn.Query("SELECT name FROM system.settings UNION ALL SELECT name FROM system.merge_tree_settings", "TabSeparated")
	if err != nil {
		conn.Close()
		return fmt.Errorf("probe chDB on %s: %w", e.dir, err)
	}
	wire.SetKnownSettings(strings.Fields(res.String()))
	res.Free()
	e.main = conn
	e.version, e.displayName, e.timezone = fields[0], fields[1], fields[2]
	return nil
}

var errClosed = wire.Errorf(wire.CodeAborted, "The embedded ClickHouse endpoint is shutting down")

// execute runs p on the engine thread, writing the result to out.
func (e *engine) execute(ctx context.Context, p *plan, out *wire.Responder) *wire.Exception {
	var ex *wire.Exception
	if qex := e.do(ctx, func() {
		if e.closed {
			ex = errClosed
			return
		}
		ex = e.run(ctx, p, out)
	}); qex != nil {
		return qex
	}
	return ex
}

// close waits for the running query, closes chDB and stops the engine thread.
func (e *engine) close() {
	e.do(context.Background(), func() {
		if e.closed {
			return
		}
		e.closed = true
		for id, s := range e.sessions {
			s.conn.Close()
			delete(e.sessions, id)
		}
		e.main.Close()
	})
	processMu.Lock()
	if processDir == e.dir {
		processDir = ""
	}
	processMu.Unlock()
}

// external is a client-supplied external table (multipart request), spooled
// to a file.
type external struct {
	name, structure, format, path string
}

// plan is one request, ready to run.
type plan struct {
	set       string // SET statement for settings and parameters, or ""
	database  string
	externals []external
	query     string
	format    string // output format passed to chDB
	hello     bool   // the driver's handshake query (query holds HelloQuery)

	session        string // session_id, or "" for a request of its own
	sessionTimeout time.Duration
	sessionCheck   bool
}

// run executes p on a fresh connection, writing the result to out. It runs
// on the engine thread.
func (e *engine) run(ctx context.Context, p *plan, out *wire.Responder) *wire.Exception {
	var conn chdbpurego.ChdbConn
	if p.session != "" {
		s, ex := e.session(p)
		if ex != nil {
			return ex
		}
		conn = s.conn
	} else {
		var err error
		conn, err = chdbpurego.NewConnectionFromConnString(e.conn)
		if err != nil {
			return wire.Errorf(wire.CodeStdException, "Cannot open a chDB connection: %v", err)
		}
		defer conn.Close()
	}

	exec := func(q string) *wire.Exception {
		res, err := conn.Query(q, "TabSeparated")
		if err != nil {
			return wire.FromEngine(err.Error())
		}
		res.Free()
		return nil
	}
	if p.set != "" {
		if ex := exec(p.set); ex != nil {
			return ex
		}
	}
	if p.database != "" {
		if ex := exec("USE " + wire.QuoteIdent(p.database)); ex != nil {
			return ex
		}
	}
	for _, t := range p.externals {
		if ex := exec("CREATE TEMPORARY TABLE " + wire.QuoteIdent(t.name) + " (" + t.structure + ")"); ex != nil {
			return ex
		}
		if ex := exec("INSERT INTO " + wire.QuoteIdent(t.name) + " FROM INFILE " + wire.QuoteString(t.path) + " FORMAT " + t.format); ex != nil {
			return ex
		}
	}
	if err := ctx.Err(); err != nil {
		return wire.Errorf(wire.CodeAborted, "Query was cancelled: %v", err)
	}
	// One materialised call. chDB's streaming API (chdb_stream_query) would
	// bound memory and allow cancellation between chunks, but with
	// libchdb 26.7.3-stable.1 chdb_stream_cancel_query — which chdb-go calls
	// whenever a stream is freed — intermittently deadlocks on a stream that
	// ended with an error (seen under gdb: the engine thread blocked in
	// pthread_mutex_lock inside chdb_stream_cancel_query), and the process
	// also crashed once in the same tests. The result is therefore built
	// whole in chDB's memory and written from there.
	res, err := conn.Query(p.query, p.format)
	if err != nil {
		return wire.FromEngine(err.Error())
	}
	defer res.Free()
	if b := res.Buf(); len(b) > 0 {
		if _, err := out.Write(b); err != nil {
			return wire.Errorf(wire.CodeNetworkError, "Cannot write the result: %v", err)
		}
	}
	return nil
}

// errEngineClosed is returned by Endpoint methods after Close.
var errEngineClosed = errors.New("chendpoint: closed")

// session is a ClickHouse HTTP session (session_id): one chDB connection
// kept between requests, so that a SET, USE or temporary table lives for the
// session as on a server. clickhouse-connect opens one by default.
type session struct {
	conn    chdbpurego.ChdbConn
	last    time.Time
	timeout time.Duration
}

// Session timeouts, as ClickHouse's defaults (session_timeout 60 s,
// max_session_timeout 3600 s).
const (
	defaultSessionTimeout = 60 * time.Second
	maxSessionTimeout     = time.Hour
)

// session returns p's session, opening it unless session_check demands that
// it exists. Expired sessions are closed first; at MaxSessions the least
// recently used one makes room. It runs on the engine thread.
func (e *engine) session(p *plan) (*session, *wire.Exception) {
	now := time.Now()
	for id, s := range e.sessions {
		if now.Sub(s.last) > s.timeout {
			s.conn.Close()
			delete(e.sessions, id)
		}
	}
	timeout := p.sessionTimeout
	if timeout <= 0 {
		timeout = defaultSessionTimeout
	}
	if timeout > maxSessionTimeout {
		return nil, wire.Errorf(wire.CodeBadArguments, "Session timeout %v is above max_session_timeout %v", timeout, maxSessionTimeout)
	}
	if s, ok := e.sessions[p.session]; ok {
		s.last, s.timeout = now, timeout
		return s, nil
	}
	if p.sessionCheck {
		return nil, wire.Errorf(wire.CodeSessionNotFound, "Session %s not found", p.session)
	}
	if len(e.sessions) >= e.maxSessions {
		oldest := ""
		for id, s := range e.sessions {
			if oldest == "" || s.last.Before(e.sessions[oldest].last) {
				oldest = id
			}
		}
		e.sessions[oldest].conn.Close()
		delete(e.sessions, oldest)
	}
	conn, err := chdbpurego.NewConnectionFromConnString(e.conn)
	if err != nil {
		return nil, wire.Errorf(wire.CodeStdException, "Cannot open a chDB connection: %v", err)
	}
	s := &session{conn: conn, last: now, timeout: timeout}
	e.sessions[p.session] = s
	return s, nil
}
