package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/workload"
)

// TestGenDatedToday (issue 51): ste gen dates its set today by default —
// every TradeDate and Created of today, UTC, so that a live message sent
// beside it expires nothing — and --created-day gives a fixed set: the same
// seed and day, the same bytes, whatever the day it is run.
func TestGenDatedToday(t *testing.T) {
	dir := t.TempDir()
	gen := func(name string, extra ...string) []byte {
		t.Helper()
		file := filepath.Join(dir, name)
		var stdout, errs strings.Builder
		// Commands write their notes to os.Stderr itself.
		ef, err := os.Create(file + ".stderr")
		if err != nil {
			t.Fatal(err)
		}
		saved := os.Stderr
		os.Stderr = ef
		code := run(append([]string{"gen", "--trades", "40", "--out", file}, extra...), &stdout, &errs)
		os.Stderr = saved
		ef.Close()
		stderr, _ := os.ReadFile(file + ".stderr")
		if code != 0 {
			t.Fatalf("ste gen: exit %d: %s%s", code, errs.String(), stderr)
		}
		if !strings.Contains(string(stderr), "wrote ") || !strings.Contains(string(stderr), file) {
			t.Errorf("ste gen does not say what it wrote where: %q", stderr)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	days := func(set []byte) map[string]bool {
		seen := map[string]bool{}
		var d schemas.Decoder
		for _, line := range bytes.Split(bytes.TrimSpace(set), []byte("\n")) {
			m, rej := d.Decode(line)
			if rej != nil {
				t.Fatalf("the set holds an undecodable message: %v", rej)
			}
			seen[m.Key.TradeDate] = true
			seen[schemas.FormatTimestamp(m.Created)[:10]] = true
		}
		return seen
	}
	today := workload.Today().String()
	if got := days(gen("today.xml")); len(got) != 1 || !got[today] {
		t.Errorf("default set dated %v, want only %s", got, today)
	}
	a, b := gen("fixed-a.xml", "--created-day", "2026-11-02"), gen("fixed-b.xml", "--created-day", "2026-11-02")
	if !bytes.Equal(a, b) {
		t.Error("the same seed and --created-day gave different sets")
	}
	if got := days(a); len(got) != 1 || !got["2026-11-02"] {
		t.Errorf("--created-day 2026-11-02 set dated %v", got)
	}
	if c := gen("alias.xml", "--trade-date", "2026-11-02"); !bytes.Equal(a, c) {
		t.Error("--trade-date is no longer the same as --created-day")
	}
}

// TestPlotSaysWhere: ste plot names every file it writes (a timeline two).
func TestPlotSaysWhere(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join("..", "..", "docs", "benchmarks", "runs")
	for _, c := range []struct {
		args  []string
		files []string
	}{
		{[]string{"plot", "degradation", "--out", filepath.Join(dir, "d.png"), filepath.Join(runs, "instances-1.json")}, []string{"d.png"}},
		{[]string{"plot", "timeline", "--out", filepath.Join(dir, "t.svg"), filepath.Join(runs, "steady.json")}, []string{"t-queues.svg", "t-latency.svg"}},
	} {
		ef, err := os.Create(filepath.Join(dir, "stderr"))
		if err != nil {
			t.Fatal(err)
		}
		saved := os.Stderr
		os.Stderr = ef
		var stdout, errs strings.Builder
		code := run(c.args, &stdout, &errs)
		os.Stderr = saved
		ef.Close()
		said, _ := os.ReadFile(filepath.Join(dir, "stderr"))
		if code != 0 {
			t.Fatalf("ste %s: exit %d: %s%s", strings.Join(c.args, " "), code, errs.String(), said)
		}
		for _, f := range c.files {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil || !strings.Contains(string(said), filepath.Join(dir, f)) {
				t.Errorf("ste %s: %s written %v, said %q", c.args[1], f, err == nil, said)
			}
		}
	}
}
