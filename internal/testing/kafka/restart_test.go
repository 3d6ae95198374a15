package kafka

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// A killed broker comes back on its address with what it had acknowledged:
// what the chaos suite relies on to crash and restart Kafka under load.
func TestKillAndRestartKeepAddressAndData(t *testing.T) {
	require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	b, err := Launch(ctx, t.TempDir())
	if err != nil {
		launchFailed(t, err)
	}
	defer b.Stop()
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Bootstrap), kgo.RequiredAcks(kgo.AllISRAcks()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 1, nil, "kept"); err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "kept", Value: []byte("before the crash")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if err := b.Kill(); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	if err := b.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("TIMING restart after kill -9: %v", time.Since(t0).Round(time.Millisecond))
	cons, err := kgo.NewClient(kgo.SeedBrokers(b.Bootstrap), kgo.ConsumeTopics("kept"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	for {
		fs := cons.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatal("the record produced before the crash never came back")
		}
		var got string
		fs.EachRecord(func(r *kgo.Record) { got = string(r.Value) })
		if got == "before the crash" {
			return
		}
	}
}
