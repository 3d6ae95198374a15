// Package report runs STE's analytics reports against the store: row
// counts, throughput history per stage, volume degradation, queues
// (Buzen–Denning operational laws), CLS latency and exceptions by reason.
// Each report is one or two SQL queries — the same SQL docs/analytics.md
// gives for people who query ClickHouse directly — plus arithmetic that is
// clearer in Go than in SQL, and renders as a readable table or as JSON
// (the result structs); analytics/charts plots them.
package report

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"github.com/ste-utility/ste/analytics/store"
)

// Step reads a throughput resolution as operators type it (ste report
// --by, the console's form): second or minute ("s", "1s", "m", "1m"), or
// "" for the report's choice (by second up to 15 minutes of data).
func Step(by string) (time.Duration, error) {
	switch by {
	case "":
		return 0, nil
	case "second", "s", "1s":
		return time.Second, nil
	case "minute", "m", "1m":
		return time.Minute, nil
	}
	return 0, fmt.Errorf("%q: second or minute", by)
}

// Params select what a report covers.
type Params struct {
	// Namespace; "" means the most recently ingested one (the bench report:
	// every namespace).
	Namespace string
	// Since and Until bound the time range (Until excluded); zero means
	// unbounded.
	Since, Until time.Time
	// Step is the throughput report's resolution: time.Second or
	// time.Minute; 0 picks by the data's span (seconds up to 15 minutes).
	Step time.Duration
	// Window is the degradation and latency windows; 0 picks about 30
	// windows over the data's span.
	Window time.Duration
	// Series asks queues for the sampled queue lengths (for plots).
	Series bool
}

// Result is a report's result: JSON-encodable, and printable as a table.
type Result interface {
	WriteText(w io.Writer) error
}

// Names are the reports, in the order `ste report --help` lists them.
var Names = []string{"counts", "throughput", "degradation", "queues", "latency", "exceptions", "timeliness", "namespaces", "bench"}

// Describe says what each report shows.
var Describe = map[string]string{
	"counts":      "rows per table (CLS deduplicated by MsgId, exceptions by id)",
	"throughput":  "messages per second per stage, by second or minute",
	"degradation": "throughput in successive windows against cumulative stored messages (Figure 14)",
	"queues":      "Buzen–Denning operational quantities per stage from the monitor's queue samples",
	"latency":     "CLS latency quantiles: CLS record time minus the send time of the message that completed the trade",
	"exceptions":  "rejected messages by reason",
	"timeliness":  "per participant and market: messages, trades matched, matched before the market cutoff, median time to match, past cutoff unmatched",
	"namespaces":  "namespaces in the store, most recently ingested first",
	"bench":       "recorded ste bench runs",
}

// ErrNoData is returned when the store has no namespace to default to.
var ErrNoData = errors.New("the analytics store is empty: run ste analytics (or ste demo, ste bench) first")

// Run runs the report called name.
func Run(ctx context.Context, st *store.Store, name string, p Params) (Result, error) {
	if name != "namespaces" && name != "bench" && p.Namespace == "" {
		ns, err := st.LatestNamespace(ctx)
		if err != nil {
			return nil, err
		}
		if ns == "" {
			return nil, ErrNoData
		}
		p.Namespace = ns
	}
	switch name {
	case "counts":
		return Counts(ctx, st, p)
	case "throughput":
		return Throughput(ctx, st, p)
	case "degradation":
		return Degradation(ctx, st, p)
	case "queues":
		return Queues(ctx, st, p)
	case "latency":
		return Latency(ctx, st, p)
	case "exceptions":
		return Exceptions(ctx, st, p)
	case "timeliness":
		return Timeliness(ctx, st, p)
	case "namespaces":
		return Namespaces(ctx, st)
	case "bench":
		return Bench(ctx, st, p)
	}
	return nil, fmt.Errorf("unknown report %q (want one of %s)", name, strings.Join(Names, ", "))
}

// Time bounds when none are given: inside DateTime64's range.
var (
	minTime = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
)

func (p Params) bounds() (time.Time, time.Time) {
	since, until := p.Since, p.Until
	if since.IsZero() || since.Before(minTime) {
		since = minTime
	}
	if until.IsZero() || until.After(maxTime) {
		until = maxTime
	}
	return since.UTC(), until.UTC()
}

// query runs SQL written for docs/analytics.md: the database is "ste." in
// the text (replaced by the store's) and {ns:String}, {since:...},
// {until:...} are server-side query parameters.
func query(ctx context.Context, st *store.Store, sql string, p Params, extra map[string]string) (rowsScanner, error) {
	since, until := p.bounds()
	params := clickhouse.Parameters{
		"ns":    p.Namespace,
		"since": since.Format("2006-01-02 15:04:05.000000"),
		"until": until.Format("2006-01-02 15:04:05.000000"),
	}
	for k, v := range extra {
		params[k] = v
	}
	ctx = clickhouse.Context(ctx, clickhouse.WithParameters(params))
	r, err := st.Conn().Query(ctx, qualify(st, sql))
	if err != nil {
		return nil, fmt.Errorf("clickhouse: %s", firstLine(err.Error()))
	}
	return r, nil
}

type rowsScanner interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}

func qualify(st *store.Store, sql string) string {
	if st.Database() == "ste" {
		return sql
	}
	return strings.ReplaceAll(sql, "ste.", st.Database()+".")
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// stageOrder sorts stages in pipeline order, unknown ones last.
var stageOrder = map[string]int{"inbound": 0, "validate": 1, "identity": 2, "match": 3, "network": 4, "cls": 5, "exceptions": 6}

func sortStages(s []string) {
	sort.Slice(s, func(i, j int) bool {
		oi, ok := stageOrder[s[i]]
		if !ok {
			oi = 100
		}
		oj, ok := stageOrder[s[j]]
		if !ok {
			oj = 100
		}
		if oi != oj {
			return oi < oj
		}
		return s[i] < s[j]
	})
}

// window is the report's window: --window, or about 30 windows over the
// data in range; whole seconds, at least one (the SQL groups by seconds).
func window(ctx context.Context, st *store.Store, p Params) (time.Duration, error) {
	win := p.Window
	if win <= 0 {
		first, last, _, err := span(ctx, st, p)
		if err != nil {
			return 0, err
		}
		win = niceWindow(last.Sub(first) / 30)
	}
	return max(win.Round(time.Second), time.Second), nil
}

// niceWindow rounds a window to 1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10, 15, 30
// min or whole hours, so that windows are easy to read.
func niceWindow(d time.Duration) time.Duration {
	for _, w := range []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second,
		30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute} {
		if d <= w {
			return w
		}
	}
	return d.Round(time.Hour)
}

func fmtTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") }
