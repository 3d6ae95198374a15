package registry_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/instance/registry"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/broker"
	"github.com/ste-utility/ste/trust"
)

// Finding 6 (issue 30): a registry entry without the utility's proof is
// not believed — neither a forged instance pointing elsewhere, nor a
// forged entry or tombstone over a genuine one.
func TestForgedRegistryEntriesSkipped(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := broker.Start(broker.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	conn := kafkaconn.Plaintext(broker.Addr(c))
	cl, err := topics.Connect(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := topics.Create(ctx, kadm.NewClient(cl), "reg", topics.Options{Partitions: 1}); err != nil {
		t.Fatal(err)
	}
	secret, _ := trust.New(bytes.Repeat([]byte("s"), trust.Size))
	actx, stop := context.WithCancel(ctx)
	defer stop()
	ann := registry.NewAnnouncer(cl, "reg", time.Hour, func() registry.Entry {
		return registry.Entry{ID: "real", Namespace: "reg", HTTP: "127.0.0.1:9100"}
	}).Prove(secret)
	go ann.Run(actx)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if l, _ := registry.ListProven(ctx, conn, "reg", secret); len(l) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the genuine announcement is not listed")
		}
		time.Sleep(50 * time.Millisecond)
	}
	evil := registry.Entry{ID: "evil", HTTP: "127.0.0.1:29999/redir?x=", LastSeen: time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)}
	over := registry.Entry{ID: "real", HTTP: "10.0.0.1:80"}
	for _, r := range []*kgo.Record{{Topic: "reg.instances", Key: []byte("evil"), Value: evil.Marshal()},
		{Topic: "reg.instances", Key: []byte("real"), Value: over.Marshal()},
		{Topic: "reg.instances", Key: []byte("real"), Value: nil}} {
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	l, err := registry.ListProven(ctx, conn, "reg", secret)
	if err != nil || len(l) != 1 || l[0].ID != "real" || l[0].HTTP != "127.0.0.1:9100" {
		t.Fatalf("proven entries after the forgeries: %+v %v", l, err)
	}
}
