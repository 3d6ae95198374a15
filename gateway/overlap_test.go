package gateway

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/internal/testing/brokertest"
	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/query"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
)

// heldNonces holds every nonce record in the producer until released.
type heldNonces struct {
	hold    chan struct{} // receives while holding; closed: released
	holding chan struct{} // a record is being held
}

func (h *heldNonces) OnProduceRecordBuffered(*kgo.Record) {
	select {
	case h.holding <- struct{}{}:
	default:
	}
	select {
	case <-h.hold:
	case <-time.After(10 * time.Second):
	}
}

// queueTrades answers every work queue with one trade, telling when it is
// asked.
type queueTrades struct {
	noTrades
	asked chan struct{}
}

func (q queueTrades) QueuePage(context.Context, query.QueueQuery) ([]query.QueueEntry, error) {
	select {
	case q.asked <- struct{}{}:
	default:
	}
	return query.QueueEntries([]query.QueueTrade{{TradeKey: "0123456789abcdef", TradeRef: "THE-PAGE", TradeDate: "2026-12-06"}})
}

func (queueTrades) Trade(context.Context, string, string) (matching.View, bool, error) {
	return matching.View{}, false, nil
}

func overlapGateway(t *testing.T, h *heldNonces) (addr string, trades queueTrades) {
	t.Helper()
	ctx, e := brokertest.Namespace(t, "gwo", 0, 2*time.Minute)
	s, cl := testGateway(t, func(o *Options) { o.RatePerSecond, o.Burst = 1e6, 1e6 })
	opts := []kgo.Opt{kgo.ProducerLinger(0)}
	if h != nil {
		opts = append(opts, kgo.WithHooks(h))
	}
	ncl, err := topics.Client(e.Conn, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ncl.Close)
	s.nonces = newNonces(topology.Names{NS: e.NS}.Nonces(), ncl, s.log)
	go s.nonces.follow(ctx, e.Conn)
	trades = queueTrades{asked: make(chan struct{}, 1)}
	s.trades = trades
	return cl.Addr().String(), trades
}

func getSigned(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return res.StatusCode, string(b)
}

// A page of the work queue is asked of the instances while its nonce is
// spent, not after: with the nonce record held in the producer, the
// lookup is asked all the same; the answer waits for the record.
func TestQueueAskedWhileNonceSpent(t *testing.T) {
	h := &heldNonces{hold: make(chan struct{}), holding: make(chan struct{}, 1)}
	addr, trades := overlapGateway(t, h)
	bic := activeBIC(t)
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/v1/trades?limit=10", nil)
	signGet(req, bic, refdata.DemoPrivateKey(bic))
	type answer struct {
		code int
		body string
	}
	got := make(chan answer, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			got <- answer{0, err.Error()}
			return
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		got <- answer{res.StatusCode, string(b)}
	}()
	select {
	case <-h.holding:
	case <-time.After(10 * time.Second):
		t.Fatal("no nonce record produced")
	}
	select {
	case <-trades.asked:
	case a := <-got:
		t.Fatalf("answered %d while the nonce record was held: %s", a.code, a.body)
	case <-time.After(5 * time.Second):
		close(h.hold)
		t.Fatal("the work queue was asked only after the nonce was spent")
	}
	select {
	case a := <-got:
		t.Fatalf("answered %d before the nonce was spent: %s", a.code, a.body)
	case <-time.After(100 * time.Millisecond):
	}
	close(h.hold)
	a := <-got
	if a.code != http.StatusOK || !strings.Contains(a.body, "THE-PAGE") {
		t.Fatalf("%d %s", a.code, a.body)
	}
}

// A replayed question of the work queue is refused as before, its page
// (prepared meanwhile) never written, and its refusal is the replay's
// even where the question is out of form (401, not 400: the nonce is
// checked before the parameters are answered for).
func TestQueueReplayRefused(t *testing.T) {
	addr, _ := overlapGateway(t, nil)
	bic := activeBIC(t)
	for _, c := range []struct {
		query string
		first int
	}{{"?limit=10", http.StatusOK}, {"?limit=0", http.StatusBadRequest}} {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/v1/trades"+c.query, nil)
		signGet(req, bic, refdata.DemoPrivateKey(bic))
		again := req.Clone(context.Background())
		if code, body := getSigned(t, req); code != c.first {
			t.Fatalf("%s: first %d %s, want %d", c.query, code, body, c.first)
		}
		code, body := getSigned(t, again)
		var e errorBody
		json.Unmarshal([]byte(body), &e)
		if code != http.StatusUnauthorized || e.Reason != ReasonReplayed || strings.Contains(body, "THE-PAGE") {
			t.Errorf("%s replayed: %d %s", c.query, code, body)
		}
	}
}
