package lag_test

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/broker"
	"github.com/ste-utility/ste/topics/lag"
	"github.com/ste-utility/ste/topology"
)

// TestLagCountsWhatNobodyConsumed: a group that never joined is behind by
// everything in its input (kadm's Lag alone would report nothing), commits
// bring it down partition by partition, and ownership shows the member's
// client id.
func TestLagCountsWhatNobodyConsumed(t *testing.T) {
	c, err := broker.Start(broker.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	brokers := broker.Addr(c)
	cl, err := topics.Connect(ctx, kafkaconn.Plaintext(brokers))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	const ns = "lagt"
	if _, err := topics.Create(ctx, adm, ns, topics.Options{Partitions: 4}); err != nil {
		t.Fatal(err)
	}
	n := topology.Names{NS: ns}
	for i := 0; i < 40; i++ {
		r := &kgo.Record{Topic: n.Inbound(), Key: []byte{byte('a' + i%26), byte(i)}, Value: []byte("x")}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	groups := lag.Groups(ns, topology.StageValidate)
	if len(groups) != 1 || groups[0].Topics[0] != n.Inbound() {
		t.Fatalf("validate's lag is on inbound: %+v", groups)
	}
	s, err := lag.Read(ctx, adm, groups)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Total(n.ValidateGroup(), ""); got != 40 || len(s.Partitions) != 4 {
		t.Fatalf("a group that never joined must be behind by all 40 records on 4 partitions: %d on %d", got, len(s.Partitions))
	}
	short, cancelShort := context.WithTimeout(ctx, time.Second)
	if _, err := lag.WaitZero(short, adm, groups, lag.WaitOptions{Poll: 100 * time.Millisecond}); err == nil {
		t.Fatal("WaitZero returned with a backlog nobody processes")
	}
	cancelShort()

	// A consumer of the group reads everything and commits: lag 0, and while
	// it is a member it owns the partitions under its client id.
	cons, err := kgo.NewClient(kgo.SeedBrokers(brokers), kgo.ConsumerGroup(n.ValidateGroup()),
		kgo.ConsumeTopics(n.Inbound()), kgo.ClientID(topology.ClientID("x", topology.StageValidate)),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit())
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	seen := 0
	for seen < 40 {
		fs := cons.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatal("records not consumed")
		}
		seen += len(fs.Records())
	}
	if err := cons.CommitUncommittedOffsets(ctx); err != nil {
		t.Fatal(err)
	}
	s, err = lag.WaitZero(ctx, adm, groups, lag.WaitOptions{Poll: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if owned := s.OwnedBy("x"); len(owned) != 4 {
		t.Fatalf("the member owns the 4 partitions: %+v", s.Partitions)
	}
	for _, p := range s.Partitions {
		if p.Done() != p.End || p.End > 0 && p.Committed != p.End {
			t.Fatalf("partition %+v", p)
		}
	}
}
