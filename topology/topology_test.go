package topology_test

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/IBM/sarama"

	"github.com/ste-utility/ste/topology"
)

// Partition is what sarama's hash partitioner (goka's, over FNV-1a) gives
// a key, and Fnv32a and KeyHash are the standard library's FNV-1a: held to
// implementations that are not STE's — hash/fnv and sarama's own
// partitioner — over keys of every kind STE partitions by (trade keys,
// Sender:MsgId identities, BICs) and random bytes, about half of them with
// a hash negative as a 32-bit signed number (sarama's absolute value), for
// partition counts from 1 to 64.
func TestPartitionIsSaramasHash(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	keys := [][]byte{{}, []byte("0123456789abcdef"), []byte("BRKASGSGXXX:M1"), []byte("BRKASGSGXXX")}
	for i := range 5000 {
		k := make([]byte, 1+rng.IntN(40))
		for j := range k {
			k[j] = byte(rng.Uint32())
		}
		keys = append(keys, k, fmt.Appendf(nil, "TRADE-%d", i))
	}
	negative := 0
	for _, key := range keys {
		ref := fnv.New32a()
		ref.Write(key)
		if got, want := topology.Fnv32a(key), ref.Sum32(); got != want {
			t.Fatalf("Fnv32a(%x) = %08x, hash/fnv's FNV-1a %08x", key, got, want)
		}
		h := topology.KeyHash()
		h.Write(key)
		if h.Sum32() != ref.Sum32() {
			t.Fatalf("KeyHash of %x = %08x, hash/fnv's FNV-1a %08x", key, h.Sum32(), ref.Sum32())
		}
		if int32(ref.Sum32()) < 0 {
			negative++
		}
		for _, n := range []int32{1, 3, 8, 12, 64} {
			want, err := sarama.NewHashPartitioner("t").Partition(&sarama.ProducerMessage{Key: sarama.ByteEncoder(key)}, n)
			if err != nil {
				t.Fatal(err)
			}
			if got := topology.Partition(key, int(n)); got != int(want) {
				t.Fatalf("key %x of %d: partition %d, sarama's %d", key, n, got, want)
			}
		}
	}
	if negative < len(keys)/3 {
		t.Fatalf("only %d of %d keys hash negative: the sign is not exercised", negative, len(keys))
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
