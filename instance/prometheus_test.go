package instance_test

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lovoo/goka"

	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/testgate"
	"github.com/ste-utility/ste/topics/broker"
	"github.com/ste-utility/ste/topology"
)

// A real Prometheus (Debian's prometheus, installed by make promtool) with
// the shipped alert rules — their windows and for-durations cut to seconds
// in the test's copy — scraping an instance whose match callback blocks:
// SteStalled must fire for the match stage.
func TestPrometheusFiresTheStallAlert(t *testing.T) {
	bin, err := exec.LookPath("prometheus")
	testgate.Need(t, "prometheus (make promtool installs Debian's)", err)
	e := newEnv(t, "promstall", 2*time.Minute, broker.Options{})
	recs, _ := set(t, 20, 3)
	var (
		victim  atomic.Int32
		release = make(chan struct{})
	)
	victim.Store(-1)
	hook := func(st topology.Stage, ctx goka.Context, _ []byte) {
		if p := ctx.Partition(); st == topology.StageMatch && (victim.CompareAndSwap(-1, p) || victim.Load() == p) {
			<-release
		}
	}
	r := e.start("s", instance.Options{Hook: hook, StallAfter: 2 * time.Second})
	var released sync.Once
	t.Cleanup(func() { released.Do(func() { close(release) }) })

	dir := t.TempDir()
	rules, err := os.ReadFile("../deploy/monitoring/prometheus/alerts.yaml")
	if err != nil {
		t.Fatal(err)
	}
	short := regexp.MustCompile(`for: *\d+[smh]`).ReplaceAll(rules, []byte("for: 2s"))
	short = regexp.MustCompile(`\[\d+[mh]\]`).ReplaceAll(short, []byte("[5s]"))
	if err := os.WriteFile(filepath.Join(dir, "alerts.yaml"), short, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := "global: {scrape_interval: 1s, evaluation_interval: 1s}\n" +
		"rule_files: [" + filepath.Join(dir, "alerts.yaml") + "]\n" +
		"scrape_configs:\n  - job_name: ste\n    static_configs: [{targets: ['" + r.http + "']}]\n"
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	promAddr := freePort(t)
	prom := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+promAddr)
	var plog strings.Builder
	prom.Stdout, prom.Stderr = &plog, &plog
	if err := prom.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { prom.Process.Kill(); prom.Wait() })

	e.drive(recs)
	deadline := time.Now().Add(60 * time.Second)
	for {
		firing := false
		if resp, err := http.Get("http://" + promAddr + "/api/v1/alerts"); err == nil {
			var a struct {
				Data struct {
					Alerts []struct {
						Labels map[string]string `json:"labels"`
						State  string            `json:"state"`
					} `json:"alerts"`
				} `json:"data"`
			}
			json.NewDecoder(resp.Body).Decode(&a)
			resp.Body.Close()
			for _, al := range a.Data.Alerts {
				if al.Labels["alertname"] == "SteStalled" && al.State == "firing" {
					if al.Labels["stage"] != "match" {
						t.Errorf("SteStalled fired for stage %q, only match is blocked", al.Labels["stage"])
					}
					firing = true
				}
			}
		}
		if firing {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("SteStalled did not fire within 60 s of the stall:\n%s", plog.String())
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
