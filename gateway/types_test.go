package gateway_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/gateway"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
)

// typedOutput is an output of type typ (and function fn) of trade key.
func typedOutput(ns, bic, id, typ, fn, key string) *kgo.Record {
	body := "<Body/>"
	if key != "" {
		body = "<Body><TradeKey>" + key + "</TradeKey></Body>"
	}
	return &kgo.Record{Topic: ns + ".outbound", Key: []byte(bic),
		Value: []byte("<Msg><Header><MsgId>" + id + "</MsgId><MsgType>" + typ + "</MsgType><Function>" + fn +
			"</Function><Receiver>" + bic + "</Receiver></Header>" + body + "</Msg>")}
}

type typedAnswer struct {
	Outputs []struct {
		Cursor   string  `json:"cursor"`
		MsgId    string  `json:"msg_id"`
		MsgType  string  `json:"msg_type"`
		Function *string `json:"function"`
		TradeKey *string `json:"trade_key"`
	}
	Next string
}

func getTyped(t *testing.T, base, bic, query string) (int, typedAnswer, string) {
	t.Helper()
	u := base + "/v1/outputs?" + query
	r, _ := http.NewRequest("GET", u, nil)
	r.Header = gateway.SignedHeaders("GET", u, nil, bic, refdata.DemoPrivateKey(bic), time.Now())
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var a typedAnswer
	if resp.StatusCode == 200 {
		if err := json.Unmarshal(b, &a); err != nil {
			t.Fatal(err)
		}
	}
	return resp.StatusCode, a, strings.TrimSpace(string(b))
}

func ids(a typedAnswer) string {
	var s []string
	for _, o := range a.Outputs {
		s = append(s, o.MsgId)
	}
	return strings.Join(s, ",")
}

