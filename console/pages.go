package console

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/ste-utility/ste/analytics/charts"
	"github.com/ste-utility/ste/analytics/report"
	"github.com/ste-utility/ste/exceptions"
	"github.com/ste-utility/ste/instance/api"
	"github.com/ste-utility/ste/instance/lookup"
	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/termsafe"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/when"
)

var errNoAnalytics = errors.New("no analytics store configured")

// pages are the parsed templates, one set per page (each with the layout).
type pages struct{ t map[string]*template.Template }

var pageNames = []string{"overview", "history", "exceptions", "exception", "result", "trades", "trade", "login", "error", "atrisk"}

func loadPages() (*pages, error) {
	p := &pages{t: map[string]*template.Template{}}
	for _, name := range pageNames {
		t, err := template.New(name).Funcs(funcs).ParseFS(assets, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, err
		}
		p.t[name] = t
	}
	return p, nil
}

// page is what every page's template gets.
type page struct {
	Title, Nav string
	Namespace  string
	Who        string
	CSRF       string
	Banners    []string
	Data       any
}

func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, name, title string, data any, banners ...string) {
	pg := page{Title: title, Nav: name, Namespace: s.o.Namespace, CSRF: s.csrf, Data: data, Banners: banners}
	switch {
	case operator(r).Name != "":
		pg.Who = "signed in as " + operator(r).Name + " (" + string(operator(r).Role) + ")"
	case s.o.Tokens == nil && s.loopback:
		pg.Who = "loopback, no tokens: changes recorded as " + s.o.LocalOperator
	case s.o.Tokens == nil:
		pg.Who = "read-only: no tokens beyond loopback"
	}
	var b bytes.Buffer
	if err := s.pages.t[name].ExecuteTemplate(&b, "layout", pg); err != nil {
		s.log.Error("rendering a page", "page", name, "err", err)
		http.Error(w, "rendering "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(shown(b.Bytes()))
}

// shown is a rendered page or part with the characters that would change
// how text reads written as \uXXXX (termsafe): html/template escapes
// markup, not a participant's bidi override in a MsgId (U+202E shows
// "gpj.exe" as "exe.jpg") nor control characters. The templates hold
// neither, so only record text changes.
func shown(b []byte) []byte { return []byte(termsafe.Escape(string(b))) }

func (s *Server) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	s.render(w, r, status, "error", http.StatusText(status), msg)
}

func (s *Server) routes() http.Handler {
	if s.metrics == nil {
		s.metrics = newSelfMetrics(s.col)
	}
	mux := http.NewServeMux()
	static, _ := fs.Sub(assets, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.Handle("GET /metrics", s.metrics.handler())
	mux.HandleFunc("GET /login", s.loginPage)
	mux.HandleFunc("POST /login", s.login)
	mux.HandleFunc("POST /logout", s.logout)
	mux.HandleFunc("GET /{$}", s.overviewPage)
	mux.HandleFunc("GET /live", s.livePart)
	mux.HandleFunc("GET /api/overview", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, s.col.overview()) })
	mux.HandleFunc("GET /history", s.historyPage)
	mux.HandleFunc("GET /history/chart.svg", s.historyChart("svg"))
	mux.HandleFunc("GET /history/chart.png", s.historyChart("png"))
	mux.HandleFunc("GET /exceptions", s.exceptionsPage)
	mux.HandleFunc("GET /api/exceptions", s.exceptionsJSON)
	mux.HandleFunc("GET /exceptions/{id}", s.exceptionPage)
	mux.HandleFunc("POST /exceptions/retry", s.change(true))
	mux.HandleFunc("POST /exceptions/archive", s.change(false))
	mux.HandleFunc("GET /trades", s.tradesPage)
	mux.HandleFunc("GET /trades/{key}", s.tradePage)
	mux.HandleFunc("GET /at-risk", s.atRiskPage)
	mux.HandleFunc("GET /at-risk/live", s.atRiskLive)
	mux.HandleFunc("GET /api/at-risk", s.atRiskJSON)
	return s.guard(s.auth(s.metrics.count(mux)))
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(v)
}

// ---- access ----

