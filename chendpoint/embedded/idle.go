package embedded

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// The endpoint stops by itself once unused, so that nothing a `ste demo`,
// `ste bench` or `ste report` started is left running for good (~260 MB
// each): after IdleTimeout without a request, or at once when its data
// directory is removed. Commands that keep it for a while (`ste analytics`,
// the ingest of demo and bench) hold it with Hold, which queries it often
// enough to keep it up.

// IdleEnv sets ste-chdb's idle timeout (a Go duration; "0" never stops).
const IdleEnv = "STE_CHDB_IDLE_TIMEOUT"

// DefaultIdleTimeout is the idle timeout when neither --idle-timeout nor
// $STE_CHDB_IDLE_TIMEOUT says otherwise: long enough to read a report and
// run the next, short enough that a forgotten endpoint frees its memory.
const DefaultIdleTimeout = 5 * time.Minute

// headerIdle carries the endpoint's idle timeout on every answer, so that a
// command holding it knows how often to show that it is still there.
const headerIdle = "X-Ste-Chdb-Idle-Timeout"

// IdleTimeoutFromEnv is ste-chdb's default for --idle-timeout.
func IdleTimeoutFromEnv() (time.Duration, error) {
	v := strings.TrimSpace(os.Getenv(IdleEnv))
	if v == "" {
		return DefaultIdleTimeout, nil
	}
	if v == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, errors.New("$" + IdleEnv + "=" + v + ": want a duration such as 10m, or 0 for never")
	}
	return d, nil
}

// Idle watches an endpoint's requests (see Wrap) for Wait.
type Idle struct {
	timeout  time.Duration
	mu       sync.Mutex
	inflight int
	last     time.Time
	held     *os.File // the lock taken by Wait: referenced, so never closed by a finalizer
}

// NewIdle watches for timeout without requests; 0 never times out.
func NewIdle(timeout time.Duration) *Idle {
	return &Idle{timeout: timeout, last: time.Now()}
}

// Wrap counts h's requests as activity and announces the idle timeout.
func (d *Idle) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.mu.Lock()
		d.inflight++
		d.mu.Unlock()
		defer func() {
			d.mu.Lock()
			d.inflight--
			d.last = time.Now()
			d.mu.Unlock()
		}()
		w.Header().Set(headerIdle, d.timeout.String())
		h.ServeHTTP(w, r)
	})
}

func (d *Idle) idle() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.timeout > 0 && d.inflight == 0 && time.Since(d.last) >= d.timeout
}

// Wait returns why the endpoint should stop by itself — no request for the
// idle timeout, or dataDir removed — or "" when ctx ends first.
//
// Before it reports idleness it takes lockFile (if not ""), the lock Ensure
// and Stop take, and keeps it until the process exits: a command that is
// being handed this endpoint's address delays the stop, and one that comes
// later waits for the exit and starts a new endpoint, so none is handed an
// endpoint on its way out.
func (d *Idle) Wait(ctx context.Context, dataDir, lockFile string) string {
	tick := time.Second
	if d.timeout > 0 && d.timeout/4 < tick {
		tick = max(d.timeout/4, 10*time.Millisecond)
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ""
		case <-t.C:
		}
		if _, err := os.Stat(dataDir); errors.Is(err, os.ErrNotExist) {
			return "data directory removed"
		}
		if !d.idle() {
			continue
		}
		if lockFile == "" {
			return "idle for " + d.timeout.String()
		}
		f, ok := tryLock(lockFile)
		if !ok {
			continue // a command is starting or stopping the endpoint
		}
		if d.idle() { // no request came while we took the lock
			d.held = f // the descriptor, and with it the lock, lives until exit
			return "idle for " + d.timeout.String()
		}
		unlock(f)
	}
}

// Hold is Ensure for a command that uses the endpoint for a while (an
// ingest, a bench): until release is called, it queries the endpoint often
// enough — a third of its idle timeout, at least once a minute — that it
// does not stop as idle.
func Hold(ctx context.Context, home string) (dsn string, release func(), err error) {
	return Config{}.Hold(ctx, home)
}

// Hold is the package-level Hold with this configuration.
func (c Config) Hold(ctx context.Context, home string) (string, func(), error) {
	dsn, err := c.Ensure(ctx, home)
	if err != nil {
		return "", nil, err
	}
	dir, err := filepath.Abs(DataDir(home))
	if err != nil {
		return "", nil, err
	}
	hctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		every := time.Minute
		for {
			// Errors are left to the command's own queries: the endpoint
			// may have been stopped on purpose (ste stop).
			if _, idle, err := probe(hctx, dir); err == nil && idle > 0 {
				every = max(min(idle/3, time.Minute), 10*time.Millisecond)
			}
			select {
			case <-hctx.Done():
				return
			case <-time.After(every):
			}
		}
	}()
	return dsn, func() { cancel(); <-done }, nil
}
