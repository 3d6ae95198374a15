package e2e

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/workload"
)

// demoUnmatched regenerates the demo's set (the same options, reference
// data — the committed set with mixed affirmation modes — and day give the
// same bytes) and returns the keys of the trades it plans to leave
// unmatched (no CLS stands), and of those the ones left open: not
// cancelled by both principals (a cancelled trade has no message in force,
// and is not at risk).
func demoUnmatched(t *testing.T, trades int, day date.Date) (unmatched, open map[string]bool) {
	t.Helper()
	unmatched, open = map[string]bool{}, map[string]bool{}
	ref := refdata.WithAffirmation(refdata.Default(), refdata.AffirmationMixed)
	_, err := workload.Generate(workload.Options{Trades: trades, Mix: workload.Realistic, Ref: ref, TradeDate: day},
		func([]byte) error { return nil },
		func(p workload.TradePlan) {
			if p.Outcome != workload.OutcomeMatched {
				unmatched[p.TradeKey] = true
			}
			if p.Outcome != workload.OutcomeMatched && p.Outcome != workload.OutcomeCancelled {
				open[p.TradeKey] = true
			}
		})
	must(t, err)
	return unmatched, open
}

// demoScenario regenerates the demo's set and returns the key of its first
// trade built by scenario ("" when none).
func demoScenario(t *testing.T, trades int, day date.Date, scenario string) string {
	t.Helper()
	key := ""
	ref := refdata.WithAffirmation(refdata.Default(), refdata.AffirmationMixed)
	_, err := workload.Generate(workload.Options{Trades: trades, Mix: workload.Realistic, Ref: ref, TradeDate: day},
		func([]byte) error { return nil },
		func(p workload.TradePlan) {
			if p.Scenario == scenario && key == "" {
				key = p.TradeKey
			}
		})
	must(t, err)
	return key
}

// demoDay is the TradeDate of the demo's set (today's, issue 51), read from
// its first message.
func demoDay(t *testing.T, set []byte) date.Date {
	t.Helper()
	var d schemas.Decoder
	m, rej := d.Decode(bytes.SplitN(set, []byte("\n"), 2)[0])
	if rej != nil {
		t.Fatal(rej)
	}
	day, err := date.Parse(m.Key.TradeDate)
	must(t, err)
	return day
}

// cutoffOf is a market's cutoff for the demo's day (markets.csv of the
// default reference data; "-": 23:59 UTC).
func cutoffOf(market string, day date.Date) time.Time {
	_, at := refdata.Default().CutoffOf(market, day.String())
	return at
}

