package lookup

import (
	"context"
	"testing"

	"github.com/ste-utility/ste/topology"
)

func TestInstanceOf(t *testing.T) {
	if id, ok := instanceOf(topology.ClientID("vm-1-abcd", topology.StageMatch)); !ok || id != "vm-1-abcd" {
		t.Fatalf("%q %v", id, ok)
	}
	for _, bad := range []string{"", "ste--match", "other-client", topology.ClientID("x", topology.StageValidate)} {
		if id, ok := instanceOf(bad); ok {
			t.Errorf("%q read as instance %q", bad, id)
		}
	}
}

// A lookup address is believed only on the host its instance connects to
// Kafka from: a forged entry for a real instance cannot send the lookups,
// and the token, to another host (issue 30, finding 2).
func TestSameHost(t *testing.T) {
	c := &Client{}
	ctx := context.Background()
	for _, ok := range []struct{ addr, from string }{
		{"10.1.2.3:9101", "/10.1.2.3"},        // Kafka's form
		{"10.1.2.3:9101", "10.1.2.3:51234"},   // the embedded broker's
		{"127.0.0.1:9101", "/127.0.0.1"},      // loopback
		{"[::1]:9101", "127.0.0.1:1"},         // loopback, either family
		{"10.1.2.3:9101", "/::ffff:10.1.2.3"}, // v4-mapped
		{"localhost:9101", "/127.0.0.1"},
	} {
		if why := c.sameHost(ctx, ok.addr, ok.from); why != "" {
			t.Errorf("%s from %s refused: %s", ok.addr, ok.from, why)
		}
	}
	for _, bad := range []struct{ addr, from string }{
		{"10.9.9.9:9101", "/10.1.2.3"},
		{"127.0.0.1:9101", "/10.1.2.3"},
		{"10.1.2.3:9101", ""},
		{"10.1.2.3:9101", "/not-an-address"},
		{"no-such-host.invalid:9101", "/10.1.2.3"},
	} {
		if why := c.sameHost(ctx, bad.addr, bad.from); why == "" {
			t.Errorf("%s from %s believed", bad.addr, bad.from)
		}
	}
	c.o.AnyHost = true
	if why := c.sameHost(ctx, "10.9.9.9:9101", "/10.1.2.3"); why != "" {
		t.Errorf("AnyHost: %s", why)
	}
}
