package gateway

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/query"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
)

// TradeLookup finds trades in the match table, asking the instance that
// owns each trade's partition.
type TradeLookup interface {
	// Trade is the trade of key as party may see it; found is false when no
	// instance holds it or party is not one of its parties.
	Trade(ctx context.Context, key, party string) (v matching.View, found bool, err error)
	// ByRef is every trade of TradeRef ref (and TradeDate date, when not
	// empty) that party is a party to, ordered by trade key.
	ByRef(ctx context.Context, ref, date, party string) ([]matching.View, error)
	// QueuePage is a page of q.Party's work queue (gateway.md v2 §4c),
	// whole or an error: each trade as the JSON the page is made of.
	QueuePage(ctx context.Context, q query.QueueQuery) ([]query.QueueEntry, error)
}

// ErrNoLookup: no instance can answer trade lookups now.
var ErrNoLookup = errors.New("no instance answers trade lookups")

// TradeJSON is a trade as docs/spec/gateway.md §4 shows it to a party
// (version 2: the lifecycle, pending changes, block status and timeliness
// fields after those of version 1).
type TradeJSON struct {
	TradeKey        string         `json:"trade_key"`
	TradeRef        string         `json:"trade_ref"`
	TradeDate       string         `json:"trade_date"`
	ISIN            string         `json:"isin"`
	Side            string         `json:"side"`
	Broker          string         `json:"broker"`
	InvMgr          string         `json:"inv_mgr"`
	Status          string         `json:"status"`
	CLSVersion      int            `json:"cls_version"`
	FailingCriteria []int          `json:"failing_criteria"`
	Messages        []TradeMessage `json:"messages"`
	// Held: the Broker's and the InvMgr's answers only (nil: left out).
	Held           *[]matching.HeldView         `json:"held,omitempty"`
	Missing        []matching.Owed              `json:"missing"`
	Lifecycle      string                       `json:"lifecycle"`
	MatchDigest    string                       `json:"match_digest"`
	Agreement      *matching.AgreementView      `json:"agreement"`
	Pending        []matching.PendingView       `json:"pending"`
	Proposal       *matching.ProposalView       `json:"proposal"`
	Affirmations   []matching.AffirmationView   `json:"affirmations"`
	CancelRequests []matching.CancelRequestView `json:"cancel_requests"`
	BlockStatus    string                       `json:"block_status"`
	Market         string                       `json:"market"`
	Cutoff         string                       `json:"cutoff"`
	AtRisk         bool                         `json:"at_risk"`
	PastCutoff     bool                         `json:"past_cutoff"`
}

// TradeMessage is a message in force.
type TradeMessage struct {
	MsgType  string `json:"msg_type"`
	Function string `json:"function"`
	Sender   string `json:"sender"`
	MsgId    string `json:"msg_id"`
	Account  string `json:"account,omitempty"`
}

var typeOrder = map[string]int{"NOE": 0, "ALC": 1, "NPR": 2, "SET": 3}

// Timeliness is what a trade's market, cutoff and risk are read against:
// the markets of the reference data, the wall clock and the at-risk lead.
type Timeliness struct {
	Ref  *refdata.Set
	Now  time.Time
	Lead time.Duration
}

// Cutoff is a trade's market (refdata.NoMarket without a NOE in force or
// for a market markets.csv does not list) and its cutoff (messages.md §8).
func (tl Timeliness) Cutoff(market, tradeDate string) (string, time.Time) {
	return tl.Ref.CutoffOf(market, tradeDate)
}

// Risk says whether a trade with that cutoff is at risk (neither locked nor
// cancelled, and the wall clock at or after the cutoff less the lead) and
// past its cutoff (gateway.md §4).
func (tl Timeliness) Risk(cutoff time.Time, settled bool) (atRisk, past bool) {
	return !settled && !tl.Now.Before(cutoff.Add(-tl.Lead)), tl.Now.After(cutoff)
}

