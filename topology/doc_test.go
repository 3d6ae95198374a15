package topology_test

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/ste-utility/ste/topology"
)

var update = flag.Bool("update", false, "rewrite the topology table in docs/ARCHITECTURE.md")

// TestArchitectureDocShowsTheDeclaration: the topology table in
// docs/ARCHITECTURE.md is rendered from the declaration (go test -update
// rewrites it).
func TestArchitectureDocShowsTheDeclaration(t *testing.T) {
	const path = "../docs/ARCHITECTURE.md"
	const begin, end = "<!-- topology:begin (generated: go test ./topology -update) -->\n", "<!-- topology:end -->"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no topology markers", path)
	}
	want := topology.Describe("<ns>").Markdown()
	if got := doc[i+len(begin) : j]; got != want {
		if *update {
			if err := os.WriteFile(path, []byte(doc[:i+len(begin)]+want+doc[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Fatalf("the topology table in %s differs from the declaration; run go test ./topology -update\n--- doc\n%s\n--- declaration\n%s", path, got, want)
	}
}
