package workload

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/decimal"
	"github.com/ste-utility/ste/schemas/refdata"
)

// The lifecycle after the match (messages.md version 3, §3a and §5a), in the
// realistic mix: investment managers affirm or reject what matched, changes
// after a lock are held until both principals affirm them, cancellation
// requests are accepted, rejected or left unanswered. Every AFF names the
// exact set the generator built, with the MatchDigest computed from it by
// schemas.ComputeMatchDigest (never read back from the matcher), so each
// trade's expected outcome is known from how it was built.
//
// Order independence. Everything §5a computes is a function of the set of
// messages, with one explicit exception: for an investment manager whose
// affirmation mode is AUTO, the utility affirms the set that matched first
// in processing order. A scenario in which two different sets of the trade
// can match (a cancel and resend, a replaced SET that matched before its
// REPLACE, a second NOE, a cancelled NOE) would end locked on either,
// depending on the order the messages arrive in; such scenarios are
// therefore built for MANUAL investment managers only (scenario.manual), and
// those with AUTO ones are built so that every order ends in one outcome:
// an amendment of an AUTO trade is affirmed by both principals, so whichever
// set the utility affirmed first, the agreement ends on the amended one.

// Lifecycle values a trade is built to end with (messages.md §5a step 10:
// the status value of its last STATUS; "" for MATCHED, MISMATCHED or none).
const (
	LifecycleAffirmed       = "AFFIRMED"
	LifecycleAffirmRejected = "AFFIRM_REJECTED"
	LifecycleChangePending  = "CHANGE_PENDING"
	LifecycleCancelPending  = "CANCEL_PENDING"
	LifecycleCancelled      = "CANCELLED"
)

// Affirmed by: the kind of root the agreement grew from (gateway.md §4).
const (
	ByInvMgr = "INVMGR"
	ByAuto   = "AUTO"
)

// set is a candidate the generator built: the messages that match on their
// own, from which AFFs name their tokens and MatchDigest.
type set []*schemas.Draft

// tokens are the set's Sender:MsgId, in byte order.
func (s set) tokens() []string {
	out := make([]string, len(s))
	for i, d := range s {
		out[i] = d.Sender + ":" + d.MsgId
	}
	slices.Sort(out)
	return out
}

// latest is the latest Created of the set: its MatchedAt.
func (s set) latest() time.Time {
	var t time.Time
	for _, d := range s {
		c, _ := time.Parse(time.RFC3339Nano, d.Created)
		if c.After(t) {
			t = c
		}
	}
	return t
}

// with is the set with the message related names replaced by d (a
// REPLACE taking its original's place).
func (s set) with(d *schemas.Draft) set {
	out := make(set, 0, len(s))
	for _, x := range s {
		if x.Sender == d.Sender && x.MsgType == d.MsgType && x.MsgId == d.RelatedMsgId {
			out = append(out, d)
			continue
		}
		out = append(out, x)
	}
	return out
}

// content is the CLS content of the set as messages.md §6 reads it (the
// NOE's economics, each account's ALC, NPR and SET; MatchedAt the latest
// Created), for its MatchDigest.
func (t *trade) content(s set) *schemas.CLSContent {
	k := t.key()
	c := &schemas.CLSContent{Key: k, TradeKey: k.TradeKey(), MatchedAt: s.latest().UnixNano()}
	legs := map[string]*schemas.Leg{}
	leg := func(account string) *schemas.Leg {
		l := legs[account]
		if l == nil {
			l = &schemas.Leg{Account: account, NetUnits: t.ccy.MinorUnits}
			legs[account] = l
		}
		return l
	}
	dec := func(v string) decimal.Dec { d, _, _ := decimal.Parse(v); return d }
	for _, d := range s {
		switch d.MsgType {
		case "NOE":
			c.Quantity = parseInt(d.Get("Quantity"))
			c.Price = dec(d.Get("Price"))
			c.TradeCcy = d.Get("TradeCcy")
			c.SettleDate = parseDate(d.Get("SettleDate"))
		case "ALC":
			l := leg(d.Get("Account"))
			l.Quantity, l.Custodian, l.PSET = parseInt(d.Get("Quantity")), d.Get("Custodian"), d.Get("PSET")
		case "NPR":
			l := leg(d.Get("Account"))
			l.NetAmount, l.SettleCcy = dec(d.Get("NetAmount")), d.Get("SettleCcy")
		case "SET":
			l := leg(d.Get("Account"))
			l.SafekeepingAccount, l.CashAccount = d.Get("SafekeepingAccount"), d.Get("CashAccount")
		}
	}
	for _, l := range legs {
		c.Legs = append(c.Legs, *l)
	}
	slices.SortFunc(c.Legs, func(a, b schemas.Leg) int { return strings.Compare(a.Account, b.Account) })
	return c
}

