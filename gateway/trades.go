package gateway

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/ste-utility/ste/processors/matching"
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
}

// ErrNoLookup: no instance can answer trade lookups now.
var ErrNoLookup = errors.New("no instance answers trade lookups")

// TradeJSON is a trade as docs/spec/gateway.md §4 shows it to a party.
type TradeJSON struct {
	TradeKey        string          `json:"trade_key"`
	TradeRef        string          `json:"trade_ref"`
	TradeDate       string          `json:"trade_date"`
	ISIN            string          `json:"isin"`
	Side            string          `json:"side"`
	Broker          string          `json:"broker"`
	InvMgr          string          `json:"inv_mgr"`
	Status          string          `json:"status"`
	CLSVersion      int             `json:"cls_version"`
	FailingCriteria []int           `json:"failing_criteria"`
	Messages        []TradeMessage  `json:"messages"`
	Missing         []matching.Owed `json:"missing"`
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

// IsParty reports whether bic is a party of the trade: the engine's rule
// (matching.View.IsParty, messages.md §6 and §5a, gateway.md §4) — its
// Broker or InvMgr, or a Custodian named by an ALC in force; a SET alone
// makes its Custodian no party.
func IsParty(v *matching.View, bic string) bool { return v.IsParty(bic) }

// Trade renders a view as docs/spec/gateway.md §4 says.
func Trade(v *matching.View) TradeJSON {
	t := TradeJSON{TradeKey: v.TradeKey, Status: strings.ToUpper(v.State), FailingCriteria: []int{},
		Messages: []TradeMessage{}, Missing: missingOf(v)}
	if len(v.Keys) > 0 {
		k := v.Keys[0]
		t.TradeRef, t.TradeDate, t.ISIN, t.Side, t.Broker, t.InvMgr = k.TradeRef, k.TradeDate, k.ISIN, k.Side, k.Broker, k.InvMgr
	}
	for _, c := range v.CLS {
		if c.Standing {
			t.CLSVersion = c.Version
		}
	}
	if t.Status == "MISMATCHED" {
		for _, f := range v.Failing {
			t.FailingCriteria = append(t.FailingCriteria, f.N)
		}
	}
	for _, m := range v.Messages {
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
	return t
}

// serveTrades answers GET /v1/trades/{key} and GET /v1/trades?trade_ref=R:
// the same 404 for a trade the caller is not a party to, one the utility
// does not hold and a malformed key.
func (s *Server) serveTrades(w http.ResponseWriter, r *http.Request, route, bic string, _ *refdata.Set) {
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
		if !found || !IsParty(&v, bic) {
			notFound()
			return
		}
		s.answer(w, route, http.StatusOK, Trade(&v))
		return
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	ref, date := q.Get("trade_ref"), q.Get("trade_date")
	if err != nil || ref == "" {
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
	for i := range vs {
		v := &vs[i]
		if !IsParty(v, bic) || len(v.Keys) == 0 || v.Keys[0].TradeRef != ref || (date != "" && v.Keys[0].TradeDate != date) {
			continue
		}
		out = append(out, Trade(v))
	}
	slices.SortFunc(out, func(a, b TradeJSON) int { return strings.Compare(a.TradeKey, b.TradeKey) })
	s.answer(w, route, http.StatusOK, map[string]any{"trades": out})
}

// missingOf is who owes what: matching's one function of the §4 rules.
func missingOf(v *matching.View) []matching.Owed {
	if v.Missing == nil {
		return []matching.Owed{}
	}
	return v.Missing
}
