package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ste-utility/ste/deploy/monitoring"
	"github.com/ste-utility/ste/testgate"
)

// TestRealPrometheus runs Debian's prometheus (make promtool installs it)
// with the shipped deploy/monitoring/prometheus/prometheus.yml — its
// targets replaced by a running `ste process`, `ste console` and `ste
// gateway`, its intervals shortened to seconds — and asks it, through its
// HTTP API, what the dashboards ask: lag by topic, rates, and every Grafana
// panel's PromQL, each of which must return series; and whether the console
// reads the process and the gateway is ready.
func TestRealPrometheus(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ste process and prometheus")
	}
	bin, err := exec.LookPath("prometheus")
	testgate.Need(t, "prometheus (make promtool installs Debian's)", err)
	f := newFixture(t, backends[0], 120)
	httpAddr, consoleAddr, gatewayMetrics, fixgwHealth, isoMetrics := freeAddr(t), freeAddr(t), freeAddr(t), freeAddr(t), freeAddr(t)
	proc := startLines(t, f.env, "process", "--refdata", f.refdata, "--http", httpAddr)
	// The console and the gateway, each scraped by its own job of the
	// shipped configuration; they start while the process loads.
	console := startLines(t, f.env, "console", "--addr", consoleAddr, "--no-analytics")
	gateway := startLines(t, f.env, "gateway", "--addr", "127.0.0.1:0", "--metrics-addr", gatewayMetrics)
	fixgw := startLines(t, f.env, "fixgw", "--addr", "127.0.0.1:0", "--health-addr", fixgwHealth, "--demo-key", "--demo-credentials",
		"--store", filepath.Join(t.TempDir(), "fixgw"))
	iso := startLines(t, f.env, "iso20022", "--addr", "127.0.0.1:0", "--metrics-addr", isoMetrics, "--demo-key")
	proc.waitFor(t, regexp.MustCompile(`reference data loaded`), 60*time.Second)
	console.waitFor(t, regexp.MustCompile(`STE console for namespace`), 60*time.Second)
	gwLine := regexp.MustCompile(`STE gateway for namespace \S+: (\S+)\n`)
	gatewayURL := gwLine.FindStringSubmatch(gateway.waitFor(t, gwLine, 60*time.Second))[1]
	fixgw.waitFor(t, regexp.MustCompile(`STE fixgw for namespace`), 60*time.Second)
	iso.waitFor(t, regexp.MustCompile(`STE iso20022 for namespace`), 60*time.Second)

	// The shipped configuration, pointed at these processes: each job's
	// DNS discovery replaced by the address of what it scrapes.
	targets := map[string]string{"ste": httpAddr, "ste-console": consoleAddr, "ste-gateway": gatewayMetrics, "ste-fixgw": fixgwHealth, "ste-iso20022": isoMetrics}
	dir := t.TempDir()
	var cfg map[string]any
	b, err := os.ReadFile("../deploy/monitoring/prometheus/prometheus.yml")
	must(t, err)
	must(t, yaml.Unmarshal(b, &cfg))
	cfg["global"] = map[string]any{"scrape_interval": "1s", "evaluation_interval": "1s"}
	cfg["rule_files"] = []string{}
	jobs, _ := cfg["scrape_configs"].([]any)
	var jobNames []string
	for _, j := range jobs {
		job := j.(map[string]any)
		name, _ := job["job_name"].(string)
		target, ok := targets[name]
		if !ok {
			t.Fatalf("prometheus.yml: job %q is not one this test knows how to run", name)
		}
		delete(job, "dns_sd_configs")
		job["static_configs"] = []any{map[string]any{"targets": []string{target}}}
		jobNames = append(jobNames, name)
	}
	if len(jobNames) != len(targets) {
		t.Fatalf("prometheus.yml scrapes %v, want the process, the console, the gateway, ste fixgw and ste iso20022", jobNames)
	}
	out, _ := yaml.Marshal(cfg)
	must(t, os.WriteFile(filepath.Join(dir, "prometheus.yml"), out, 0o644))

	promAddr := freeAddr(t)
	prom := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+promAddr)
	var plog strings.Builder
	prom.Stdout, prom.Stderr = &plog, &plog
	must(t, prom.Start())
	t.Cleanup(func() { prom.Process.Kill(); prom.Wait() })

	query := func(expr string) []any {
		t.Helper()
		resp, err := http.Get("http://" + promAddr + "/api/v1/query?query=" + url.QueryEscape(expr))
		if err != nil {
			return nil
		}
		defer resp.Body.Close()
		var r struct {
			Status string `json:"status"`
			Error  string `json:"error"`
			Data   struct {
				Result []any `json:"result"`
			} `json:"data"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Status != "success" {
			t.Errorf("query %s: %v %s", expr, err, r.Error)
			return nil
		}
		return r.Data.Result
	}
	// Prometheus scrapes the process (up == 1) before the run, so that the
	// run's rates are in its samples.
	wait := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("prometheus: %s not within 60 s:\n%s", what, plog.String())
			}
			time.Sleep(500 * time.Millisecond)
		}
	}
	for _, job := range jobNames {
		wait(job+" scraped", func() bool { return len(query(`up{job="`+job+`"} == 1`)) > 0 })
	}
	// An unsigned request, refused by the gateway, to be counted in
	// Prometheus while the run goes on.
	resp, err := http.Get(gatewayURL + "/v1/outputs")
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("an unsigned request to the gateway: %d, want 401", resp.StatusCode)
	}
	f.drive(0)
	f.waitComplete(2 * time.Minute)
	wait("a rate per stage", func() bool {
		return len(query(`sum by (stage) (rate(ste_stage_records_in_total[1m])) > 0`)) >= 3
	})
	if r := query(`sum by (topic) (ste_group_lag)`); len(r) < 3 {
		t.Errorf("lag by topic: %d series, want one per stage input topic (3): %v", len(r), r)
	}
	// The console reads the process (its registry entry, its /metrics), and
	// the gateway has read the participants.
	wait("the console reading the process", func() bool {
		return len(query(`ste_console_instances{job="ste-console",state="answering"} >= 1`)) > 0
	})
	if r := query(`ste_console_sample_age_seconds{job="ste-console"} < 10`); len(r) == 0 {
		t.Error("the console's picture of the namespace is not current")
	}
	if r := query(`ste_gateway_ready{job="ste-gateway"} == 1`); len(r) == 0 {
		t.Error("the gateway is not ready in prometheus")
	}
	wait("ste fixgw ready", func() bool { return len(query(`ste_fixgw_ready{job="ste-fixgw"} == 1`)) > 0 })
	// The unsigned request the gateway refused before the run is counted.
	wait("the gateway's refusal counted", func() bool {
		return len(query(`ste_gateway_auth_refusals_total{job="ste-gateway",reason="missing_signature"} >= 1`)) > 0
	})

	// Every dashboard panel's PromQL, with Grafana's variables as a user of
	// the dashboard would have them.
	qs, err := monitoring.Queries(monitoring.Prometheus)
	must(t, err)
	vars := strings.NewReplacer(`$__rate_interval`, `1m`, `$__interval`, `1s`, `${job}`, `.*`, `$job`, `.*`,
		`$gateway_job`, `.*`, `$console_job`, `.*`)
	empty := 0
	for _, q := range qs {
		if strings.HasPrefix(strings.TrimSpace(q.Text), "label_values(") {
			continue
		}
		expr := vars.Replace(q.Text)
		// A counter or histogram born late in the run has a rate only from
		// its second scrape on: give each query a few scrapes.
		n := 0
		for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(500 * time.Millisecond) {
			if n = len(query(expr)); n > 0 || time.Now().After(deadline) {
				break
			}
		}
		if n == 0 {
			empty++
			t.Errorf("%s returns no series from a running process: %s", q.Where, expr)
		}
	}
	t.Logf("%d dashboard queries run against prometheus, %d empty", len(qs), empty)
}

// freeAddr is a loopback address with a port free a moment ago.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer ln.Close()
	return fmt.Sprint(ln.Addr())
}