// digest is the MatchDigest of the set (messages.md §6).
func (t *trade) digest(s set) string {
	return schemas.ComputeMatchDigest(t.content(s), s.tokens()).String()
}

// aff is an AFF of sender naming s: decision AFFIRM or REJECT, amends the
// digest it amends ("" for a first affirmation), reasons a REJECT's codes.
func (t *trade) aff(msgId, sender string, created time.Time, decision string, s set, amends, reasons string) *schemas.Draft {
	d := t.lifecycleHeader(msgId, "AFF", sender, created)
	d.Body = append(d.Body,
		schemas.Pair{Name: "Decision", Value: decision},
		schemas.Pair{Name: "MatchDigest", Value: t.digest(s)},
		schemas.Pair{Name: "Affirms", Value: strings.Join(s.tokens(), " ")})
	if amends != "" {
		d.Body = append(d.Body, schemas.Pair{Name: "Amends", Value: amends})
	}
	if decision == "REJECT" {
		d.Body = append(d.Body, schemas.Pair{Name: "RejectReason", Value: reasons})
	}
	return d
}

// cxl is a cancellation request of sender; cxa and cxj answer the CXL q.
func (t *trade) cxl(msgId, sender string, created time.Time, reason string) *schemas.Draft {
	d := t.lifecycleHeader(msgId, "CXL", sender, created)
	d.Body = append(d.Body, schemas.Pair{Name: "CancelReason", Value: reason})
	return d
}

func (t *trade) cxa(msgId string, q *schemas.Draft, created time.Time) *schemas.Draft {
	d := t.lifecycleHeader(msgId, "CXA", t.other(q.Sender), created)
	d.RelatedMsgId = q.MsgId
	return d
}

func (t *trade) cxj(msgId string, q *schemas.Draft, created time.Time, reason string) *schemas.Draft {
	d := t.lifecycleHeader(msgId, "CXJ", t.other(q.Sender), created)
	d.RelatedMsgId = q.MsgId
	d.Body = append(d.Body, schemas.Pair{Name: "CancelReason", Value: reason})
	return d
}

func (t *trade) lifecycleHeader(msgId, typ, sender string, created time.Time) *schemas.Draft {
	d := t.header(msgId, typ, "NEW", sender, 0)
	d.Created = stamp(created)
	return d
}

// other is the other principal.
func (t *trade) other(p string) string {
	if p == t.broker {
		return t.invMgr
	}
	return t.broker
}

// change is a realistic change after the match, as a REPLACE of one
// message of s: a custodian's corrected settlement instructions (its SET
// with another safekeeping and cash account) or a broker's commission
// correction (its NPR with a unit moved from commission to fees, the net
// amount unchanged). Both leave the trade matching: s with the REPLACE in
// its original's place is a candidate too.
func (g *generator) change(r *rand.Rand, t *trade, s set, msgId string, created time.Time) *schemas.Draft {
	j := r.IntN(len(t.allocs))
	if r.IntN(2) == 0 {
		orig := s[3+3*j]
		body := orig.Clone()
		body.Set("SafekeepingAccount", orig.Get("SafekeepingAccount")+"C")
		body.Set("CashAccount", orig.Get("CashAccount")+"C")
		return replace(orig, body, msgId, stamp(created))
	}
	orig := s[2+3*j]
	body := orig.Clone()
	unit := decimal.New(1, t.ccy.MinorUnits)
	c, _ := decimal.Sub(dec(orig.Get("Commission")), unit)
	f, _ := decimal.Add(dec(orig.Get("Fees")), unit)
	body.Set("Commission", t.amount(c))
	body.Set("Fees", t.amount(f))
	return replace(orig, body, msgId, stamp(created))
}

func dec(v string) decimal.Dec { d, _, _ := decimal.Parse(v); return d }

var (
	cancelReasons = []string{"ERROR", "DUPLICATE", "CLIENT_REQUEST", "OTHER"}
	rejectReasons = []string{"COMMISSION", "FEES", "NET_AMOUNT", "SSI", "PRICE", "OTHER"}
)

