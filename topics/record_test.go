package topics_test

import (
	"context"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/broker"
)

func recordWithKey(k string) *kgo.Record { return &kgo.Record{Key: []byte(k)} }

// startBroker starts an embedded broker for one test and connects to it.
func startBroker(t *testing.T) (addr string, cl *kgo.Client) {
	t.Helper()
	c, err := broker.Start(broker.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err = topics.Connect(context.Background(), kafkaconn.Plaintext(broker.Addr(c)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return broker.Addr(c), cl
}
