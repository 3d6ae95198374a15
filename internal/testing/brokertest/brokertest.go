// Package brokertest runs an embedded broker for a test: in memory, on a
// free port, closed with the test.
package brokertest

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas/refdata"
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

// Env is a namespace on a broker of the test's own: how to reach it, and a
// client and an admin on it, closed with the test.
type Env struct {
	Conn   kafkaconn.Config
	Client *kgo.Client
	Admin  *kadm.Client
	NS     string
}

// Namespace runs a broker until the test ends and creates namespace ns's
// topics on it with partitions each (0: topics.DefaultPartitions) — the
// setup of every test that runs instances or reads what they wrote. It
// returns a context that ends after timeout or with the test. Such a test
// is no unit test: under -short it is skipped here.
func Namespace(t testing.TB, ns string, partitions int32, timeout time.Duration) (context.Context, Env) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a broker")
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	addr, dial := Start(t)
	e := Env{Conn: kafkaconn.Plaintext(addr), Client: Client(t, dial), NS: ns}
	e.Admin = kadm.NewClient(e.Client)
	if _, err := topics.Create(ctx, e.Admin, ns, topics.Options{Partitions: partitions}); err != nil {
		t.Fatal(err)
	}
	return ctx, e
}

// Refdata publishes ref to the namespace's reference data topic.
func (e Env) Refdata(t testing.TB, ctx context.Context, ref *refdata.Set) {
	t.Helper()
	if _, err := topics.PublishRefdata(ctx, e.Client, e.NS, ref); err != nil {
		t.Fatal(err)
	}
}
