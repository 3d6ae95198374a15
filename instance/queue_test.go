package instance_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/instance/lookup"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/memstore"
	"github.com/ste-utility/ste/processors/query"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/workload"
)

// queueCluster is a match table of parts partitions split between
// instances, each answering its partitions' queues on a lookup listener of
// its own (instance.QueueHandler), and a lookup client routed to them.
type queueCluster struct {
	parts     int32
	tables    []*query.Tables
	stores    map[int32]*memstore.Store
	partOf    map[int32]*query.Partition
	owners    []lookup.Owner
	servers   []*httptest.Server
	client    *lookup.Client
	book      *matching.Book
	dec       schemas.Decoder
	keys      []schemas.TradeKey
	instances int
	gets      atomic.Int64 // reads of the stores by the indexes: the trades summarised
}

// countedStore counts the reads of a store.
type countedStore struct {
	*memstore.Store
	n *atomic.Int64
}

func (s countedStore) Get(key string) ([]byte, error) {
	s.n.Add(1)
	return s.Store.Get(key)
}

func newQueueCluster(t testing.TB, parts int32, instances int) *queueCluster {
	t.Helper()
	c := &queueCluster{parts: parts, stores: map[int32]*memstore.Store{}, partOf: map[int32]*query.Partition{},
		book: matching.NewBook(), instances: instances}
	for i := range instances {
		tb := &query.Tables{}
		tb.Serve(query.Config{Refdata: refdata.Default})
		var owned []int32
		for p := int32(i); p < parts; p += int32(instances) {
			owned = append(owned, p)
			c.stores[p] = memstore.New(nil)
			c.partOf[p] = tb.Open(p, countedStore{c.stores[p], &c.gets})
		}
		id := fmt.Sprintf("inst-%d", i)
		srv := httptest.NewServer(instance.QueueHandler(id, tb, func() []int32 { return owned }))
		t.Cleanup(srv.Close)
		c.tables = append(c.tables, tb)
		c.servers = append(c.servers, srv)
		c.owners = append(c.owners, lookup.Owner{ID: id, Addr: strings.TrimPrefix(srv.URL, "http://"), Partitions: owned})
	}
	var err error
	c.client, err = lookup.New(lookup.Options{Kafka: kafkaconn.Plaintext("127.0.0.1:1"), Namespace: "q", Token: "t",
		Route: func(context.Context) (*lookup.Routing, error) { return lookup.NewRouting(parts, c.owners), nil }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.client.Close)
	return c
}

// put stores a trade value in its partition (by the topics' partitioner,
// as the lookup checks).
func (c *queueCluster) put(k schemas.TradeKey, v []byte) {
	p := topics.PartitionOf(k.String(), c.parts)
	c.stores[p].Set(k.String(), v)
	c.partOf[p].Put(k.String(), v)
}

func (c *queueCluster) accept(t testing.TB, rec []byte) {
	m, rej := c.dec.Decode(rec)
	if rej != nil {
		return
	}
	if _, known := c.book.Known(m.ID()); known || c.book.KeyCollision(m) != nil {
		return
	}
	sum := sha256.Sum256(rec)
	c.book.Accept(&matching.Inbound{Msg: m, Digest: matching.Digest(sum[:16]), NetUnits: 2})
	k := m.Key.TradeKey()
	v, err := c.book.Trade(k).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	c.put(k, v)
	if !slices.Contains(c.keys, k) {
		c.keys = append(c.keys, k)
	}
}

func (c *queueCluster) recover(t testing.TB) {
	t.Helper()
	for p, st := range c.stores {
		it, _ := st.Iterator()
		c.partOf[p].Recovered(it)
		it.Release()
	}
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
		ready := true
		for _, tb := range c.tables {
			_, err := tb.Queue(query.QueueQuery{Party: "X", Limit: 1}, c.ownedBy(tb))
			ready = ready && !errors.Is(err, query.ErrRecovering)
		}
		if ready {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("queue indexes not built")
		}
	}
}

func (c *queueCluster) ownedBy(tb *query.Tables) []int32 {
	return c.owners[slices.Index(c.tables, tb)].Partitions
}

