package topology_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/ste-utility/ste/testgate"
)

// The Kafka runtime: goka, the sarama inside it, and Pebble (disk tables).
var runtime = []string{"github.com/lovoo/goka", "github.com/IBM/sarama", "github.com/cockroachdb/pebble"}

// TestReadersDoNotLinkTheRuntime: the packages that only read what the
// pipeline wrote — and topology itself, which also links no Kafka client —
// do not depend on the goka runtime (go list -deps, tests excluded). A name
// they need comes from topology; an import that drags the runtime in fails
// here, naming the chain to look at.
func TestReadersDoNotLinkTheRuntime(t *testing.T) {
	_, err := exec.LookPath("go")
	testgate.Need(t, "the go command on PATH", err)
	const mod = "github.com/ste-utility/ste/"
	forbidden := map[string][]string{
		"topology":         append(runtime, "github.com/twmb/franz-go"),
		"analytics/report": runtime,
		"console":          runtime,
		"exceptions":       runtime,
		"topics/lag":       runtime,
		"measure/monitor":  runtime,
	}
	for pkg, bad := range forbidden {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", mod+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		deps := strings.Fields(string(out))
		for _, b := range bad {
			for _, dep := range deps {
				if dep == b || strings.HasPrefix(dep, b+"/") {
					t.Errorf("%s depends on %s (see: go list -deps -f '{{.ImportPath}}: {{.Imports}}' ./%s)", pkg, b, pkg)
					break
				}
			}
		}
	}
}

// TestChendpointIsFenced holds the tree's boundary (chendpoint/README.md): nothing under chendpoint/
// imports STE's own packages outside it, and nothing outside it imports
// more than chendpoint/embedded (and its chdblib) — the endpoint itself
// links chdb-go, which a binary cannot start without.
func TestChendpointIsFenced(t *testing.T) {
	_, err := exec.LookPath("go")
	testgate.Need(t, "the go command on PATH", err)
	const mod = "github.com/ste-utility/ste/"
	const tree = mod + "chendpoint"
	out, err := exec.Command("go", "list", "-test", "-f", `{{.ImportPath}} {{join .Imports " "}}`, mod+"...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	inside := func(p string) bool { return p == tree || strings.HasPrefix(p, tree+"/") }
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		pkg := strings.Fields(strings.NewReplacer("[", " ", "]", " ").Replace(f[0]))[0] // "p [p.test]" → p
		for _, imp := range f[1:] {
			if !strings.HasPrefix(imp, mod) {
				continue
			}
			switch {
			case inside(pkg) && !inside(imp):
				t.Errorf("%s imports %s: the endpoint's tree imports nothing of STE's", pkg, imp)
			case !inside(pkg) && inside(imp) && imp != tree+"/embedded" && imp != tree+"/embedded/chdblib":
				t.Errorf("%s imports %s: outside chendpoint/ only chendpoint/embedded may be imported", pkg, imp)
			}
		}
	}
}
