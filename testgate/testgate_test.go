package testgate

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The registry is whole: every suite has what make verify-all needs, each
// make target it names exists, every suite turned on by a variable is
// gated through this package by some test (and every name a test gates
// on is registered).
func TestRegistryIsWhole(t *testing.T) {
	mk, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range Suites {
		if s.Name == "" || s.Tests == "" || s.Run == "" || s.Cost == "" {
			t.Errorf("suite %+v: a name, its tests, its command and its cost are all needed", s)
		}
		if seen[s.Name] {
			t.Errorf("suite %s registered twice", s.Name)
		}
		seen[s.Name] = true
		if target, ok := strings.CutPrefix(s.Run, "make "); ok {
			target, _, _ = strings.Cut(target, " ")
			if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(target) + `:`).Match(mk) {
				t.Errorf("suite %s runs make %s, which the Makefile has no target for", s.Name, target)
			}
		}
	}
	gated := map[string]bool{}
	use := regexp.MustCompile(`testgate\.(?:Opt\(t, |Enabled\()"([a-z0-9-]+)"|replayBackends\("([a-z0-9-]+)"`)
	eachGoFile(t, ".go", []string{"third_party", "testgate"}, func(path string, b []byte) {
		for _, m := range use.FindAllSubmatch(b, -1) {
			name := string(m[1]) + string(m[2])
			gated[name] = true
			if _, ok := Lookup(name); !ok {
				t.Errorf("%s gates on suite %q, which is not registered", path, name)
			}
		}
	})
	for _, s := range Suites {
		if s.Env != "" && !gated[s.Name] {
			t.Errorf("suite %s (%s) is gated by no test through testgate", s.Name, s.Env)
		}
	}
}

func TestEnabled(t *testing.T) {
	t.Setenv("STE_CHAOS", "")
	if Enabled("chaos") {
		t.Error("chaos enabled with STE_CHAOS unset")
	}
	t.Setenv("STE_CHAOS", "reduced")
	if Enabled("chaos") {
		t.Error("chaos enabled with STE_CHAOS=reduced: the registry says full")
	}
	t.Setenv("STE_CHAOS", "full")
	if !Enabled("chaos") {
		t.Error("chaos off with STE_CHAOS=full")
	}
	t.Setenv("CLICKHOUSE_ADDR", "http://127.0.0.1:8123") // a placeholder: any value
	if !Enabled("analytics-server") {
		t.Error("analytics-server off with CLICKHOUSE_ADDR set")
	}
	if Enabled("fuzz") {
		t.Error("fuzz, turned on by its target alone, reported enabled")
	}
}

// A skip is recorded as one tab-separated line: package, test, kind,
// reason, command.
func TestSkipsAreRecorded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "skips.tsv")
	t.Setenv("STE_SKIPS", path)
	t.Setenv("CI", "")
	t.Setenv("STE_FAILOVER", "")
	t.Run("suite", func(t *testing.T) { Opt(t, "failover-kfake"); t.Error("not skipped") })
	t.Run("missing", func(t *testing.T) { Need(t, "a tool", os.ErrNotExist); t.Error("not skipped") })
	t.Run("present", func(t *testing.T) { Need(t, "a tool", nil) })
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		got = append(got, strings.Split(sc.Text(), "\t"))
	}
	if len(got) != 2 {
		t.Fatalf("%d records, want 2: %q", len(got), got)
	}
	for i, want := range [][]string{
		{"testgate", "TestSkipsAreRecorded/suite", "suite", "", "make failover STE_FAILOVER_BROKER=kfake"},
		{"testgate", "TestSkipsAreRecorded/missing", "missing", "a tool: file does not exist", ""},
	} {
		r := got[i]
		if len(r) != 5 || r[0] != want[0] || r[1] != want[1] || r[2] != want[2] || r[4] != want[4] || want[3] != "" && r[3] != want[3] {
			t.Errorf("record %d: %q, want %q", i, r, want)
		}
	}
}

// TestFuzzTargetsAreAllRun: make fuzz (the registry's fuzz suite) runs
// every Fuzz function of the repository, each by an anchored pattern in its
// own package — a pattern that matches two targets makes go refuse to fuzz
// (make fuzz failed so on 7 December, once FuzzDecodeAuditFast stood beside
// FuzzDecode), and a target left out is never fuzzed.
func TestFuzzTargetsAreAllRun(t *testing.T) {
	mk, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	recipe := regexp.MustCompile(`(?ms)^fuzz:\n((?:\t[^\n]*\n)+)`).FindSubmatch(mk)
	if recipe == nil {
		t.Fatal("the Makefile has no fuzz target")
	}
	run := map[string]bool{} // "dir Name"
	line := regexp.MustCompile(`test \./(\S+) .*-fuzz '\^(Fuzz\w+)\$\$'`)
	for _, l := range strings.Split(string(recipe[1]), "\n") {
		if strings.Contains(l, "-fuzz") {
			m := line.FindStringSubmatch(l)
			if m == nil {
				t.Errorf("make fuzz: %q fuzzes no single target (-fuzz '^Name$$')", strings.TrimSpace(l))
				continue
			}
			run[m[1]+" "+m[2]] = true
		}
	}
	decl := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(f \*testing\.F\)`)
	found := 0
	eachGoFile(t, "_test.go", []string{"third_party"}, func(path string, b []byte) {
		dir := filepath.ToSlash(strings.TrimPrefix(filepath.Dir(path), "../"))
		for _, m := range decl.FindAllSubmatch(b, -1) {
			found++
			if !run[dir+" "+string(m[1])] {
				t.Errorf("%s: %s is not run by make fuzz", path, m[1])
			}
			delete(run, dir+" "+string(m[1]))
		}
	})
	for k := range run {
		t.Errorf("make fuzz runs %s, which no test file declares", k)
	}
	if found == 0 {
		t.Error("no Fuzz function found: the walk is wrong")
	}
}

// eachGoFile calls f with every file of the repository whose name ends in
// suffix, outside the directories named skip and those starting with a dot.
func eachGoFile(t *testing.T, suffix string, skip []string, f func(path string, b []byte)) {
	t.Helper()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != ".." && (slices.Contains(skip, d.Name()) || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, suffix) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f(path, b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
