package exceptions

// Held messages (contract version 3): not exceptions — each was accepted and
// ACKed — but messages a trade holds out of force, which operators are asked
// about beside the rejected ones: a change held pending on a locked trade
// until both principals affirm it (messages.md §5a step 9), and a SET parked
// because no ALC in force names its Custodian for its Account (§5). `ste
// exceptions held` lists them from the trades the match instances hold
// (their lookup listeners, with the utility's lookup token), as the
// console's trade page shows them.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/ste-utility/ste/instance/api"
	"github.com/ste-utility/ste/instance/lookup"
	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/schemas"
)

// HeldTrade is one trade's held messages, with what decides them.
type HeldTrade struct {
	TradeKey  string `json:"trade_key"`
	TradeRef  string `json:"trade_ref"`
	Lifecycle string `json:"lifecycle"` // NONE, or the version 3 status value
	// Agreement is a locked trade's MatchDigest ("" when not locked).
	Agreement string `json:"agreement,omitempty"`
	// Pending are the changes held on the locked trade, Proposal what both
	// principals would affirm (Amends = Agreement) for them to take effect.
	Pending  []matching.PendingView `json:"pending"`
	Proposal *matching.ProposalView `json:"proposal,omitempty"`
	// Parked are the SETs no ALC in force names for their Account and
	// Custodian.
	Parked []matching.HeldView `json:"parked"`
	// CancelRequests are the CXLs still PENDING (awaiting the other
	// principal's CXA or CXJ).
	CancelRequests []matching.CancelRequestView `json:"cancel_requests"`
}

// HeldOf is v's held messages; ok is false when it holds none (and has no
// cancellation request pending).
func HeldOf(v *matching.View) (HeldTrade, bool) {
	h := HeldTrade{TradeKey: v.TradeKey, Lifecycle: v.Lifecycle, Pending: v.Pending, Proposal: v.Proposal, Parked: v.Held,
		CancelRequests: []matching.CancelRequestView{}}
	if len(v.Keys) > 0 {
		h.TradeRef = v.Keys[0].TradeRef
	}
	if v.Agreement != nil {
		h.Agreement = v.Agreement.MatchDigest
	}
	for _, c := range v.CancelRequests {
		if c.State == "PENDING" {
			h.CancelRequests = append(h.CancelRequests, c)
		}
	}
	if h.Pending == nil {
		h.Pending = []matching.PendingView{}
	}
	if h.Parked == nil {
		h.Parked = []matching.HeldView{}
	}
	return h, len(h.Pending)+len(h.Parked)+len(h.CancelRequests) > 0
}

// HeldAnswer is what FindHeld found: the trades holding messages, those
// asked about that hold none, and what could not be asked.
type HeldAnswer struct {
	Trades []HeldTrade `json:"trades"`
	// Clear are the trades asked about by key or TradeRef that hold
	// nothing; Unknown the keys and TradeRefs no instance holds.
	Clear   []string `json:"clear,omitempty"`
	Unknown []string `json:"unknown,omitempty"`
	// Scanned is, without trades named, how many open trades the
	// instances' at-risk indexes answered.
	Scanned  int      `json:"scanned,omitempty"`
	Problems []string `json:"problems,omitempty"`
}

// maxHeldScan is how many open trades each instance is asked for when no
// trade is named (its at-risk index's limit).
const maxHeldScan = 500

