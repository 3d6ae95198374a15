package broker_test

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ste-utility/ste/topics/broker"
)

// Patch 8: a consumer's leader epoch check after a leader move on a
// partition nothing was written to since (KIP-320 OffsetForLeaderEpoch).
// Kafka answers with the log end (its epoch cache has an entry per leader
// change); kfake answered "unknown epoch", and franz-go consumers reset to
// their ConsumeResetOffset: `<ns>.refdata` was read again from its start
// after every leader move in the cluster chaos suite ("lost records … reset
// to offset 0"). The consumer must go on where it was.
func TestLeaderMoveKeepsConsumersWhereTheyWere(t *testing.T) {
	c, err := broker.Start(broker.Options{Addr: "127.0.0.1:0", Brokers: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	seeds := kgo.SeedBrokers(c.ListenAddrs()...)
	pr, err := kgo.NewClient(seeds, kgo.DefaultProduceTopic("t"), kgo.AllowAutoTopicCreation(),
		kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	for _, v := range []string{"r0", "r1", "r2"} {
		if err := pr.ProduceSync(ctx, &kgo.Record{Value: []byte(v), Partition: 0}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	cl, err := kgo.NewClient(seeds, kgo.ConsumeTopics("t"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.MetadataMinAge(100*time.Millisecond), kgo.MetadataMaxAge(500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var got []string
	var errs []error
	poll := func(pctx context.Context) {
		fs := cl.PollFetches(pctx)
		fs.EachError(func(_ string, _ int32, err error) {
			if pctx.Err() == nil {
				errs = append(errs, err)
			}
		})
		fs.EachRecord(func(r *kgo.Record) { got = append(got, string(r.Value)) })
	}
	for len(got) < 3 && ctx.Err() == nil {
		poll(ctx)
	}

	// Move the leader of every partition (the epochs go up, nothing is
	// written) and wait for the consumer to check its epoch.
	check := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.OffsetForLeaderEpoch}, Observe: true, Count: -1})
	defer check.Remove()
	for _, p := range []int32{0} {
		if err := c.MoveTopicPartition("t", p, (c.LeaderFor("t", p)+1)%3); err != nil {
			t.Fatal(err)
		}
	}
	got = got[:0]
	for check.Hits() == 0 && ctx.Err() == nil {
		pctx, pcancel := context.WithTimeout(ctx, 200*time.Millisecond)
		poll(pctx)
		pcancel()
	}
	// The answer is handled after the request is counted: a few more polls.
	for range 5 {
		pctx, pcancel := context.WithTimeout(ctx, 200*time.Millisecond)
		poll(pctx)
		pcancel()
	}
	if err := pr.ProduceSync(ctx, &kgo.Record{Value: []byte("after"), Partition: 0}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	for (len(got) == 0 || got[len(got)-1] != "after") && ctx.Err() == nil {
		poll(ctx)
	}
	if len(got) != 1 || len(errs) > 0 {
		t.Fatalf("after the leader move the consumer read %q (want only [after]), errors %v", got, errs)
	}
}
