// Package brokertest runs an embedded broker for a test: in memory, on a
// free port, closed with the test.
package brokertest

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/broker"
)

// Start runs a broker until the test ends and returns its address and a
// dial function for clients on it (STE's producer options, then opts).
func Start(t testing.TB) (addr string, dial func(opts ...kgo.Opt) (*kgo.Client, error)) {
	t.Helper()
	c, err := broker.Start(broker.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	addr = broker.Addr(c)
	return addr, func(opts ...kgo.Opt) (*kgo.Client, error) { return topics.Client(kafkaconn.Plaintext(addr), opts...) }
}

// Client dials a client that the test closes.
func Client(t testing.TB, dial func(opts ...kgo.Opt) (*kgo.Client, error), opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := dial(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}
