// Package testgate is STE's one gate for tests that do not always run (as
// benthos's integration.CheckSkip): every suite `make test` leaves out is
// registered here once — the variable that turns it on, the command that
// runs it, what it costs on this machine — and every test that cannot run
// for want of a tool, a privilege or a file says so through Need, which
// fails it under CI=true instead of skipping it.
//
// Each skip is recorded: with STE_SKIPS set (make test sets it), a line is
// appended to that file, and make test prints them all at its end, after
// the registered suites it did not run (`go run ./testgate/cmd/gates
// report`). `make verify-all` runs every registered suite
// (`go run ./testgate/cmd/gates verify-all`).
//
// A record is one line of tab-separated fields: the test's package
// directory (relative to the module) and name, the kind ("suite" or
// "missing"), the reason, and the command that runs it. The black-box
// conformance suite, which imports no STE package, writes the same line
// itself (conformance/gate_test.go), as does the chendpoint tree, which
// imports nothing of STE's (chendpoint/internal/gate, for its tests).
//
// The package is a leaf: the standard library only.
package testgate

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Suite is a test suite make test does not run.
type Suite struct {
	Name string
	// Tests is what runs: a package and its tests.
	Tests string
	// Env turns it on: VAR=value ("" when only Run's target does).
	Env string
	// Run is the command that runs it, from the repository's root.
	Run string
	// Cost is what a run costs here, measured, and where it is recorded.
	Cost string
	// Fails: a negative control, which must fail (it shows the check it
	// controls can fail).
	Fails bool
	// Needs, if set, says what the suite needs that this machine may lack
	// (a server of its own): make verify-all runs the suite only when it
	// returns nil, and lists it as not run otherwise — a failure under
	// CI=true.
	Needs func() error
	// Beside: make verify-all starts it first and runs the others while it
	// runs (its output in test-output/verify-all-NAME.log). For a suite that
	// asserts no time and mostly waits or takes a fixed time — failover's
	// rounds wait out session timeouts at 400 msg/s; the fuzz targets run
	// FUZZTIME each — so that verify-all takes the longest lane, not the
	// sum; its figures are then taken under the others' load, not a quiet
	// machine's (documented runs use its own target).
	Beside bool
}