// checkAtRisk (issues 25, 51): the demo's trades are dated today, so the
// At-risk page and the timeliness report show today's picture: every
// unmatched trade listed once, those of a market whose cutoff has passed
// "past by" and the others with their time left, as many past cutoff as
// ste_trades_past_cutoff says; in the timeliness report every market whose
// cutoff is still ahead matched all its trades in time (the demo matched
// them minutes ago), one whose cutoff passed before the demo none; the
// trades matched today are all the matched ones.
func checkAtRisk(t *testing.T, b *browser, console string, metrics promText, trades int, shots string, day date.Date, demoStart time.Time,
	timeliness func() string) {
	unmatched, open := demoUnmatched(t, trades, day)
	if len(open) == 0 {
		t.Fatal("the demo's set leaves no trade unmatched")
	}
	if day != workload.Today() {
		t.Logf("the demo's day %s is not today %s any more (midnight UTC passed): the picture is not checked against the clock", day, workload.Today())
	}
	past, risk := int(metrics.sum("ste_trades_past_cutoff")), int(metrics.sum("ste_trades_at_risk"))
	if past+risk > len(open) {
		t.Errorf("ste_trades_past_cutoff %d + ste_trades_at_risk %d > the %d trades the set leaves open", past, risk, len(open))
	}
	// Cutoffs within a few minutes of now may pass during the check: their
	// markets are not held to the clock.
	settled := func(market string) bool {
		d := time.Until(cutoffOf(market, day))
		return (d > 3*time.Minute || d < -3*time.Minute) && day == workload.Today()
	}
	b.open(t, console+"at-risk")
	type row struct{ Trade, Market, Left string }
	var rows []row
	raw := b.eval(t, `JSON.stringify([...document.querySelectorAll('#atrisk tbody tr[data-trade]')].map(r => ({Trade: r.dataset.trade, Market: r.dataset.market, Left: r.querySelector('td.left').textContent})))`)
	must(t, json.Unmarshal([]byte(raw), &rows))
	seen := map[string]bool{}
	pastRows, allSettled := 0, true
	for _, r := range rows {
		if seen[r.Trade] || !open[r.Trade] {
			t.Errorf("At-risk page: trade %s listed twice or not planned open", r.Trade)
		}
		seen[r.Trade] = true
		isPast := strings.HasPrefix(r.Left, "past by")
		if isPast {
			pastRows++
		}
		if !settled(r.Market) {
			allSettled = false
			continue
		}
		if wantPast := time.Now().After(cutoffOf(r.Market, day)); isPast != wantPast {
			t.Errorf("At-risk page: trade %s of %s (cutoff %s) shows %q", r.Trade, r.Market, cutoffOf(r.Market, day).Format(time.RFC3339), r.Left)
		}
		if d, err := time.ParseDuration(strings.TrimPrefix(r.Left, "past by ")); err == nil && d >= 24*time.Hour {
			t.Errorf("At-risk page: %q counts days in hours", r.Left)
		}
	}
	if len(seen) != len(open) {
		t.Errorf("At-risk page lists %d trades, the set leaves %d open", len(seen), len(open))
	}
	if allSettled && pastRows != past {
		t.Errorf("At-risk page: %d trades past their cutoff, ste_trades_past_cutoff says %d", pastRows, past)
	}
	if n := b.evalInt(t, `[...document.querySelectorAll('#atrisk tbody tr[data-trade]')].filter(r => r.querySelector('.badge').textContent === 'INCOMPLETE' && r.querySelector('td.missing').textContent.trim() === '').length`); n != 0 {
		t.Errorf("%d incomplete trades with nothing missing", n)
	}
	// Allegements outstanding per participant and market (issue 46): the
	// incomplete trades' owed messages, each row a participant that owes.
	if n := b.evalInt(t, `document.querySelectorAll('#allegements tbody tr[data-participant]').length`); n == 0 {
		t.Errorf("At-risk page: no allegement outstanding, with %d open trades", len(open))
	}
	b.shot(t, shots, "at-risk")

	// By market: the rows of one market, as many as its series says.
	market := b.eval(t, `document.querySelector('#atrisk tbody tr[data-trade]').dataset.market`)
	b.open(t, console+"at-risk?market="+market)
	markets := b.evalStrings(t, `[...document.querySelectorAll('#atrisk tbody tr[data-trade]')].map(r => r.dataset.market)`)
	want := 0
	for _, r := range rows {
		if r.Market == market {
			want++
		}
	}
	if len(markets) != want {
		t.Errorf("market %s: %d rows, the whole list has %d", market, len(markets), want)
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
		if n == 0 || n > len(open) {
			t.Errorf("participant %s: %d rows", from, n)
		}
	}
	// The scorecards: per market, the trades add up to the trades driven;
	// a market whose cutoff is ahead matched every matched trade in time,
	// one whose cutoff passed before the demo none.
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
	var sumTrades, sumMatched, sumInTime int
	for _, m := range rep.Markets {
		sumTrades, sumMatched, sumInTime = sumTrades+m.Trades, sumMatched+m.Matched, sumInTime+m.InTime
		cut := cutoffOf(m.Market, day)
		switch {
		case !settled(m.Market):
		case cut.After(time.Now()) && m.InTime != m.Matched:
			t.Errorf("timeliness %s: %d of %d matched in time, with its cutoff %s still ahead", m.Market, m.InTime, m.Matched, cut.Format(time.RFC3339))
		case cut.Before(demoStart) && m.InTime != 0:
			t.Errorf("timeliness %s: %d matched in time, its cutoff %s passed before the demo", m.Market, m.InTime, cut.Format(time.RFC3339))
		}
	}
	if sumTrades != trades || sumMatched != trades-len(unmatched) {
		t.Errorf("timeliness: %d trades (%d matched) over the markets, the set drove %d (%d unmatched)",
			sumTrades, sumMatched, trades, len(unmatched))
	}
	t.Logf("today's picture: %d of %d matched in time, %d unmatched past cutoff, %d at risk", sumInTime, sumMatched, past, risk)
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
