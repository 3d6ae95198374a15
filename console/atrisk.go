package console

import (
	"bytes"
	"context"
	"github.com/ste-utility/ste/when"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ste-utility/ste/instance/api"
	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/query"
)

// The At-risk page (docs/timeliness.md): every instance running the match
// group lists its unmatched trades by market cutoff from its at-risk index
// (GET /at-risk); the page merges them, the earliest cutoff first, with what
// each trade still lacks and from whom, sums the allegements outstanding
// per participant and market over them, and refreshes itself.

type atRiskData struct {
	Market, Participant string
	Query               string // the filters as a query string, for the live part
	Now                 time.Time
	Rows                []atRiskRow
	Limit               int
	Truncated           bool
	Errors              []string
	// Allegements are the allegements outstanding per participant and
	// market over the Read trades the instances answered (each its
	// atRiskRead earliest cutoffs at most).
	Allegements []allegementRow
	Read        int
}

// allegementRow is what one participant owes in one market (messages.md
// §5a "Allegements": the items of a trade's missing list it owes, on a
// trade with a message in force from another sender — others have
// started it).
type allegementRow struct {
	Participant, Market string
	Items, Trades       int
	Cutoff              time.Time     // the earliest cutoff of those trades
	Left                time.Duration // until it (negative: past it)
	Since               time.Time     // owed since: the earliest Created of another party's message in force on those trades
}

type atRiskRow struct {
	query.AtRisk
	Instance string
	TradeRef string
	Left     time.Duration // negative: past the cutoff
	Status   string
}

const atRiskLimit = 200

// atRiskRead is how many trades each instance is asked for: the page lists
// the first atRiskLimit by cutoff, the allegements count all those read.
const atRiskRead = 500

func (s *Server) atRiskPage(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "atrisk", "At risk", s.atRisk(r))
}

func (s *Server) atRiskLive(w http.ResponseWriter, r *http.Request) {
	var b bytes.Buffer
	if err := s.pages.t["atrisk"].ExecuteTemplate(&b, "atrisk-table", s.atRisk(r)); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(shown(b.Bytes()))
}

func (s *Server) atRiskJSON(w http.ResponseWriter, r *http.Request) {
	d := s.atRisk(r)
	type row struct {
		query.AtRisk
		Instance    string  `json:"instance"`
		SecondsLeft float64 `json:"seconds_left"`
	}
	type alleged struct {
		Participant string    `json:"participant"`
		Market      string    `json:"market"`
		Items       int       `json:"items"`
		Trades      int       `json:"trades"`
		Since       time.Time `json:"owed_since"`
		Cutoff      time.Time `json:"earliest_cutoff"`
	}
	out := struct {
		Trades      []row     `json:"trades"`
		Allegements []alleged `json:"allegements"`
		Read        int       `json:"trades_read"`
		Errors      []string  `json:"errors"`
	}{Trades: []row{}, Allegements: []alleged{}, Read: d.Read, Errors: d.Errors}
	for _, a := range d.Allegements {
		out.Allegements = append(out.Allegements, alleged{a.Participant, a.Market, a.Items, a.Trades, a.Since, a.Cutoff})
	}
	for _, x := range d.Rows {
		out.Trades = append(out.Trades, row{x.AtRisk, x.Instance, x.Left.Seconds()})
	}
	if out.Errors == nil {
		out.Errors = []string{}
	}
	writeJSON(w, out)
}

