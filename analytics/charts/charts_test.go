package charts

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ste-utility/ste/analytics/report"
)

// The testdata files are `ste report NAME --json` (queues with --plot, which
// adds the sampled series) taken after a `ste demo`: real report results —
// but demo-allegements.json, written by hand in the report's form (the
// demo's Kafka path sent no allegement when the others were taken).
func demoResult(t *testing.T, name string) report.Result {
	t.Helper()
	var res report.Result
	switch name {
	case "throughput":
		res = &report.ThroughputResult{}
	case "degradation":
		res = &report.DegradationResult{}
	case "queues":
		res = &report.QueuesResult{}
	case "latency":
		res = &report.LatencyResult{}
	case "exceptions":
		res = &report.ExceptionsResult{}
	case "timeliness":
		res = &report.TimelinessResult{}
	case "allegements":
		res = &report.AllegementsResult{}
	default:
		t.Fatalf("no testdata for %s", name)
	}
	b, err := os.ReadFile(filepath.Join("testdata", "demo-"+name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, res); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func TestSaveDrawsEveryPlottableReport(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"throughput", "degradation", "queues", "latency", "exceptions", "timeliness", "allegements"} {
		if !Plottable(name) {
			t.Fatalf("%s: not plottable", name)
		}
		res := demoResult(t, name)
		for _, ext := range []string{".png", ".svg"} {
			t.Run(name+ext, func(t *testing.T) {
				file := filepath.Join(dir, name+ext)
				if err := Save(res, file); err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				switch ext {
				case ".png":
					if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) || len(b) < 10_000 {
						t.Fatalf("not a drawn PNG: %d bytes", len(b))
					}
				case ".svg":
					// The title names the namespace: the chart drew the data's labels.
					if !bytes.Contains(b, []byte("<svg")) || !bytes.Contains(b, []byte("demo20261129t234032")) {
						t.Fatalf("SVG without the report's title: %.200s", b)
					}
				}
			})
		}
	}
}

func TestSaveRefuses(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		res  report.Result
		file string
		want string
	}{
		{"unknown extension", demoResult(t, "exceptions"), "x.jpg", "use .png or .svg"},
		{"report without a chart", &report.CountsResult{}, "x.png", "no chart"},
		{"no exceptions", &report.ExceptionsResult{Namespace: "n"}, "x.png", "nothing to plot"},
		{"no throughput points", &report.ThroughputResult{Namespace: "n"}, "x.png", "nothing to plot"},
		{"no degradation windows", &report.DegradationResult{Namespace: "n"}, "x.svg", "nothing to plot"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Save(c.res, filepath.Join(dir, c.file))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}

// Render writes what Save writes, to a writer (the console's charts).
func TestRenderWritesTheSameChart(t *testing.T) {
	res := demoResult(t, "throughput")
	file := filepath.Join(t.TempDir(), "t.svg")
	if err := Save(res, file); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(file)
	var got bytes.Buffer
	if err := Render(res, "svg", 0, 0, &got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("Render wrote %d bytes, Save %d", got.Len(), len(want))
	}
	if err := Render(&report.ThroughputResult{}, "svg", 0, 0, &got); err != ErrNoData {
		t.Fatalf("empty report: %v", err)
	}
}

// TestChartsAreTheRegistrys: analytics/charts draws exactly the reports
// the registry marks Chart — a chart added here without the registry (or
// a report marked Chart with no chart) fails.
func TestChartsAreTheRegistrys(t *testing.T) {
	for _, r := range report.Reports {
		_, err := build(r.Empty())
		drawn := err == nil || errors.Is(err, ErrNoData)
		if drawn != r.Chart {
			t.Errorf("report %s: registry says Chart=%v, charts draws it: %v (%v)", r.Name, r.Chart, drawn, err)
		}
		if Plottable(r.Name) != r.Chart {
			t.Errorf("Plottable(%s) = %v, want %v", r.Name, Plottable(r.Name), r.Chart)
		}
	}
}
