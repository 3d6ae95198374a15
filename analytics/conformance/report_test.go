package conformance

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ste-utility/ste/analytics/charts"
	"github.com/ste-utility/ste/analytics/report"
	"github.com/ste-utility/ste/analytics/rows"
	"github.com/ste-utility/ste/analytics/store"
)

// knownDataset stores, for namespace ns, a dataset small enough to compute
// every report by hand (see testReports for the numbers):
//
//   - 10, 20, 30, 40 messages in seconds 0-3 after t0, each through
//     validate, identity, match within its second;
//   - 4 trades matched in second 3, their CLS 10, 20, 30, 40 ms after the
//     completing message was sent, one CLS re-emitted later, one cancelled;
//   - exceptions: SCHEMA twice (one re-emitted with the same id), SIGNATURE once;
//   - six monitor samples of stage validate, one second apart;
//   - one bench run, recorded twice.
func knownDataset(t *testing.T, st *store.Store, ns string, t0 time.Time) {
	t.Helper()
	ctx := context.Background()
	src := func(off int, ts time.Time) rows.Source {
		return rows.Source{Namespace: ns, Partition: 0, Offset: int64(off), Time: ts}
	}
	var audit []rows.Audit
	var cls []rows.CLS
	off := 0
	for s, n := range []int{10, 20, 30, 40} {
		for k := 0; k < n; k++ {
			sent := t0.Add(time.Duration(s)*time.Second + time.Duration(k)*time.Millisecond)
			var outputs []string
			if s == 3 && k < 4 {
				tk := fmt.Sprintf("%016x", k+1)
				outputs = []string{"ACK:B:M", "CLS-" + tk + "-1"}
				cls = append(cls, rows.CLS{Source: src(len(cls), sent.Add(time.Duration(10*(k+1))*time.Millisecond)),
					MsgId: "CLS-" + tk + "-1", Function: "NEW", TradeKey: tk, Version: 1})
			}
			for i, stage := range []string{"validate", "identity", "match"} {
				r := rows.Audit{Source: src(off, sent.Add(time.Millisecond)), Step: uint8(i), Steps: 3,
					At: sent.Add(time.Duration(i+1) * 100 * time.Microsecond), Stage: stage, Event: "x", Outcome: "accepted",
					MsgId: fmt.Sprintf("M%d-%d", s, k), InboundAt: sent}
				if i == 2 {
					r.Outputs = outputs
				}
				audit = append(audit, r)
			}
			off++
		}
	}
	// Re-emitted (same MsgId, later) and a cancel, in second 3 too.
	dup := cls[0]
	dup.Source = src(len(cls), t0.Add(3*time.Second+500*time.Millisecond))
	cls = append(cls, dup, rows.CLS{Source: src(len(cls)+1, t0.Add(3*time.Second+600*time.Millisecond)),
		MsgId: "CLS-0000000000000002-1-CANCEL", Function: "CANCEL", TradeKey: "0000000000000002", Version: 1})
	exc := []rows.Exception{
		{Source: src(0, t0.Add(1100*time.Millisecond)), ID: "0-1", Reason: "SCHEMA"},
		{Source: src(1, t0.Add(1200*time.Millisecond)), ID: "0-1", Reason: "SCHEMA"},
		{Source: src(2, t0.Add(1300*time.Millisecond)), ID: "0-2", Reason: "SCHEMA"},
		{Source: src(3, t0.Add(1400*time.Millisecond)), ID: "1-7", Reason: "SIGNATURE"},
	}
	var mon []rows.Monitor
	q := []int64{1, 0, 2, 4, 0, 0}
	a := []int64{0, 5, 5, 5, 5, 0}
	c := []int64{0, 5, 3, 3, 9, 0}
	for i := range q {
		at := t0.Add(time.Duration(i) * time.Second)
		mon = append(mon, rows.Monitor{Source: src(i, at), At: at, Stage: "validate", Interval: 1, Arrivals: a[i],
			Completions: c[i], Queue: q[i]})
	}
	for _, err := range []error{
		st.InsertAudit(ctx, "", audit), st.InsertCLS(ctx, "", cls), st.InsertExceptions(ctx, "", exc),
		st.InsertMonitor(ctx, "", mon), st.TouchNamespace(ctx, ns, time.Now()),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	run := rows.BenchRun{Namespace: ns, RunID: ns + "-run", StartedAt: t0, Trades: 4, Messages: 100, MsgsPerSec: 25}
	for i := 0; i < 2; i++ {
		if err := st.InsertBenchRun(ctx, run); err != nil {
			t.Fatal(err)
		}
	}
}

// secondsDataset stores, for namespace ns, perSec[i] messages through
// validate, identity and match in second i after t0 (stage network: their
// journeys' ends).
func secondsDataset(t *testing.T, st *store.Store, ns string, t0 time.Time, perSec []int) {
	t.Helper()
	var audit []rows.Audit
	off := 0
	for s, n := range perSec {
		for k := 0; k < n; k++ {
			sent := t0.Add(time.Duration(s)*time.Second + time.Duration(k)*time.Millisecond)
			for i, stage := range []string{"validate", "identity", "match"} {
				// One partition per call: the rows of two calls are not one
				// record stored twice.
				audit = append(audit, rows.Audit{Source: rows.Source{Namespace: ns, Partition: int32(t0.Unix() % 10000), Offset: int64(off), Time: sent},
					Step: uint8(i), Steps: 3, At: sent.Add(time.Duration(i+1) * 100 * time.Microsecond), Stage: stage, Event: "x",
					Outcome: "accepted", MsgId: fmt.Sprintf("S%d-%d-%d", t0.Unix(), s, k), InboundAt: sent})
			}
			off++
		}
	}
	if err := st.InsertAudit(context.Background(), "", audit); err != nil {
		t.Fatal(err)
	}
	if err := st.TouchNamespace(context.Background(), ns, time.Now()); err != nil {
		t.Fatal(err)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6*math.Max(1, math.Abs(b)) }

func (s *suite) testReports(t *testing.T) {
	st, _ := s.open(t, store.Options{})
	ns := s.name("rep")
	t0 := time.Now().UTC().Add(-time.Hour).Truncate(time.Minute)
	knownDataset(t, st, ns, t0)
	ctx := ctxFor(t, 2*time.Minute)
	run := func(name string, p report.Params) report.Result {
		t.Helper()
		res, err := report.Run(ctx, st, name, p)
		if err != nil {
			t.Fatalf("report %s: %v", name, err)
		}
		var b strings.Builder
		if err := res.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		t.Logf("ste report %s\n%s", name, b.String())
		return res
	}
	fail := func(name string, res any) {
		t.Helper()
		t.Errorf("report %s: %+v", name, res)
	}

	// The default namespace is the one whose data begins last, not the one
	// ingested last: a demo still running beside a bench just run keeps
	// ingesting, and a report after the bench is about the bench (issue 51).
	earlier := s.name("demo")
	secondsDataset(t, st, earlier, t0.Add(-10*time.Minute), []int{5, 5})
	if err := st.TouchNamespace(ctx, earlier, time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got, others, err := report.DefaultNamespace(ctx, st); err != nil || got != ns || len(others) != 1 || others[0] != earlier {
		t.Errorf("default namespace %q (others %v, %v), want %s (its data begins last) before %s (ingested last)", got, others, err, ns, earlier)
	}
	c := run("counts", report.Params{}).(*report.CountsResult)
	want := report.CountsResult{Namespace: ns, CLS: 5, Audit: 100, Exceptions: 3, Monitor: 6, CLSRecords: 6,
		AuditSteps: 300, ExceptionRecords: 4, BenchRuns: 1}
	if *c != want {
		t.Errorf("counts %+v, want %+v", *c, want)
	}

	p := report.Params{Namespace: ns, Step: time.Second}
	tp := run("throughput", p).(*report.ThroughputResult)
	perSec := map[string][]float64{}
	for _, pt := range tp.Points {
		perSec[pt.Stage] = append(perSec[pt.Stage], pt.PerSec)
	}
	if fmt.Sprint(perSec["network"]) != "[10 20 30 40]" || fmt.Sprint(perSec["validate"]) != "[10 20 30 40]" ||
		fmt.Sprint(perSec["inbound"]) != "[10 20 30 40]" || fmt.Sprint(perSec["cls"]) != "[6]" ||
		fmt.Sprint(perSec["exceptions"]) != "[4]" || tp.Totals["network"] != 100 || tp.Mean["network"] != 25 ||
		tp.Peak["network"] != 40 || strings.Join(tp.Stages, ",") != "inbound,validate,identity,match,network,cls,exceptions" {
		fail("throughput", tp)
	}
	// By minute, a 4-s run is 100 messages over its 4 s, not over 60.
	tm := run("throughput", report.Params{Namespace: ns, Step: time.Minute}).(*report.ThroughputResult)
	if tm.Totals["match"] != 100 || !near(tm.Peak["match"], 25) || !near(tm.Mean["match"], 25) || tm.Points[0].Seconds != 4 {
		fail("throughput by minute", tm)
	}

	// Two windows are too few for a trend (a line through any two points);
	// four are enough.
	dg2 := run("degradation", report.Params{Namespace: ns, Window: 2 * time.Second}).(*report.DegradationResult)
	if len(dg2.Windows) != 2 || dg2.Windows[0].Messages != 30 || dg2.Windows[0].PerSec != 15 || dg2.Windows[0].Cumulative != 30 ||
		dg2.Windows[1].PerSec != 35 || dg2.Windows[1].Cumulative != 100 || !dg2.Windows[0].Full || !dg2.Windows[1].Full ||
		dg2.SlopePerMillion != 0 || dg2.FirstRate != 0 || dg2.LastRate != 0 {
		fail("degradation by 2 s", dg2)
	}
	dg := run("degradation", report.Params{Namespace: ns, Window: time.Second}).(*report.DegradationResult)
	// Least squares of 10, 20, 30, 40 msgs/s against 10, 30, 60, 100 stored.
	if len(dg.Windows) != 4 || dg.Windows[3].Cumulative != 100 || !near(dg.SlopePerMillion, 6000.0/18400*1e6) ||
		dg.FirstRate != 10 || dg.LastRate != 40 {
		fail("degradation", dg)
	}
	dgs := run("degradation", report.Params{Namespace: ns, Window: 2 * time.Second, Since: t0.Add(2 * time.Second)}).(*report.DegradationResult)
	if dgs.StoredBefore != 30 || len(dgs.Windows) != 1 || dgs.Windows[0].Cumulative != 100 || dgs.Windows[0].PerSec != 35 {
		fail("degradation since t0+2s", dgs)
	}

	// A run of 20 s at 10 msgs/s, then an hour without a message, then a
	// burst of 3 (a late retry): the burst is apart from the run — partial,
	// out of the trend and of the first and last rates — and the idle hour
	// counts in no rate. Before, the report said -70 % and a trend of
	// millions of msgs/s per million.
	gap := s.name("gap")
	run20 := make([]int, 20)
	for i := range run20 {
		run20[i] = 10
	}
	secondsDataset(t, st, gap, t0, run20)
	secondsDataset(t, st, gap, t0.Add(time.Hour), []int{3})
	gd := run("degradation", report.Params{Namespace: gap}).(*report.DegradationResult)
	last := gd.Windows[len(gd.Windows)-1]
	if gd.WindowSeconds != 1 || gd.Gaps != 1 || !near(gd.GapSeconds, 3580) || gd.FirstRate != 10 || gd.LastRate != 10 ||
		math.Abs(gd.SlopePerMillion) > 1e-6 || last.Full || last.Messages != 3 {
		fail("degradation with an idle hour", gd)
	}
	gm := run("throughput", report.Params{Namespace: gap, Step: time.Minute}).(*report.ThroughputResult)
	if len(gm.Points) == 0 || !near(gm.Peak["network"], 10) || !near(gm.Mean["network"], 203.0/21) {
		fail("throughput by minute with an idle hour", gm)
	}

	qu := run("queues", report.Params{Namespace: ns, Series: true}).(*report.QueuesResult)
	if len(qu.Stages) != 1 {
		fail("queues", qu)
	} else if q := qu.Stages[0]; q.Stage != "validate" || q.Samples != 5 || q.T != 5 || q.A != 20 || q.C != 20 || q.B != 4 ||
		!near(q.W, 6.5) || !near(q.U, 0.8) || !near(q.X, 4) || !near(q.S, 0.2) || !near(q.N, 1.3) || !near(q.R, 0.325) ||
		q.MaxQueue != 4 || len(qu.Series) != 6 {
		fail("queues", q)
	}

	la := run("latency", report.Params{Namespace: ns}).(*report.LatencyResult)
	if la.CLS != 4 || la.Measured != 4 || la.P50 != 30 || la.P90 != 40 || la.P99 != 40 || la.Min != 10 || la.Mean != 25 ||
		la.Max != 40 || len(la.Series) == 0 {
		fail("latency", la)
	}

	ex := run("exceptions", report.Params{Namespace: ns}).(*report.ExceptionsResult)
	if ex.Total != 3 || len(ex.Reasons) != 2 || ex.Reasons[0] != (report.ExceptionReason{Reason: "SCHEMA", Count: 2}) ||
		ex.Reasons[1] != (report.ExceptionReason{Reason: "SIGNATURE", Count: 1}) {
		fail("exceptions", ex)
	}

	// A time range that leaves out seconds 0-1.
	c2 := run("counts", report.Params{Namespace: ns, Since: t0.Add(2 * time.Second)}).(*report.CountsResult)
	if c2.Audit != 70 || c2.Exceptions != 0 || c2.CLS != 5 {
		fail("counts since t0+2s", c2)
	}

	bn := run("bench", report.Params{Namespace: ns}).(*report.BenchResult)
	if len(bn.Runs) != 1 || bn.Runs[0].Messages != 100 {
		fail("bench", bn)
	}

	// Every chart renders, in both formats.
	dir := t.TempDir()
	if d := os.Getenv("STE_PLOT_DIR"); d != "" {
		dir = d
	}
	for name, res := range map[string]report.Result{"throughput": tp, "degradation": dg, "queues": qu, "latency": la, "exceptions": ex} {
		for _, ext := range []string{".png", ".svg"} {
			f := filepath.Join(dir, "known-"+name+ext)
			if err := charts.Save(res, f); err != nil {
				t.Errorf("plot %s: %v", name, err)
				continue
			}
			if st, err := os.Stat(f); err != nil || st.Size() < 1000 {
				t.Errorf("plot %s: %v, %d bytes", f, err, st.Size())
			}
		}
	}

	testJourneys(t, st, s.name("jrn"), t0)

	// Empty store: a clear error, not an empty report.
	empty, _ := s.open(t, store.Options{})
	if _, err := report.Run(ctx, empty, "counts", report.Params{}); err != report.ErrNoData {
		t.Errorf("counts on an empty store: %v, want ErrNoData", err)
	}
}

// testJourneys: one trade's audit events read back as journeys — a
// message through the three stages with its outputs, one rejected at
// validate, a retention purge, two messages in one batch record — with a
// record stored twice read once, and another trade's events left out.
func testJourneys(t *testing.T, st *store.Store, ns string, t0 time.Time) {
	t.Helper()
	ctx := ctxFor(t, time.Minute)
	const tk = "00000000000000aa"
	var audit []rows.Audit
	record := func(off int, trade, msg string, in int64, stages []string, outcome string, outputs []string) {
		for i, stage := range stages {
			r := rows.Audit{Source: rows.Source{Namespace: ns, Partition: 1, Offset: int64(off), Time: t0.Add(time.Second)},
				Step: uint8(i), Steps: uint8(len(stages)), At: t0.Add(time.Duration(in)*time.Second + time.Duration(i+1)*time.Millisecond),
				Stage: stage, Event: "e" + stage, Outcome: outcome, TradeKey: trade, Sender: "BRKASGSGXXX", MsgId: msg,
				MsgType: "NOE", Function: "NEW", InboundPartition: 0, InboundOffset: in, InboundAt: t0.Add(time.Duration(in) * time.Second)}
			if msg == "" {
				r.InboundPartition, r.InboundOffset, r.InboundAt = -1, -1, time.Time{}
			}
			if i == len(stages)-1 {
				r.Outputs = outputs
			}
			audit = append(audit, r)
		}
	}
	record(0, tk, "M1", 5, []string{"validate", "identity", "match"}, "accepted", []string{"ACK:BRKASGSGXXX:M1"})
	record(0, tk, "M1", 5, []string{"validate", "identity", "match"}, "accepted", []string{"ACK:BRKASGSGXXX:M1"}) // stored twice
	record(1, tk, "M2", 6, []string{"validate", "identity"}, "rejected", []string{"NACK:BRKASGSGXXX:M2:00"})
	record(2, "00000000000000bb", "M3", 7, []string{"validate", "identity", "match"}, "accepted", nil)
	record(3, tk, "", 8, []string{"match"}, "expired", nil)
	// One record holding a batch: two messages of the trade, two journeys.
	record(4, tk, "M4", 9, []string{"validate"}, "rejected", []string{"NACK:BRKASGSGXXX:M4:00"})
	record(4, tk, "M5", 10, []string{"validate", "identity", "match"}, "accepted", []string{"ACK:BRKASGSGXXX:M5"})
	if err := st.InsertAudit(ctx, "", audit); err != nil {
		t.Fatal(err)
	}
	res, err := report.Journeys(ctx, st, report.Params{Namespace: ns}, tk)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	res.WriteText(&b)
	t.Logf("journeys\n%s", b.String())
	// In inbound order; the purge has no inbound record and comes first.
	js := res.Journeys
	if len(js) != 5 {
		t.Fatalf("journeys %+v", js)
	}
	purge, m1, m2, m4, m5 := js[0], js[1], js[2], js[3], js[4]
	if m4.MsgId != "M4" || len(m4.Steps) != 1 || m4.Outcome != "rejected" ||
		m5.MsgId != "M5" || len(m5.Steps) != 3 || fmt.Sprint(m5.Outputs) != "[ACK:BRKASGSGXXX:M5]" {
		t.Fatalf("the journeys of one batch record: %+v, %+v", m4, m5)
	}
	if m1.MsgId != "M1" || len(m1.Steps) != 3 || m1.Outcome != "accepted" || m1.Steps[2].Stage != "match" ||
		fmt.Sprint(m1.Outputs) != "[ACK:BRKASGSGXXX:M1]" || m1.Total() != 3*time.Millisecond ||
		m2.MsgId != "M2" || m2.Outcome != "rejected" || len(m2.Steps) != 2 ||
		purge.Outcome != "expired" || purge.InboundPartition != -1 || purge.Total() != 0 {
		t.Fatalf("journeys %+v", js)
	}
}
