package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/testgate"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/workload"
)

// TestConsoleInABrowser runs `ste demo --console` and goes through the
// console in headless Chromium (issue 14): the overview's counts against
// `ste report counts` and the instances' /metrics; the exceptions page's
// filter; an UNKNOWN_SECURITY exception retried from its page after the
// missing security is loaded — an ACK on the outbound topic, the state
// "resolved", an audit record naming the exception and the operator — and
// a second retry without force refused; the same through `ste exceptions
// retry`, and a retry of a still-invalid message giving a new exception
// with retry_of; a console with tokens refusing a request without one and
// recording the signed-in operator, and saying so when ClickHouse and then
// the broker are gone; a trade's page with its journey. Every page is
// screenshotted into the test's artifact directory (go test -artifacts).
func TestConsoleInABrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo and a browser")
	}
	b := newBrowser(t)
	home, env := analyticsHome(t)
	env = append(env, "STE_OPERATOR=browser-op")
	shots := t.ArtifactDir()

	// The demo, kept running with its console.
	demoStart := time.Now()
	demo := startLines(t, env, "demo", "--trades", "300", "--console", "--console-addr", "127.0.0.1:0")
	out := demo.waitFor(t, regexp.MustCompile(`console: (http://\S+)`), 3*time.Minute)
	console := regexp.MustCompile(`console: (http://\S+)`).FindStringSubmatch(out)[1]
	ns := regexp.MustCompile(`namespace (demo[0-9t]+)`).FindStringSubmatch(out)[1]
	brokers := regexp.MustCompile(`listening on (\S+)`).FindStringSubmatch(out)[1]
	conn := kafkaconn.Plaintext(brokers)
	kafkaArgs := []string{"--brokers", brokers, "--namespace", ns}
	set, err := os.ReadFile(filepath.Join(home, "demo", "set.xml"))
	must(t, err)
	day := demoDay(t, set)
	if today := workload.Today(); day != today && day != today.AddDays(-1) { // yesterday: midnight UTC passed since
		t.Fatalf("the demo's set is dated %s, not today %s (issue 51)", day, today)
	}

	// ---- Overview: the run's counts, as ste report and /metrics give them.
	var counts struct{ CLS, Audit, Exceptions uint64 }
	must(t, json.Unmarshal([]byte(ste(t, env, "report", "counts", "--json", "--namespace", ns)), &counts))
	b.open(t, console)
	b.waitText(t, "#analytics-audit", num(counts.Audit)) // analytics is read every few seconds
	metrics := instanceMetrics(t, b.evalStrings(t, `[...document.querySelectorAll('#instances tbody tr td:nth-child(6) code')].map(c => c.textContent)`))
	for id, want := range map[string]string{
		"#analytics-cls":                      num(counts.CLS),
		"#analytics-exceptions":               num(counts.Exceptions),
		"#rejected-total":                     num(uint64(metrics.sum("ste_rejected_total"))),
		"#stage-validate [data-k=records-in]": num(uint64(metrics.sum(`ste_stage_records_in_total{stage="validate"}`))),
		"#stage-match [data-k=records-in]":    num(uint64(metrics.sum(`ste_stage_records_in_total{stage="match"}`))),
	} {
		if got := b.text(t, id); got != want {
			t.Errorf("overview %s = %q, want %q", id, got, want)
		}
	}
	// The open-trades gauge is sampled every 2 s and its labels are
	// dropped while a group restarts or rebalances, so one scrape of the
	// console's may predate the one read above: the page is live, so it
	// must come to show it.
	b.waitText(t, "#open-trades", num(uint64(metrics.sum("ste_open_trades"))))
	// Trades by status, from the match tables: the demo's own summary
	// (read back from the output topics) gives the same figures.
	summary := func(what string) uint64 {
		m := regexp.MustCompile(`trades ` + what + `[^.]* \.+ +(\d+)`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no 'trades %s' line in the demo's summary:\n%s", what, out)
		}
		n, _ := strconv.ParseUint(m[1], 10, 64)
		return n
	}
	// A trade both principals cancelled is held, with nothing in force:
	// ste_trades counts it as incomplete, the demo's summary apart.
	matched, mismatched, incomplete := summary("matched"), summary("mismatched"), summary("incomplete")+summary("cancelled")
	b.waitText(t, "#trades-matched", num(matched))
	// Dated today, every matched trade is matched today (issue 51: 0
	// before, the set weeks back).
	matchedToday := num(matched)
	if day != workload.Today() {
		matchedToday = "0" // midnight UTC passed during the test
	}
	for id, want := range map[string]string{
		"#trades-mismatched":    num(mismatched),
		"#trades-incomplete":    num(incomplete),
		"#trades-held":          num(matched + mismatched + incomplete),
		"#trades-open":          num(mismatched + incomplete),
		"#trades-expired":       "0", // the demo's trades are days inside their retention
		"#trades-matched-today": matchedToday,
		"#trades-share":         fmt.Sprintf("%.1f %%", 100*float64(matched)/float64(matched+mismatched+incomplete)),
	} {
		if got := b.text(t, id); got != want {
			t.Errorf("overview %s = %q, want %q (the demo's summary)", id, got, want)
		}
	}
	if got := uint64(metrics.sum("ste_trades_matched_today")); num(got) != matchedToday {
		t.Errorf("ste_trades_matched_today = %d, want %s", got, matchedToday)
	}
	// The three counts of CLS explain each other (issue 51): sent less the
	// re-sends is analytics' distinct count, which less the cancelled and
	// superseded is the matched trades.
	b.waitText(t, "#cls-distinct", num(counts.CLS))
	for id, want := range map[string]string{"#cls-standing": num(matched), "#cls-sent": num(uint64(metrics.sum(`ste_outputs_total{type="CLS"}`)))} {
		if got := b.text(t, id); got != want {
			t.Errorf("overview %s = %q, want %q", id, got, want)
		}
	}
	if b.text(t, "#cls-unreconciled") != "(missing)" {
		t.Errorf("the CLS counts do not reconcile: %s", b.text(t, "#cls-reconciled"))
	}
	// After the match (contract version 3): the trades by lifecycle, as
	// the demo's summary read them back from the output topics and as
	// ste_trades_lifecycle says; locked adds up.
	lifecycle := func(what string) uint64 {
		m := regexp.MustCompile(`  ` + regexp.QuoteMeta(what) + `[^.]* \.+ +(\d+)`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no %q line in the demo's summary:\n%s", what, out)
		}
		n, _ := strconv.ParseUint(m[1], 10, 64)
		return n
	}
	affirmed, changePending, cancelPending := lifecycle("affirmed: locked"), lifecycle("change pending"), lifecycle("cancel pending")
	cancelled := lifecycle("cancelled (CXL")
	for id, want := range map[string]uint64{
		"#lifecycle-affirmed":        affirmed,
		"#lifecycle-change-pending":  changePending,
		"#lifecycle-cancel-pending":  cancelPending,
		"#lifecycle-locked":          affirmed + changePending + cancelPending,
		"#lifecycle-affirm-rejected": lifecycle("affirmation rejected"),
		"#lifecycle-cancelled":       cancelled,
		"#lifecycle-not-affirmed":    lifecycle("matched, not affirmed"),
	} {
		if got := b.text(t, id); got != num(want) {
			t.Errorf("overview %s = %q, want %s (the demo's summary)", id, got, num(want))
		}
	}
	if got := uint64(metrics.sum(`ste_trades_lifecycle{lifecycle="affirmed"}`)); got != affirmed {
		t.Errorf("ste_trades_lifecycle{lifecycle=affirmed} = %d, the demo's summary %d", got, affirmed)
	}
	if got := uint64(metrics.sum(`ste_trades_lifecycle{lifecycle="cancelled"}`)); got != cancelled {
		t.Errorf("ste_trades_lifecycle{lifecycle=cancelled} = %d, the demo's summary %d", got, cancelled)
	}
	if affirmed == 0 || changePending == 0 {
		t.Errorf("the demo's 300 trades: %d affirmed, %d change pending — the realistic mix has both", affirmed, changePending)
	}
	if got := b.text(t, "#rejected-total"); got != num(counts.Exceptions) {
		t.Errorf("overview: %s rejections on /metrics, %d exceptions in analytics", got, counts.Exceptions)
	}
	// It is live: the sampled time moves without a reload.
	sampled := b.text(t, "#live p.muted")
	b.poll(t, `document.querySelector('#live p.muted').textContent !== `+strconv.Quote(sampled))
	b.shot(t, shots, "overview")
	checkAtRisk(t, b, console, metrics, 300, shots, day, demoStart, func() string { // issues 25, 51: e2e/atrisk_test.go
		return ste(t, env, "report", "timeliness", "--json", "--namespace", ns)
	})

	// ---- Exceptions: the filter.
	b.open(t, console+"exceptions")
	if got := b.text(t, "#selected"); got != strconv.FormatUint(counts.Exceptions, 10) {
		t.Errorf("exceptions page: %s selected, want all %d", got, counts.Exceptions)
	}
	b.shot(t, shots, "exceptions")
	must(t, chromedp.Do(b.ctx, chromedp.SetValue(chromedp.CSS(`#filter select[name=reason]`), "UNKNOWN_SENDER")))
	b.submit(t, "#filter button[type=submit]")
	reasons := b.evalStrings(t, `[...document.querySelectorAll('#exceptions tbody tr[data-id] td:nth-child(4)')].map(td => td.textContent)`)
	if len(reasons) == 0 || b.text(t, "#selected") != strconv.Itoa(len(reasons)) {
		t.Errorf("filtered by UNKNOWN_SENDER: %v rows, %s selected", reasons, b.text(t, "#selected"))
	}
	for _, r := range reasons {
		if r != "UNKNOWN_SENDER" {
			t.Errorf("the filter let %s through", r)
		}
	}
	b.shot(t, shots, "exceptions-filtered")

	// ---- Fix and retry. Three NOEs of the demo's set moved to a security
	// the reference data lacks: UNKNOWN_SECURITY until it is loaded.
	bad, sec := unknownSecurityNOEs(t, set, 2)
	still := invalidCurrencyNOE(t, set)
	cl, err := topics.Connect(context.Background(), conn)
	must(t, err)
	defer cl.Close()
	var dec schemas.Decoder
	send := func(rec []byte) {
		m, _ := dec.Decode(rec)
		must(t, cl.ProduceSync(context.Background(), &kgo.Record{Topic: ns + ".inbound", Key: topics.InboundKey(m), Value: rec}).FirstErr())
	}
	for _, r := range append(bad, still) {
		send(r)
	}
	ids := make([]string, len(bad))
	for i, r := range bad {
		m, _ := dec.Decode(r)
		ids[i] = b.exceptionOf(t, console, m.MsgId)
	}
	stillMsg, _ := dec.Decode(still)
	stillID := b.exceptionOf(t, console, stillMsg.MsgId)
	loadSecurity(t, env, kafkaArgs, sec)
	waitRefdata(t, send, conn, ns, bad[0])

	// Through the page: ticked in the list, then Retry selected.
	m0, _ := dec.Decode(bad[0])
	b.open(t, console+"exceptions?msg_id="+url.QueryEscape(m0.MsgId))
	b.eval(t, `document.querySelector('#exceptions input[name=id][value="`+ids[0]+`"]').click()`)
	b.click(t, "#retry-selected")
	if got := b.text(t, "#results .outcome"); got != "retried" {
		t.Fatalf("retry from the page: %q", got)
	}
	b.shot(t, shots, "retry-result")
	b.open(t, console+"exceptions/"+ids[0])
	for b.text(t, "#state") != "resolved" {
		time.Sleep(300 * time.Millisecond)
		b.open(t, console+"exceptions/"+ids[0])
	}
	ack := schemas.ACKId(m0.Sender, m0.MsgId)
	if got := b.text(t, "#ack"); got != ack || b.text(t, "#state-by") != "browser-op" {
		t.Errorf("resolved by %q with %q, want browser-op and %s", b.text(t, "#state-by"), got, ack)
	}
	b.shot(t, shots, "exception-resolved")
	checkACKAndAudit(t, conn, ns, ack, ids[0], "browser-op")
	// A second retry without force, from the exception's page, is refused.
	b.click(t, "#retry")
	if got := b.text(t, "#results .outcome"); got != "refused" {
		t.Errorf("a second retry without force: %q", got)
	}
	b.shot(t, shots, "retry-refused")

	// Through the command line: the other fixed one is ACKed and resolved,
	// the still-invalid one gives a new exception naming it.
	cli := ste(t, env, append([]string{"exceptions", "retry", ids[1], stillID, "--operator", "cli-op", "--json", "--wait", "60s"}, kafkaArgs...)...)
	var raw struct {
		Outcomes []map[string]string `json:"outcomes"`
	}
	must(t, json.Unmarshal([]byte(cli), &raw))
	m1, _ := dec.Decode(bad[1])
	if len(raw.Outcomes) != 2 || raw.Outcomes[0]["state"] != "resolved" || raw.Outcomes[0]["ack"] != schemas.ACKId(m1.Sender, m1.MsgId) ||
		raw.Outcomes[1]["rejected_as"] == "" || raw.Outcomes[1]["reason"] != "UNKNOWN_CURRENCY" {
		t.Fatalf("ste exceptions retry: %s", cli)
	}
	checkACKAndAudit(t, conn, ns, schemas.ACKId(m1.Sender, m1.MsgId), ids[1], "cli-op")
	var shown struct {
		Exception struct {
			RetryOf string `json:"retry_of"`
			State   struct{ State string }
		}
	}
	must(t, json.Unmarshal([]byte(ste(t, env, append([]string{"exceptions", "show", raw.Outcomes[1]["rejected_as"], "--json"}, kafkaArgs...)...)), &shown))
	if shown.Exception.RetryOf != stillID || shown.Exception.State.State != "open" {
		t.Errorf("the new exception of a still-invalid retry: %+v", shown.Exception)
	}
	list := ste(t, env, append([]string{"exceptions", "list", "--state", "resolved"}, kafkaArgs...)...)
	if !strings.Contains(list, ids[0]) || !strings.Contains(list, ids[1]) {
		t.Errorf("ste exceptions list --state resolved lacks %v:\n%s", ids, list)
	}

	// ---- The Trades page lists the trades whose status was sent last,
	// each a link to its page (issue 51: it was empty).
	b.open(t, console+"trades")
	recent := b.evalStrings(t, `[...document.querySelectorAll('#recent tbody tr[data-trade] a code')].map(c => c.textContent)`)
	if len(recent) == 0 || len(recent) > 20 {
		t.Errorf("the Trades page lists %d recent trades", len(recent))
	}
	b.shot(t, shots, "trades")
	if len(recent) > 0 {
		b.click(t, "#recent tbody tr[data-trade] a")
		if got := b.text(t, "#trade-key"); got != recent[0] {
			t.Errorf("the first recent trade's link led to %q, want %s", got, recent[0])
		}
	}

	// ---- The lifecycle on a trade's page (contract version 3): a trade
	// with a change held on its lock shows the agreement, the pending
	// change and the proposal, and its journey marks the held message.
	b.open(t, console+"trades?status=CHANGE_PENDING")
	pendingTrades := b.evalStrings(t, `[...document.querySelectorAll('#recent tbody tr[data-trade]')].map(r => r.dataset.trade)`)
	if len(pendingTrades) == 0 {
		t.Errorf("Trades filtered by CHANGE_PENDING lists none")
	} else {
		b.shot(t, shots, "trades-change-pending")
		b.open(t, console+"trades/"+pendingTrades[0])
		if got := b.text(t, "#trade-lifecycle"); got != "CHANGE_PENDING" {
			t.Errorf("trade %s: lifecycle %q", pendingTrades[0], got)
		}
		if n := b.evalInt(t, `document.querySelectorAll('#pending tbody tr').length`); n == 0 || !strings.HasPrefix(b.text(t, "#agreement-value"), "locked on") {
			t.Errorf("trade %s: %d pending changes, agreement %q", pendingTrades[0], n, b.text(t, "#agreement-value"))
		}
		if b.text(t, "#proposal") == "(missing)" || b.evalInt(t, `document.querySelectorAll('#messages tbody tr.pending').length`) == 0 ||
			b.evalInt(t, `document.querySelectorAll('#affirmations tbody tr').length`) == 0 {
			t.Errorf("trade %s: no proposal, pending message row or affirmation", pendingTrades[0])
		}
		b.poll(t, `document.querySelectorAll('#journeys .journey-held').length > 0`) // journeys are read from analytics
		b.shot(t, shots, "trade-change-pending")
		var held struct {
			Trades []struct {
				TradeKey string `json:"trade_key"`
				Pending  []struct {
					MsgId string `json:"msg_id"`
				} `json:"pending"`
				Proposal *struct {
					MatchDigest string `json:"match_digest"`
				} `json:"proposal"`
			} `json:"trades"`
		}
		must(t, json.Unmarshal([]byte(ste(t, env, append([]string{"exceptions", "held", pendingTrades[0], "--json"}, kafkaArgs...)...)), &held))
		if len(held.Trades) != 1 || held.Trades[0].TradeKey != pendingTrades[0] || len(held.Trades[0].Pending) == 0 || held.Trades[0].Proposal == nil {
			t.Errorf("ste exceptions held %s: %+v", pendingTrades[0], held)
		}
	}
	// A rogue custodian's SET (the realistic mix's parked_custodian): parked,
	// shown to the operator as such, by the page and by ste exceptions held.
	parked := demoScenario(t, 300, day, "parked_custodian")
	if parked == "" {
		t.Fatal("the demo's set has no parked SET")
	}
	b.open(t, console+"trades/"+parked)
	if n := b.evalInt(t, `document.querySelectorAll('#held tbody tr.held').length`); n == 0 ||
		b.evalInt(t, `document.querySelectorAll('#messages tbody tr.held').length`) == 0 {
		t.Errorf("trade %s: %d parked SETs shown", parked, n)
	}
	b.shot(t, shots, "trade-parked")
	heldText := ste(t, env, append([]string{"exceptions", "held"}, kafkaArgs...)...)
	if !strings.Contains(heldText, "trade "+parked) || !strings.Contains(heldText, "parked   SET") {
		t.Errorf("ste exceptions held (every open trade) does not list %s's parked SET:\n%s", parked, heldText)
	}

	// ---- A trade's page: found by TradeRef, its messages and journeys.
	first, _ := dec.Decode(bytes.SplitN(set, []byte("\n"), 2)[0])
	b.open(t, console+"trades")
	must(t, chromedp.Do(b.ctx, chromedp.SetValue(chromedp.CSS(`#trade-search input[name=q]`), first.Key.TradeRef)))
	b.submit(t, "#trade-search button")
	if got := b.text(t, "#trade-key"); got != first.Key.TradeKey().String() {
		t.Fatalf("TradeRef %s led to trade %q, want %s", first.Key.TradeRef, got, first.Key.TradeKey())
	}
	msgs := b.evalInt(t, `document.querySelectorAll('#messages tbody tr').length`)
	journeys := b.evalInt(t, `document.querySelectorAll('#journeys tbody tr').length`)
	steps := b.evalInt(t, `document.querySelectorAll('#journeys tbody tr .steps .step').length`)
	if msgs == 0 || journeys < msgs || steps < 3*msgs || b.text(t, "#trade-ref") != first.Key.TradeRef {
		t.Errorf("trade page: %d messages, %d journeys, %d steps", msgs, journeys, steps)
	}
	b.shot(t, shots, "trade")
	// The trade of the retried NOE has nothing but NOEs: its page says the
	// ALC is owed by its InvMgr (gateway.md §4, rule 2).
	b.open(t, console+"trades/"+m0.Key.TradeKey().String())
	if got := b.text(t, "#missing tbody tr:first-child"); !strings.Contains(got, "ALC") || !strings.Contains(got, m0.Key.InvMgr) {
		t.Errorf("trade %s of a lone NOE: missing %q, want the ALC from %s", m0.Key.TradeKey(), got, m0.Key.InvMgr)
	}
	b.shot(t, shots, "trade-missing")

	b.open(t, console+"history")
	b.poll(t, `document.querySelector('#chart').complete && document.querySelector('#chart').naturalWidth > 0`)
	b.shot(t, shots, "history")
	// Every report's page: titled by its report (issue 51: every one said
	// "Throughput history"), its chart drawn.
	for _, r := range []string{"throughput", "degradation", "latency", "queues", "exceptions", "timeliness", "allegements"} {
		b.open(t, console+"history?report="+r)
		// A chart, or why there is none (a 300-trade demo is shorter than
		// the monitor's interval: no queue has two samples).
		b.poll(t, `document.querySelector('#no-chart') || document.querySelector('#chart') && document.querySelector('#chart').complete && document.querySelector('#chart').naturalWidth > 0`)
		// Allegements: none when the instances allege after their delay
		// (60 s by default) and the demo's trades are answered before.
		if r != "queues" && r != "allegements" && b.text(t, "#no-chart") != "(missing)" {
			t.Errorf("History page of %s: %s", r, b.text(t, "#no-chart"))
		}
		if title := strings.ToLower(b.text(t, "#history-title")); !strings.Contains(title, map[string]string{"throughput": "throughput",
			"degradation": "degradation", "latency": "latency", "queues": "queues", "exceptions": "exceptions", "timeliness": "timeliness",
			"allegements": "allegements"}[r]) {
			t.Errorf("History page of %s titled %q", r, title)
		}
		b.shot(t, shots, "history-"+r)
	}
	// The error page.
	b.open(t, console+"trades/not-a-key")
	b.shot(t, shots, "error")
	// Every --plot: ste report's seven and ste plot's four, beside the
	// pages (allegements when the run sent any).
	plotFiles := map[string]string{}
	for _, r := range []string{"throughput", "degradation", "queues", "latency", "exceptions", "timeliness", "allegements"} {
		if r == "allegements" {
			var al struct{ Participants []json.RawMessage }
			if must(t, json.Unmarshal([]byte(ste(t, env, "report", r, "--namespace", ns, "--json")), &al)); len(al.Participants) == 0 {
				continue
			}
		}
		f := filepath.Join(shots, "plot-report-"+r+".png")
		ste(t, env, "report", r, "--namespace", ns, "--plot", f)
		plotFiles[r] = f
	}
	// DTCC's metric on the timeliness report: the demo's investment
	// managers affirmed some of their trades.
	var tl struct {
		Total struct {
			Affirmed uint64  `json:"affirmed"`
			Share    float64 `json:"share_affirmed_by_cutoff"`
		} `json:"total"`
	}
	must(t, json.Unmarshal([]byte(ste(t, env, "report", "timeliness", "--json", "--namespace", ns)), &tl))
	if tl.Total.Affirmed == 0 || tl.Total.Affirmed < affirmed {
		t.Errorf("timeliness: %d trades affirmed, the overview %d locked as affirmed", tl.Total.Affirmed, affirmed)
	}
	runs := filepath.Join("..", "docs", "benchmarks", "runs")
	var rates []string
	for _, r := range []string{"1000", "2000", "3000", "4000", "5000", "6000"} {
		rates = append(rates, filepath.Join(runs, "rate-"+r+".json"))
	}
	for kind, args := range map[string][]string{
		"littles":     rates,
		"instances":   {filepath.Join(runs, "instances-1.json"), filepath.Join(runs, "instances-2.json"), filepath.Join(runs, "instances-4.json")},
		"degradation": {filepath.Join(runs, "issue26-250k-1.json")},
		"timeline":    {filepath.Join(runs, "steady.json")},
	} {
		out := filepath.Join(shots, "plot-"+kind+".png")
		said := steAll(t, env, 0, append([]string{"plot", kind, "--out", out}, args...)...)
		files := []string{out}
		if kind == "timeline" {
			files = []string{filepath.Join(shots, "plot-timeline-queues.png"), filepath.Join(shots, "plot-timeline-latency.png")}
		}
		for _, f := range files {
			if !strings.Contains(said, "plot written to "+f) {
				t.Errorf("ste plot %s did not say it wrote %s: %q", kind, f, said)
			}
			plotFiles[filepath.Base(f)] = f
		}
	}
	for name, f := range plotFiles {
		if st, err := os.Stat(f); err != nil || st.Size() < 5000 {
			t.Errorf("plot %s: %v", name, err)
		}
	}

	// ---- A console with tokens; its ClickHouse does not answer.
	tokens := filepath.Join(t.TempDir(), "tokens")
	must(t, os.WriteFile(tokens, []byte("# operators\nalice:alice-token-0123456789\nbob:bob-token-0123456789abc\n"), 0o600))
	tc := startLines(t, env, append([]string{"console", "--addr", "127.0.0.1:0", "--auth-tokens", tokens,
		"--clickhouse", "http://127.0.0.1:1"}, kafkaArgs...)...)
	secured := regexp.MustCompile(`(http://\S+)`).FindStringSubmatch(tc.waitFor(t, regexp.MustCompile(`console for namespace \S+: http://\S+`), time.Minute))[1]
	for _, req := range []*http.Request{
		mustRequest(t, http.MethodGet, secured+"api/overview", ""),
		mustRequest(t, http.MethodGet, secured, ""),
		mustRequest(t, http.MethodPost, secured+"exceptions/archive", "id="+stillID),
	} {
		resp, err := http.DefaultClient.Do(req)
		must(t, err)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s %s without a token: %s", req.Method, req.URL.Path, resp.Status)
		}
	}
	b.open(t, secured+"exceptions/"+stillID)
	if b.eval(t, `document.querySelector('#login-msg') !== null`) != "true" {
		t.Error("a page without a token is not the sign-in page")
	}
	b.shot(t, shots, "signin")
	must(t, chromedp.Do(b.ctx, chromedp.SetValue(chromedp.CSS(`input[name=token]`), "bob-token-0123456789abc")))
	b.submit(t, "section.login button")
	b.click(t, "#archive")
	if got := b.text(t, "#results .outcome"); got != "archived" {
		t.Fatalf("archive through the secured console: %q", got)
	}
	b.open(t, secured+"exceptions/"+stillID)
	if b.text(t, "#state") != "archived" || b.text(t, "#state-by") != "bob" {
		t.Errorf("archived by %q (%q), want bob", b.text(t, "#state-by"), b.text(t, "#state"))
	}
	b.open(t, secured)
	b.waitText(t, "#analytics-error", "")
	b.shot(t, shots, "overview-no-analytics")

	// The demo stops cleanly; the other console then says the broker is gone.
	demo.stop(t, syscall.SIGINT)
	if !strings.Contains(demo.out(), "stopped: the console, the processors") {
		t.Errorf("the demo did not say it stopped:\n%s", demo.out())
	}
	b.open(t, secured)
	b.poll(t, `(document.querySelector('#kafka-error') || {}).textContent`)
	b.shot(t, shots, "overview-broker-gone")
	tc.stop(t, syscall.SIGINT)
}

