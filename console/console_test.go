package console

import (
	"bytes"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/ste-utility/ste/analytics/report"
	"github.com/ste-utility/ste/processors/metrics"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/when"
)

// server is a console without Kafka behind it: enough for what refuses a
// request before any data is read.
func server(t *testing.T, tokens map[string]string, loopback bool) *Server {
	t.Helper()
	pg, err := loadPages()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var ps map[string]Principal
	if tokens != nil {
		ps = map[string]Principal{}
		for tok, name := range tokens {
			ps[tok] = Principal{Name: name, Role: Operator}
		}
	}
	return &Server{o: Options{Namespace: "t", Tokens: ps, LocalOperator: "me"}, ln: ln, loopback: loopback,
		csrf: "secret", pages: pg, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

func do(h http.Handler, method, target, token string, form url.Values) *httptest.ResponseRecorder {
	var body *strings.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else {
		body = strings.NewReader("")
	}
	req := httptest.NewRequest(method, target, body)
	req.Host = "127.0.0.1:8080"
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// With tokens every request needs one (the sign-in page and the static
// assets aside); a known token passes and names its operator; a change
// needs the page's CSRF value unless it carries a bearer token.
func TestTokensGuardEveryRequest(t *testing.T) {
	s := server(t, map[string]string{"tok-alice-0123456789": "alice"}, false)
	h := s.routes()
	for _, p := range []string{"/", "/api/overview", "/exceptions", "/trades/0123456789abcdef", "/history/chart.svg", "/healthz"} {
		if rec := do(h, http.MethodGet, p, "", nil); rec.Code != http.StatusUnauthorized {
			t.Errorf("GET %s without a token: %d", p, rec.Code)
		}
		if rec := do(h, http.MethodGet, p, "tok-bob-wrong", nil); rec.Code != http.StatusUnauthorized {
			t.Errorf("GET %s with an unknown token: %d", p, rec.Code)
		}
	}
	if rec := do(h, http.MethodPost, "/exceptions/retry", "", url.Values{"id": {"1-2"}, "csrf": {"secret"}}); rec.Code != http.StatusUnauthorized {
		t.Errorf("a retry without a token: %d", rec.Code)
	}
	if rec := do(h, http.MethodGet, "/", "", nil); !strings.Contains(rec.Body.String(), `name="token"`) {
		t.Error("a page without a token does not offer the sign-in form")
	}
	for _, p := range []string{"/login", "/static/console.css"} {
		if rec := do(h, http.MethodGet, p, "", nil); rec.Code != http.StatusOK {
			t.Errorf("GET %s: %d", p, rec.Code)
		}
	}
	if rec := do(h, http.MethodGet, "/healthz", "tok-alice-0123456789", nil); rec.Code != http.StatusOK {
		t.Errorf("GET /healthz with a token: %d", rec.Code)
	}
	// Signing in sets the cookie that later requests carry.
	rec := do(h, http.MethodPost, "/login", "", url.Values{"token": {"tok-alice-0123456789"}, "next": {"/exceptions"}})
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/exceptions" || len(rec.Result().Cookies()) != 1 {
		t.Fatalf("sign in: %d %v", rec.Code, rec.Header())
	}
	if rec := do(h, http.MethodPost, "/login", "", url.Values{"token": {"nope"}, "next": {"//evil.example"}}); rec.Code != http.StatusUnauthorized {
		t.Errorf("sign in with an unknown token: %d", rec.Code)
	}
	req := httptest.NewRequest(http.MethodGet, "/healthz", nil)
	req.AddCookie(rec.Result().Cookies()[0])
	got := httptest.NewRecorder()
	h.ServeHTTP(got, req)
	if got.Code != http.StatusOK {
		t.Errorf("with the sign-in cookie: %d", got.Code)
	}
	// A form post with the cookie but without the page's CSRF value.
	req = httptest.NewRequest(http.MethodPost, "/exceptions/archive", strings.NewReader("id=1-2"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(rec.Result().Cookies()[0])
	got = httptest.NewRecorder()
	h.ServeHTTP(got, req)
	if got.Code != http.StatusForbidden {
		t.Errorf("a change without the CSRF value: %d", got.Code)
	}
}

// Without tokens, a console beyond loopback refuses changes; on loopback it
// records them under the local operator.
func TestChangesWithoutTokens(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/exceptions/retry", nil)
	if _, err := server(t, nil, false).canChange(r); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("beyond loopback without tokens: %v", err)
	}
	rec := do(server(t, nil, false).routes(), http.MethodPost, "/exceptions/retry", "", url.Values{"id": {"1-2"}, "csrf": {"secret"}})
	if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "without --auth-tokens") {
		t.Errorf("a retry beyond loopback without tokens: %d %s", rec.Code, rec.Body.String())
	}
	if p, err := server(t, nil, true).canChange(r); err != nil || p.Name != "me" {
		t.Errorf("on loopback: %q %v", p.Name, err)
	}
}

func TestLoadTokens(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "t")
		os.WriteFile(p, []byte(body), 0o600)
		return p
	}
	m, err := LoadTokens(write("# ops\n\nalice: alice-token-0123456789\nbob:bob-token-0123456789xx\n"))
	if err != nil || m["alice-token-0123456789"] != (Principal{"alice", Operator}) || m["bob-token-0123456789xx"] != (Principal{"bob", Operator}) || len(m) != 2 {
		t.Fatalf("%v %v", m, err)
	}
	for _, bad := range []string{"", "alice\n", ":token-0123456789abcd\n", "alice:short\n",
		"alice:alice-token-0123456789\nalice:other-token-0123456789\n", "a:same-token-0123456789\nb:same-token-0123456789\n"} {
		if _, err := LoadTokens(write(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// The quantiles of the pipeline's own histograms, read from their text
// format, agree with what was observed; a difference of two readings holds
// only the observations between them.
func TestMetricsQuantiles(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := metrics.New(reg)
	read := func() *scrape {
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		for _, mf := range mfs {
			expfmt.MetricFamilyToText(&b, mf)
		}
		s, err := parseMetrics(&b)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for i := 1; i <= 1000; i++ {
		m.Processing.WithLabelValues("match").Observe(float64(i) * 1e-5) // 10 µs … 10 ms
	}
	m.Rejected.WithLabelValues("SCHEMA").Add(3)
	m.In.WithLabelValues("match").Add(1000)
	m.OpenTrades.WithLabelValues("0").Set(5)
	m.OpenTrades.WithLabelValues("1").Set(7)
	first := read()
	if first.rejected["SCHEMA"] != 3 || first.in["match"] != 1000 || first.openTrades != 12 {
		t.Fatalf("scrape %+v", first)
	}
	p50, ok := first.processing["match"].quantile(0.5)
	// Exponential buckets (factor 2): the estimate is within its bucket.
	if !ok || p50 < 2.5e-3 || p50 > 10e-3 {
		t.Fatalf("p50 %v, observed 5 ms", p50)
	}
	for i := 0; i < 100; i++ {
		m.Processing.WithLabelValues("match").Observe(0.1) // the slow ones, later
	}
	second := read()
	d := second.processing["match"].minus(first.processing["match"])
	if d == nil || d.count != 100 {
		t.Fatalf("difference %+v", d)
	}
	if q, _ := d.quantile(0.5); q < 0.05 || q > 0.2 {
		t.Fatalf("p50 of the last observations %v, want about 100 ms", q)
	}
	if first.processing["match"].minus(second.processing["match"]) != nil {
		t.Fatal("a reset (fewer observations) gave a difference")
	}
	if _, ok := (&hist{}).quantile(0.5); ok {
		t.Fatal("an empty histogram has a quantile")
	}
	total := newScrape()
	total.add(first)
	total.add(second)
	if total.processing["match"].count != 2100 || total.in["match"] != 2000 {
		t.Fatalf("sum of two instances %+v", total.processing["match"])
	}
	if v, _ := total.processing["match"].quantile(1); math.IsNaN(v) {
		t.Fatal("NaN")
	}
}

func TestFormats(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{num(1234567.0), "1,234,567"}, {num(int64(12)), "12"}, {num(uint64(1000)), "1,000"},
		{parts([]int32{0, 1, 2, 3, 6, 8, 9}), "0-3,6,8-9"}, {parts(nil), "none"},
		{leftText(-29 * time.Second), "past by 29s"}, {leftText(3*time.Hour + 20*time.Second), "3h00m"},
		{leftText(-(815*time.Hour + 58*time.Minute)), "past by 34d 0h"}, {leftText(6*time.Hour + time.Minute), "6h01m"},
		{durText(nil), "—"}, {durText(ptr(4e-5)), "40 µs"}, {durText(ptr(0.0123)), "12.3 ms"}, {durText(ptr(2.5)), "2.50 s"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	if s := string(spark([]float64{0, 1, 4, 2})); !strings.Contains(s, "<polyline points=") {
		t.Errorf("spark %s", s)
	}
}

func ptr(v float64) *float64 { return &v }

// TestOverviewAddsUp (issue 51): the overview's counts explain each other —
// the trades by status add up to the trades held, the CLS sent less the
// re-sends are analytics' distinct CLS, which less the cancelled and
// superseded are the matched trades — and a partition's event-time jump on
// an instance's /metrics is read for the banner, durations in days.
func TestOverviewAddsUp(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := metrics.New(reg)
	m.Out.WithLabelValues("CLS").Add(8926)
	m.ClockJumps.WithLabelValues("3").Add(2)
	m.ClockJump.WithLabelValues("3").Set(815*3600 + 58*60)
	m.ClockJumpAt.WithLabelValues("3").Set(1796570560)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, mf := range mfs {
		expfmt.MetricFamilyToText(&b, mf)
	}
	s, err := parseMetrics(&b)
	if err != nil {
		t.Fatal(err)
	}
	s.trades = map[string]float64{"matched": 8604, "mismatched": 995, "incomplete": 401}
	tc := tradeCounts(s)
	if tc.Held != 10000 || tc.Open != 1396 {
		t.Errorf("held %v, open %v; want 10000 and 1396", tc.Held, tc.Open)
	}
	c := clsCounts(s.outputs["CLS"], &report.CountsResult{CLS: 8784}, tc)
	if c.Sent != 8926 || c.Resent != 142 || c.Distinct != 8784 || c.Corrections != 180 || c.Standing != 8604 || c.Unreconciled != "" {
		t.Errorf("CLS %+v", c)
	}
	if c := clsCounts(100, &report.CountsResult{CLS: 8784}, tc); c.Unreconciled == "" {
		t.Error("fewer sent than distinct reconciles")
	}
	j := s.jumps["3"]
	if j.Count != 2 || j.By != (815*60+58)*time.Minute || j.At.Unix() != 1796570560 {
		t.Errorf("jump %+v", j)
	}
	if got := when.Human(j.By); got != "34d 0h" {
		t.Errorf("the jump reads %q", got)
	}
}

// TestStatusOfRecord: the Trades page's recent trades are read from STATUS
// outputs; other outputs are skipped.
func TestStatusOfRecord(t *testing.T) {
	tk, _ := schemas.ParseTradeKey("3f2a00aa11bb22cc")
	v := []byte("<Msg><Header><MsgId>x</MsgId><MsgType>STATUS</MsgType></Header><Body>" +
		string(schemas.StatusBody(tk, "BT1", schemas.Mismatched, nil)) + "</Body></Msg>")
	if r, ok := statusOfRecord(v); !ok || r.TradeKey != "3f2a00aa11bb22cc" || r.TradeRef != "BT1" || r.Status != "MISMATCHED" {
		t.Errorf("STATUS read as %+v %v", r, ok)
	}
	if _, ok := statusOfRecord([]byte("<Msg><Header><MsgType>ACK</MsgType></Header></Msg>")); ok {
		t.Error("an ACK read as a STATUS")
	}
}
