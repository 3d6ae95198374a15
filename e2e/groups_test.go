package e2e

import (
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ste-utility/ste/deploy/monitoring"
)

// checkGroupsApart holds the instances of the groups-apart scenario to what
// they were started with: the registry lists two validate-only instances
// and one identity+match instance, each ready; no instance's /metrics shows
// work of a group it does not run, and every group's work shows somewhere
// (a validate instance that joined last may have found nothing left).
func (f *fixture) checkGroupsApart(procs []*proc) {
	f.t.Helper()
	var list []listed
	deadline := time.Now().Add(time.Minute)
	for {
		list = nil
		if err := json.Unmarshal([]byte(ste(f.t, f.env, "instances", "--json")), &list); err != nil {
			f.t.Fatal(err)
		}
		list = slices.DeleteFunc(list, func(l listed) bool { return l.Stale || !l.Ready })
		if len(list) == len(procs) || time.Now().After(deadline) {
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	groups, done, exposed := map[string]int{}, map[string]bool{}, map[string]bool{}
	for _, l := range list {
		g := strings.Join(l.Groups, ",")
		groups[g]++
		m := scrape(f.t, l.HTTP)
		maps.Copy(exposed, monitoring.ExposedNames(m))
		for _, stage := range []string{"validate", "identity", "match"} {
			worked := regexp.MustCompile(`(?m)^ste_stage_records_in_total\{stage="` + stage + `"\} [1-9]`).MatchString(m)
			if worked && !slices.Contains(l.Groups, stage) {
				f.t.Fatalf("instance %s (groups %s) processed %s records", l.ID, g, stage)
			}
			done[stage] = done[stage] || worked
		}
	}
	if len(done) != 3 || !done["validate"] || !done["identity"] || !done["match"] {
		f.t.Fatalf("stages with work: %v", done)
	}
	if groups["validate"] != 2 || groups["identity,match"] != 1 || len(list) != 3 {
		f.t.Fatalf("instances by groups %v, want 2 validate and 1 identity,match: %+v", groups, list)
	}
	checkDashboardMetrics(f.t, exposed)
}

// checkDashboardMetrics holds the dashboards and alert rules
// (deploy/monitoring) to what running instances export: every metric an
// expression names is on some instance's /metrics.
func checkDashboardMetrics(t *testing.T, exposed map[string]bool) {
	t.Helper()
	qs, err := monitoring.PromQL()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, q := range qs {
		if strings.HasPrefix(q.Where, monitoring.ConsoleGatewayDashboard) {
			continue // the console's and gateway's own: TestRealPrometheus runs them against those
		}
		for _, name := range monitoring.MetricNames(q.Text) {
			checked++
			if !exposed[name] {
				t.Errorf("%s names %s, which no instance exports on /metrics", q.Where, name)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d metric names found in the dashboards and alerts", checked)
	}
}

// scrape reads an instance's /metrics.
func scrape(t interface{ Fatal(...any) }, addr string) string {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
