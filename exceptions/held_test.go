package exceptions

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/offline"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/workload"
)

// What ste exceptions held shows of a trade: its pending changes with the
// proposal both principals would affirm, its parked SETs and why, its
// unanswered cancellation requests — and nothing for a trade that holds
// nothing. The trades are a realistic set's, matched by ste match's engine.
func TestHeldShowsPendingAndParked(t *testing.T) {
	var recs [][]byte
	if _, err := workload.Generate(workload.Options{Trades: 400, Mix: workload.Realistic, Seed: 5},
		func(b []byte) error { recs = append(recs, b); return nil }, nil); err != nil {
		t.Fatal(err)
	}
	src, err := msgset.NewReader(bytes.NewReader(append(bytes.Join(recs, []byte("\n")), '\n')), "set.xml")
	if err != nil {
		t.Fatal(err)
	}
	ref := refdata.Default()
	signer := &schemas.Signer{BIC: refdata.DefaultUtilityBIC, Key: refdata.DemoPrivateKey(refdata.DefaultUtilityBIC)}
	_, book, err := offline.Run(context.Background(), src, offline.Sinks{}, offline.Options{Validator: validation.New(ref), Signer: signer})
	if err != nil {
		t.Fatal(err)
	}
	var ans HeldAnswer
	kinds := map[string]bool{}
	book.Trades(func(tr *matching.Trade) {
		v := tr.ViewWith(ref)
		h, ok := HeldOf(&v)
		switch {
		case v.Proposal != nil:
			kinds["pending"] = true
			if !ok || len(h.Pending) == 0 || h.Proposal == nil || h.Agreement == "" {
				t.Errorf("%s: %+v", v.TradeKey, h)
			}
		case len(v.Held) > 0:
			kinds["parked"] = true
			if !ok || len(h.Parked) != len(v.Held) {
				t.Errorf("%s: %+v", v.TradeKey, h)
			}
		case v.Lifecycle == "CANCEL_PENDING":
			kinds["request"] = true
			if !ok || len(h.CancelRequests) == 0 {
				t.Errorf("%s: %+v", v.TradeKey, h)
			}
		case v.Lifecycle == "AFFIRMED" && len(v.CancelRequests) == 0 && len(v.Pending) == 0:
			if ok {
				t.Errorf("%s holds nothing: %+v", v.TradeKey, h)
			}
		}
		if ok {
			ans.Trades = append(ans.Trades, h)
		}
	})
	if !kinds["pending"] || !kinds["parked"] || !kinds["request"] {
		t.Fatalf("kinds %v", kinds)
	}
	ans.Scanned = 400
	var b strings.Builder
	if err := WriteHeld(&b, "ns1", ans, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"namespace ns1: 400 open trade(s)", "  pending  ", "proposal ", "with Amends ", "  parked   SET ",
		"no ALC in force names", "  cancel   CXL ", "PENDING: awaiting the other principal's CXA or CXJ"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
	b.Reset()
	WriteHeld(&b, "ns1", HeldAnswer{Clear: []string{"BT1"}, Unknown: []string{"0123456789abcdef"}}, true)
	if !strings.Contains(b.String(), "holding nothing: BT1") || !strings.Contains(b.String(), "not held by any instance (never seen, or purged): 0123456789abcdef") {
		t.Errorf("%s", b.String())
	}
}
