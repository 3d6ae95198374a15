package console

import (
	"bytes"
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ste-utility/ste/analytics/report"
	"github.com/ste-utility/ste/instance/api"
	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/offline"
	"github.com/ste-utility/ste/processors/query"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/workload"
)

// realisticViews matches a realistic set (every investment manager MANUAL)
// and returns the views of its trades, as an instance answers them, and
// the book that holds them.
func realisticViews(t *testing.T) ([]matching.View, *matching.Book) {
	t.Helper()
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
	_, book, err := offline.Run(context.Background(), src, offline.Sinks{},
		offline.Options{Validator: validation.New(ref), Signer: signer})
	if err != nil {
		t.Fatal(err)
	}
	var out []matching.View
	book.Trades(func(tr *matching.Trade) { out = append(out, tr.ViewWith(ref)) })
	return out, book
}

// The Trades page shows a trade's lifecycle: its agreement, pending changes
// with the proposal, cancellation requests, affirmations with their
// states, parked SETs; the messages table and the journey mark held
// messages (pending, parked) apart from those merely out of force.
func TestTradePageShowsTheLifecycle(t *testing.T) {
	s := server(t, nil, true)
	render := func(v matching.View, js []journeyView) string {
		d := tradeData{Key: v.TradeKey, Found: true, Instance: "i1", Trade: api.TradeFound{Trade: v}, Journeys: js}
		held := heldMessages(&v)
		for i := range d.Journeys {
			d.Journeys[i].Held = held[d.Journeys[i].Sender+":"+d.Journeys[i].MsgId]
		}
		rec := httptest.NewRecorder()
		s.render(rec, httptest.NewRequest(http.MethodGet, "/trades/"+v.TradeKey, nil), http.StatusOK, "trade", "Trade", d)
		return rec.Body.String()
	}
	seen := map[string]bool{}
	views, _ := realisticViews(t)
	for _, v := range views {
		switch {
		case v.Proposal != nil && !seen["proposal"]:
			seen["proposal"] = true
			var pending matching.PendingView = v.Pending[0]
			html := render(v, []journeyView{{Journey: report.Journey{Sender: pending.Sender, MsgId: pending.MsgId, Outcome: "accepted", InboundPartition: -1}}})
			for _, want := range []string{`id="trade-lifecycle">CHANGE_PENDING`, `id="pending"`, `id="proposal"`, v.Proposal.MatchDigest[:16],
				`id="agreement-value">locked on`, `class="pending" data-msg="` + pending.Sender + ":" + pending.MsgId + `"`,
				`held: pending`, `id="affirmations"`, `COUNTED`} {
				if !strings.Contains(html, want) {
					t.Errorf("change pending %s: no %q", v.TradeKey, want)
				}
			}
		case len(v.Held) > 0 && !seen["held"]:
			seen["held"] = true
			h := v.Held[0]
			html := render(v, []journeyView{{Journey: report.Journey{Sender: h.Sender, MsgId: h.MsgId, Outcome: "accepted", InboundPartition: -1}}})
			for _, want := range []string{`id="held"`, `class="held" data-msg="` + h.Sender + ":" + h.MsgId + `"`, `>parked<`, `held: parked`,
				"no ALC in force names <code>" + h.Custodian + "</code>"} {
				if !strings.Contains(html, want) {
					t.Errorf("parked SET %s: no %q", v.TradeKey, want)
				}
			}
		case len(v.CancelRequests) > 0 && v.Cancelled && !seen["cancelled"]:
			seen["cancelled"] = true
			html := render(v, nil)
			for _, want := range []string{`id="trade-lifecycle">CANCELLED`, `id="cancel-requests"`, `>ACCEPTED<`, "none: cancelled by both principals"} {
				if !strings.Contains(html, want) {
					t.Errorf("cancelled %s: no %q", v.TradeKey, want)
				}
			}
		case v.Lifecycle == "AFFIRM_REJECTED" && !seen["rejected"]:
			seen["rejected"] = true
			if html := render(v, nil); !strings.Contains(html, `>REJECT<`) || !strings.Contains(html, "not locked") {
				t.Errorf("rejected %s: %.300s", v.TradeKey, html)
			}
		case v.State == "matched" && v.Lifecycle == "NONE" && len(v.Affirmations) == 0 && !seen["unaffirmed"]:
			seen["unaffirmed"] = true
			if html := render(v, nil); !strings.Contains(html, "matched, not affirmed") || strings.Contains(html, `id="trade-lifecycle"`) {
				t.Errorf("matched, not affirmed %s", v.TradeKey)
			}
		}
	}
	for _, k := range []string{"proposal", "held", "cancelled", "rejected", "unaffirmed"} {
		if !seen[k] {
			t.Errorf("the realistic set has no trade of kind %s", k)
		}
	}
}

// The overview counts trades by lifecycle from ste_trades_lifecycle:
// locked adds up, and the matched trades neither locked nor rejected are
// the ones not affirmed yet.
func TestOverviewLifecycleAddsUp(t *testing.T) {
	text := `# TYPE ste_trades gauge
ste_trades{status="matched"} 900
ste_trades{status="incomplete"} 60
# TYPE ste_trades_lifecycle gauge
ste_trades_lifecycle{lifecycle="affirmed"} 500
ste_trades_lifecycle{lifecycle="change_pending"} 20
ste_trades_lifecycle{lifecycle="cancel_pending"} 10
ste_trades_lifecycle{lifecycle="affirm_rejected"} 15
ste_trades_lifecycle{lifecycle="cancelled"} 25
`
	s, err := parseMetrics(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	other, _ := parseMetrics(strings.NewReader(text)) // a second instance
	s.add(other)
	l := lifecycleCounts(s, tradeCounts(s))
	if l.Affirmed != 1000 || l.Locked != 1060 || l.AffirmRejected != 30 || l.Cancelled != 50 || l.NotAffirmed != 1800-1060-30 {
		t.Errorf("%+v", l)
	}
}

// The At-risk page's allegements outstanding, computed from the trades'
// views, are the engine's standing allegements (what the utility sends as
// ALG): per participant, the same messages owed.
func TestAtRiskAllegementsAreTheEngines(t *testing.T) {
	views, book := realisticViews(t)
	var rows []atRiskRow
	for _, v := range views {
		rows = append(rows, atRiskRow{AtRisk: query.AtRisk{Market: "XSES", Trade: v}})
	}
	got := map[string]int{}
	for _, a := range allegementsOf(rows, "", time.Now()) {
		got[a.Participant] += a.Items
	}
	want := map[string]int{}
	book.Trades(func(tr *matching.Trade) {
		for _, a := range tr.StandingAllegements() {
			for _, o := range a.Items {
				want[a.Receiver] += max(o.Count, 1)
			}
		}
	})
	if len(want) == 0 || !maps.Equal(got, want) {
		t.Fatalf("console %v\nengine %v", got, want)
	}
	// One participant's, with the filter.
	for p, n := range want {
		only := allegementsOf(rows, p, time.Now())
		if len(only) != 1 || only[0].Participant != p || only[0].Items != n {
			t.Fatalf("%s: %+v, want %d items", p, only, n)
		}
		break
	}
}
