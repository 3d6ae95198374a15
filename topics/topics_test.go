package topics_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

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

// TestPartitionerAgreesWithGoka: franz-go records land where goka's hasher
// (sarama's FNV-1a) puts their key.
func TestPartitionerAgreesWithGoka(t *testing.T) {
	p := topics.Partitioner().ForTopic("x")
	for _, key := range []string{"0123456789abcdef", "BRKASGSGXXX:M1", "", "a"} {
		h := topology.KeyHash()
		h.Write([]byte(key))
		want := int(int32(h.Sum32()) % 8)
		if want < 0 {
			want = -want
		}
		if key == "" {
			continue // keyless records are spread, not hashed
		}
		if got := p.Partition(recordWithKey(key), 8); got != want {
			t.Fatalf("key %q: franz-go %d, goka %d", key, got, want)
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