// types= (gateway.md v2 §3): only the types asked for; next is the cursor
// of the last of the caller's records examined, returned or not, so a walk
// with a filter neither repeats nor skips; a long poll waits for the first
// record of a type asked for; an unknown type is 400; CNF, BLK and ALG
// entries carry their function and trade key.
func TestOutputsTypes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a broker")
	}
	urls, ps, cl, ns := serveGateways(t, 2)
	ctx := context.Background()
	// a and b share a partition: b's records lie between a's.
	n := int32(topics.DefaultPartitions)
	var a, b string
	for i, p := range ps {
		for _, q := range ps[i+1:] {
			if a == "" && topics.PartitionOf(p.BIC, n) == topics.PartitionOf(q.BIC, n) {
				a, b = p.BIC, q.BIC
			}
		}
	}
	if a == "" {
		t.Fatal("no two participants share a partition")
	}
	const key = "0123456789abcdef"
	recs := []*kgo.Record{
		typedOutput(ns, a, "A1", "ACK", "NEW", ""),
		typedOutput(ns, a, "C1", "CNF", "NEW", key),
		typedOutput(ns, b, "B1", "CNF", "NEW", key),
		typedOutput(ns, a, "S1", "STATUS", "NEW", key),
		typedOutput(ns, a, "G1", "ALG", "NEW", key),
		typedOutput(ns, a, "K1", "BLK", "NEW", key),
		typedOutput(ns, a, "C2", "CNF", "CANCEL", key),
		typedOutput(ns, a, "A2", "ACK", "NEW", ""),
		typedOutput(ns, b, "B2", "ALG", "NEW", key),
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	// Without types: every type, as in version 1 (which now includes CNF,
	// BLK and ALG), with function and trade_key on those three only.
	code, all, body := getTyped(t, urls[0], a, "limit=1000")
	if code != 200 || ids(all) != "A1,C1,S1,G1,K1,C2,A2" {
		t.Fatalf("every type: %d %s", code, body)
	}
	cursorOf := map[string]string{}
	for _, o := range all.Outputs {
		cursorOf[o.MsgId] = o.Cursor
		trade := o.MsgType == "CNF" || o.MsgType == "BLK" || o.MsgType == "ALG"
		if trade != (o.Function != nil && o.TradeKey != nil) {
			t.Errorf("%s: function %v, trade_key %v", o.MsgId, o.Function, o.TradeKey)
		}
		if trade && (*o.TradeKey != key || (*o.Function != "NEW" && *o.Function != "CANCEL")) {
			t.Errorf("%s: function %q, trade_key %q", o.MsgId, *o.Function, *o.TradeKey)
		}
	}
	if *all.Outputs[5].Function != "CANCEL" {
		t.Errorf("C2's function %q", *all.Outputs[5].Function)
	}
	// Filtered: next is the last record examined (A2, not returned).
	code, cnf, body := getTyped(t, urls[0], a, "types=CNF,ALG")
	if code != 200 || ids(cnf) != "C1,G1,C2" || cnf.Next != cursorOf["A2"] {
		t.Fatalf("types=CNF,ALG: %d %s (want next %s)", code, body, cursorOf["A2"])
	}
	// The version 1 answers.
	if _, v1, body := getTyped(t, urls[1], a, "types=ACK,NACK,STATUS"); ids(v1) != "A1,S1,A2" || v1.Next != cursorOf["A2"] {
		t.Fatalf("types=ACK,NACK,STATUS: %s", body)
	}
	// A walk with a filter, one at a time, on alternating instances: every
	// CNF once, in order; its last page empty with next unchanged.
	var walked []string
	after := ""
	for i := 0; i < 10; i++ {
		q := "types=CNF&limit=1"
		if after != "" {
			q += "&after=" + after
		}
		_, r, body := getTyped(t, urls[i%2], a, q)
		if len(r.Outputs) == 0 {
			if r.Next != cursorOf["A2"] {
				t.Fatalf("the walk's end: %s", body)
			}
			break
		}
		walked = append(walked, r.Outputs[0].MsgId)
		after = r.Next
	}
	if got := strings.Join(walked, ","); got != "C1,C2" {
		t.Fatalf("walk of CNFs: %s", got)
	}
	// With a limit the examining stops at the last returned.
	if _, r, body := getTyped(t, urls[0], a, "types=ALG,BLK&limit=1"); ids(r) != "G1" || r.Next != cursorOf["G1"] {
		t.Fatalf("types=ALG,BLK&limit=1: %s", body)
	}
	// Nothing of the types asked: next moves past what was examined.
	if _, r, body := getTyped(t, urls[0], a, "types=NACK&after="+cursorOf["S1"]); len(r.Outputs) != 0 || r.Next != cursorOf["A2"] {
		t.Fatalf("types=NACK: %s", body)
	}
	// Unknown types, and forms that are not a list of types.
	for _, q := range []string{"types=FOO", "types=", "types=CNF,", "types=cnf", "types=CLS", "types=ACK&types=CNF"} {
		if code, _, body := getTyped(t, urls[0], a, q); code != 400 || body != `{"error":"bad_request"}` {
			t.Errorf("%s: %d %s", q, code, body)
		}
	}
	// A long poll waits for the first record of a type asked for: an ACK
	// arriving first does not answer it.
	type polled struct {
		a    typedAnswer
		body string
	}
	res := make(chan polled, 1)
	go func() {
		_, r, body := getTyped(t, urls[1], a, "types=ALG&wait=20&after="+cursorOf["A2"])
		res <- polled{r, body}
	}()
	time.Sleep(500 * time.Millisecond)
	if err := cl.ProduceSync(ctx, typedOutput(ns, a, "A3", "ACK", "NEW", "")).FirstErr(); err != nil {
		t.Fatal(err)
	}
	select {
	case p := <-res:
		t.Fatalf("answered by an ACK: %s", p.body)
	case <-time.After(time.Second):
	}
	if err := cl.ProduceSync(ctx, typedOutput(ns, a, "G2", "ALG", "CANCEL", key)).FirstErr(); err != nil {
		t.Fatal(err)
	}
	p := <-res
	if ids(p.a) != "G2" || *p.a.Outputs[0].Function != "CANCEL" || p.a.Next != p.a.Outputs[0].Cursor {
		t.Fatalf("long poll: %s", p.body)
	}
	// b's filtered walk holds b's only.
	if _, r, body := getTyped(t, urls[0], b, "types=CNF,ALG"); ids(r) != "B1,B2" {
		t.Fatalf("b: %s", body)
	}
}
