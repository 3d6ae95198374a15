package broker_test

// What Kafka's own Java tools rely on in the answers of the embedded broker.
// Each test reproduces one patch of the kfake fork (third_party/kfake/
// PATCHES.md) and fails without it; e2e/kafkatools_test.go runs the tools
// themselves against this broker and against Kafka 4.

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ste-utility/ste/topics/broker"
)

// start runs the embedded broker as `ste broker` does (in memory) with one
// topic, and returns a client of it.
func start(t *testing.T, topic string, configs map[string]*string) *kgo.Client {
	t.Helper()
	c, err := broker.Start(broker.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(broker.Addr(c)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := kadm.NewClient(cl).CreateTopic(ctx, 2, 1, configs, topic)
	if err == nil {
		err = res.Err
	}
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// onDisk runs the embedded broker as `ste broker --data` does, and returns
// it with a client of it made with opts.
func onDisk(t *testing.T, opts ...kgo.Opt) (*kfake.Cluster, *kgo.Client) {
	t.Helper()
	c, err := broker.Start(broker.Options{Addr: "127.0.0.1:0", DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return c, cl
}

func request[R kmsg.Response](t *testing.T, cl *kgo.Client, req kmsg.Request) R {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := cl.Request(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	return resp.(R)
}

// Patch 1: kafka-topics --describe and kafka-consumer-groups --describe
// failed with a NullPointerException on eligibleLeaderReplicas().
func TestDescribeTopicPartitionsAnswersEmptyELRLists(t *testing.T) {
	cl := start(t, "t", nil)
	req := kmsg.NewPtrDescribeTopicPartitionsRequest()
	rt := kmsg.NewDescribeTopicPartitionsRequestTopic()
	rt.Topic = "t"
	req.Topics = append(req.Topics, rt)
	req.ResponsePartitionLimit = 100
	resp := request[*kmsg.DescribeTopicPartitionsResponse](t, cl, req)
	if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 2 {
		t.Fatalf("want topic t with 2 partitions, got %+v", resp.Topics)
	}
	for _, p := range resp.Topics[0].Partitions {
		// kmsg decodes a null array as nil and an empty one as []int32{}.
		if p.EligibleLeaderReplicas == nil || p.LastKnownELR == nil {
			t.Errorf("partition %d: EligibleLeaderReplicas %v, LastKnownELR %v: null, where Kafka answers empty lists",
				p.Partition, p.EligibleLeaderReplicas, p.LastKnownELR)
		}
	}
}

// Patch 2: kafka-consumer-groups --list printed nothing: the Java admin
// client filters by the types "Classic" and "Consumer", which Kafka matches
// case-insensitively.
func TestListGroupsFiltersIgnoreCase(t *testing.T) {
	cl := start(t, "t", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// An offset commit outside any generation, as kafka-consumer-groups
	// --reset-offsets makes, leaves an empty classic group.
	offsets := kadm.Offsets{}
	offsets.AddOffset("t", 0, 1, -1)
	if err := kadm.NewClient(cl).CommitAllOffsets(ctx, "g", offsets); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ states, types []string }{
		{nil, []string{"Classic", "Consumer"}},               // kafka-consumer-groups --list
		{[]string{"Empty"}, []string{"Classic", "Consumer"}}, // --list --state Empty
		{[]string{"empty"}, []string{"classic"}},
	} {
		req := kmsg.NewPtrListGroupsRequest()
		req.StatesFilter, req.TypesFilter = f.states, f.types
		resp := request[*kmsg.ListGroupsResponse](t, cl, req)
		if len(resp.Groups) != 1 || resp.Groups[0].Group != "g" {
			t.Errorf("ListGroups states %q types %q: %+v, want group g", f.states, f.types, resp.Groups)
		}
	}
}

// Patch 3: a broker setting with a topic equivalent (STE's broker sets
// message.max.bytes) appeared in a topic's configs under the broker's name;
// kafka-topics --describe listed message.max.bytes, not a topic config.
func TestTopicConfigsUseTopicNames(t *testing.T) {
	cl := start(t, "t", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rcs, err := kadm.NewClient(cl).DescribeTopicConfigs(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	rc, err := rcs.On("t", nil)
	if err == nil {
		err = rc.Err
	}
	if err != nil {
		t.Fatal(err)
	}
	var got *kadm.Config
	for i, c := range rc.Configs {
		if c.Key == "message.max.bytes" {
			t.Errorf("topic config named by the broker setting: %s=%s", c.Key, c.MaybeValue())
		}
		if c.Key == "max.message.bytes" {
			got = &rc.Configs[i]
		}
	}
	if got == nil || got.MaybeValue() != "33554432" || got.Source != kmsg.ConfigSourceDynamicBrokerConfig {
		t.Fatalf("max.message.bytes = %+v, want 33554432 from the broker's message.max.bytes", got)
	}
}