func (s *Server) refuse(w http.ResponseWriter, r *http.Request) {
	s.metrics.refusals.Inc()
	if strings.HasPrefix(r.URL.Path, "/api/") || r.Method != http.MethodGet {
		w.Header().Set("WWW-Authenticate", `Bearer realm="ste console"`)
		http.Error(w, "a token is required (Authorization: Bearer TOKEN, or sign in at /login)", http.StatusUnauthorized)
		return
	}
	s.render(w, r, http.StatusUnauthorized, "login", "Sign in", loginData{Next: r.URL.RequestURI(),
		Msg: "This console needs a token."})
}

type loginData struct{ Next, Msg string }

func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	if s.o.Tokens == nil {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	s.render(w, r, http.StatusOK, "login", "Sign in", loginData{Next: localPath(r.URL.Query().Get("next"))})
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	next := localPath(r.FormValue("next"))
	tok := strings.TrimSpace(r.FormValue("token"))
	if s.o.Tokens == nil || s.tokenName(tok).Name == "" {
		s.render(w, r, http.StatusUnauthorized, "login", "Sign in", loginData{Next: next, Msg: "That token is not known."})
		return
	}
	http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: tok, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: overTLS(r)})
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: overTLS(r)})
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// overTLS: the browser reached the console over HTTPS — its own TLS, or a
// TLS-terminating proxy saying so in X-Forwarded-Proto — so the token
// cookie is Secure: the browser never sends it over plain HTTP. (Trusting
// the header here can only withhold the cookie, never expose it.)
func overTLS(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(strings.TrimSpace(r.Header.Get("X-Forwarded-Proto")), "https")
}

// checkCSRF refuses a change that did not come from one of this console's
// own forms (another site's page posting to a loopback console).
func (s *Server) checkCSRF(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" {
		return false
	}
	if s.o.Tokens != nil && strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
		// A script with a token (auth checked it), not a browser's ambient
		// cookie. Without tokens the header proves nothing: anyone can send it.
		return true
	}
	return sameSecret(r.FormValue("csrf"), s.csrf)
}

// ---- overview ----

func (s *Server) overviewPage(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "overview", "Overview", s.col.overview())
}

// livePart is the overview's live section alone: the page's script swaps
// it in every second.
func (s *Server) livePart(w http.ResponseWriter, r *http.Request) {
	var b bytes.Buffer
	if err := s.pages.t["overview"].ExecuteTemplate(&b, "live", s.col.overview()); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(shown(b.Bytes()))
}

// ---- history ----

// historyReports are the History page's reports: those analytics/charts
// draws (the report registry's).
var historyReports = report.Charted

type historyData struct {
	Heading                          string
	Report, Since, Until, By, Window string
	Reports                          []string
	Query                            template.URL
	Text                             string
	Err                              string
	// NoChart says why the report has no chart (too little in its range).
	NoChart string
}

func (s *Server) historyParams(q url.Values) (string, report.Params, error) {
	name := q.Get("report")
	if name == "" {
		name = "throughput"
	}
	if !slices.Contains(historyReports, name) {
		return "", report.Params{}, fmt.Errorf("unknown report %q", name)
	}
	p := report.Params{Namespace: s.o.Namespace, Series: name == "queues"}
	var err error
	if p.Since, err = when.Time(q.Get("since")); err != nil {
		return "", p, fmt.Errorf("since: %v", err)
	}
	if p.Until, err = when.Time(q.Get("until")); err != nil {
		return "", p, fmt.Errorf("until: %v", err)
	}
	p.Step, _ = report.Step(q.Get("by")) // anything else: the report's choice
	if w := q.Get("window"); w != "" {
		if p.Window, err = when.Duration(w); err != nil {
			return "", p, fmt.Errorf("window %q: a duration such as 10s or 5m", w)
		}
	}
	return name, p, nil
}

func (s *Server) historyPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := historyData{Report: q.Get("report"), Since: q.Get("since"), Until: q.Get("until"), By: q.Get("by"),
		Window: q.Get("window"), Reports: historyReports, Query: template.URL(q.Encode())}
	if d.Report == "" {
		d.Report = "throughput"
	}
	d.Heading = "History"
	if rep, ok := report.Lookup(d.Report); ok && rep.Title != "" {
		d.Heading = rep.Title
	}
	name, p, err := s.historyParams(q)
	if err == nil {
		var res report.Result
		if res, err = s.runReport(r.Context(), name, p); err == nil {
			var b strings.Builder
			res.WriteText(&b)
			d.Text = b.String()
			if cerr := charts.Check(res); cerr != nil {
				d.NoChart = cerr.Error()
			}
		}
	}
	if err != nil {
		d.Err = err.Error()
	}
	s.render(w, r, http.StatusOK, "history", "History: "+d.Report, d)
}