// Suites is the registry, in the order make verify-all runs them.
var Suites = []Suite{
	{Name: "chaos", Tests: "e2e/chaos TestChaos (kfake and Kafka 4)", Env: "STE_CHAOS=full", Run: "make chaos",
		Cost: "kfake 110–179 s a run (ten runs, 6 December, load 7–19), Kafka 4 ~3 min: 4–5 min for both; 18 min 52 s for both in the whole make verify-all of 7 December, failover and fuzz beside (docs/benchmarks.md, \"Chaos\")"},
	{Name: "chaos-cluster", Tests: "e2e/chaos TestChaosCluster/kfake", Env: "STE_CHAOS=full", Run: "make chaos-cluster-kfake",
		Cost: "118 s; 10 min 3 s in the whole make verify-all of 7 December, failover and fuzz beside (docs/benchmarks.md, \"Cluster chaos\")"},
	{Name: "chaos-cluster-kafka", Tests: "e2e/chaos TestChaosCluster/kafka (three KRaft nodes)", Env: "STE_CHAOS=full", Run: "make chaos-cluster-kafka",
		Cost: "390–555 s with the brokers' rolling restart, three runs of 6 December at load 6–26; 13 min 38 s in the whole make verify-all of 7 December (docs/benchmarks.md, \"Cluster chaos\")"},
	{Name: "acl", Tests: "topics/access TestACLsOnKafka", Env: "STE_ACL=1", Run: "make acl",
		Cost: "12 s with Kafka cached (11 s of test, 6 December)"},
	{Name: "backtest-kafka", Tests: "e2e TestBacktest on Kafka 4", Env: "STE_REPLAY_KAFKA=1", Run: "make backtest-kafka",
		Cost: "49 s with make's steps (the Kafka 4 run 23 s, 6 December)"},
	{Name: "scale-out-kafka", Tests: "e2e TestMigrateScaleOut on Kafka 4", Env: "STE_REPLAY_KAFKA=1", Run: "make scale-out-kafka",
		Cost: "47 s with make's steps (the Kafka 4 run 11 s, 6 December)"},
	{Name: "analytics-server", Tests: "analytics/conformance TestServer against a ClickHouse server", Env: "CLICKHOUSE_ADDR=URL", Needs: clickhouseServer,
		Run: "make analytics-server", Cost: "not run against a server here: it needs ClickHouse of 2020 or later, and Debian's 18.16 refuses clickhouse-go over HTTP and runs none of the schema's 17 statements (docs/analytics.md)"},
	{Name: "gateway-measure", Tests: "e2e TestGatewayMeasure (STE_GATEWAY_MEASURE=kafka: on Kafka 4)", Env: "STE_GATEWAY_MEASURE=MODE", Run: "make gateway-measure",
		Cost: "37 s with make's steps: 6,000 trades in four phases (7 December, quiet machine; docs/benchmarks.md, \"The gateway\")"},
	{Name: "fix-measure", Tests: "e2e TestFIXMeasure", Env: "STE_FIX_MEASURE=1", Run: "make fix-measure",
		Cost: "38 s on a quiet machine (7 December), 2 min 34 s at load 20–31 (6 December): 3,000 trades in three phases (docs/benchmarks.md, \"The FIX adapter\")"},
	{Name: "queue-measure", Tests: "e2e TestQueueMeasure (the work queue over 250,000 trades on 2 instances, at half the capacity)", Env: "STE_QUEUE_MEASURE=1", Run: "make queue-measure",
		Cost: "6 min 22 s at the default 250,000 trades on a quiet machine (7 December), 23 min at load 9–20; ~12 GB free under $TMPDIR for the embedded broker (docs/benchmarks.md, \"The work queue\")"},
	{Name: "iso-scale", Tests: "e2e TestISO20022Scale (10,000 sese.023 through two ste iso20022, one killed with -9)", Env: "STE_ISO_SCALE=1", Run: "make iso-scale",
		Cost: "1 min 57 s with make's steps, 89 s of test (6 December, load 21; docs/benchmarks.md, \"The ISO 20022 adapter\")"},
	{Name: "hold-at-scale", Tests: "processors/diskstore TestHoldAtScale", Env: "DISKSTORE_SCALE_SET=FILE", Run: "make hold-at-scale",
		Cost: "1 min 48 s with make's steps, 250,000 trades: the set's generation and the fill (7 December, quiet machine; docs/benchmarks.md, \"1,000,000 trades\")"},
	{Name: "leveldb-control", Tests: "processors/diskstore TestKillLoopKeepsStateLevelWithTheChangelog on goka's LevelDB",
		Env: "DISKSTORE_CONTROL=leveldb", Run: "make leveldb-control", Fails: true,
		Cost: "20 s a run, up to 8 runs until one fails (7 December: 2 of 5 single runs failed as they must, 1 and 12 keys off; 6 December 2 of 19,296, earlier 15 and 826; docs/ARCHITECTURE.md)"},
	{Name: "failover-kfake", Tests: "e2e/chaos TestFailover/kfake", Env: "STE_FAILOVER=1", Run: "make failover STE_FAILOVER_BROKER=kfake", Beside: true,
		Cost: "~30 min: 20 rounds of each kind, 2 and 3 instances (29 min 23 s beside the others, 7 December; make failover runs both brokers; docs/benchmarks.md, \"Failover\")"},
	{Name: "failover-kafka", Tests: "e2e/chaos TestFailover/kafka", Env: "STE_FAILOVER=1", Run: "make failover STE_FAILOVER_BROKER=kafka", Beside: true,
		Cost: "~40 min: 20 rounds of each kind, 2 and 3 instances (37 min 23 s beside the others, 7 December; docs/benchmarks.md, \"Failover\")"},
	{Name: "fuzz", Tests: "the eight fuzz targets", Run: "make fuzz FUZZTIME=5m", Beside: true,
		Cost: "FUZZTIME per target, 40 min at the default 5m (48 min 47 s with the builds, beside the others, 7 December; docs/benchmarks.md, \"Fuzzing\")"},
	{Name: "bench", Tests: "the Go benchmarks of schemas and processors", Run: "make bench",
		Cost: "1m54s, 67 benchmarks (6 December; the figures: docs/benchmarks.md, \"Per message\")"},
	{Name: "curve", Tests: "schemas/signature TestBatchCurveCPU", Env: "STE_CURVE=1", Run: "make curve",
		Cost: "9 s (6 December; the curve: docs/benchmarks.md)"},
	{Name: "measure-ingest", Tests: "analytics/conformance TestMeasureIngest", Env: "STE_MEASURE_INGEST=TRADES", Run: "make measure-ingest",
		Cost: "9 s at the default 20,000 trades (7 December): a measurement of the ingest rate (docs/analytics.md)"},
}