// lifecyclePlan starts a plan of t's matched set s: the clean messages, the
// final set s, and, when firstAff, the investment manager's affirmation of
// s five minutes after it matched (for an AUTO investment manager the
// utility affirms it as well, earlier: at its MatchedAt).
func (g *generator) lifecyclePlan(t *trade, s set, firstAff bool) *plan {
	p := &plan{items: g.all(s), outcome: OutcomeMatched, final: s}
	if firstAff {
		a := t.aff(t.ref+"-AFF", t.invMgr, s.latest().Add(5*time.Minute), "AFFIRM", s, "", "")
		p.items = append(p.items, g.signed(a))
		p.lifecycle, p.by = LifecycleAffirmed, ByInvMgr
	}
	return p
}

// affirmed: the investment manager affirms what matched; the trade locks.
// For an AUTO investment manager the utility does (an affirmation of its
// own as well would make the utility's depend on the order: it affirms a
// trade only if it is not locked yet when it first matches).
func affirmed(g *generator, r *rand.Rand, t *trade) *plan {
	return g.lifecyclePlan(t, t.messages(), !g.auto(t))
}

// affirmRejected: the investment manager rejects what matched (MANUAL: an
// AUTO one's utility would have affirmed it, in some orders first).
func affirmRejected(g *generator, r *rand.Rand, t *trade) *plan {
	s := set(t.messages())
	p := g.lifecyclePlan(t, s, false)
	reasons := []string{pick(r, rejectReasons)}
	if r.IntN(4) == 0 {
		if other := pick(r, rejectReasons); other != reasons[0] {
			reasons = append(reasons, other)
		}
	}
	a := t.aff(t.ref+"-AFF", t.invMgr, s.latest().Add(5*time.Minute), "REJECT", s, "", strings.Join(reasons, " "))
	p.items = append(p.items, g.signed(a))
	p.lifecycle = LifecycleAffirmRejected
	return p
}

// rejectThenAffirm: the investment manager rejects the broker's commission,
// the broker corrects it (an NPR REPLACE), the investment manager affirms
// the corrected set. Both sets match, so MANUAL only.
func rejectThenAffirm(g *generator, r *rand.Rand, t *trade) *plan {
	correct := set(t.messages())
	j := r.IntN(len(t.allocs))
	unit := decimal.New(1, t.ccy.MinorUnits)
	wrong := slices.Clone(correct)
	w := correct[2+3*j].Clone()
	c, _ := decimal.Add(dec(w.Get("Commission")), unit)
	f, _ := decimal.Sub(dec(w.Get("Fees")), unit)
	w.Set("Commission", t.amount(c))
	w.Set("Fees", t.amount(f))
	wrong[2+3*j] = w
	fix := replace(w, correct[2+3*j], w.MsgId+"-R1", later(t, 100))
	final := wrong.with(fix)
	p := &plan{items: g.all(append(slices.Clone(wrong), fix)), outcome: OutcomeMatched, final: final,
		lifecycle: LifecycleAffirmed, by: ByInvMgr}
	rej := t.aff(t.ref+"-AFF1", t.invMgr, wrong.latest().Add(5*time.Minute), "REJECT", wrong, "", "COMMISSION")
	aff := t.aff(t.ref+"-AFF2", t.invMgr, final.latest().Add(10*time.Minute), "AFFIRM", final, "", "")
	p.items = append(p.items, g.signed(rej), g.signed(aff))
	return p
}

// amended: the trade is locked (by the investment manager, or by the
// utility for an AUTO one), a change arrives, and both principals affirm
// the amended set naming the agreement's MatchDigest: the amendment takes
// effect. For an AUTO investment manager the utility may have affirmed
// either set first; both end locked on the amended one.
func amended(g *generator, r *rand.Rand, t *trade) *plan {
	s := set(t.messages())
	p := g.lifecyclePlan(t, s, !g.auto(t))
	ch := g.change(r, t, s, t.ref+"-CHG", s.latest().Add(30*time.Minute))
	l := s.with(ch)
	d0 := t.digest(s)
	p.items = append(p.items, g.signed(ch),
		g.signed(t.aff(t.ref+"-AMD-IM", t.invMgr, l.latest().Add(10*time.Minute), "AFFIRM", l, d0, "")),
		g.signed(t.aff(t.ref+"-AMD-BR", t.broker, l.latest().Add(20*time.Minute), "AFFIRM", l, d0, "")))
	p.final, p.lifecycle = l, LifecycleAffirmed
	p.amended = true
	return p
}