func (s *Server) runReport(ctx context.Context, name string, p report.Params) (report.Result, error) {
	st, err := s.store.get(ctx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return report.Run(ctx, st, name, p)
}

// historyChart serves the report's chart as a PNG (the page's: drawn with
// the fonts it was measured with) or an SVG (its fonts embedded).
func (s *Server) historyChart(format string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name, p, err := s.historyParams(r.URL.Query())
		var res report.Result
		if err == nil {
			res, err = s.runReport(r.Context(), name, p)
		}
		var b bytes.Buffer
		if err == nil {
			err = charts.Render(res, format, 14, 6, &b) // wider than a plot file: the page is
		}
		if err != nil {
			status := http.StatusServiceUnavailable
			if errors.Is(err, charts.ErrNoData) {
				status = http.StatusNotFound
			}
			http.Error(w, err.Error(), status)
			return
		}
		w.Header().Set("Content-Type", map[string]string{"svg": "image/svg+xml", "png": "image/png"}[format])
		w.Header().Set("Cache-Control", "no-store")
		w.Write(b.Bytes())
	}
}

// ---- exceptions ----

// filterForm is the exceptions filter as the form has it.
type filterForm struct {
	Since, Until, Sender, Reason, MsgId, State string
}

func (f filterForm) filter() (exceptions.Filter, error) { return f.parse("") }

// actionFilter is what "all of the filter" acts on: the filter's
// exceptions, the open ones unless it names a state (as ste exceptions
// retry without ids).
func (f filterForm) actionFilter() (exceptions.Filter, error) { return f.parse(exceptions.Open) }

// parse reads the form (exceptions.FilterText, as ste exceptions reads its
// flags).
func (f filterForm) parse(def exceptions.State) (exceptions.Filter, error) {
	flt, err := exceptions.FilterText(f).Parse(def)
	var fe *exceptions.FilterError
	if errors.As(err, &fe) && fe.Field == "state" {
		return flt, fmt.Errorf("state %q", fe.Value)
	}
	return flt, err
}

// With returns the form's query with one field set (a group's link).
func (f filterForm) With(field, value string) template.URL {
	q := f.values()
	q.Set(field, value)
	return template.URL(q.Encode())
}

// Query is the form's query string.
func (f filterForm) Query() template.URL { return template.URL(f.values().Encode()) }

func (f filterForm) values() url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"since": f.Since, "until": f.Until, "sender": f.Sender, "reason": f.Reason,
		"msg_id": f.MsgId, "state": f.State} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

func formOf(get func(string) string) filterForm {
	return filterForm{Since: get("since"), Until: get("until"), Sender: get("sender"), Reason: get("reason"),
		MsgId: get("msg_id"), State: get("state")}
}

// maxGroups is how many senders the page lists (the largest groups).
const maxGroups = 15

// maxRows is how many exceptions a page lists (a retry of the whole filter
// result takes every one).
const maxRows = 200

type exceptionsData struct {
	Form               filterForm
	Total, Selected    int
	ForAll             int // what "all of the filter" acts on
	Rows               []exceptions.Exception
	More               int
	ByReason, BySender []exceptions.Group
	MoreSenders        int
	States             []exceptions.State
	Reasons            []string
	CaughtUp           bool
	ChangeErr          string
	Err                string
}

