package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/analytics"
	"github.com/ste-utility/ste/analytics/store"
	"github.com/ste-utility/ste/chendpoint/embedded"
	"github.com/ste-utility/ste/chendpoint/embedded/chdblib"
	"github.com/ste-utility/ste/deploy/monitoring"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/testgate"
	"github.com/ste-utility/ste/topics"
)

// TestDemoFeedsAnalytics runs `ste demo` and holds what analytics stored to
// what is on the topics, through the binaries: CLS rows deduplicated by
// MsgId equal the CLS records, audit records equal the audit topic.
func TestDemoFeedsAnalytics(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo")
	}
	home, env := analyticsHome(t)
	out := ste(t, env, "demo", "--trades", "300")
	m := regexp.MustCompile(`namespace (demo[0-9t]+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no namespace in the demo's output:\n%s", out)
	}
	ns := m[1]
	var counts struct {
		CLS   uint64 `json:"cls"`
		Audit uint64 `json:"audit"`
	}
	if err := json.Unmarshal([]byte(ste(t, env, "report", "counts", "--json", "--namespace", ns)), &counts); err != nil {
		t.Fatal(err)
	}

	// The demo's broker log stays until the next demo: read the topics back.
	cmd := exec.Command(steBin, "broker", "--addr", "127.0.0.1:0", "--data", filepath.Join(home, "demo", "broker"))
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	must(t, cmd.Start())
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	must(t, err)
	brokers := kafkaconn.Plaintext(strings.TrimSpace(line))
	ids := map[string]bool{}
	_, err = topics.Dump(context.Background(), brokers, ns+".cls", func(r *kgo.Record) error {
		o, err := schemas.ParseOutput(r.Value)
		if err == nil {
			ids[o.MsgId] = true
		}
		return err
	})
	must(t, err)
	audits := 0 // events: the pipeline writes them in batches
	_, err = topics.Dump(context.Background(), brokers, ns+".audit", func(r *kgo.Record) error {
		audits += schemas.CountAuditEvents(r.Value)
		return nil
	})
	must(t, err)
	if uint64(len(ids)) != counts.CLS || uint64(audits) != counts.Audit || audits == 0 {
		t.Fatalf("analytics: %d CLS, %d audit; topics: %d CLS MsgIds, %d audit events", counts.CLS, counts.Audit, len(ids), audits)
	}
	if !bytes.Contains([]byte(out), []byte("trades matched")) {
		t.Fatalf("demo output lacks its summary:\n%s", out)
	}
	checkClickHousePanels(t, home, ns)

	// The demo says what it leaves running, and ste stop ends it.
	m = regexp.MustCompile(`Still running: ste-chdb, the analytics endpoint \(pid ([0-9]+), .*it stops by itself after \S+ without queries`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the demo does not say that the analytics endpoint keeps running, and until when:\n%s", out)
	}
	if stop := ste(t, env, "stop"); !strings.Contains(stop, "stopped the analytics endpoint ste-chdb (pid "+m[1]+",") {
		t.Fatalf("ste stop: %q, want pid %s stopped", stop, m[1])
	}
	if st, err := os.ReadFile("/proc/" + m[1] + "/stat"); err == nil && !bytes.Contains(st, []byte(") Z")) {
		t.Fatalf("ste-chdb (pid %s) still running after ste stop", m[1])
	}
	if stop := ste(t, env, "stop"); !strings.Contains(stop, "nothing running") {
		t.Fatalf("ste stop with nothing running: %q", stop)
	}
}

// checkClickHousePanels runs every ClickHouse query of the Grafana
// dashboards (deploy/monitoring), its macros expanded as Grafana's
// ClickHouse data source does, against the demo's embedded store: each
// runs, and each over the demo's data returns rows (bench runs aside: the
// demo records none).
func checkClickHousePanels(t *testing.T, home, ns string) {
	t.Helper()
	t.Setenv(embedded.BinaryEnv, chdbBin)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st, err := analytics.Open(ctx, "", home, store.Options{})
	must(t, err)
	defer st.Close()
	qs, err := monitoring.Queries(monitoring.ClickHouse)
	must(t, err)
	r := monitoring.Range{From: time.Now().Add(-2 * time.Hour), To: time.Now().Add(time.Minute), Interval: time.Second,
		Vars: map[string]string{"namespace": ns, "window": "10"}}
	for _, q := range qs {
		sql, err := monitoring.ExpandClickHouse(q.Text, r)
		if err != nil {
			t.Fatalf("%s: %v", q.Where, err)
		}
		rows, err := st.Conn().Query(ctx, sql)
		if err != nil {
			t.Errorf("%s: %v\n%s", q.Where, err, sql)
			continue
		}
		n := 0
		for rows.Next() {
			n++
		}
		if err := rows.Err(); err != nil {
			t.Errorf("%s: %v", q.Where, err)
		}
		rows.Close()
		if n == 0 && !strings.Contains(sql, "bench_runs") {
			t.Errorf("%s: no rows over the demo's data\n%s", q.Where, sql)
		}
	}
}

// TestBenchReportsCounts: `ste bench --json` writes every field of docs/spec/cli.md and
// `ste report counts --json` then prints the run's row counts.
func TestBenchReportsCounts(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a bench")
	}
	home, env := analyticsHome(t)
	file := filepath.Join(home, "bench.json")
	ste(t, env, "bench", "--trades", "200", "--json", file)
	b, err := os.ReadFile(file)
	must(t, err)
	var res map[string]any
	must(t, json.Unmarshal(b, &res))
	for _, k := range []string{"trades", "messages", "cls", "exceptions", "seconds", "msgs_per_sec", "latency_ms",
		"processor_instances", "partitions", "broker", "analytics", "verify_signatures"} {
		if _, ok := res[k]; !ok {
			t.Errorf("bench JSON lacks %q", k)
		}
	}
	lat, _ := res["latency_ms"].(map[string]any)
	for _, k := range []string{"p50", "p99", "max"} {
		if _, ok := lat[k]; !ok {
			t.Errorf("latency_ms lacks %q", k)
		}
	}
	if res["cls"] != 200.0 || res["messages"] != 1400.0 || res["analytics"] != true || res["broker"] != "embedded" {
		t.Fatalf("bench result %s", b)
	}
	// The outputs by type, and the outputs of version 2's types that the
	// second ceiling counts (a standard trade's 7 ACKs, a STATUS to each
	// party and 1 CLS: docs/benchmarks.md, "The crypto ceiling"), without
	// the CNFs and block statuses version 3 adds.
	by, _ := res["outputs_by_type"].(map[string]any)
	if by["ACK"] != 1400.0 || by["CLS"] != 200.0 || by["CNF"] == nil || by["STATUS"] == nil {
		t.Fatalf("outputs_by_type %v", by)
	}
	v2want := (by["ACK"].(float64) + by["STATUS"].(float64) + by["CLS"].(float64)) / 1400
	if v2, _ := res["v2_outputs_per_message"].(float64); v2 != v2want || v2 > 12.0/7 {
		t.Errorf("v2_outputs_per_message %v, want %v (at most 12/7)", v2, v2want)
	}
	if c, c2 := res["crypto_ceiling_msgs_per_sec"].(float64), res["crypto_ceiling_v2_msgs_per_sec"].(float64); !(c2 > c) {
		t.Errorf("the ceiling of version 2's outputs %v is not above the ceiling of all %v", c2, c)
	}
	var counts map[string]float64
	must(t, json.Unmarshal([]byte(ste(t, env, "report", "counts", "--json")), &counts))
	if counts["cls"] != 200 || counts["audit"] != 1400 || counts["exceptions"] != 0 {
		t.Fatalf("counts %v", counts)
	}
}

// analyticsHome is a fresh $STE_HOME whose embedded analytics store stops
// with the test; it skips where libchdb is missing, except under CI=true.
func analyticsHome(t *testing.T) (string, []string) {
	t.Helper()
	_, err := chdblib.Find()
	testgate.Need(t, "libchdb.so for the embedded analytics (make chdb)", err)
	home := t.TempDir()
	t.Cleanup(func() { embedded.Stop(home) })
	return home, []string{"STE_HOME=" + home, "STE_CHDB_BIN=" + chdbBin}
}
