package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/gateway"
	"github.com/ste-utility/ste/internal/testing/brokertest"
	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/query"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/workload"
)

type noTrades struct{}

func (noTrades) Trade(context.Context, string, string) (matching.View, bool, error) {
	return matching.View{}, false, nil
}
func (noTrades) ByRef(context.Context, string, string, string) ([]matching.View, error) {
	return nil, nil
}
func (noTrades) QueuePage(context.Context, query.QueueQuery) ([]query.QueueEntry, error) {
	return []query.QueueEntry{}, nil
}

// serveGateways starts n gateway instances over a fresh embedded broker
// with generated reference data: their URLs, the participants, a client.
func serveGateways(t testing.TB, n int) ([]string, []refdata.Participant, *kgo.Client, string) {
	return serveGatewaysWith(t, n, nil)
}

// testRefdata is the reference data of serveGateways.
func testRefdata() *refdata.Set {
	return refdata.Generate(refdata.GenOptions{Seed: 3, Participants: 40})
}

// serveGatewaysWith is serveGateways with options tuned (tune may be nil).
func serveGatewaysWith(t testing.TB, n int, tune func(*gateway.Options)) ([]string, []refdata.Participant, *kgo.Client, string) {
	t.Helper()
	ctx, e := brokertest.Namespace(t, "gwt", 0, 10*time.Minute)
	set := testRefdata()
	e.Refdata(t, ctx, set)
	var urls []string
	for range n {
		ready := make(chan string, 1)
		o := gateway.Options{Kafka: e.Conn, Namespace: e.NS, Addr: "127.0.0.1:0",
			Trades: noTrades{}, RatePerSecond: 1e6, Burst: 1e6, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
		if tune != nil {
			tune(&o)
		}
		go gateway.Serve(ctx, o, func(u string) { ready <- u })
		u := <-ready
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if r, err := http.Get(u + "/v1/health"); err == nil {
				r.Body.Close()
				if r.StatusCode == 200 {
					break
				}
			}
			if time.Now().After(deadline) {
				t.Fatal("gateway not ready")
			}
		}
		urls = append(urls, u)
	}
	var ps []refdata.Participant
	for _, p := range set.Participants() {
		if p.Status == refdata.Active && p.BIC != refdata.DefaultUtilityBIC {
			ps = append(ps, p)
		}
	}
	return urls, ps, e.Client, e.NS
}

type outputsAnswer struct {
	Outputs []struct {
		Cursor string `json:"cursor"`
		MsgId  string `json:"msg_id"`
	}
	Next string
}

func getOutputs(t testing.TB, base, bic, query string) outputsAnswer {
	t.Helper()
	a, err := readOutputs(base, bic, query)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func readOutputs(base, bic, query string) (outputsAnswer, error) {
	var a outputsAnswer
	u := base + "/v1/outputs?" + query
	r, _ := http.NewRequest("GET", u, nil)
	r.Header = gateway.SignedHeaders("GET", u, nil, bic, refdata.DemoPrivateKey(bic), time.Now())
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		return a, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return a, fmt.Errorf("GET %s: %d %s", u, resp.StatusCode, b)
	}
	return a, json.Unmarshal(b, &a)
}

func output(ns, key, receiver, id string) *kgo.Record {
	return &kgo.Record{Topic: ns + ".outbound", Key: []byte(key),
		Value: []byte("<Msg><Header><MsgId>" + id + "</MsgId><MsgType>ACK</MsgType><Receiver>" + receiver + "</Receiver></Header><Body/></Msg>")}
}