// ---- the browser ----

type browser struct{ ctx context.Context }

// newBrowser starts headless Chromium from the OS packages (make test
// installs it); without one the test is skipped, but fails under CI=true.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	path := os.Getenv("STE_CHROMIUM")
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path != "" {
			break
		}
		path, _ = exec.LookPath(name)
	}
	if path == "" {
		testgate.Need(t, "Chromium (apt-get install chromium; make test does)", errors.New("not found"))
	}
	// The background-networking flags keep Chromium from dialling out: a
	// closed network refuses its connections.
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1440, 1000))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	ctx, stop := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(stop)
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	return &browser{ctx: ctx}
}

func (b *browser) open(t *testing.T, url string) {
	t.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.NavigateResponse(url)); err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
}

// click clicks a button that submits a form and waits for the next page.
func (b *browser) click(t *testing.T, sel string) {
	t.Helper()
	if _, err := chromedp.RunResponse(b.ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		t.Fatalf("click %s: %v", sel, err)
	}
}

func (b *browser) submit(t *testing.T, sel string) { b.click(t, sel) }

func (b *browser) text(t *testing.T, sel string) string {
	t.Helper()
	return b.eval(t, `(document.querySelector(`+strconv.Quote(sel)+`) || {textContent: "(missing)"}).textContent.trim()`)
}

