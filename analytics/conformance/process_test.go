package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/analytics/ingest"
	"github.com/ste-utility/ste/analytics/store"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/testgate"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
)

// analyticsProcess starts `ste analytics` for ns as a child process.
func (s *suite) analyticsProcess(t *testing.T, bin, ns, dsn string, log *bytes.Buffer) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, "analytics", "--brokers", s.brokers, "--namespace", ns, "--clickhouse", dsn,
		"--batch-rows", "1000", "--flush", "50ms")
	cmd.Env = append(os.Environ(), "STE_HOME="+t.TempDir())
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd
}

func sum(o ingest.Offsets) int64 {
	var n int64
	for _, ps := range o {
		for _, v := range ps {
			n += v
		}
	}
	return n
}

// testKill9 kills `ste analytics` with SIGKILL while it ingests, restarts
// it, and checks that nothing is lost or doubled — in the tables, in the
// views, and in `ste report counts --json`, all through the binaries.
func (s *suite) testKill9(t *testing.T) {
	if s.b.SteBinary == nil {
		testgate.Skip(t, "no ste binary for this backend")
	}
	if testing.Short() {
		t.Skip("-short: skipping the process test")
	}
	start := time.Now()
	bin := s.b.SteBinary(t)
	t.Logf("%5.1fs ste binary ready", time.Since(start).Seconds())
	st, dsn := s.open(t, store.Options{})
	ns := s.name("kill")
	s.topicsFor(t, ns)
	d := Generate(ns, 1500, base())
	s.produce(t, d.Records)
	ctx := ctxFor(t, 3*time.Minute)
	adm := s.admin(t)
	ends, err := ingest.EndOffsets(ctx, adm, ns)
	if err != nil {
		t.Fatal(err)
	}

	t.Logf("%5.1fs %d records produced", time.Since(start).Seconds(), len(d.Records))
	var log1 bytes.Buffer
	p1 := s.analyticsProcess(t, bin, ns, dsn, &log1)
	// Kill it once it has committed a fifth of the records: it is then in
	// the middle of its batches (1,000 rows each, ~40 of them).
	if !waitUntil(ctx, func() bool {
		mid, _ := ingest.Committed(ctx, adm, ingest.Group(ns))
		return sum(mid) > sum(ends)/5
	}) {
		t.Fatalf("nothing committed; ste analytics said:\n%s", log1.String())
	}
	if err := p1.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = p1.Wait()
	committed, _ := ingest.Committed(ctx, adm, ingest.Group(ns))
	at := storedRows(t, st, ns)
	t.Logf("killed with %d of %d records committed; stored then: %d audit rows, %d CLS rows, %d exception rows, %d monitor rows",
		sum(committed), sum(ends), at.AuditSteps, at.CLSRecords, at.ExceptionRecords, at.Monitor)
	if sum(committed) >= sum(ends) {
		t.Fatalf("ste analytics finished before the kill; the test needs more data")
	}

	t.Logf("%5.1fs killed", time.Since(start).Seconds())
	var log2 bytes.Buffer
	p2 := s.analyticsProcess(t, bin, ns, dsn, &log2)
	if err := ingest.WaitCommitted(ctx, adm, ingest.Group(ns), ends); err != nil {
		got, _ := ingest.Committed(context.Background(), adm, ingest.Group(ns))
		t.Fatalf("%v: committed %v, want %v; the restarted ste analytics said:\n%s", err, got, ends, log2.String())
	}
	t.Logf("%5.1fs restarted ste analytics caught up", time.Since(start).Seconds())
	// A clean stop: SIGTERM, exit status 0.
	_ = p2.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- p2.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ste analytics after SIGTERM: %v\n%s", err, log2.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("ste analytics did not stop on SIGTERM")
	}
	if strings.Contains(log2.String(), "resuming after stored rows") {
		t.Log("the restart resumed after rows stored but not committed before the kill")
	}
	expectStored(t, st, ns, d.Want)

	t.Logf("%5.1fs stopped", time.Since(start).Seconds())
	// The same through `ste report counts --json`.
	out, err := exec.Command(bin, "report", "counts", "--json", "--clickhouse", dsn, "--namespace", ns).Output()
	if err != nil {
		t.Fatalf("ste report counts: %v", err)
	}
	var counts map[string]int64
	if err := json.Unmarshal(out, &counts); err != nil {
		t.Fatalf("ste report counts --json: %v: %s", err, out)
	}
	w := d.Want
	for k, v := range map[string]int{"cls": w.CLS, "audit": w.Audit, "exceptions": w.Exceptions, "monitor": w.Monitor,
		"cls_records": w.CLSRecords, "audit_steps": w.AuditSteps, "exception_records": w.ExceptionRecords} {
		if counts[k] != int64(v) {
			t.Errorf("ste report counts: %s = %d, want %d (%s)", k, counts[k], v, out)
		}
	}

	// User errors: one line on stderr, non-zero exit, no stack trace.
	for _, args := range [][]string{
		{"report", "counts", "--clickhouse", "http://127.0.0.1:1"},
		{"report", "nosuchreport", "--clickhouse", dsn},
		{"report", "counts", "--since", "yesterday-ish", "--clickhouse", dsn},
		{"analytics", "--brokers", s.brokers, "--namespace", ns, "--clickhouse", "http://127.0.0.1:1"},
	} {
		cmd := exec.Command(bin, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if err == nil || len(lines) != 1 || strings.Contains(stderr.String(), "goroutine") {
			t.Errorf("ste %s: %v, stderr %q: want a non-zero exit and one line", strings.Join(args, " "), err, stderr.String())
		}
	}
}