// Trade renders the view v of a trade as its party bic may see it
// (docs/spec/gateway.md §4): the engine's view limited to bic's accounts
// when bic is a Custodian (matching.View.For), held SETs for the Broker and
// the InvMgr only. ok is false when bic is not a party.
func Trade(v *matching.View, bic string, tl Timeliness) (TradeJSON, bool) {
	pv, ok := v.For(bic)
	if !ok {
		return TradeJSON{}, false
	}
	t := TradeJSON{TradeKey: pv.TradeKey, Status: strings.ToUpper(pv.State), FailingCriteria: []int{},
		Messages: []TradeMessage{}, Missing: missingOf(&pv), Lifecycle: pv.Lifecycle, MatchDigest: pv.MatchDigest,
		Agreement: pv.Agreement, Pending: nonNil(pv.Pending), Proposal: pv.Proposal,
		Affirmations: nonNil(pv.Affirmations), CancelRequests: nonNil(pv.CancelRequests), BlockStatus: pv.BlockStatus}
	if len(pv.Keys) > 0 {
		k := pv.Keys[0]
		t.TradeRef, t.TradeDate, t.ISIN, t.Side, t.Broker, t.InvMgr = k.TradeRef, k.TradeDate, k.ISIN, k.Side, k.Broker, k.InvMgr
		if bic == k.Broker || bic == k.InvMgr {
			held := nonNil(pv.Held)
			t.Held = &held
		}
	}
	for _, c := range pv.CLS {
		if c.Standing {
			t.CLSVersion = c.Version
		}
	}
	if t.Status == "MISMATCHED" {
		for _, f := range pv.Failing {
			t.FailingCriteria = append(t.FailingCriteria, f.N)
		}
	}
	for _, m := range pv.Messages {
		if !m.InForce {
			continue
		}
		tm := TradeMessage{MsgType: m.Type, Function: m.Function, Sender: m.Sender, MsgId: m.MsgId}
		if m.Type == "ALC" || m.Type == "NPR" || m.Type == "SET" {
			tm.Account = m.Account
		}
		t.Messages = append(t.Messages, tm)
	}
	slices.SortFunc(t.Messages, func(a, b TradeMessage) int {
		return cmp.Or(cmp.Compare(typeOrder[a.MsgType], typeOrder[b.MsgType]),
			strings.Compare(a.Sender, b.Sender), strings.Compare(a.MsgId, b.MsgId))
	})
	market, cutoff := tl.Cutoff(pv.Market, t.TradeDate)
	t.Market, t.Cutoff = market, cutoff.UTC().Format(time.RFC3339)
	t.AtRisk, t.PastCutoff = tl.Risk(cutoff, pv.Locked || pv.Cancelled)
	return t, true
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// serveTrades answers GET /v1/trades/{key} and GET /v1/trades?trade_ref=R:
// the same 404 for a trade the caller is not a party to, one the utility
// does not hold and a malformed key.
func (s *Server) serveTrades(w http.ResponseWriter, r *http.Request, route, bic string, set *refdata.Set) {
	ctx := r.Context()
	notFound := func() { s.answer(w, route, http.StatusNotFound, errorBody{Error: "not_found"}) }
	unavailable := func(err error) {
		s.log.Warn("trade lookup failed", "err", err)
		s.answer(w, route, http.StatusServiceUnavailable, errorBody{Error: "unavailable"})
	}
	if route == "trade" {
		key := strings.TrimPrefix(r.URL.Path, "/v1/trades/")
		s.log.Info("access", "what", "trade", "participant", bic, "trade_key", schemas.Echo(key))
		if _, ok := schemas.ParseTradeKey(key); !ok {
			notFound()
			return
		}
		v, found, err := s.trades.Trade(ctx, key, bic)
		if err != nil {
			unavailable(err)
			return
		}
		t, ok := Trade(&v, bic, s.timeliness(set))
		if !found || !ok {
			notFound()
			return
		}
		s.answer(w, route, http.StatusOK, t)
		return
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		s.answer(w, route, http.StatusBadRequest, errorBody{Error: "bad_request"})
		return
	}
	if !q.Has("trade_ref") {
		s.serveQueue(w, r, q, bic)
		return
	}
	// The version 1 query by reference, unchanged: with after or a filter
	// of the work queue it is 400 (§4c).
	ref, date := q.Get("trade_ref"), q.Get("trade_date")
	_, limitOK := intParam(q, "limit", defaultQueueLimit, 1, query.MaxQueueLimit)
	if ref == "" || !limitOK || slices.ContainsFunc(queueOnly, q.Has) {
		s.answer(w, route, http.StatusBadRequest, errorBody{Error: "bad_request"})
		return
	}
	s.log.Info("access", "what", "trades", "participant", bic, "trade_ref", schemas.Echo(ref), "trade_date", schemas.Echo(date))
	vs, err := s.trades.ByRef(ctx, ref, date, bic)
	if err != nil {
		unavailable(err)
		return
	}
	out := []TradeJSON{}
	tl := s.timeliness(set)
	for i := range vs {
		v := &vs[i]
		if len(v.Keys) == 0 || v.Keys[0].TradeRef != ref || (date != "" && v.Keys[0].TradeDate != date) {
			continue
		}
		if t, ok := Trade(v, bic, tl); ok {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b TradeJSON) int { return strings.Compare(a.TradeKey, b.TradeKey) })
	s.answer(w, route, http.StatusOK, map[string]any{"trades": out})
}

// timeliness is what trades are read against now.
func (s *Server) timeliness(set *refdata.Set) Timeliness {
	return Timeliness{Ref: set, Now: s.o.Now(), Lead: s.o.AtRiskLead}
}

// missingOf is who owes what: matching's one function of the §4 rules.
func missingOf(v *matching.View) []matching.Owed {
	if v.Missing == nil {
		return []matching.Owed{}
	}
	return v.Missing
}