// changePending: the investment manager affirmed, a change arrives after
// the lock, and at most one principal affirms it: the change is held,
// with the amended set as the proposal. MANUAL only (an AUTO investment
// manager's utility would affirm the changed set when it matched first).
func changePending(g *generator, r *rand.Rand, t *trade) *plan {
	s := set(t.messages())
	p := g.lifecyclePlan(t, s, true)
	ch := g.change(r, t, s, t.ref+"-CHG", s.latest().Add(30*time.Minute))
	p.items = append(p.items, g.signed(ch))
	if r.IntN(2) == 0 { // the broker asks for it; the investment manager has not answered
		l := s.with(ch)
		p.items = append(p.items, g.signed(t.aff(t.ref+"-AMD-BR", t.broker, l.latest().Add(10*time.Minute), "AFFIRM", l, t.digest(s), "")))
	}
	p.lifecycle = LifecycleChangePending
	return p
}

// cancelledBoth: one principal asks to cancel, the other accepts: the trade
// is cancelled (affirmed before or not; now and then the counterparty
// rejected first and accepted later — a CXJ never undoes a CXA).
func cancelledBoth(g *generator, r *rand.Rand, t *trade) *plan {
	s := set(t.messages())
	p := g.lifecyclePlan(t, s, !g.auto(t) && r.IntN(2) == 0)
	q := t.cxl(t.ref+"-CXL", pick(r, []string{t.broker, t.invMgr}), s.latest().Add(40*time.Minute), pick(r, cancelReasons))
	p.items = append(p.items, g.signed(q))
	if r.IntN(5) == 0 {
		p.items = append(p.items, g.signed(t.cxj(t.ref+"-CXJ", q, s.latest().Add(45*time.Minute), "OTHER")))
	}
	p.items = append(p.items, g.signed(t.cxa(t.ref+"-CXA", q, s.latest().Add(50*time.Minute))))
	p.outcome, p.final, p.lifecycle, p.by, p.request = OutcomeCancelled, nil, LifecycleCancelled, "", "ACCEPTED"
	return p
}

// cancelPending: a locked trade with a cancellation request nobody has
// answered: the lock stands, CANCEL_PENDING.
func cancelPending(g *generator, r *rand.Rand, t *trade) *plan {
	s := set(t.messages())
	p := g.lifecyclePlan(t, s, !g.auto(t))
	q := t.cxl(t.ref+"-CXL", pick(r, []string{t.broker, t.invMgr}), s.latest().Add(40*time.Minute), pick(r, cancelReasons))
	p.items = append(p.items, g.signed(q))
	p.lifecycle, p.request = LifecycleCancelPending, "PENDING"
	return p
}

// cancelRejected: a locked trade whose cancellation request the
// counterparty rejected: AFFIRMED, the request shown REJECTED.
func cancelRejected(g *generator, r *rand.Rand, t *trade) *plan {
	s := set(t.messages())
	p := g.lifecyclePlan(t, s, !g.auto(t))
	q := t.cxl(t.ref+"-CXL", pick(r, []string{t.broker, t.invMgr}), s.latest().Add(40*time.Minute), pick(r, cancelReasons))
	p.items = append(p.items, g.signed(q), g.signed(t.cxj(t.ref+"-CXJ", q, s.latest().Add(55*time.Minute), pick(r, cancelReasons))))
	p.lifecycle, p.request = LifecycleAffirmed, "REJECTED"
	return p
}

// cancelRequestUnlocked: a matched trade nobody affirmed, with an
// unanswered cancellation request: MATCHED, the request on its STATUS.
// MANUAL only (an AUTO investment manager's trade locks).
func cancelRequestUnlocked(g *generator, r *rand.Rand, t *trade) *plan {
	s := set(t.messages())
	p := g.lifecyclePlan(t, s, false)
	q := t.cxl(t.ref+"-CXL", pick(r, []string{t.broker, t.invMgr}), s.latest().Add(40*time.Minute), pick(r, cancelReasons))
	p.items = append(p.items, g.signed(q))
	p.request = "PENDING"
	return p
}

// auto reports whether the utility affirms t's trades: its investment
// manager's mode is AUTO (affirmation.csv) and the trade has a
// counterparty (a trade whose Broker is its InvMgr is never affirmed).
func (g *generator) auto(t *trade) bool {
	return t.broker != t.invMgr && g.opts.Ref.AffirmationMode(t.invMgr) == refdata.AffirmAuto
}

func parseInt(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

func parseDate(s string) date.Date {
	d, _ := date.Parse(s)
	return d
}