// testPipelineThroughBinaries runs the real pipeline — ste process on a
// generated realistic set driven by ste drive — with ste analytics beside
// it, all as processes, and checks that the store holds exactly what the
// topics hold: CLS rows deduplicated by MsgId equal the distinct CLS MsgIds
// on <ns>.cls, audit records equal the records on <ns>.audit, exceptions
// (by id) equal <ns>.exceptions', as `ste report counts --json` prints them.
func (s *suite) testPipelineThroughBinaries(t *testing.T) {
	if s.b.SteBinary == nil {
		testgate.Skip(t, "no ste binary for this backend")
	}
	if testing.Short() {
		t.Skip("-short: skipping the process test")
	}
	bin := s.b.SteBinary(t)
	_, dsn := s.open(t, store.Options{})
	ns := s.name("pipe")
	dir := t.TempDir()
	ctx := ctxFor(t, 3*time.Minute)
	run := func(args ...string) []byte {
		t.Helper()
		cmd := exec.CommandContext(ctx, bin, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("ste %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return out
	}
	run("refdata", "gen", "--out", filepath.Join(dir, "ref"))
	var man struct{ Messages int }
	if err := json.Unmarshal(run("gen", "--trades", "300", "--mix", "realistic", "--refdata", filepath.Join(dir, "ref"),
		"--out", filepath.Join(dir, "set.xml")), &man); err != nil || man.Messages == 0 {
		t.Fatalf("ste gen: %v %+v", err, man)
	}
	run("topics", "create", "--brokers", s.brokers, "--namespace", ns, "--partitions", "4")

	var plog, alog bytes.Buffer
	proc := exec.Command(bin, "process", "--brokers", s.brokers, "--namespace", ns, "--refdata", filepath.Join(dir, "ref"), "--http", "")
	// Its instance slot and disk tables in the test's directory, not the user's $STE_HOME.
	proc.Env = append(os.Environ(), "STE_HOME="+filepath.Join(dir, "home"))
	proc.Stdout, proc.Stderr = &plog, &plog
	if err := proc.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = proc.Process.Signal(syscall.SIGTERM)
		_ = proc.Wait()
	}()
	an := s.analyticsProcess(t, bin, ns, dsn, &alog)
	run("drive", "--in", filepath.Join(dir, "set.xml"), "--brokers", s.brokers, "--namespace", ns)

	// Every inbound record ends its journey with one audit event (the
	// pipeline writes them in batches: records hold several).
	adm := s.admin(t)
	audit := topology.Names{NS: ns}.Audit()
	var ends ingest.Offsets
	if !waitUntil(ctx, func() bool {
		ends, _ = ingest.EndOffsets(ctx, adm, ns)
		n := 0
		_, err := topics.Dump(ctx, kafkaconn.Plaintext(s.brokers), audit, func(r *kgo.Record) error {
			n += schemas.CountAuditEvents(r.Value)
			return nil
		})
		return err == nil && n >= man.Messages
	}) {
		t.Fatalf("the pipeline did not finish %d messages; ste process said:\n%s", man.Messages, plog.String())
	}
	if err := ingest.WaitCommitted(ctx, adm, ingest.Group(ns), ends); err != nil {
		t.Fatalf("%v; ste analytics said:\n%s", err, alog.String())
	}
	_ = an.Process.Signal(syscall.SIGTERM)
	_ = an.Wait()

	// What the topics hold, read back through the binary.
	lines := func(topic string) [][]byte {
		out := run("topics", "dump", "--topic", topic, "--brokers", s.brokers)
		return bytes.Split(bytes.TrimRight(out, "\n"), []byte("\n"))
	}
	names := topology.Names{NS: ns}
	clsIDs := map[string]bool{}
	for _, l := range lines(names.CLS()) {
		o, err := schemas.ParseOutput(l)
		if err != nil {
			t.Fatalf("CLS on the topic: %v", err)
		}
		clsIDs[o.MsgId] = true
	}
	excIDs := map[string]bool{}
	for _, l := range lines(names.Exceptions()) {
		var e schemas.Exception
		if err := json.Unmarshal(l, &e); err != nil {
			t.Fatal(err)
		}
		excIDs[e.ID] = true
	}
	auditRecords := len(lines(names.Audit())) // one event a line

	var counts map[string]int64
	if err := json.Unmarshal(run("report", "counts", "--json", "--clickhouse", dsn, "--namespace", ns), &counts); err != nil {
		t.Fatal(err)
	}
	t.Logf("topics: %d distinct CLS, %d audit events, %d distinct exceptions; ste report counts: %v",
		len(clsIDs), auditRecords, len(excIDs), counts)
	if counts["cls"] != int64(len(clsIDs)) || counts["audit"] != int64(auditRecords) || counts["exceptions"] != int64(len(excIDs)) ||
		len(clsIDs) == 0 || len(excIDs) == 0 {
		t.Fatalf("store and topics differ")
	}
	// Every report prints on this data.
	for _, name := range []string{"throughput", "degradation", "queues", "latency", "exceptions"} {
		if out := run("report", name, "--clickhouse", dsn, "--namespace", ns); len(out) == 0 {
			t.Errorf("ste report %s printed nothing", name)
		}
	}
}
