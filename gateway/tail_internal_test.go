package gateway

import (
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/internal/testing/brokertest"
	"github.com/ste-utility/ste/topology"
)

// One client reads every tail of an instance: each partition's records go
// to its own tail only, in order; a tail nobody reads stops (its partition
// no longer fetched) and a read after that starts another, which reads on
// from where it starts.
func TestTailsShareOneClient(t *testing.T) {
	ctx, e := brokertest.Namespace(t, "gwtail", 4, 2*time.Minute)
	defer func(old time.Duration) { tailIdle = old }(tailIdle)
	tailIdle = 300 * time.Millisecond
	topic := topology.Names{NS: e.NS}.Outbound()
	ts := newTails(ctx, e.Conn, topic, kadm.NewClient(e.Client), slog.New(slog.NewTextHandler(io.Discard, nil)))
	pcl, err := kgo.NewClient(append(e.Conn.Opts(), kgo.RecordPartitioner(kgo.ManualPartitioner()))...)
	if err != nil {
		t.Fatal(err)
	}
	defer pcl.Close()
	produce := func(p int32, ids ...string) {
		t.Helper()
		for _, id := range ids {
			if err := pcl.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: p, Value: []byte(id)}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
	}
	// waitFor reads t from `from` until it holds want, in order.
	waitFor := func(tl *tail, from int64, want string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			recs, _, _, moved, err := tl.since(from)
			got := ""
			for _, r := range recs {
				got += string(r.Value) + ","
			}
			if got == want {
				return
			}
			if err != nil || time.Now().After(deadline) {
				t.Fatalf("partition %d holds %q (err %v), want %q", tl.part, got, err, want)
			}
			select {
			case <-moved:
			case <-time.After(time.Until(deadline)):
			}
		}
	}
	var tails []*tail
	for p := range int32(3) {
		produce(p, fmt.Sprintf("before%d", p)) // before the tail: not in it (lookback aside)
	}
	defer func(old int64) { tailLookback = old }(tailLookback)
	tailLookback = 0
	for p := range int32(3) {
		tl, err := ts.get(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		tails = append(tails, tl)
	}
	for p := range int32(3) {
		produce(p, fmt.Sprintf("a%d", p), fmt.Sprintf("b%d", p))
	}
	for p, tl := range tails {
		waitFor(tl, 1, fmt.Sprintf("a%d,b%d,", p, p))
	}
	ts.mu.Lock()
	clients := ts.cl
	ts.mu.Unlock()
	if clients == nil || len(ts.m) != 3 {
		t.Fatalf("tails %d, client %v", len(ts.m), clients != nil)
	}
	// Nobody reads partition 0 any more; 1 and 2 are being read.
	tails[0].done()
	time.Sleep(2 * tailIdle)
	produce(1, "wake") // the loop looks for idle tails when a fetch returns
	waitFor(tails[1], 1, "a1,b1,wake,")
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, _, _, _, err := tails[0].since(0)
		if err == errTailStopped {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the idle tail did not stop: %v", err)
		}
		produce(2, "wake")
		time.Sleep(50 * time.Millisecond)
	}
	if _, _, _, _, err := tails[1].since(0); err != nil {
		t.Fatalf("a tail being read stopped: %v", err)
	}
	// A read after the stop: a new tail from the end, reading on.
	again, err := ts.get(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if again == tails[0] {
		t.Fatal("the stopped tail was handed out again")
	}
	produce(0, "c0")
	waitFor(again, 3, "c0,")
	if ts.cl != clients {
		t.Fatal("a second client was made")
	}
}