func (b *browser) eval(t *testing.T, js string) string {
	t.Helper()
	raw, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]byte](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

func (b *browser) evalInt(t *testing.T, js string) int {
	t.Helper()
	n, _ := strconv.Atoi(b.eval(t, js))
	return n
}

func (b *browser) evalStrings(t *testing.T, js string) []string {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// poll waits until js is truthy in the page.
func (b *browser) poll(t *testing.T, js string) {
	t.Helper()
	if err := chromedp.Do(b.ctx, chromedp.Poll[chromedp.Void](js)); err != nil {
		t.Fatalf("waiting for %s: %v", js, err)
	}
}

// waitText waits until the element exists and, when want is set, shows it.
func (b *browser) waitText(t *testing.T, sel, want string) {
	t.Helper()
	cond := `document.querySelector(` + strconv.Quote(sel) + `)`
	if want != "" {
		cond = `(` + cond + ` || {}).textContent === ` + strconv.Quote(want)
	}
	// A page that navigates while it is polled (a reload, the answer of a
	// form) destroys the context the poll runs in: CDP answers "Cannot
	// find context with specified id" (-32000), and the poll is made again
	// in the new page's, a few times at most.
	var err error
	for range 5 {
		if err = chromedp.Do(b.ctx, chromedp.Poll[chromedp.Void](cond)); err == nil || !strings.Contains(err.Error(), "Cannot find context") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("%s never showed %q (shows %q): %v", sel, want, b.text(t, sel), err)
	}
}

// shot saves a screenshot of the whole page as NAME.png.
func (b *browser) shot(t *testing.T, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	must(t, os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644))
}

// exceptionOf waits until the console lists the exception of a MsgId and
// returns its id.
func (b *browser) exceptionOf(t *testing.T, console, msgID string) string {
	t.Helper()
	for start := time.Now(); time.Since(start) < time.Minute; time.Sleep(200 * time.Millisecond) {
		b.open(t, console+"exceptions?msg_id="+url.QueryEscape(msgID))
		if id := b.eval(t, `(document.querySelector('#exceptions tbody tr[data-id]') || {dataset: {id: ""}}).dataset.id`); id != "" {
			return id
		}
	}
	t.Fatalf("no exception of %s on the console", msgID)
	return ""
}

// ---- the data ----

// unknownSecurityNOEs are n NOEs of the set moved to one ISIN with a valid
// check digit that the reference data lacks, each under a MsgId of its own,
// signed again; and that security.
func unknownSecurityNOEs(t *testing.T, set []byte, n int) ([][]byte, refdata.Security) {
	t.Helper()
	var out [][]byte
	var sec refdata.Security
	for _, line := range bytes.Split(set, []byte("\n")) {
		if len(out) == n {
			break
		}
		d, err := schemas.ParseDraft(line)
		if err != nil || d.MsgType != "NOE" || d.Function != "NEW" {
			continue
		}
		if sec.ISIN == "" {
			s, ok := refdata.Default().Security(d.Get("ISIN"))
			if !ok {
				continue
			}
			sec = s
			sec.ISIN, sec.Name = refdata.ISINWithCheckDigit(s.ISIN[:2]+"ZZ7777777"), "Listed this morning"
			if _, known := refdata.Default().Security(sec.ISIN); known {
				t.Fatalf("%s is in the reference data", sec.ISIN)
			}
		} else if s, _ := refdata.Default().Security(d.Get("ISIN")); s.Country != sec.Country {
			continue // its settlement date is a business day of the security's market
		}
		d.Set("ISIN", sec.ISIN)
		d.MsgId += "-NEWSEC"
		out = append(out, d.AppendSigned(nil, refdata.DemoPrivateKey(d.Sender)))
	}
	if len(out) < n {
		t.Fatalf("the set has %d NOEs of one market, want %d", len(out), n)
	}
	return out, sec
}

// invalidCurrencyNOE is a NOE of the set with a currency no reference data
// knows: rejected however often it is retried.
func invalidCurrencyNOE(t *testing.T, set []byte) []byte {
	t.Helper()
	for _, line := range bytes.Split(set, []byte("\n")) {
		d, err := schemas.ParseDraft(line)
		if err != nil || d.MsgType != "NOE" || d.Function != "NEW" {
			continue
		}
		d.Set("TradeCcy", "XZZ")
		d.MsgId += "-BADCCY"
		return d.AppendSigned(nil, refdata.DemoPrivateKey(d.Sender))
	}
	t.Fatal("no NOE in the set")
	return nil
}

// loadSecurity loads one security with ste refdata load (a directory with
// the five files, four of them empty).
func loadSecurity(t *testing.T, env, kafkaArgs []string, sec refdata.Security) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"currencies.csv":   "code,minor_units\n",
		"countries.csv":    "code,name\n",
		"participants.csv": "bic,name,roles,country,status,public_key\n",
		"holidays.csv":     "country,date\n",
		"securities.csv":   fmt.Sprintf("isin,name,currency,country,status\n%s,%s,%s,%s,ACTIVE\n", sec.ISIN, sec.Name, sec.Currency, sec.Country),
	}
	for name, body := range files {
		must(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	ste(t, env, append([]string{"refdata", "load", "--dir", dir}, kafkaArgs...)...)
}

// waitRefdata waits until the processors validate with the new reference
// data (they follow it beside inbound): a copy of msg under a fresh MsgId
// is ACKed.
func waitRefdata(t *testing.T, send func([]byte), conn kafkaconn.Config, ns string, msg []byte) {
	t.Helper()
	for i := 0; i < 100; i++ {
		d, _ := schemas.ParseDraft(msg)
		d.MsgId += "-PROBE" + strconv.Itoa(i)
		send(d.AppendSigned(nil, refdata.DemoPrivateKey(d.Sender)))
		for wait := 0; wait < 20; wait++ {
			if onTopic(t, conn, ns+".outbound", "<MsgId>"+schemas.ACKId(d.Sender, d.MsgId)+"</MsgId>") != nil {
				return
			}
			if onTopic(t, conn, ns+".exceptions", `"msg_id":"`+d.MsgId+`"`) != nil {
				break // rejected: the reference data had not applied yet
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	t.Fatal("the new security never applied")
}

// onTopic returns the first record of topic containing s.
func onTopic(t *testing.T, conn kafkaconn.Config, topic, s string) *kgo.Record {
	t.Helper()
	var found *kgo.Record
	_, err := topics.Dump(context.Background(), conn, topic, func(r *kgo.Record) error {
		if found == nil && bytes.Contains(r.Value, []byte(s)) {
			found = r
		}
		return nil
	})
	must(t, err)
	return found
}

// checkACKAndAudit: the ACK is on the outbound topic, and an audit event
// of the accepted retry names the exception and the operator.
func checkACKAndAudit(t *testing.T, conn kafkaconn.Config, ns, ack, id, operator string) {
	t.Helper()
	if onTopic(t, conn, ns+".outbound", "<MsgId>"+ack+"</MsgId>") == nil {
		t.Errorf("no %s on %s.outbound", ack, ns)
	}
	var a schemas.AuditEvent
	if r := onTopic(t, conn, ns+".audit", `"retry_of":"`+id+`"`); r != nil {
		_ = schemas.EachAuditEvent(r.Value, func(ev schemas.AuditEvent) error {
			if ev.RetryOf == id {
				a = ev
			}
			return nil
		})
	}
	if a.Outcome != "accepted" || a.RetriedBy != operator {
		t.Errorf("audit event of the retry of %s: %+v, want accepted and retried by %s", id, a, operator)
	}
}

// ---- processes and endpoints ----

// lines is a running ste command whose output is read as it comes.
type lines struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	buf  bytes.Buffer
	done chan error
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lines) out() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func startLines(t *testing.T, env []string, args ...string) *lines {
	t.Helper()
	l := &lines{cmd: exec.Command(steBin, args...), done: make(chan error, 1)}
	l.cmd.Env = append(os.Environ(), env...)
	l.cmd.Stdout, l.cmd.Stderr = l, l
	must(t, l.cmd.Start())
	go func() { l.done <- l.cmd.Wait() }()
	t.Cleanup(func() { l.stop(t, syscall.SIGKILL) })
	return l
}

// waitFor waits until the output matches re and returns it.
func (l *lines) waitFor(t *testing.T, re *regexp.Regexp, d time.Duration) string {
	t.Helper()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if out := l.out(); re.MatchString(out) {
			return out
		}
		select {
		case err := <-l.done:
			l.done <- err
			t.Fatalf("ste %s ended (%v) before %s:\n%s", strings.Join(l.cmd.Args[1:], " "), err, re, l.out())
		default:
		}
	}
	t.Fatalf("ste %s: no %s within %v:\n%s", strings.Join(l.cmd.Args[1:], " "), re, d, l.out())
	return ""
}

func (l *lines) stop(t *testing.T, sig syscall.Signal) {
	if l.cmd.ProcessState != nil {
		return
	}
	l.cmd.Process.Signal(sig)
	select {
	case err := <-l.done:
		l.done <- err
		if err != nil && sig != syscall.SIGKILL {
			t.Errorf("ste %s after %v: %v\n%s", l.cmd.Args[1], sig, err, l.out())
		}
	case <-time.After(60 * time.Second):
		l.cmd.Process.Kill()
		t.Errorf("ste %s did not stop within 60 s", l.cmd.Args[1])
	}
}

func mustRequest(t *testing.T, method, url, form string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(form))
	must(t, err)
	if form != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	return req
}

// promText is the instances' /metrics lines.
type promText []string

// instanceMetrics reads /metrics of each instance address.
func instanceMetrics(t *testing.T, addrs []string) promText {
	t.Helper()
	if len(addrs) == 0 {
		t.Fatal("the overview lists no instance address")
	}
	var out promText
	for _, a := range addrs {
		resp, err := http.Get("http://" + a + "/metrics")
		must(t, err)
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		resp.Body.Close()
		out = append(out, strings.Split(b.String(), "\n")...)
	}
	return out
}

// sum adds the values of the series whose name and labels start with
// prefix ("ste_rejected_total" is every reason).
func (p promText) sum(prefix string) float64 {
	total := 0.0
	for _, line := range p {
		if !strings.HasPrefix(line, prefix) || strings.HasPrefix(line, "#") {
			continue
		}
		rest := line[len(prefix):]
		if !strings.HasSuffix(prefix, "}") && !strings.HasPrefix(rest, "{") && !strings.HasPrefix(rest, " ") {
			continue // a longer metric name
		}
		f := strings.Fields(line)
		v, _ := strconv.ParseFloat(f[len(f)-1], 64)
		total += v
	}
	return total
}

// num writes a count as the console does: 12,345.
func num(n uint64) string {
	s := strconv.FormatUint(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
