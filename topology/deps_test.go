package topology_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The Kafka runtime: goka, the sarama inside it, and Pebble (disk tables).
var runtime = []string{"github.com/lovoo/goka", "github.com/IBM/sarama", "github.com/cockroachdb/pebble"}

// TestReadersDoNotLinkTheRuntime: the packages that only read what the
// pipeline wrote — and topology itself, which also links no Kafka client —
// do not depend on the goka runtime (go list -deps, tests excluded). A name
// they need comes from topology; an import that drags the runtime in fails
// here, naming the chain to look at.
func TestReadersDoNotLinkTheRuntime(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
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
