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
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"github.com/ste-utility/ste/analytics/store"
	"github.com/ste-utility/ste/topology"
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

// Report is one report: the single registry entry that `ste report`
// (its names, --help and --plot), analytics/charts and the console's
// History page all read. Add a report here and nowhere else.
type Report struct {
	// Name is what `ste report NAME` and the console's ?report= take.
	Name string
	// Describe says what the report shows (`ste report --help`).
	Describe string
	// Chart: analytics/charts draws the report (--plot, the console's
	// History page lists exactly these).
	Chart bool
	// Title heads the report's History page in the console.
	Title string
	// anyNamespace: the report covers every namespace, so Run picks no
	// default one.
	anyNamespace bool
	run          func(context.Context, *store.Store, Params) (Result, error)
	empty        func() Result
}

// Empty is a zero result of the report's type (what analytics/charts
// switches on); nil for an entry registered without its function.
func (r Report) Empty() Result {
	if r.empty == nil {
		return nil
	}
	return r.empty()
}

// entry builds a Report around its typed function.
func entry[T any, R interface {
	*T
	Result
}](r Report, run func(context.Context, *store.Store, Params) (R, error)) Report {
	r.run = func(ctx context.Context, st *store.Store, p Params) (Result, error) {
		res, err := run(ctx, st, p)
		if err != nil {
			return nil, err
		}
		return res, nil
	}
	r.empty = func() Result { return R(new(T)) }
	return r
}

// Reports are the reports, in the order `ste report --help` lists them.
var Reports = []Report{
	entry(Report{Name: "counts", Describe: "rows per table (CLS deduplicated by MsgId, exceptions by id)"}, Counts),
	entry(Report{Name: "throughput", Describe: "messages per second per stage, by second or minute",
		Chart: true, Title: "Throughput per stage"}, Throughput),
	entry(Report{Name: "degradation", Describe: "throughput in successive windows against cumulative stored messages (Figure 14)",
		Chart: true, Title: "Volume degradation: throughput as stored messages grow"}, Degradation),
	entry(Report{Name: "queues", Describe: "Buzen–Denning operational quantities per stage from the monitor's queue samples",
		Chart: true, Title: "Queues per stage (operational laws)"}, Queues),
	entry(Report{Name: "latency", Describe: "CLS latency quantiles: CLS record time minus the send time of the message that completed the trade",
		Chart: true, Title: "CLS latency"}, Latency),
	entry(Report{Name: "exceptions", Describe: "rejected messages by reason",
		Chart: true, Title: "Exceptions by reason"}, Exceptions),
	entry(Report{Name: "timeliness", Describe: "per participant and market: messages, trades matched, matched before the market cutoff, median time to match, past cutoff unmatched; affirmed, and the share affirmed by the cutoff (DTCC's metric)",
		Chart: true, Title: "Timeliness against market cutoffs, and the share affirmed by them"}, Timeliness),
	entry(Report{Name: "allegements", Describe: "per participant and market: allegements sent (ALG), answered, outstanding, their age, and those answered after the market cutoff or still owed past it — who answers allegements late",
		Chart: true, Title: "Allegements: who answers late"}, Allegements),
	entry(Report{Name: "namespaces", Describe: "namespaces in the store, most recently ingested first", anyNamespace: true},
		func(ctx context.Context, st *store.Store, _ Params) (*NamespacesResult, error) {
			return Namespaces(ctx, st)
		}),
	entry(Report{Name: "bench", Describe: "recorded ste bench runs", anyNamespace: true}, Bench),
}

// Names are the reports' names, in the registry's order.
var Names = func() []string {
	var n []string
	for _, r := range Reports {
		n = append(n, r.Name)
	}
	return n
}()

// Charted are the names of the reports analytics/charts draws, in the
// registry's order.
var Charted = func() []string {
	var n []string
	for _, r := range Reports {
		if r.Chart {
			n = append(n, r.Name)
		}
	}
	return n
}()

// Lookup is the report called name.
func Lookup(name string) (Report, bool) {
	for _, r := range Reports {
		if r.Name == name {
			return r, true
		}
	}
	return Report{}, false
}

// ErrNoData is returned when the store has no namespace to default to.
var ErrNoData = errors.New("the analytics store is empty: run ste analytics (or ste demo, ste bench) first")

