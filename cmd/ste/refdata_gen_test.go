package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ste-utility/ste/schemas/refdata"
)

// ste refdata gen keeps the contract's default (affirmation.csv with its
// header and no row) and writes both modes with --affirmation mixed; an
// unknown choice is a one-line usage error.
func TestRefdataGenAffirmation(t *testing.T) {
	dir := t.TempDir()
	gen := func(sub string, extra ...string) (int, string) {
		var stdout, errs strings.Builder
		saved := os.Stdout
		os.Stdout, _ = os.Open(os.DevNull)
		defer func() { os.Stdout = saved }()
		code := run(append([]string{"refdata", "gen", "--out", filepath.Join(dir, sub), "--securities", "100", "--participants", "50"}, extra...), &stdout, &errs)
		return code, errs.String()
	}
	if code, errs := gen("plain"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "plain", refdata.AffirmationFile)); string(b) != "invmgr,mode\n" {
		t.Fatalf("default affirmation.csv: %q", b)
	}
	if code, errs := gen("mixed", "--affirmation", "mixed"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	set, err := refdata.LoadDir(filepath.Join(dir, "mixed"))
	if err != nil {
		t.Fatal(err)
	}
	modes := map[refdata.AffirmMode]int{}
	for _, a := range set.Affirmations() {
		modes[a.Mode]++
	}
	if modes[refdata.AffirmAuto] == 0 || modes[refdata.AffirmManual] == 0 {
		t.Fatalf("--affirmation mixed: %v", modes)
	}
	code, errs := gen("bad", "--affirmation", "AUTO")
	if code == 0 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "--affirmation") {
		t.Fatalf("exit %d: %q", code, errs)
	}
}
