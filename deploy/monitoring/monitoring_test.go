package monitoring_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ste-utility/ste/deploy/monitoring"
	"github.com/ste-utility/ste/testgate"
)

func TestMetricNames(t *testing.T) {
	for expr, want := range map[string][]string{
		`sum by (stage) (rate(ste_stage_records_in_total{job=~"$job"}[$__rate_interval]))`:                               {"ste_stage_records_in_total"},
		`histogram_quantile(0.99, sum by (le, stage) (rate(ste_stage_processing_seconds_bucket{job="x"}[5m])))`:          {"ste_stage_processing_seconds_bucket"},
		`max by (job, stage) (ste_group_lag) > 0 unless on (job, stage) sum by (job, stage) (rate(ste_x_total[5m])) > 0`: {"ste_group_lag", "ste_x_total"},
		`sum by (groups) (ste_instance_ready * on (instance) group_left (groups) ste_instance_info)`:                     {"ste_instance_info", "ste_instance_ready"},
		`count(ste_instance_ready{job=~"$job"} == 0) or vector(0)`:                                                       {"ste_instance_ready"},
		`sum(changes(process_start_time_seconds[1h])) offset 5m > 1e3`:                                                   {"process_start_time_seconds"},
		`kafka_consumergroup_lag{topic="a"}`:                                                                             {"kafka_consumergroup_lag"},
	} {
		if got := monitoring.MetricNames(expr); !slices.Equal(got, want) {
			t.Errorf("MetricNames(%s) = %v, want %v", expr, got, want)
		}
	}
}

func TestDashboardsHaveQueries(t *testing.T) {
	prom, err := monitoring.Queries(monitoring.Prometheus)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := monitoring.Queries(monitoring.ClickHouse)
	if err != nil {
		t.Fatal(err)
	}
	if len(prom) < 15 || len(ch) < 8 {
		t.Fatalf("%d Prometheus and %d ClickHouse queries", len(prom), len(ch))
	}
	for _, q := range append(prom, ch...) {
		if strings.TrimSpace(q.Text) == "" {
			t.Errorf("%s: empty query", q.Where)
		}
	}
	r := monitoring.Range{From: time.Now().Add(-time.Hour), To: time.Now(), Interval: 10 * time.Second,
		Vars: map[string]string{"namespace": "ns", "window": "60"}}
	for _, q := range ch {
		if _, err := monitoring.ExpandClickHouse(q.Text, r); err != nil {
			t.Errorf("%s: %v", q.Where, err)
		}
	}
	if _, err := monitoring.ExpandClickHouse("SELECT $__timeFilterr(ts)", r); err == nil {
		t.Error("an unknown macro expanded")
	}
}

// promtool finds promtool (Debian's prometheus package; make test installs
// it). Without it the checks skip, unless STE_DEPLOY_CHECKS=1 (make test)
// or CI=true, where a missing tool fails them.
func promtool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("promtool")
	if err != nil && os.Getenv("STE_DEPLOY_CHECKS") == "1" {
		t.Fatal("promtool not found (make test installs it: Debian's prometheus package)")
	}
	testgate.Need(t, "promtool (apt-get install prometheus, or run make test)", err)
	return p
}

func run(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
}

// The alert rules are valid and behave as their unit tests say.
func TestAlertRules(t *testing.T) {
	p := promtool(t)
	run(t, "prometheus", p, "check", "rules", "alerts.yaml")
	run(t, "prometheus", p, "test", "rules", "alerts_test.yaml")
}

// Every dashboard expression is valid PromQL: promtool checks them as
// recording rules, with Grafana's variables replaced by values.
func TestDashboardPromQLParses(t *testing.T) {
	p := promtool(t)
	qs, err := monitoring.Queries(monitoring.Prometheus)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("groups:\n  - name: dashboards\n    rules:\n")
	grafana := strings.NewReplacer("$__rate_interval", "1m", "$__interval", "1m", "$__range", "1h", `"$job"`, `".*"`,
		`"$gateway_job"`, `".*"`, `"$console_job"`, `".*"`)
	for i, q := range qs {
		expr := grafana.Replace(q.Text)
		if strings.HasPrefix(expr, "label_values(") {
			continue // a Grafana variable query, not PromQL
		}
		if strings.Contains(expr, "$") {
			t.Fatalf("%s: a variable this test does not know: %s", q.Where, expr)
		}
		fmt.Fprintf(&b, "      - record: dashboard:q%d\n        expr: %q\n", i, expr)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "dashboards.yaml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, p, "check", "rules", "dashboards.yaml")
}