func (s *Server) exceptionsPage(w http.ResponseWriter, r *http.Request) {
	d := exceptionsData{Form: formOf(r.URL.Query().Get), States: exceptions.States, CaughtUp: s.book.CaughtUp(),
		Total: s.book.Len()}
	for _, rs := range schemas.Reasons {
		d.Reasons = append(d.Reasons, rs.String())
	}
	d.Reasons = append(d.Reasons, schemas.Internal.String())
	if _, err := s.canChange(r); err != nil {
		d.ChangeErr = err.Error()
	}
	flt, err := d.Form.filter()
	if err != nil {
		d.Err = err.Error()
		s.render(w, r, http.StatusBadRequest, "exceptions", "Exceptions", d)
		return
	}
	list := s.book.List(flt)
	d.Selected = len(list)
	if all, err := d.Form.actionFilter(); err == nil {
		d.ForAll = len(s.book.List(all))
	}
	d.ByReason, d.BySender = exceptions.Groups(list)
	if len(d.BySender) > maxGroups {
		d.MoreSenders, d.BySender = len(d.BySender)-maxGroups, d.BySender[:maxGroups]
	}
	if len(list) > maxRows {
		d.More, list = len(list)-maxRows, list[:maxRows]
	}
	d.Rows = list
	var banners []string
	if n := s.book.Unproven(); n > 0 {
		banners = append(banners, fmt.Sprintf("%d records on %s.exceptions or %s.exception-states were skipped: they lack the utility's proof "+
			"(written by someone other than the utility, or under another utility secret)", n, s.o.Namespace, s.o.Namespace))
	}
	s.render(w, r, http.StatusOK, "exceptions", "Exceptions", d, banners...)
}

func (s *Server) exceptionsJSON(w http.ResponseWriter, r *http.Request) {
	flt, err := formOf(r.URL.Query().Get).filter()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	list := s.book.List(flt)
	if list == nil {
		list = []exceptions.Exception{}
	}
	writeJSON(w, list)
}

type exceptionData struct {
	E          exceptions.Exception
	Fields     []exceptions.Field
	FieldsErr  string
	Raw        string
	NACK       string
	NACKParsed *schemas.Received
	NACKErr    string
	TradeKey   string
	RetryOfOK  bool
	ChangeErr  string
	RetryNeeds string
}

func (s *Server) exceptionPage(w http.ResponseWriter, r *http.Request) {
	e, ok := s.book.Get(r.PathValue("id"))
	if !ok {
		msg := "No exception " + r.PathValue("id") + " in namespace " + s.o.Namespace + "."
		if !s.book.CaughtUp() {
			msg += " (The console is still reading the exceptions topic.)"
		}
		s.fail(w, r, http.StatusNotFound, msg)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	d := exceptionData{E: e}
	if _, err := s.canChange(r); err != nil {
		d.ChangeErr = err.Error()
	}
	if e.State.State != exceptions.Open {
		d.RetryNeeds = "already " + string(e.State.State) + ": a retry needs force"
	}
	_, d.RetryOfOK = s.book.Get(e.RetryOf)
	sh := s.flow.Show(ctx, e)
	d.Fields, d.FieldsErr, d.NACKErr = sh.Fields, sh.FieldsErr, sh.NACKErr
	if sh.PayloadRead() {
		payload := sh.Exception.Payload
		d.Raw = string(payload)
		if d.FieldsErr != "" {
			d.FieldsErr = "not well-formed XML: " + d.FieldsErr
		}
		var dec schemas.Decoder
		if m, _ := dec.Decode(payload); m != nil && m.Key.TradeRef != "" && m.Key.ISIN != "" {
			d.TradeKey = m.Key.TradeKey().String()
		}
	}
	if sh.NACKErr == "" {
		d.NACK = sh.NACK
		d.NACKParsed, _ = schemas.ParseOutput([]byte(sh.NACK))
	}
	s.render(w, r, http.StatusOK, "exception", "Exception "+e.ID, d)
}

type resultData struct {
	Action  string
	Results []exceptions.Result
	Back    template.URL
}

// change is a retry or an archive: of the ids checked, or of every
// exception the posted filter selects ("all").
func (s *Server) change(retry bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil || !s.checkCSRF(r) {
			s.fail(w, r, http.StatusForbidden, "This request did not come from the console's own page (reload it and try again).")
			return
		}
		op, err := s.canChange(r)
		if err != nil {
			s.fail(w, r, http.StatusForbidden, err.Error())
			return
		}
		form := formOf(r.PostForm.Get)
		ids := r.PostForm["id"]
		if r.PostForm.Get("all") != "" {
			flt, err := form.actionFilter()
			if err != nil {
				s.fail(w, r, http.StatusBadRequest, err.Error())
				return
			}
			ids = nil
			for _, e := range s.book.List(flt) {
				ids = append(ids, e.ID)
			}
		}
		if len(ids) == 0 {
			s.fail(w, r, http.StatusBadRequest, "No exception selected.")
			return
		}
		o := exceptions.Options{Operator: op.Name, Role: string(op.Role), Force: r.PostForm.Get("force") != "", DryRun: r.PostForm.Get("dry_run") != "",
			Note: r.PostForm.Get("note")}
		ctx, cancel := context.WithTimeout(r.Context(), time.Minute)
		defer cancel()
		var res []exceptions.Result
		action := "Archive"
		if retry {
			action = "Retry"
			res, err = s.flow.Retry(ctx, ids, o)
		} else {
			res, err = s.flow.Archive(ctx, ids, o)
		}
		if err != nil {
			s.fail(w, r, http.StatusBadRequest, err.Error())
			return
		}
		for _, x := range res {
			s.metrics.changes.WithLabelValues(strings.ToLower(action), x.Outcome).Inc()
		}
		back := "/exceptions?" + string(form.Query())
		if len(ids) == 1 && r.PostForm.Get("from") == "detail" {
			back = "/exceptions/" + url.PathEscape(ids[0])
		}
		if strings.Contains(r.Header.Get("Accept"), "application/json") {
			writeJSON(w, res)
			return
		}
		s.render(w, r, http.StatusOK, "result", action, resultData{Action: action, Results: res, Back: template.URL(back)})
	}
}

