package gateway

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/ste-utility/ste/processors/query"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/date"
)

// The work queue (docs/spec/gateway.md v2 §4c): GET /v1/trades without
// trade_ref. The gateway reads the question, asks every instance owning
// match partitions for the first page of its own (instance/lookup: each
// answers from its partitions' queue indexes, processors/query) and the
// lookup merges them by the order; the gateway holds nothing.

const defaultQueueLimit = 100

// queueOnly are the parameters of the work queue that the query by
// reference refuses (trade_date and limit are shared).
var queueOnly = []string{"after", "status", "lifecycle", "owes", "at_risk"}

// A queue cursor is a position (TradeDate, trade key), or the start: it
// holds no record, so it never expires and works on every instance. Its
// text is "1" (the start) or "1|YYYY-MM-DD|KEY", base64url without
// padding; one spelling per position.
const queueCursorStart = "1"

func queueCursor(p *query.QueuePos) string {
	s := queueCursorStart
	if p != nil {
		s += "|" + p.Date.String() + "|" + p.Key.String()
	}
	return base64.RawURLEncoding.EncodeToString([]byte(s))
}

// parseQueueCursor reads a cursor: the position (nil: the start).
func parseQueueCursor(c string) (*query.QueuePos, bool) {
	if len(c) == 0 || len(c) > 64 {
		return nil, false
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return nil, false
	}
	f := strings.Split(string(b), "|")
	var p *query.QueuePos
	switch {
	case len(f) == 1 && f[0] == queueCursorStart:
	case len(f) == 3 && f[0] == queueCursorStart:
		d, err := date.Parse(f[1])
		k, ok := schemas.ParseTradeKey(f[2])
		if err != nil || !ok {
			return nil, false
		}
		p = &query.QueuePos{Date: d, Key: k}
	default:
		return nil, false
	}
	if queueCursor(p) != c {
		return nil, false
	}
	return p, true
}

// queueList reads a comma list of values among allowed (none empty).
func queueList(q url.Values, name string, allowed []string) ([]string, bool) {
	if !q.Has(name) {
		return nil, true
	}
	vs := strings.Split(q.Get(name), ",")
	for _, v := range vs {
		if !slices.Contains(allowed, v) {
			return nil, false
		}
	}
	return vs, true
}

// queueFlag reads owes= or at_risk=: true or false.
func queueFlag(q url.Values, name string) (bool, bool) {
	switch q.Get(name) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, !q.Has(name)
}

// serveQueue answers GET /v1/trades?trade_date=D&status=S,…&lifecycle=L,…
// &owes=true&at_risk=true&after=CURSOR&limit=N: bic's own trades, a page
// at a time.
func (s *Server) serveQueue(w http.ResponseWriter, r *http.Request, q url.Values, bic string) {
	const route = "trades"
	bad := func() { s.answer(w, route, http.StatusBadRequest, errorBody{Error: "bad_request"}) }
	for name, vs := range q {
		if len(vs) != 1 && (name == "trade_date" || name == "limit" || slices.Contains(queueOnly, name)) {
			bad() // one value each: a parameter given twice is no form
			return
		}
	}
	qq := query.QueueQuery{Party: bic, Date: q.Get("trade_date")}
	var ok [6]bool
	qq.Limit, ok[0] = intParam(q, "limit", defaultQueueLimit, 1, query.MaxQueueLimit)
	qq.Status, ok[1] = queueList(q, "status", query.QueueStatuses)
	qq.Lifecycle, ok[2] = queueList(q, "lifecycle", query.QueueLifecycles)
	qq.Owes, ok[3] = queueFlag(q, "owes")
	qq.AtRisk, ok[4] = queueFlag(q, "at_risk")
	_, err := date.Parse(qq.Date)
	ok[5] = !q.Has("trade_date") || err == nil
	if slices.Contains(ok[:], false) {
		bad()
		return
	}
	after, hasAfter := q.Get("after"), q.Has("after")
	if hasAfter {
		p, ok := parseQueueCursor(after)
		if !ok {
			s.answer(w, route, http.StatusBadRequest, errorBody{Error: "bad_cursor", Reason: "invalid"})
			return
		}
		qq.After = p
	}
	qq.Now, qq.Lead = s.o.Now(), s.o.AtRiskLead
	trades, err := s.trades.QueuePage(r.Context(), qq)
	if !confirmed(w) {
		return // its nonce was refused: no log of access, no page
	}
	if err != nil {
		s.log.Warn("work queue failed", "err", err)
		s.answer(w, route, http.StatusServiceUnavailable, errorBody{Error: "unavailable"})
		return
	}
	next := queueCursor(nil)
	switch {
	case len(trades) > 0:
		next = queueCursor(&trades[len(trades)-1].Pos)
	case hasAfter:
		next = after
	}
	s.log.Info("access", "what", "queue", "participant", bic, "trade_date", schemas.Echo(qq.Date),
		"status", schemas.Echo(q.Get("status")), "lifecycle", schemas.Echo(q.Get("lifecycle")), "owes", qq.Owes,
		"at_risk", qq.AtRisk, "after", schemas.Echo(after), "limit", qq.Limit, "trades", len(trades))
	// The instances' entries copied through, not decoded and encoded again
	// (query.AppendQueuePage).
	s.answerJSON(w, route, http.StatusOK, query.AppendQueuePage(nil, trades, next))
}
