package topology_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/topology"
)

// Partition is franz-go's sarama-compatible hasher over FNV-1a: the one
// partitioner goka and every franz-go producer agree on.
func TestPartitionIsSaramasHash(t *testing.T) {
	sarama := kgo.SaramaCompatHasher(topology.Fnv32a)
	for i := range 5000 {
		key := []byte(fmt.Sprintf("TRADE-%d", i))
		for _, n := range []int{1, 3, 12, 64} {
			if got, want := topology.Partition(key, n), sarama(key, n); got != want {
				t.Fatalf("key %s of %d: partition %d, sarama's %d", key, n, got, want)
			}
		}
	}
}

func TestValidNamespace(t *testing.T) {
	for _, ns := range []string{"a", "ste", "ste-prod_2", string(make([]byte, 0)) + "x"} {
		if err := topology.ValidNamespace(ns); err != nil {
			t.Errorf("%q: %v", ns, err)
		}
	}
	long := make([]byte, topology.MaxNamespace+1)
	for i := range long {
		long[i] = 'a'
	}
	for _, ns := range []string{"", "a.v1", "a b", "ä", string(long)} {
		err := topology.ValidNamespace(ns)
		var ne *topology.NamespaceError
		if !errors.As(err, &ne) || ne.NS != ns {
			t.Errorf("%q: %v, want a NamespaceError", ns, err)
		}
	}
}

func TestParseStages(t *testing.T) {
	for in, want := range map[string][]topology.Stage{
		"":                     topology.Stages,
		"all":                  topology.Stages,
		"match,validate":       {topology.StageValidate, topology.StageMatch},
		" identity , identity": {topology.StageIdentity},
	} {
		got, err := topology.ParseStages(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
	}
	if _, err := topology.ParseStages("validate,nope"); err == nil {
		t.Error("an unknown stage is refused")
	}
}

// Every declared table belongs to a stateful group and says what it holds;
// every group's edges have a topic note (Describe panics otherwise).
func TestDeclarationIsComplete(t *testing.T) {
	tp := topology.Describe("t")
	if len(tp.Groups) != len(topology.Stages) {
		t.Fatalf("%d groups for %d stages", len(tp.Groups), len(topology.Stages))
	}
	for i, g := range tp.Groups {
		if g.Stage != topology.Stages[i] {
			t.Errorf("group %s is stage %v, want %v (pipeline order)", g.Name, g.Stage, topology.Stages[i])
		}
		tb, ok := tp.Table(g.Stage)
		if (g.Table != "") != ok || ok && (tb.Changelog != g.Table || tb.Key == "" || tb.Holds == "") {
			t.Errorf("group %s table %q, declared table %+v", g.Name, g.Table, tb)
		}
	}
	if c, ok := tp.Consumer(tp.Names.AnalyticsGroup()); !ok || len(c.Inputs) == 0 {
		t.Errorf("the analytics ingest group is not declared: %+v", c)
	}
	for _, c := range tp.Consumers {
		for _, in := range c.Inputs {
			if _, ok := tp.Topic(in); !ok {
				t.Errorf("consumer %s reads %s, which is not a declared topic", c.Name, in)
			}
		}
	}
}

// A client id names its instance and stage, and reads back.
func TestClientIDReadsBack(t *testing.T) {
	for _, id := range []string{"vm-1-abcd", "host-3-7f2e"} {
		c := topology.ClientID(id, topology.StageMatch)
		if got, ok := topology.InstanceOf(c, topology.StageMatch); !ok || got != id {
			t.Errorf("InstanceOf(%q) = %q, %v", c, got, ok)
		}
	}
	for _, bad := range []string{"", "ste--match", "other-client", topology.ClientID("x", topology.StageValidate)} {
		if id, ok := topology.InstanceOf(bad, topology.StageMatch); ok {
			t.Errorf("InstanceOf(%q) = %q", bad, id)
		}
	}
}