// TestOutputsTail: long polls waiting at the end are woken by the tail with
// the participant's own outputs only (never one keyed by another BIC of the
// same partition, nor one naming another Receiver); a cursor from one
// instance goes on at another; a walk from before the tail began (a
// consumer of its own) and the tail's records join without a gap or a
// repeat.
func TestOutputsTail(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a broker")
	}
	// Tails start at the end: the records before are read by scan.
	t.Cleanup(gateway.SetTailLookback(0))
	urls, ps, cl, ns := serveGateways(t, 2)
	ctx := context.Background()
	// Two participants of one partition.
	n := int32(topics.DefaultPartitions)
	var a, b string
	for i, p := range ps {
		for _, q := range ps[i+1:] {
			if topics.PartitionOf(p.BIC, n) == topics.PartitionOf(q.BIC, n) {
				a, b = p.BIC, q.BIC
				break
			}
		}
		if a != "" {
			break
		}
	}
	if a == "" {
		t.Fatal("no two participants share a partition")
	}
	if err := cl.ProduceSync(ctx, output(ns, a, a, "OLD1"), output(ns, b, b, "B1"), output(ns, a, a, "OLD2")).FirstErr(); err != nil {
		t.Fatal(err)
	}
	// The tail starts at the end; a walk from the start reads before it.
	first := getOutputs(t, urls[0], a, "limit=1")
	if len(first.Outputs) != 1 || first.Outputs[0].MsgId != "OLD1" {
		t.Fatalf("first output: %+v", first)
	}
	end := getOutputs(t, urls[0], a, "after="+first.Next)
	if len(end.Outputs) != 1 || end.Outputs[0].MsgId != "OLD2" {
		t.Fatalf("after the first: %+v", end)
	}
	// A long poll at the end on each instance, then new records.
	type polled struct {
		a   outputsAnswer
		at  time.Time
		err error
	}
	res := make(chan polled, 2)
	for _, u := range urls {
		go func() {
			r, err := readOutputs(u, a, "wait=20&after="+end.Next)
			res <- polled{a: r, at: time.Now(), err: err}
		}()
	}
	time.Sleep(500 * time.Millisecond)
	sent := time.Now()
	if err := cl.ProduceSync(ctx, output(ns, b, b, "B2"), output(ns, a, b, "FORGED"), output(ns, a, a, "NEW1")).FirstErr(); err != nil {
		t.Fatal(err)
	}
	for range urls {
		p := <-res
		if p.err != nil {
			t.Fatal(p.err)
		}
		if len(p.a.Outputs) != 1 || p.a.Outputs[0].MsgId != "NEW1" {
			t.Fatalf("long poll: %+v", p.a)
		}
		t.Logf("long poll answered %v after the produce", p.at.Sub(sent))
	}
	// The other instance goes on from this one's cursor; nothing more yet.
	next := getOutputs(t, urls[1], a, "after="+end.Next)
	if len(next.Outputs) != 1 || next.Outputs[0].MsgId != "NEW1" {
		t.Fatalf("at the other instance: %+v", next)
	}
	if r := getOutputs(t, urls[1], a, "after="+next.Next); len(r.Outputs) != 0 || r.Next != next.Next {
		t.Fatalf("past the end: %+v", r)
	}
	// A whole walk from the start: every output of a once, in order.
	var ids []string
	after := ""
	for {
		q := "limit=1"
		if after != "" {
			q += "&after=" + after
		}
		r := getOutputs(t, urls[1], a, q)
		if len(r.Outputs) == 0 {
			break
		}
		ids = append(ids, r.Outputs[0].MsgId)
		after = r.Next
	}
	if got := strings.Join(ids, ","); got != "OLD1,OLD2,NEW1" {
		t.Fatalf("walk: %s", got)
	}
	// b sees its own only.
	var bids []string
	for _, o := range getOutputs(t, urls[0], b, "limit=1000").Outputs {
		bids = append(bids, o.MsgId)
	}
	if got := strings.Join(bids, ","); got != "B1,B2" {
		t.Fatalf("b's outputs: %s", got)
	}
}

// BenchmarkSubmitBatch is a submit of 100 generated messages of one
// participant through one instance over the embedded broker in this
// process: for a CPU profile of the gateway's own work (go test -bench
// SubmitBatch -cpuprofile; look under gateway.(*Server).ServeHTTP, the
// broker and the client run in the same process).
func BenchmarkSubmitBatch(b *testing.B) {
	urls, ps, _, _ := serveGateways(b, 1)
	set := refdata.Generate(refdata.GenOptions{Seed: 3, Participants: 40})
	_ = ps
	by := map[string][][]byte{}
	var d schemas.Decoder
	_, err := workload.Generate(workload.Options{Trades: 1000, Ref: set}, func(l []byte) error {
		if m, _ := d.Decode(l); m != nil {
			by[m.Sender] = append(by[m.Sender], bytes.Clone(l))
		}
		return nil
	}, nil)
	if err != nil {
		b.Fatal(err)
	}
	var bic string
	for s, ms := range by {
		if len(ms) >= 100 && (bic == "" || s < bic) {
			bic = s
		}
	}
	if bic == "" {
		b.Fatal("no sender of 100 messages")
	}
	body := bytes.Join(by[bic][:100], []byte("\n"))
	u := urls[0] + "/v1/messages"
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	for range b.N {
		r, _ := http.NewRequest("POST", u, bytes.NewReader(body))
		r.Header = gateway.SignedHeaders("POST", u, body, bic, refdata.DemoPrivateKey(bic), time.Now())
		r.Header.Set("Content-Type", "text/plain")
		resp, err := http.DefaultClient.Do(r)
		if err != nil || resp.StatusCode != 202 {
			b.Fatalf("submit: %v %v", err, resp)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
