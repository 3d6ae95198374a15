package e2e

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/workload"
)

// demoUnmatched regenerates the demo's set (the same options give the same
// bytes) and returns the keys of the trades it plans to leave unmatched.
func demoUnmatched(t *testing.T, trades int) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	_, err := workload.Generate(workload.Options{Trades: trades, Mix: workload.Realistic, Ref: refdata.Default()},
		func([]byte) error { return nil },
		func(p workload.TradePlan) {
			if p.Outcome != "matched" {
				out[p.TradeKey] = true
			}
		})
	must(t, err)
	return out
}

// checkAtRisk: the demo's TradeDate is past, so every cutoff has passed:
// each unmatched trade is once in ste_trades_past_cutoff (summed over
// markets and instances), none is at risk, and the At-risk page lists each
// one, filterable by market and participant.
func checkAtRisk(t *testing.T, b *browser, console string, metrics promText, trades int, shots string, timeliness func() string) {
	unmatched := demoUnmatched(t, trades)
	if len(unmatched) == 0 {
		t.Fatal("the demo's set leaves no trade unmatched")
	}
	if got := int(metrics.sum("ste_trades_past_cutoff")); got != len(unmatched) {
		t.Errorf("ste_trades_past_cutoff sums to %d, the set leaves %d trades unmatched", got, len(unmatched))
	}
	if got := metrics.sum("ste_trades_at_risk"); got != 0 {
		t.Errorf("ste_trades_at_risk sums to %v with every cutoff past", got)
	}
	b.open(t, console+"at-risk")
	keys := b.evalStrings(t, `[...document.querySelectorAll('#atrisk tbody tr[data-trade]')].map(r => r.dataset.trade)`)
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k] || !unmatched[k] {
			t.Errorf("At-risk page: trade %s listed twice or not planned unmatched", k)
		}
		seen[k] = true
	}
	if len(seen) != len(unmatched) {
		t.Errorf("At-risk page lists %d trades, the set leaves %d unmatched", len(seen), len(unmatched))
	}
	if n := b.evalInt(t, `[...document.querySelectorAll('#atrisk tbody tr[data-trade] td.left')].filter(td => !td.textContent.startsWith('past by')).length`); n != 0 {
		t.Errorf("%d trades not shown past their cutoff", n)
	}
	if n := b.evalInt(t, `[...document.querySelectorAll('#atrisk tbody tr[data-trade]')].filter(r => r.querySelector('.badge').textContent === 'INCOMPLETE' && r.querySelector('td.missing').textContent.trim() === '').length`); n != 0 {
		t.Errorf("%d incomplete trades with nothing missing", n)
	}
	b.shot(t, shots, "at-risk")

	// By market: the rows of one market, as many as its series says.
	market := b.eval(t, `document.querySelector('#atrisk tbody tr[data-trade]').dataset.market`)
	b.open(t, console+"at-risk?market="+market)
	markets := b.evalStrings(t, `[...document.querySelectorAll('#atrisk tbody tr[data-trade]')].map(r => r.dataset.market)`)
	want := int(metrics.sum(`ste_trades_past_cutoff{market="` + market + `"}`))
	if len(markets) != want {
		t.Errorf("market %s: %d rows, ste_trades_past_cutoff says %d", market, len(markets), want)
	}
	for _, m := range markets {
		if m != market {
			t.Errorf("the market filter let %s through", m)
		}
	}
	// By participant: the owing party of the first trade's first missing
	// message is a party to every row shown.
	b.open(t, console+"at-risk")
	from := b.eval(t, `(document.querySelector('#atrisk tbody tr[data-trade] td.missing code') || {}).textContent || ''`)
	if from != "" {
		b.open(t, console+"at-risk?participant="+from)
		n := b.evalInt(t, `document.querySelectorAll('#atrisk tbody tr[data-trade]').length`)
		if n == 0 || n > len(unmatched) {
			t.Errorf("participant %s: %d rows", from, n)
		}
	}
	// The scorecards: per market, the trades add up to the trades driven,
	// the unmatched ones are past cutoff as the index says, and none
	// matched in time (the TradeDate is a month back).
	var rep struct {
		Markets []struct {
			Market     string `json:"market"`
			Trades     int    `json:"trades"`
			Matched    int    `json:"matched"`
			InTime     int    `json:"matched_in_time"`
			PastCutoff int    `json:"past_cutoff_unmatched"`
		} `json:"markets"`
		Participants []struct {
			Participant string `json:"participant"`
			Messages    int    `json:"messages"`
		} `json:"participants"`
	}
	must(t, json.Unmarshal([]byte(timeliness()), &rep))
	var sumTrades, sumPast, sumMatched int
	for _, m := range rep.Markets {
		sumTrades, sumPast, sumMatched = sumTrades+m.Trades, sumPast+m.PastCutoff, sumMatched+m.Matched
		if m.InTime != 0 {
			t.Errorf("timeliness %s: %d matched in time before a cutoff a month back", m.Market, m.InTime)
		}
		if want := int(metrics.sum(`ste_trades_past_cutoff{market="` + m.Market + `"}`)); m.PastCutoff != want {
			t.Errorf("timeliness %s: %d past cutoff, ste_trades_past_cutoff says %d", m.Market, m.PastCutoff, want)
		}
	}
	if sumTrades != trades || sumPast != len(unmatched) || sumMatched != trades-len(unmatched) {
		t.Errorf("timeliness: %d trades (%d matched, %d past cutoff) over the markets, the set drove %d (%d unmatched)",
			sumTrades, sumMatched, sumPast, trades, len(unmatched))
	}
	if len(rep.Participants) == 0 || rep.Participants[0].Messages == 0 {
		t.Errorf("timeliness: participants %+v", rep.Participants)
	}
	b.open(t, console+"history?report=timeliness")
	if txt := b.text(t, "main"); !strings.Contains(txt, "past cutoff unmatched") {
		t.Errorf("History page, timeliness: %.300s", txt)
	}
	b.shot(t, shots, "history-timeliness")

	// Live: the time of the figures moves without a reload.
	b.open(t, console+"at-risk")
	at := b.text(t, "#atrisk-count")
	b.poll(t, `document.querySelector('#atrisk-count').textContent !== `+strconv.Quote(at))
}
