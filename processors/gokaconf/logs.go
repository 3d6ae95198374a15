package gokaconf

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/IBM/sarama"
	"github.com/lovoo/goka"
)

// goka and sarama log through Print-style loggers with no levels: goka's
// Printf is "informational", sarama's Logger carries its problems and its
// DebugLogger the chatter. STE's log gets their problems — a refused SASL
// login, a broker that cannot be reached, a failed metadata refresh — at
// warn or error, and everything else at debug.

// problemWords mark a message as a problem (warn); fatalWords as an error.
var (
	problemWords = []string{"error", "fail", "unable", "cannot", "could not", "retry", "retrying", "mismatch", "warning", "timeout", "timed out", "refused", "denied", "unexpected"}
	fatalWords   = []string{"panic", "fatal", "shutting down due to"}
)

// levelOf is the level of a goka or sarama message.
func levelOf(msg string) slog.Level {
	m := strings.ToLower(msg)
	for _, w := range fatalWords {
		if strings.Contains(m, w) {
			return slog.LevelError
		}
	}
	for _, w := range problemWords {
		if strings.Contains(m, w) {
			return slog.LevelWarn
		}
	}
	return slog.LevelDebug
}

// logAt logs msg at its level, tagged with where it came from.
func logAt(l *slog.Logger, source, msg string) {
	msg = strings.TrimSpace(msg)
	l.Log(context.Background(), levelOf(msg), msg, "from", source)
}

// saramaLog is where sarama's global loggers write: the logger of the most
// recent RouteSarama (sarama has one Logger per process, not per client).
var (
	saramaLog     atomic.Pointer[slog.Logger]
	saramaLogOnce sync.Once
)

// RouteSarama sends sarama's process-wide loggers to l. They are set
// once, before the first sarama client of the process exists: sarama reads
// them unguarded.
func RouteSarama(l *slog.Logger) {
	saramaLog.Store(l)
	saramaLogOnce.Do(func() {
		sarama.Logger = saramaLogger{debug: false}
		sarama.DebugLogger = saramaLogger{debug: true}
	})
}

// saramaLogger is a sarama.StdLogger on saramaLog. The debug logger's
// messages are debug whatever they say ("Closed connection ... due to SASL
// auth error" is followed by the Logger's own report of the failure).
type saramaLogger struct{ debug bool }

func (s saramaLogger) write(msg string) {
	l := saramaLog.Load()
	if l == nil {
		return
	}
	if s.debug {
		l.Debug(strings.TrimSpace(msg), "from", "sarama")
		return
	}
	logAt(l, "sarama", msg)
}

func (s saramaLogger) Print(v ...any)                 { s.write(fmt.Sprint(v...)) }
func (s saramaLogger) Printf(format string, v ...any) { s.write(fmt.Sprintf(format, v...)) }
func (s saramaLogger) Println(v ...any)               { s.write(fmt.Sprintln(v...)) }

// Logger is goka's logger on l: problems at warn or error, the rest at
// debug (levelOf).
func Logger(l *slog.Logger) goka.Logger { return gokaLogger{l} }

type gokaLogger struct{ l *slog.Logger }

func (g gokaLogger) Print(v ...any)                   { logAt(g.l, "goka", fmt.Sprint(v...)) }
func (g gokaLogger) Println(v ...any)                 { logAt(g.l, "goka", fmt.Sprint(v...)) }
func (g gokaLogger) Printf(f string, v ...any)        { logAt(g.l, "goka", fmt.Sprintf(f, v...)) }
func (g gokaLogger) Debugf(f string, v ...any)        { g.l.Debug(fmt.Sprintf(f, v...)) }
func (g gokaLogger) PrefixDebugf(f string, v ...any)  { g.l.Debug(fmt.Sprintf(f, v...)) }
func (g gokaLogger) Prefix(p string) goka.Logger      { return gokaLogger{g.l.With("component", p)} }
func (g gokaLogger) CurrentPrefix() string            { return "" }
func (g gokaLogger) StackPrefix(p string) goka.Logger { return gokaLogger{g.l.With("component", p)} }
func (g gokaLogger) IsDebug() bool                    { return false }
