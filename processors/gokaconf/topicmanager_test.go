package gokaconf

import (
	"strings"
	"testing"

	"github.com/IBM/sarama"
	"github.com/lovoo/goka"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ste-utility/ste/kafkaconn"
)

// A table's setup asks goka's topic manager for a partition's oldest and
// newest offsets. While the partition's leader moves (a broker's
// controlled shutdown in a rolling restart) the broker answers
// NOT_LEADER_OR_FOLLOWER until the new leader is known everywhere: STE's
// topic manager finds the new leader and answers; goka's own, on sarama,
// retried once and failed the table's setup, and with it the whole group
// (rebuilt by the supervisor after a backoff: the 17 s gap of a rolling
// restart of Kafka 4 in docs/benchmarks.md).
func TestTopicManagerRidesOutAMovingLeader(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(4, "table"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("table"),
		kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for range 5 {
		if err := cl.ProduceSync(t.Context(), &kgo.Record{Partition: 2, Value: []byte("v")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	managers := map[string]goka.TopicManagerBuilder{
		"STE's (franz-go)": TopicManagerBuilder(kafkaconn.Plaintext(strings.Join(c.ListenAddrs(), ","))),
		"goka's (sarama)":  goka.TopicManagerBuilderWithConfig(SaramaConfig(), TopicManager()),
	}
	got := map[string]error{}
	for name, build := range managers {
		tm, err := build(c.ListenAddrs())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if parts, err := tm.Partitions("table"); err != nil || len(parts) != 4 || parts[3] != 3 {
			t.Errorf("%s: partitions %v (%v), want 0..3", name, parts, err)
		}
		fault := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.ListOffsets}, Topic: "table", Partitions: []int32{2},
			Err: kerr.NotLeaderForPartition, Count: 3})
		newest, err := tm.GetOffset("table", 2, sarama.OffsetNewest)
		if err == nil && newest != 5 {
			t.Errorf("%s: newest offset %d, want 5", name, newest)
		}
		if fault.Hits() == 0 {
			t.Errorf("%s: the fault never met the request: the test tested nothing", name)
		}
		fault.Remove()
		got[name] = err
		tm.Close()
	}
	if err := got["STE's (franz-go)"]; err != nil {
		t.Errorf("STE's topic manager while the leader moved: %v", err)
	}
	// The control: goka's own manager fails here, so the case is the one
	// that failed the groups.
	if got["goka's (sarama)"] == nil {
		t.Errorf("goka's own topic manager rode out the moving leader: the fault is not the one that failed it")
	}
}

// Asked about a topic that is not there, it says so (goka creates none).
func TestTopicManagerMissingTopic(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "there"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tm, err := TopicManagerBuilder(kafkaconn.Plaintext(strings.Join(c.ListenAddrs(), ",")))(c.ListenAddrs())
	if err != nil {
		t.Fatal(err)
	}
	defer tm.Close()
	if err := tm.EnsureTableExists("there", 2); err != nil {
		t.Errorf("an existing table: %v", err)
	}
	if err := tm.EnsureStreamExists("missing", 2); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("a missing topic: %v, want does not exist", err)
	}
}