// ---- trades ----

type tradesData struct {
	Q         string
	Found     []tradeHit
	Errors    []string
	Recent    []recentTrade
	RecentErr string
	// Status filters the recent trades by their last STATUS's value
	// (Statuses lists the values offered).
	Status   string
	Statuses []string
}

// recentStatuses are the values the recent trades can be filtered by: the
// STATUS values of messages.md §6, version 3's lifecycle included.
var recentStatuses = []string{"MATCHED", "MISMATCHED", "AFFIRMED", "AFFIRM_REJECTED", "CHANGE_PENDING", "CANCEL_PENDING", "CANCELLED", "UNMATCHED", "EXPIRED"}

type tradeHit struct {
	Instance  string
	Partition int32
	Trade     tradeSummary
}

type tradeSummary struct {
	TradeKey, TradeRef, State, LastStatus, Lifecycle string
	Messages                                         int
	Newest                                           time.Time
	Missing                                          []matching.Owed
}

func (s *Server) tradesPage(w http.ResponseWriter, r *http.Request) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	d := tradesData{Q: q, Statuses: recentStatuses, Status: r.URL.Query().Get("status")}
	if d.Status != "" && !slices.Contains(recentStatuses, d.Status) {
		s.fail(w, r, http.StatusBadRequest, "status: one of "+strings.Join(recentStatuses, ", ")+".")
		return
	}
	if q == "" {
		// Something to look at: the trades whose status changed last.
		var err error
		if d.Recent, err = s.col.recent(r.Context(), d.Status); err != nil {
			d.RecentErr = err.Error()
		}
		s.render(w, r, http.StatusOK, "trades", "Trades", d)
		return
	}
	if _, ok := schemas.ParseTradeKey(q); ok {
		http.Redirect(w, r, "/trades/"+q, http.StatusSeeOther)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 15*time.Second)
	defer cancel()
	// Every owner searches its own partitions through their TradeRef
	// indexes (an operator sees every party's trades).
	hits, err := s.lookup.FindRef(ctx, lookup.Query{Ref: q, Limit: maxTradesListed})
	if err != nil {
		d.Errors = append(d.Errors, err.Error())
	}
	for _, h := range hits {
		t := h.Trade
		sum := tradeSummary{TradeKey: t.TradeKey, State: t.State, LastStatus: t.LastStatus, Lifecycle: t.Lifecycle, Messages: len(t.Messages),
			Newest: t.Newest, Missing: t.Missing}
		if len(t.Keys) > 0 {
			sum.TradeRef = t.Keys[0].TradeRef
		}
		d.Found = append(d.Found, tradeHit{Instance: h.Instance, Partition: h.Partition, Trade: sum})
	}
	if len(d.Found) == 1 && len(d.Errors) == 0 {
		http.Redirect(w, r, "/trades/"+d.Found[0].Trade.TradeKey, http.StatusSeeOther)
		return
	}
	s.render(w, r, http.StatusOK, "trades", "Trades", d)
}