func (s *Server) atRisk(r *http.Request) atRiskData {
	q := r.URL.Query()
	d := atRiskData{Market: strings.TrimSpace(q.Get("market")), Participant: strings.TrimSpace(q.Get("participant")),
		Limit: atRiskLimit, Now: time.Now().UTC()}
	v := url.Values{}
	if d.Market != "" {
		v.Set("market", d.Market)
	}
	if d.Participant != "" {
		v.Set("participant", d.Participant)
	}
	d.Query = v.Encode()
	v.Set("limit", strconv.Itoa(atRiskRead))
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	// The owners of the match partitions (as the match group says), on
	// their lookup listeners: the at-risk list is trade content.
	rt, err := s.lookup.Routing(ctx, false)
	if err != nil {
		d.Errors = append(d.Errors, err.Error())
	} else {
		if len(rt.Owners) == 0 {
			d.Errors = append(d.Errors, "no instance running the match group is known (is ste process running?)")
		}
		d.Errors = append(d.Errors, rt.Problems...)
		for _, o := range rt.Owners {
			var ans api.AtRiskAnswer
			if err := s.lookup.Get(ctx, o, "/at-risk", v, &ans); err != nil {
				d.Errors = append(d.Errors, err.Error())
				continue
			}
			for _, t := range ans.Trades {
				row := atRiskRow{AtRisk: t, Instance: ans.Instance, Left: t.Cutoff.Sub(d.Now), Status: statusOf(&t.Trade)}
				if len(t.Trade.Keys) > 0 {
					row.TradeRef = t.Trade.Keys[0].TradeRef
				}
				d.Rows = append(d.Rows, row)
			}
		}
	}
	slices.SortFunc(d.Rows, func(a, b atRiskRow) int {
		if c := a.Cutoff.Compare(b.Cutoff); c != 0 {
			return c
		}
		return strings.Compare(a.Trade.TradeKey, b.Trade.TradeKey)
	})
	d.Read = len(d.Rows)
	d.Allegements = allegementsOf(d.Rows, d.Participant, d.Now)
	if len(d.Rows) > d.Limit {
		d.Rows, d.Truncated = d.Rows[:d.Limit], true
	}
	return d
}

// allegementsOf sums the standing allegements of rows per participant
// (only participant's when not "") and market: the rule of messages.md
// §5a — the items of missing a participant owes, on a trade with a message
// in force from another sender. Most owed first.
func allegementsOf(rows []atRiskRow, participant string, now time.Time) []allegementRow {
	type key struct{ p, m string }
	by := map[key]*allegementRow{}
	for _, r := range rows {
		seen := map[string]bool{}
		for _, o := range r.Trade.Missing {
			if participant != "" && o.From != participant {
				continue
			}
			var since time.Time
			for _, m := range r.Trade.Messages {
				if m.InForce && m.Sender != o.From && (since.IsZero() || m.Created.Before(since)) {
					since = m.Created
				}
			}
			if since.IsZero() {
				continue // nobody else has started the trade: nothing is alleged
			}
			k := key{o.From, r.Market}
			a := by[k]
			if a == nil {
				a = &allegementRow{Participant: o.From, Market: r.Market, Cutoff: r.Cutoff, Since: since}
				by[k] = a
			}
			a.Items += max(o.Count, 1)
			if !seen[o.From] {
				seen[o.From] = true
				a.Trades++
			}
			if r.Cutoff.Before(a.Cutoff) {
				a.Cutoff = r.Cutoff
			}
			if since.Before(a.Since) {
				a.Since = since
			}
		}
	}
	out := make([]allegementRow, 0, len(by))
	for _, a := range by {
		a.Left = a.Cutoff.Sub(now)
		out = append(out, *a)
	}
	slices.SortFunc(out, func(a, b allegementRow) int {
		if a.Items != b.Items {
			return b.Items - a.Items
		}
		if c := a.Cutoff.Compare(b.Cutoff); c != 0 {
			return c
		}
		if c := strings.Compare(a.Participant, b.Participant); c != 0 {
			return c
		}
		return strings.Compare(a.Market, b.Market)
	})
	return out
}

// statusOf is the trade's status as docs/spec/gateway.md §4 names it.
func statusOf(v *matching.View) string {
	switch {
	case !v.Complete:
		return "INCOMPLETE"
	case v.State == "mismatched":
		return "MISMATCHED"
	case v.State == "matched":
		return "MATCHED"
	}
	return strings.ToUpper(v.State)
}

// leftText says how long until a cutoff, or how long past it.
func leftText(d time.Duration) string {
	past := d < 0
	if past {
		d = -d
	}
	// To the second within the hour (a cutoff just passed is not "past by
	// 0s"), to the minute beyond, in days from a day on.
	if d < time.Hour {
		d = d.Round(time.Second)
	} else {
		d = d.Round(time.Minute)
	}
	if past {
		return "past by " + when.Human(d)
	}
	return when.Human(d)
}
