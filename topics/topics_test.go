package topics_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
)

func TestCreateIsIdempotentAndNeverRepartitions(t *testing.T) {
	_, cl := startBroker(t)
	ctx := context.Background()
	adm := kadm.NewClient(cl)
	created, err := topics.Create(ctx, adm, "t1", topics.Options{Partitions: 4})
	if err != nil || len(created) != len(topics.Specs("t1", topics.Options{})) {
		t.Fatalf("created %v: %v", created, err)
	}
	again, err := topics.Create(ctx, adm, "t1", topics.Options{Partitions: 4})
	if err != nil || len(again) != 0 {
		t.Fatalf("second create made %v: %v", again, err)
	}
	_, err = topics.Create(ctx, adm, "t1", topics.Options{Partitions: 8})
	if err == nil || !strings.Contains(err.Error(), "never changed") {
		t.Fatalf("a different partition count must be refused: %v", err)
	}
	td, err := adm.ListTopics(ctx, topology.Names{NS: "t1"}.Inbound())
	if err != nil || len(td[topology.Names{NS: "t1"}.Inbound()].Partitions) != 4 {
		t.Fatalf("inbound changed: %v %v", td, err)
	}
	// Configs of the contract: inbound replayable for 7 days, stamped by the broker.
	rc, err := adm.DescribeTopicConfigs(ctx, topology.Names{NS: "t1"}.Inbound())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range rc {
		for _, c := range r.Configs {
			if c.Value != nil {
				got[c.Key] = *c.Value
			}
		}
	}
	if got["retention.ms"] != "604800000" || got["message.timestamp.type"] != "LogAppendTime" {
		t.Fatalf("inbound configs %v", got)
	}
}

// TestPartitionerAgreesWithGoka: franz-go records land where goka's
// partitioner — sarama's hash partitioner over FNV-1a, the reference here,
// not STE's copy of it — puts their key, and PartitionOf (a lookup's
// partition) says the same.
func TestPartitionerAgreesWithGoka(t *testing.T) {
	p := topics.Partitioner().ForTopic("x")
	keys := []string{"0123456789abcdef", "BRKASGSGXXX:M1", "a"}
	for i := range 2000 {
		keys = append(keys, fmt.Sprintf("%016x", uint64(i)*0x9e3779b97f4a7c15), fmt.Sprintf("BRK%dSGXXX:MSG-%d", i%37, i))
	}
	for _, key := range keys {
		for _, n := range []int32{1, 8, 12, 64} {
			want, err := sarama.NewHashPartitioner("x").Partition(&sarama.ProducerMessage{Key: sarama.StringEncoder(key)}, n)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Partition(recordWithKey(key), int(n)); got != int(want) {
				t.Fatalf("key %q of %d: franz-go %d, sarama (goka) %d", key, n, got, want)
			}
			if got := topics.PartitionOf(key, n); got != want {
				t.Fatalf("key %q of %d: PartitionOf %d, sarama (goka) %d", key, n, got, want)
			}
		}
	}
}

// TestProducerTimeOnlyChangesInbound: a sandbox's topics are the live
// specs but for inbound's timestamp type.
func TestProducerTimeOnlyChangesInbound(t *testing.T) {
	live, sandbox := topics.Specs("s", topics.Options{}), topics.Specs("s", topics.Options{ProducerTime: true})
	if len(live) != len(sandbox) {
		t.Fatalf("%d topics live, %d in a sandbox", len(live), len(sandbox))
	}
	inbound := topology.Names{NS: "s"}.Inbound()
	for i := range live {
		l, s := live[i], sandbox[i]
		if l.Name == inbound {
			if l.Configs["message.timestamp.type"] != "LogAppendTime" || s.Configs["message.timestamp.type"] != "CreateTime" {
				t.Fatalf("inbound: live %v, sandbox %v", l.Configs, s.Configs)
			}
			continue
		}
		if fmt.Sprint(l) != fmt.Sprint(s) {
			t.Fatalf("%s differs: %v vs %v", l.Name, l, s)
		}
	}
}

// The adapters' journal is compacted and, past the namespace's retention
// plus 7 days, deleted (docs/spec/adapters.md §1); every other compacted
// topic keeps its latest value per key for ever.
func TestAdaptersJournalHasARetention(t *testing.T) {
	n := topology.Names{NS: "t9"}
	found := false
	for _, s := range topics.Specs("t9", topics.Options{Retention: 48 * time.Hour}) {
		switch {
		case s.Name == n.AdaptersJournal():
			found = true
			if s.Configs["cleanup.policy"] != "compact,delete" || s.Configs["retention.ms"] != fmt.Sprint((48*time.Hour+topics.JournalGrace).Milliseconds()) {
				t.Errorf("journal configs %v", s.Configs)
			}
		case s.Configs["cleanup.policy"] == "compact" && s.Configs["retention.ms"] != "":
			t.Errorf("%s: compacted with a retention %v", s.Name, s.Configs)
		}
	}
	if !found {
		t.Fatal("no journal among the specs")
	}
}