// maxTradesListed bounds the trades a TradeRef search lists.
const maxTradesListed = 50

type tradeData struct {
	Key         string
	Found       bool
	Instance    string
	Partition   int32
	Trade       api.TradeFound
	Journeys    []journeyView
	JourneysErr string
	Errors      []string
}

// journeyView is a journey with its timeline: each stage's share of the
// time from the inbound record to the step, the bar as wide as the journey
// is long against the trade's longest.
type journeyView struct {
	report.Journey
	Segments []segment
	Width    float64 // percent
	// Held says, for an accepted message the trade holds out of force,
	// why: "pending" (a change held on a locked trade until both
	// principals affirm it, messages.md §5a step 9) or "parked" (a SET no
	// ALC in force names its Custodian for its Account, §5); "" otherwise.
	Held string
}

type segment struct {
	Stage, Event string
	At           time.Time
	After, Took  time.Duration // since the inbound record; since the previous step
	Pct          float64       // of the journey's total
}

func timelines(js []report.Journey) []journeyView {
	var longest time.Duration
	for _, j := range js {
		longest = max(longest, j.Total())
	}
	out := make([]journeyView, 0, len(js))
	for _, j := range js {
		v := journeyView{Journey: j}
		total := j.Total()
		if longest > 0 {
			v.Width = 100 * float64(total) / float64(longest)
		}
		prev := j.InboundAt
		for _, st := range j.Steps {
			sg := segment{Stage: st.Stage, Event: st.Event, At: st.At}
			if j.InboundPartition >= 0 {
				sg.After, sg.Took = st.At.Sub(j.InboundAt), st.At.Sub(prev)
				if total > 0 {
					sg.Pct = 100 * float64(sg.Took) / float64(total)
				}
			}
			prev = st.At
			v.Segments = append(v.Segments, sg)
		}
		out = append(out, v)
	}
	return out
}

// heldMessages are the trade's accepted messages held out of force, by
// token: "pending" or "parked" (journeyView.Held).
func heldMessages(v *matching.View) map[string]string {
	out := map[string]string{}
	for _, m := range v.Messages {
		switch {
		case m.Held:
			out[m.Sender+":"+m.MsgId] = "parked"
		case m.Pending:
			out[m.Sender+":"+m.MsgId] = "pending"
		}
	}
	return out
}

func (s *Server) tradePage(w http.ResponseWriter, r *http.Request) {
	key, ok := schemas.ParseTradeKey(r.PathValue("key"))
	if !ok {
		s.fail(w, r, http.StatusBadRequest, "A trade key is 16 lower-case hex digits.")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 15*time.Second)
	defer cancel()
	d := tradeData{Key: key.String()}
	// The owner of the trade's partition answers, as the match group says.
	if h, found, err := s.lookup.Find(ctx, key, ""); err != nil {
		d.Errors = append(d.Errors, err.Error())
	} else if found {
		d.Found, d.Instance, d.Trade = true, h.Instance, api.TradeFound{Partition: h.Partition, Trade: h.Trade}
	}
	if rt, err := s.lookup.Routing(ctx, false); err == nil {
		if !d.Found {
			d.Partition = topics.PartitionOf(key.String(), rt.Partitions)
		}
		d.Errors = append(d.Errors, rt.Problems...)
	}
	if st, err := s.store.get(ctx); err != nil {
		d.JourneysErr = err.Error()
	} else if js, err := report.Journeys(ctx, st, report.Params{Namespace: s.o.Namespace}, key.String()); err != nil {
		d.JourneysErr = err.Error()
	} else {
		d.Journeys = timelines(js.Journeys)
	}
	if d.Found {
		held := heldMessages(&d.Trade.Trade)
		for i := range d.Journeys {
			d.Journeys[i].Held = held[d.Journeys[i].Sender+":"+d.Journeys[i].MsgId]
		}
	}
	status := http.StatusOK
	if !d.Found && len(d.Journeys) == 0 {
		status = http.StatusNotFound
	}
	s.render(w, r, status, "trade", "Trade "+key.String(), d)
}
