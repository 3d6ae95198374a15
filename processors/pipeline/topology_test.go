package pipeline_test

import (
	"flag"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ste-utility/ste/measure/monitor"
	"github.com/ste-utility/ste/processors/pipeline"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/lag"
)

var update = flag.Bool("update", false, "rewrite the topology table in docs/ARCHITECTURE.md")

// TestDerivedPlacesAgreeWithTheDeclaration holds every place derived from
// pipeline.Graphs to it: the topic specs, the monitor's stages, the lag
// groups. Each check reads the graphs themselves (goka's GroupGraph), not
// Describe, so a derivation that drifts from them fails here.
func TestDerivedPlacesAgreeWithTheDeclaration(t *testing.T) {
	const ns = "t"
	n := pipeline.Names{NS: ns}
	graphs := pipeline.Graphs(n, pipeline.Callbacks{})
	if len(graphs) != len(pipeline.Stages) {
		t.Fatalf("%d graphs for %d stages", len(graphs), len(pipeline.Stages))
	}
	specs := map[string]topics.Spec{}
	for _, s := range topics.Specs(ns, topics.Options{Partitions: 5}) {
		specs[s.Name] = s
	}
	inGraphs := map[string]bool{}
	for i, g := range graphs {
		if err := g.Validate(); err != nil {
			t.Fatalf("group %s: %v", g.Group(), err)
		}
		check := func(topic, want string) {
			inGraphs[topic] = true
			s, ok := specs[topic]
			switch {
			case !ok:
				t.Errorf("group %s uses %s, which has no topic spec", g.Group(), topic)
			case s.Configs["cleanup.policy"] != want:
				t.Errorf("%s: cleanup.policy %s, want %s", topic, s.Configs["cleanup.policy"], want)
			case s.Partitions != 5 || !s.Keyed:
				t.Errorf("%s: %d partitions (keyed %v), want the namespace's 5", topic, s.Partitions, s.Keyed)
			}
		}
		for _, e := range g.InputStreams() {
			check(e.Topic(), "delete")
		}
		if l := g.LoopStream(); l != nil {
			check(l.Topic(), "delete")
		}
		if tb := g.GroupTable(); tb != nil {
			check(tb.Topic(), "compact")
		}
		for _, e := range g.OutputStreams() {
			check(e.Topic(), "delete")
		}

		// The monitor watches each group on its input stream.
		st := monitor.Stages(ns)[i]
		if st.Group != string(g.Group()) || st.Name != pipeline.Stages[i].String() || st.Topic != g.InputStreams()[0].Topic() {
			t.Errorf("monitor stage %+v disagrees with group %s", st, g.Group())
		}
		// Lag is measured on every input, loopback included.
		lg := lag.Groups(ns)[i]
		want := []string{}
		for _, e := range g.InputStreams() {
			want = append(want, e.Topic())
		}
		if l := g.LoopStream(); l != nil {
			want = append(want, l.Topic())
		}
		if lg.Name != string(g.Group()) || !slices.Equal(lg.Topics, want) {
			t.Errorf("lag group %+v, want %s on %v", lg, g.Group(), want)
		}
	}
	if got := monitor.Stages(ns); len(got) != len(graphs)+1 || got[len(got)-1].Name != "network" {
		t.Errorf("monitor stages %+v: one per group, then the network", got)
	}
	// Every spec outside the graphs is one the declaration names.
	for name, s := range specs {
		if inGraphs[name] {
			continue
		}
		if !slices.Contains(n.Shared(), name) {
			t.Errorf("topic spec %s is in no graph and not a declared shared topic", name)
		}
		if s.Partitions != 1 || s.Keyed {
			t.Errorf("shared topic %s: %d partitions, keyed %v", name, s.Partitions, s.Keyed)
		}
	}
	if specs[n.Inbound()].Configs["message.timestamp.type"] != "LogAppendTime" {
		t.Error("inbound is stamped by the broker")
	}
}

// TestArchitectureDocShowsTheDeclaration: the topology table in
// docs/ARCHITECTURE.md is rendered from the declaration (go test -update
// rewrites it).
func TestArchitectureDocShowsTheDeclaration(t *testing.T) {
	const path = "../../docs/ARCHITECTURE.md"
	const begin, end = "<!-- topology:begin (generated: go test ./processors/pipeline -update) -->\n", "<!-- topology:end -->"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no topology markers", path)
	}
	want := pipeline.Describe("<ns>").Markdown()
	if got := doc[i+len(begin) : j]; got != want {
		if *update {
			if err := os.WriteFile(path, []byte(doc[:i+len(begin)]+want+doc[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Fatalf("the topology table in %s differs from the declaration; run go test ./processors/pipeline -update\n--- doc\n%s\n--- declaration\n%s", path, got, want)
	}
}