// FindHeld asks the match instances through c: for each of trades (a trade
// key or a TradeRef), its held messages; with none named, those of the open
// trades every instance's at-risk index lists (a trade not matched yet: its
// parked SETs — a locked trade's pending changes are found by naming it,
// or on the console's Trades page filtered by CHANGE_PENDING).
func FindHeld(ctx context.Context, c *lookup.Client, trades []string) (HeldAnswer, error) {
	ans := HeldAnswer{Trades: []HeldTrade{}}
	add := func(v *matching.View, named string) {
		if h, ok := HeldOf(v); ok {
			ans.Trades = append(ans.Trades, h)
		} else if named != "" {
			ans.Clear = append(ans.Clear, named)
		}
	}
	if len(trades) > 0 {
		for _, q := range trades {
			if k, ok := schemas.ParseTradeKey(q); ok {
				hit, found, err := c.Find(ctx, k, "")
				switch {
				case err != nil:
					return ans, err
				case !found:
					ans.Unknown = append(ans.Unknown, q)
				default:
					add(&hit.Trade, q)
				}
				continue
			}
			hits, err := c.FindRef(ctx, lookup.Query{Ref: q, Limit: lookup.MaxLimit})
			if err != nil {
				return ans, err
			}
			if len(hits) == 0 {
				ans.Unknown = append(ans.Unknown, q)
			}
			for i := range hits {
				add(&hits[i].Trade, hits[i].Trade.TradeKey)
			}
		}
		return ans, nil
	}
	rt, err := c.Routing(ctx, false)
	if err != nil {
		return ans, err
	}
	ans.Problems = append(ans.Problems, rt.Problems...)
	if len(rt.Owners) == 0 {
		return ans, errors.New("no instance running the match group is known (is ste process running?)")
	}
	q := url.Values{"limit": {strconv.Itoa(maxHeldScan)}}
	for _, o := range rt.Owners {
		var a api.AtRiskAnswer
		if err := c.Get(ctx, o, "/at-risk", q, &a); err != nil {
			ans.Problems = append(ans.Problems, err.Error())
			continue
		}
		ans.Scanned += len(a.Trades)
		for i := range a.Trades {
			add(&a.Trades[i].Trade, "")
		}
	}
	slices.SortFunc(ans.Trades, func(a, b HeldTrade) int { return strings.Compare(a.TradeKey, b.TradeKey) })
	return ans, nil
}

// WriteHeld writes a as ste exceptions held prints it: per trade, its
// pending changes with the proposal, its parked SETs, its unanswered
// cancellation requests.
func WriteHeld(w io.Writer, ns string, a HeldAnswer, named bool) error {
	for _, p := range a.Problems {
		fmt.Fprintf(w, "warning: %s\n", p)
	}
	if !named {
		fmt.Fprintf(w, "namespace %s: %d open trade(s) read from the match instances' at-risk indexes, %d holding messages\n", ns, a.Scanned, len(a.Trades))
	}
	for _, t := range a.Trades {
		fmt.Fprintf(w, "\ntrade %s %s — lifecycle %s", t.TradeKey, t.TradeRef, t.Lifecycle)
		if t.Agreement != "" {
			fmt.Fprintf(w, ", locked on %s", t.Agreement)
		}
		fmt.Fprintln(w)
		for _, p := range t.Pending {
			fmt.Fprintf(w, "  pending  %s %-7s %s:%s  held on the locked trade until both principals affirm it\n", p.MsgType, p.Function, p.Sender, p.MsgId)
		}
		if len(t.Pending) > 0 {
			if t.Proposal != nil {
				fmt.Fprintf(w, "           proposal %s: an AFF from each principal with Amends %s naming %s\n", t.Proposal.MatchDigest, t.Agreement,
					strings.Join(t.Proposal.Messages, " "))
			} else {
				fmt.Fprintf(w, "           no proposal: with the changes the trade would not match; an amendment naming another set, or a bilateral cancellation, ends it\n")
			}
		}
		for _, p := range t.Parked {
			fmt.Fprintf(w, "  parked   SET %s:%s  no ALC in force names %s for account %s\n", p.Sender, p.MsgId, p.Custodian, p.Account)
		}
		for _, c := range t.CancelRequests {
			fmt.Fprintf(w, "  cancel   CXL %s:%s  PENDING: awaiting the other principal's CXA or CXJ\n", c.Sender, c.MsgId)
		}
	}
	if len(a.Clear) > 0 {
		fmt.Fprintf(w, "\nholding nothing: %s\n", strings.Join(a.Clear, " "))
	}
	if len(a.Unknown) > 0 {
		fmt.Fprintf(w, "not held by any instance (never seen, or purged): %s\n", strings.Join(a.Unknown, " "))
	}
	if len(a.Trades) == 0 && len(a.Clear) == 0 && len(a.Unknown) == 0 {
		fmt.Fprintln(w, "no held message")
	}
	return nil
}
