package pipeline_test

import (
	"slices"
	"testing"

	"github.com/lovoo/goka"

	"github.com/ste-utility/ste/measure/monitor"
	"github.com/ste-utility/ste/processors/pipeline"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/lag"
	"github.com/ste-utility/ste/topology"
)

// TestGraphsAreTheDeclaration: goka's reading of the graphs Graphs builds —
// the loopback and table names it derives from the group — is the
// declaration of package topology, group by group.
func TestGraphsAreTheDeclaration(t *testing.T) {
	const ns = "t"
	decl := topology.Describe(ns).Groups
	graphs := pipeline.Graphs(topology.Names{NS: ns}, pipeline.Callbacks{})
	if len(graphs) != len(decl) {
		t.Fatalf("%d graphs for %d declared groups", len(graphs), len(decl))
	}
	topicsOf := func(es []goka.Edge) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.Topic())
		}
		return out
	}
	for i, g := range graphs {
		d := decl[i]
		if err := g.Validate(); err != nil {
			t.Fatalf("group %s: %v", g.Group(), err)
		}
		var loop, table string
		if l := g.LoopStream(); l != nil {
			loop = l.Topic()
		}
		if tb := g.GroupTable(); tb != nil {
			table = tb.Topic()
		}
		var inputs []string
		for _, e := range g.InputStreams() {
			inputs = append(inputs, e.Topic())
		}
		if string(g.Group()) != d.Name || !slices.Equal(inputs, d.Inputs) || loop != d.Loop || table != d.Table ||
			!slices.Equal(topicsOf(g.OutputStreams()), d.Outputs) {
			t.Errorf("goka graph %s (inputs %v, loop %q, table %q, outputs %v) is not the declared %+v",
				g.Group(), inputs, loop, table, topicsOf(g.OutputStreams()), d)
		}
	}
}

// TestDerivedPlacesAgreeWithTheDeclaration holds every place derived from
// pipeline.Graphs to it: the topic specs, the monitor's stages, the lag
// groups. Each check reads the graphs themselves (goka's GroupGraph), not
// Describe, so a derivation that drifts from them fails here.
func TestDerivedPlacesAgreeWithTheDeclaration(t *testing.T) {
	const ns = "t"
	n := topology.Names{NS: ns}
	graphs := pipeline.Graphs(n, pipeline.Callbacks{})
	if len(graphs) != len(topology.Stages) {
		t.Fatalf("%d graphs for %d stages", len(graphs), len(topology.Stages))
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
		if st.Group != string(g.Group()) || st.Name != topology.Stages[i].String() || st.Topic != g.InputStreams()[0].Topic() {
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
	// Every spec outside the graphs is one the declaration names: the
	// adapters' topics (their processes, not the pipeline, use them), or a
	// shared topic of one partition.
	for name, s := range specs {
		if inGraphs[name] || slices.Contains(n.Adapters(), name) {
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