// firstDataSQL is when each namespace's data begins (its first second of
// throughput).
const firstDataSQL = `SELECT namespace, min(sec) AS first FROM ste.throughput_1s GROUP BY namespace`

// NamespacesByStart are the store's namespaces, the one whose data begins
// last first (then by last ingest), each with when its data begins.
func NamespacesByStart(ctx context.Context, st *store.Store) ([]store.Namespace, error) {
	ns, err := st.Namespaces(ctx)
	if err != nil || len(ns) == 0 {
		return ns, err
	}
	r, err := st.Conn().Query(ctx, qualify(st, firstDataSQL))
	if err != nil {
		return nil, fmt.Errorf("clickhouse: %s", firstLine(err.Error()))
	}
	defer r.Close()
	first := map[string]time.Time{}
	for r.Next() {
		var n string
		var t time.Time
		if err := r.Scan(&n, &t); err != nil {
			return nil, err
		}
		first[n] = t.UTC()
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	for i := range ns {
		ns[i].FirstData = first[ns[i].Name]
	}
	sort.SliceStable(ns, func(i, j int) bool {
		if !ns[i].FirstData.Equal(ns[j].FirstData) {
			return ns[i].FirstData.After(ns[j].FirstData)
		}
		return ns[i].LastIngest.After(ns[j].LastIngest)
	})
	return ns, nil
}

// DefaultNamespace is the namespace a report reads when none is named: the
// one whose data begins last — the run started most recently, a bench just
// run rather than a demo still running beside it and still ingesting — and
// the others the store holds, to name them.
func DefaultNamespace(ctx context.Context, st *store.Store) (ns string, others []string, err error) {
	list, err := NamespacesByStart(ctx, st)
	if err != nil {
		return "", nil, err
	}
	if len(list) == 0 {
		return "", nil, ErrNoData
	}
	for _, n := range list[1:] {
		others = append(others, n.Name)
	}
	return list[0].Name, others, nil
}

// Run runs the report called name.
func Run(ctx context.Context, st *store.Store, name string, p Params) (Result, error) {
	r, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("unknown report %q (want one of %s)", name, strings.Join(Names, ", "))
	}
	if !r.anyNamespace && p.Namespace == "" {
		ns, _, err := DefaultNamespace(ctx, st)
		if err != nil {
			return nil, err
		}
		p.Namespace = ns
	}
	return r.run(ctx, st, p)
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

// stageOrder sorts the store's stages in pipeline order, unknown ones
// last: the offered load ("inbound", the inbound records' time), the
// topology's stages, the whole pipeline, then the outputs the store counts
// (analytics/store's throughput views).
var stageOrder = func() map[string]int {
	order := map[string]int{}
	for i, s := range slices.Concat([]string{"inbound"}, topology.StageNames(), []string{topology.Network, "cls", "exceptions"}) {
		order[s] = i
	}
	return order
}()

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
// seconds with data in range (idle time between runs left out: a short run
// and a retry an hour later are not 30 two-minute windows of nothing);
// whole seconds, at least one (the SQL groups by seconds).
func window(ctx context.Context, st *store.Store, p Params) (time.Duration, error) {
	win := p.Window
	if win <= 0 {
		_, _, active, err := span(ctx, st, p)
		if err != nil {
			return 0, err
		}
		win = niceWindow(time.Duration(active) * time.Second / 30)
	}
	return max(win.Round(time.Second), time.Second), nil
}

// covered is how many seconds of a step (a window) starting at start the
// data covers, and whether it covers all of it: the whole step inside a
// stretch of data; from its first second with data when the step before
// holds none (the run's start, or the end of an idle gap), to its last when
// the step after holds none (the run's end, or an idle gap starting). Rates
// are counts over these seconds: an 11-s run read by minute is not divided
// by 60, nor a burst after an hour's idle by the hour.
func covered(start time.Time, step time.Duration, first, last time.Time, before, after bool) (secs float64, full bool) {
	from, to, full := start, start.Add(step), true
	if !before && first.After(from) {
		from, full = first, false
	}
	if !after && last.Add(time.Second).Before(to) {
		to, full = last.Add(time.Second), false
	}
	return max(to.Sub(from).Seconds(), 1), full
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