// The lookup asks every owner and merges their pages by the order, the
// limit taken after the merge: the walk through two instances is the
// party's whole queue as one table answers it. An owner that does not
// answer, or answers for a partition it does not own, fails the page: no
// partial page.
func TestQueueThroughTheLookup(t *testing.T) {
	c := newQueueCluster(t, 6, 2)
	for i, d := range []string{"2026-11-02", "2026-11-03"} {
		workload.Generate(workload.Options{Trades: 40, Mix: workload.Realistic, Seed: uint64(31 + i), TradeDate: date.MustParse(d)},
			func(b []byte) error { c.accept(t, b); return nil }, nil)
	}
	c.recover(t)
	// One table holding every partition: the reference answer.
	whole := &query.Tables{}
	whole.Serve(query.Config{Refdata: refdata.Default})
	var all []int32
	for p, st := range c.stores {
		x := whole.Open(p, st)
		it, _ := st.Iterator()
		x.Recovered(it)
		it.Release()
		all = append(all, p)
	}
	ctx := context.Background()
	now := time.Date(2026, 11, 2, 14, 30, 0, 0, time.UTC)
	// The party of the most trades.
	count := map[string]int{}
	for _, k := range c.keys {
		for _, p := range c.book.Trade(k).View().Parties {
			count[p]++
		}
	}
	broker := ""
	for p, n := range count {
		if n > count[broker] || n == count[broker] && p < broker {
			broker = p
		}
	}
	q := query.QueueQuery{Party: broker, Limit: query.MaxQueueLimit, Now: now, Lead: 2 * time.Hour}
	var want []query.QueueFound
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		var err error
		if want, err = whole.Queue(q, all); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatal(err)
		}
	}
	if len(want) < 3 {
		t.Fatalf("the broker has %d trades", len(want))
	}
	for _, limit := range []int{1, 2, 500} {
		var got []string
		q := q
		q.Limit = limit
		for {
			page, err := c.client.Queue(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range page {
				got = append(got, e.TradeKey)
			}
			if len(page) < limit {
				break
			}
			p, _ := page[len(page)-1].Pos()
			q.After = &p
		}
		var wantKeys []string
		for _, f := range want {
			wantKeys = append(wantKeys, f.Trade.TradeKey)
		}
		if !slices.Equal(got, wantKeys) {
			t.Fatalf("limit %d: walked %v, want %v", limit, got, wantKeys)
		}
	}
	// Filters travel: only MATCHED, of one date.
	page, err := c.client.Queue(ctx, query.QueueQuery{Party: broker, Limit: 500, Date: "2026-11-03", Status: []string{"MATCHED"}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range page {
		if e.TradeDate != "2026-11-03" || e.Status != "MATCHED" {
			t.Fatalf("filtered page holds %+v", e)
		}
	}
	// An owner down: an error, no page.
	c.servers[1].Close()
	if page, err := c.client.Queue(ctx, q); err == nil {
		t.Fatalf("a page without an instance's partitions: %d trades", len(page))
	}
}

// An owner answering with a trade of a partition it does not own is not
// believed; an owner that no longer owns a partition makes the page fail
// (after the routing is read again).
func TestQueueAnswersChecked(t *testing.T) {
	var forged atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write(forged.Load().([]byte))
	}))
	defer srv.Close()
	var key schemas.TradeKey
	for k := schemas.TradeKey(1); ; k++ {
		if topics.PartitionOf(k.String(), 2) == 1 {
			key = k
			break
		}
	}
	owners := []lookup.Owner{{ID: "a", Addr: strings.TrimPrefix(srv.URL, "http://"), Partitions: []int32{0, 1}}}
	cl, err := lookup.New(lookup.Options{Kafka: kafkaconn.Plaintext("127.0.0.1:1"), Namespace: "q", Token: "t", Refresh: time.Nanosecond,
		Route: func(context.Context) (*lookup.Routing, error) { return lookup.NewRouting(2, owners), nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	q := query.QueueQuery{Party: "BRKASGSGXXX", Limit: 10, Now: time.Now()}
	trade := `{"trade_key":"` + key.String() + `","trade_date":"2026-11-02"}`
	for _, c := range []struct {
		answer string
		ok     bool
	}{
		{`{"instance":"a","owned":[0,1],"trades":[{"partition":1,"trade":` + trade + `}]}`, true},
		{`{"instance":"a","owned":[0,1],"trades":[{"partition":0,"trade":` + trade + `}]}`, false}, // not its partition
		{`{"instance":"a","owned":[0],"trades":[]}`, false},                                        // partition 1 moved
		{`{"instance":"b","owned":[0,1],"trades":[]}`, false},                                      // another instance
		{`{"instance":"a","owned":[0,1],"trades":[{"partition":1,"trade":{"trade_key":"zz"}}]}`, false},
	} {
		forged.Store([]byte(c.answer))
		got, err := cl.Queue(context.Background(), q)
		if (err == nil) != c.ok {
			t.Errorf("%s: %v, %v", c.answer, got, err)
		}
	}
	// Partition 1 has no owner now.
	forged.Store([]byte(`{"instance":"a","owned":[0],"trades":[]}`))
	owners = []lookup.Owner{{ID: "a", Addr: owners[0].Addr, Partitions: []int32{0}}}
	if _, err := cl.Queue(context.Background(), q); !errors.Is(err, lookup.ErrNoOwner) {
		t.Errorf("a partition with no owner: %v", err)
	}
}

// The instance's side reads the parameters the client writes, and refuses
// others.
func TestQueueParameters(t *testing.T) {
	d := date.MustParse("2026-11-02")
	q := query.QueueQuery{Party: "BRKASGSGXXX", Date: "2026-11-02", Status: []string{"MATCHED", "INCOMPLETE"}, Lifecycle: []string{"NONE"},
		Owes: true, AtRisk: true, After: &query.QueuePos{Date: d, Key: 0xabc}, Limit: 7,
		Now: time.Date(2026, 11, 2, 14, 30, 0, 5, time.UTC), Lead: 90 * time.Minute}
	back, err := lookup.ParseQueue(lookup.QueueValues(q))
	if err != nil {
		t.Fatal(err)
	}
	if !back.Now.Equal(q.Now) || *back.After != *q.After {
		t.Fatalf("%+v, want %+v", back, q)
	}
	back.Now, back.After, q.Now, q.After = time.Time{}, nil, time.Time{}, nil
	if fmt.Sprintf("%+v", back) != fmt.Sprintf("%+v", q) {
		t.Fatalf("%+v, want %+v", back, q)
	}
	c := newQueueCluster(t, 2, 1)
	c.recover(t)
	u := c.servers[0].URL + lookup.PathQueue + "?"
	for _, bad := range []string{"party=X&limit=0&now=2026-11-02T00:00:00Z&lead=1h", "party=X&limit=1&now=x&lead=1h",
		"party=X&limit=1&now=2026-11-02T00:00:00Z&lead=1h&status=WAITING", "party=X&limit=1&now=2026-11-02T00:00:00Z&lead=1h&after=2026-11-02.zz",
		"limit=1&now=2026-11-02T00:00:00Z&lead=1h"} {
		resp, err := http.Get(u + bad)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d", bad, resp.StatusCode)
		}
	}
}
