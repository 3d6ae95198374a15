package e2e

import (
	"strconv"
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
func checkAtRisk(t *testing.T, b *browser, console string, metrics promText, trades int, shots string) {
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
	// Live: the time of the figures moves without a reload.
	at := b.text(t, "#atrisk-count")
	b.poll(t, `document.querySelector('#atrisk-count').textContent !== `+strconv.Quote(at))
}
