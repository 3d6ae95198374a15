package tablestore

import (
	"context"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// A disk table's setup reads its changelog's first and next offsets. While
// the partition's leader moves (a broker's controlled shutdown) the broker
// answers NOT_LEADER_OR_FOLLOWER for a moment, longer than a client's own
// retries may last: the read is tried again instead of failing the table's
// setup — which failed the whole group, rebuilt by the supervisor after a
// backoff, in a rolling restart of Kafka 4.
func TestChangelogOffsetsRideOutAMovingLeader(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(4, "t-table"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// One try of its own: the client gives the refusal back at once, as
	// it did when its cached metadata held no entry to refresh.
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RequestRetries(1),
		kgo.DefaultProduceTopic("t-table"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for range 3 {
		if err := cl.ProduceSync(context.Background(), &kgo.Record{Partition: 1, Value: []byte("v")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	fault := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.ListOffsets}, Topic: "t-table", Partitions: []int32{1},
		Err: kerr.NotLeaderForPartition, Count: 6})
	defer fault.Remove()
	got, err := changelogOf(kadm.NewClient(cl), "t-table", 1)
	if err != nil {
		t.Fatalf("changelog offsets while the leader moved: %v", err)
	}
	if got.Start != 0 || got.End != 3 {
		t.Errorf("changelog offsets %d..%d, want 0..3", got.Start, got.End)
	}
	if fault.Hits() < 6 {
		t.Errorf("the fault met %d requests, want 6: the test tested less than it says", fault.Hits())
	}
}
