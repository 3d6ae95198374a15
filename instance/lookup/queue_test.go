package lookup

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ste-utility/ste/instance/api"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/processors/query"
	"github.com/ste-utility/ste/topics"
)

// fakeOwner is an instance's lookup listener answering every PathQueue
// question with a page of its own partitions' trades (encoded as the
// instance encodes it: json.Encoder, no length, so chunked past 4 KB), and
// counting the connections it is dialled.
type fakeOwner struct {
	srv   *httptest.Server
	dials atomic.Int64
	owner Owner
}

func newFakeOwner(t *testing.T, id string, parts []int32, n int32) *fakeOwner {
	t.Helper()
	f := &fakeOwner{}
	ans := api.QueueAnswer{Instance: id, Owned: parts}
	for i := 0; len(ans.Trades) < 100; i++ {
		key := fmt.Sprintf("%016x", uint64(i)*0x9e3779b97f4a7c15)
		p := topics.PartitionOf(key, n)
		if !slices.Contains(parts, p) {
			continue
		}
		ans.Trades = append(ans.Trades, api.QueueFound{Partition: p, Trade: query.QueueTrade{
			TradeKey: key, TradeRef: "REF" + key, TradeDate: "2026-12-06", Status: "MISMATCHED", Lifecycle: "OPEN",
			Broker: "BROKGB2L", InvMgr: "INVMUS33", FailingCriteria: []int{3, 7}}})
	}
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(ans)
	}))
	f.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			f.dials.Add(1)
		}
	}
	f.srv.Start()
	t.Cleanup(f.srv.Close)
	f.owner = Owner{ID: id, Addr: f.srv.Listener.Addr().String(), Partitions: parts}
	return f
}

func queueClient(t *testing.T, o Options, owners ...Owner) *Client {
	t.Helper()
	o.Kafka, o.Namespace, o.Token = kafkaconn.Plaintext("127.0.0.1:1"), "q", "t"
	if o.Route == nil {
		o.Route = func(context.Context) (*Routing, error) { return NewRouting(8, owners), nil }
	}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// The pages of a work queue reuse the connections to the instances: each
// question asks both, several at once. An answer's body closed before its
// end (the decoder stops before the newline and the last chunk) closed its
// connection, and net/http kept 2 idle a host: a new connection for most
// questions.
func TestQueueReusesConnections(t *testing.T) {
	a := newFakeOwner(t, "a", []int32{0, 1, 2, 3}, 8)
	b := newFakeOwner(t, "b", []int32{4, 5, 6, 7}, 8)
	c := queueClient(t, Options{}, a.owner, b.owner)
	const askers, rounds = 6, 5
	for range rounds {
		var wg sync.WaitGroup
		errs := make(chan error, askers)
		for range askers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ts, err := c.Queue(context.Background(), query.QueueQuery{Party: "BROKGB2L", Limit: 100, Now: time.Now()})
				if err == nil && len(ts) != 100 {
					err = fmt.Errorf("%d trades", len(ts))
				}
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, f := range []*fakeOwner{a, b} {
		if n := f.dials.Load(); n > askers {
			t.Errorf("instance %s: %d connections for %d rounds of %d questions at once (at most %d wanted)", f.owner.ID, n, rounds, askers, askers)
		}
	}
}

// A page is merged in position order from both instances' answers.
func TestQueueMerges(t *testing.T) {
	a := newFakeOwner(t, "a", []int32{0, 1, 2, 3}, 8)
	b := newFakeOwner(t, "b", []int32{4, 5, 6, 7}, 8)
	c := queueClient(t, Options{}, a.owner, b.owner)
	ts, err := c.Queue(context.Background(), query.QueueQuery{Party: "BROKGB2L", Limit: 150, Now: time.Now()})
	if err != nil || len(ts) != 150 {
		t.Fatalf("%d trades, %v", len(ts), err)
	}
	for i := 1; i < len(ts); i++ {
		p, _ := ts[i-1].Pos()
		q, _ := ts[i].Pos()
		if p.Compare(q) >= 0 {
			t.Fatalf("trade %d (%s) not after %d (%s)", i, ts[i].TradeKey, i-1, ts[i-1].TradeKey)
		}
	}
}

// A routing older than Refresh is used while it is read again in the
// background: a question does not wait for the registry and the match
// group to be read (every 2 s, the work queue's slowest pages). One older
// than Stale is waited for.
func TestRoutingRefreshedInBackground(t *testing.T) {
	var calls atomic.Int64
	release := make(chan struct{})
	route := func(ctx context.Context) (*Routing, error) {
		if calls.Add(1) > 1 {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return NewRouting(8, nil), nil
	}
	c := queueClient(t, Options{Route: route, Refresh: 20 * time.Millisecond, Stale: time.Hour})
	first, err := c.Routing(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(30 * time.Millisecond)
	got := make(chan *Routing, 1)
	go func() {
		r, _ := c.Routing(context.Background(), false)
		got <- r
	}()
	select {
	case r := <-got:
		if r != first {
			t.Fatal("not the routing already read")
		}
	case <-time.After(2 * time.Second):
		close(release)
		t.Fatal("a question waited for the routing to be read again")
	}
	// Many questions meanwhile: one read.
	for range 10 {
		if r, _ := c.Routing(context.Background(), false); r != first {
			t.Fatal("not the routing already read")
		}
	}
	close(release)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		r, _ := c.Routing(context.Background(), false)
		if r != first {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the routing was never read again")
		}
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("%d reads of the routing, want 2", n)
	}
	// fresh: read now, whatever its age.
	if _, err := c.Routing(context.Background(), true); err != nil || calls.Load() != 3 {
		t.Errorf("fresh: %d reads, %v", calls.Load(), err)
	}
}

// Past Stale the question waits for the routing to be read.
func TestRoutingStaleWaited(t *testing.T) {
	var calls atomic.Int64
	route := func(context.Context) (*Routing, error) {
		calls.Add(1)
		return NewRouting(8, nil), nil
	}
	c := queueClient(t, Options{Route: route, Refresh: 5 * time.Millisecond, Stale: 10 * time.Millisecond})
	first, _ := c.Routing(context.Background(), false)
	time.Sleep(20 * time.Millisecond)
	if r, _ := c.Routing(context.Background(), false); r == first || calls.Load() != 2 {
		t.Fatalf("a routing past Stale was used (%d reads)", calls.Load())
	}
}
