package topology_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/ste-utility/ste/testgate"
)

// layers is the allowed order of every package of the module, lowest
// first: a package imports (its tests aside) only packages listed before
// it, in its own layer or a lower one. A package in no layer, a listed one
// that is not a package, and an import of a package listed after the
// importer each fail TestLayering, naming what to look at; the rendering
// of this list is the one in docs/ARCHITECTURE.md ("Packages and the
// one-way rule", go test ./topology -update rewrites it).
var layers = []struct {
	name, what string
	pkgs       []string
}{
	{"leaves", "names, time, secrets, loopback HTTP checks, connection settings, plots, the test gate: no package of STE's own",
		[]string{"topology", "when", "trust", "termsafe", "localhttp", "adapters/iso20022/xsdcheck", "adapters/fixgw/fixtest", "kafkaconn",
			"kafkaconn/testca", "plotting", "testgate"}},
	{"endpoint", "the ClickHouse endpoint over chDB, a fenced tree of its own (chendpoint/README.md)",
		[]string{"chendpoint/internal/gate", "chendpoint/embedded/chdblib", "chendpoint/internal/wire", "chendpoint", "chendpoint/embedded",
			"chendpoint/cmd/ste-chdb/internal/libguard", "chendpoint/cmd/ste-chdb", "chendpoint/clientconformance"}},
	{"contract", "the wire: messages, signatures, reference data, outcomes, generated sets",
		[]string{"schemas/bin", "schemas/date", "schemas/decimal", "schemas/xmltext", "schemas/signature",
			"schemas/signature/sigtest", "schemas/msgset", "schemas", "schemas/refdata", "schemas/ledger", "schemas/outcome",
			"workload", "adapters/msgid", "adapters/stexml", "schemas/fix"}},
	{"decisions", "the engine and the stages' decisions, with no Kafka client: ste match runs them over a file",
		[]string{"processors/matching", "processors/validation", "processors/offline", "processors/envelope",
			"processors/changelog", "processors/stages", "processors/query/internal/index", "processors/query"}},
	{"stores", "the table storages goka keeps the stages' tables in, and the ownership epochs they keep",
		[]string{"processors/fence", "processors/memstore", "processors/diskstore"}},
	{"topics", "Kafka through franz-go: topic specs, clients, copying, lag, reference data, delivery",
		[]string{"topics/lag", "topics/copier", "topics", "topics/access", "topics/strimzi", "topics/broker",
			"topics/origin", "topics/deliver"}},
	{"runtime", "the decisions on goka: metrics, batching, commits, producing, tables, supervision, the wiring",
		[]string{"processors/metrics", "processors/batch", "processors/commits", "processors/gokaconf", "processors/supervise",
			"processors/readback", "processors/produce", "processors/tablestore", "processors/pipeline"}},
	{"instance", "a running ste process and what it answers",
		[]string{"instance/api", "instance/registry", "instance/lookup", "instance"}},
	{"adapters", "the standard-format adapters' common parts: the journal, delegated signing, publishing at the ack point",
		[]string{"adapters/journal", "adapters"}},
	{"tools", "what operators run beside the instances: exceptions, replay, migration, measurement",
		[]string{"exceptions", "replay", "migrate", "measure/oplaw", "measure/monitor", "measure/sink", "measure/bench",
			"measure/plots"}},
	{"analytics", "ClickHouse: rows, store, ingest, reports, charts; ste diff",
		[]string{"analytics/rows", "analytics/store", "analytics/report", "analytics/charts", "analytics/ingest",
			"analytics", "diff"}},
	{"interfaces", "the participants' gateway, the operators' console, the command line, the demo, the binary",
		[]string{"gateway", "adapters/iso20022", "adapters/fixgw", "console", "cli", "demo", "cmd/ste"}},
	{"harnesses", "what tests import and no production package does (internal/testing): a table store's due-index suite, a test's embedded broker, real Kafka 4, every order of a set of messages",
		[]string{"internal/testing/duetest", "internal/testing/brokertest", "internal/testing/kafka", "internal/testing/orders"}},
	{"suites", "tests of the whole, and the test gate's command (make gates, make verify-all): no production code",
		[]string{"conformance", "analytics/conformance", "docs", "deploy", "deploy/monitoring", "e2e/v3set", "e2e", "e2e/chaos",
			"testgate/cmd/gates"}},
}

const module = "github.com/ste-utility/ste/"

// TestLayering holds every package's imports (go list, tests aside) to the
// order of layers.
func TestLayering(t *testing.T) {
	_, err := exec.LookPath("go")
	testgate.Need(t, "the go command on PATH", err)
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...")
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	rank := map[string]int{}
	layerOf := map[string]string{}
	for _, l := range layers {
		for _, p := range l.pkgs {
			if _, dup := rank[p]; dup {
				t.Errorf("%s is listed twice", p)
			}
			rank[p], layerOf[p] = len(rank), l.name
		}
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], module)
		seen[pkg] = true
		r, ok := rank[pkg]
		if !ok {
			t.Errorf("package %s is in no layer: give it its place in topology/layers_test.go", pkg)
			continue
		}
		for _, imp := range f[1:] {
			dep, own := strings.CutPrefix(imp, module)
			if !own {
				continue
			}
			if rank[dep] >= r {
				t.Errorf("%s (%s) imports %s (%s), listed after it: the layering is %s",
					pkg, layerOf[pkg], dep, layerOf[dep], order())
			}
		}
	}
	for p := range rank {
		if !seen[p] {
			t.Errorf("%s is listed in topology/layers_test.go but is no package of the module", p)
		}
	}
}

func order() string {
	var names []string
	for _, l := range layers {
		names = append(names, l.name)
	}
	return strings.Join(names, " → ")
}

// markdown renders the layers as docs/ARCHITECTURE.md shows them.
func markdown() string {
	var b strings.Builder
	b.WriteString("| layer | packages, in order | what |\n|---|---|---|\n")
	for _, l := range layers {
		b.WriteString("| " + l.name + " | `" + strings.Join(l.pkgs, "` `") + "` | " + l.what + " |\n")
	}
	return b.String()
}

// TestArchitectureDocStatesTheLayering: docs/ARCHITECTURE.md shows the
// order the code has (go test ./topology -update rewrites it).
func TestArchitectureDocStatesTheLayering(t *testing.T) {
	const path = "../docs/ARCHITECTURE.md"
	const begin, end = "<!-- layers:begin (generated: go test ./topology -update) -->\n", "<!-- layers:end -->"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no layers markers", path)
	}
	want := markdown()
	if got := doc[i+len(begin) : j]; got != want {
		if *update {
			if err := os.WriteFile(path, []byte(doc[:i+len(begin)]+want+doc[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Fatalf("the layers in %s differ from topology/layers_test.go; run go test ./topology -update\n--- doc\n%s\n--- layers\n%s", path, got, want)
	}
}