// clickhouseServer is nil when a server answers at CLICKHOUSE_ADDR (make
// analytics-server's default, http://127.0.0.1:8123, when it is unset).
func clickhouseServer() error {
	addr := os.Getenv("CLICKHOUSE_ADDR")
	if addr == "" {
		addr = "http://127.0.0.1:8123"
	}
	host := addr
	if u, err := url.Parse(addr); err == nil && u.Host != "" {
		host = u.Host
	}
	c, err := net.DialTimeout("tcp", host, 2*time.Second)
	if err != nil {
		return fmt.Errorf("no ClickHouse server answers at %s (set CLICKHOUSE_ADDR): %w", addr, err)
	}
	c.Close()
	return nil
}

// Lookup is the registered suite name.
func Lookup(name string) (Suite, bool) {
	for _, s := range Suites {
		if s.Name == name {
			return s, true
		}
	}
	return Suite{}, false
}

// Enabled reports whether suite name is turned on here: its variable is
// set, to the value registered (any non-empty value where the registry
// names a placeholder: FILE, URL, TRADES). An unregistered name panics.
func Enabled(name string) bool {
	s, ok := Lookup(name)
	if !ok {
		panic("testgate: no suite " + name)
	}
	v, want, ok := strings.Cut(s.Env, "=")
	if !ok {
		return false
	}
	got := os.Getenv(v)
	if want == strings.ToUpper(want) && strings.Trim(want, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" {
		return got != ""
	}
	return got == want
}

// Opt skips tb unless suite name is turned on, and records the skip.
func Opt(tb testing.TB, name string) {
	tb.Helper()
	if Enabled(name) {
		return
	}
	s, _ := Lookup(name)
	why := fmt.Sprintf("suite %s is off (%s): %s", name, s.Env, s.Cost)
	Record(tb, "suite", why, s.Run)
	tb.Skip(why + "; run it with " + s.Run)
}

// Strict reports whether a missing prerequisite fails a test: CI=true.
func Strict() bool { return os.Getenv("CI") == "true" }

// Need fails or skips tb when err says a prerequisite is missing: a tool,
// a privilege, a file beside the clone. what names it and how to get it.
// Under CI=true it fails; otherwise it skips, and the skip is recorded.
// A nil err is nothing.
func Need(tb testing.TB, what string, err error) {
	tb.Helper()
	if err == nil {
		return
	}
	if Strict() {
		tb.Fatalf("CI=true: %s: %v", what, err)
	}
	Record(tb, "missing", fmt.Sprintf("%s: %v", what, err), "")
	tb.Skipf("%s: %v (under CI=true this fails)", what, err)
}

// Skip skips tb for a reason that is neither a suite turned off nor a
// missing prerequisite — what a test cannot do with the backend it was
// given (a suite run against several) — and records it (kind "other").
func Skip(tb testing.TB, why string) {
	tb.Helper()
	Record(tb, "other", why, "")
	tb.Skip(why)
}

var recordMu sync.Mutex

// Record appends one skip to $STE_SKIPS (nothing when it is unset).
func Record(tb testing.TB, kind, why, run string) {
	path := os.Getenv("STE_SKIPS")
	if path == "" {
		return
	}
	clean := func(s string) string { return strings.NewReplacer("\t", " ", "\n", " ").Replace(s) }
	line := strings.Join([]string{packageDir(), tb.Name(), kind, clean(why), clean(run)}, "\t") + "\n"
	recordMu.Lock()
	defer recordMu.Unlock()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		tb.Logf("testgate: cannot record the skip in %s: %v", path, err)
		return
	}
	defer f.Close()
	if _, err := f.WriteString(line); err != nil {
		tb.Logf("testgate: cannot record the skip in %s: %v", path, err)
	}
}

// packageDir is the test's package directory relative to the module's root
// (go test runs a package's tests in its directory).
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "?"
	}
	for d := wd; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			if rel, err := filepath.Rel(d, wd); err == nil {
				return filepath.ToSlash(rel)
			}
			return wd
		}
		up := filepath.Dir(d)
		if up == d {
			return wd
		}
		d = up
	}
}
