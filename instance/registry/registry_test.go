package registry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/instance/registry"
	"github.com/ste-utility/ste/internal/testing/brokertest"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/topics/broker"
	"github.com/ste-utility/ste/topology"
)

func TestCheckAddr(t *testing.T) {
	for _, ok := range []string{"127.0.0.1:9100", "[::1]:80", "ste-match-0.ste:9101", "localhost:1", "10.1.2.3:65535"} {
		if err := registry.CheckAddr(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "127.0.0.1", "127.0.0.1:29999/redir?x=", "http://127.0.0.1:80", "u@127.0.0.1:80",
		"127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:+80", "[fe80::1%eth0]:80", "evil.example#:80", "a b:80",
		"-x.example:80", "127.0.0.1:80?", "127.0.0.1:80/", strings.Repeat("a", 300) + ":80"} {
		if err := registry.CheckAddr(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// write puts raw values on ns's registry topic, keyed by key.
func write(t *testing.T, cl *kgo.Client, ns string, kv map[string][]byte) {
	t.Helper()
	var rs []*kgo.Record
	for k, v := range kv {
		rs = append(rs, &kgo.Record{Topic: topology.Names{NS: ns}.Instances(), Key: []byte(k), Value: v})
	}
	if err := cl.ProduceSync(context.Background(), rs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// TestListRefusesForgedEntries: entries whose addresses are anything but
// host:port are not listed, and an entry cannot keep itself fresh with a
// last_seen in the future or a refresh period of years (issue 30, finding 2).
func TestListRefusesForgedEntries(t *testing.T) {
	addr, dial := brokertest.Start(t)
	cl := brokertest.Client(t, dial)
	const ns = "reg"
	if _, err := kadm.NewClient(cl).CreateTopic(context.Background(), 1, 1, nil, topology.Names{NS: ns}.Instances()); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	entry := func(id, http, lookup string, seen time.Time, every float64) []byte {
		return registry.Entry{ID: id, HTTP: http, Lookup: lookup, LastSeen: seen, Every: every}.Marshal()
	}
	write(t, cl, ns, map[string][]byte{
		"good":     entry("good", "127.0.0.1:9100", "127.0.0.1:9101", now, 10),
		"redir":    entry("redir", "127.0.0.1:29999/redir?x=", "", now, 10),
		"scheme":   entry("scheme", "http://127.0.0.1:1", "", now, 10),
		"lookup":   entry("lookup", "127.0.0.1:9100", "127.0.0.1:1/x", now, 10),
		"future":   entry("future", "127.0.0.1:9102", "", now.AddDate(73, 0, 0), 10),
		"forever":  entry("forever", "127.0.0.1:9103", "", now.Add(-time.Hour), 1e300),
		"skewed":   entry("skewed", "127.0.0.1:9104", "", now.Add(2*time.Second), 10),
		"garbage":  []byte("{not json"),
		"gone":     entry("gone", "127.0.0.1:9105", "", now, 10),
		"no-every": entry("no-every", "127.0.0.1:9106", "", now.Add(-time.Minute), -1),
	})
	write(t, cl, ns, map[string][]byte{"gone": nil})
	l, err := registry.Read(context.Background(), kafkaconn.Plaintext(addr), ns)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{} // id -> stale
	for _, e := range l.Entries {
		got[e.ID] = e.Stale
	}
	want := map[string]bool{"good": false, "future": true, "forever": true, "skewed": false, "no-every": true}
	if len(got) != len(want) {
		t.Errorf("listed %v, want %v", got, want)
	}
	for id, st := range want {
		if s, ok := got[id]; !ok || s != st {
			t.Errorf("%s: listed %v stale %v, want listed stale %v", id, ok, s, st)
		}
	}
	wantSkipped := map[string]int{"http address not host:port": 2, "lookup address not host:port": 1, "not an announcement": 1}
	for k, n := range wantSkipped {
		if l.Skipped[k] != n {
			t.Errorf("skipped %v, want %v", l.Skipped, wantSkipped)
			break
		}
	}
}

// syncBuf is a log sink read while the announcer writes.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRemoveBoundedWhenBrokerGone: an announcer stopped after its broker
// went away returns within RemoveWithin (and a little) and says it gave up
// on the removal, instead of waiting for the tombstone for ever (issue 28,
// point 6); the client's Close then returns too.
func TestRemoveBoundedWhenBrokerGone(t *testing.T) {
	c, err := broker.Start(broker.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	addr := broker.Addr(c)
	const ns = "gone"
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.AllowAutoTopicCreation())
	if err != nil {
		t.Fatal(err)
	}
	var logs syncBuf
	ann := registry.NewAnnouncer(cl, ns, 200*time.Millisecond, func() registry.Entry {
		return registry.Entry{ID: "inst-1", HTTP: "127.0.0.1:9100", Ready: true}
	}).WithLogger(slog.New(slog.NewTextHandler(&logs, nil)))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); ann.Run(ctx) }()

	deadline := time.Now().Add(20 * time.Second)
	for {
		es, err := registry.List(context.Background(), kafkaconn.Plaintext(addr), ns)
		if err == nil && len(es) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never announced: %v %v", es, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.Close() // the broker goes first
	time.Sleep(500 * time.Millisecond)
	stopped := time.Now()
	cancel()
	select {
	case <-done:
	case <-time.After(registry.RemoveWithin + 5*time.Second):
		t.Fatalf("the announcer did not stop %v after its broker went away", registry.RemoveWithin+5*time.Second)
	}
	took := time.Since(stopped)
	if !strings.Contains(logs.String(), "removal not acknowledged, given up") && !strings.Contains(logs.String(), "was not removed") {
		t.Errorf("nothing logged of the removal given up (took %v): %s", took, logs.String())
	}
	closed := make(chan struct{})
	go func() { defer close(closed); cl.Close() }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the client's Close did not return with the broker gone")
	}
	t.Logf("stopped in %v", took)
}

func TestEntryJSONHasLookup(t *testing.T) {
	var m map[string]any
	if err := json.Unmarshal(registry.Entry{ID: "x", Lookup: "127.0.0.1:1"}.Marshal(), &m); err != nil || m["lookup"] != "127.0.0.1:1" {
		t.Fatalf("%v %v", m, err)
	}
}
