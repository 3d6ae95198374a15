package workload

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/decimal"
	"github.com/ste-utility/ste/schemas/refdata"
)

// Outcomes a trade is built to reach.
const (
	OutcomeMatched    = "matched"
	OutcomeMismatched = "mismatched"
	OutcomeIncomplete = "incomplete" // never complete by count: no CLS, no status
	OutcomeCancelled  = "cancelled"  // cancelled by both principals (CXL and CXA): no CLS, STATUS CANCELLED
)

// plan is one trade as built: its records and what they must lead to.
type plan struct {
	scenario   string
	items      []item
	outcome    string
	criteria   []int    // failing criteria of a mismatched trade
	tolerance  []int    // criteria a matched trade holds only within tolerance
	rejected   []string // rejection codes of its invalid records
	duplicates int      // exact duplicate records
	forged     int      // forgeries among the rejected (Options.Forged)
	// Version 3 (lifecycle.go): the set that ends in force for a matched
	// trade (its MatchDigest is the standing digest), the status value the
	// trade ends with when it is a version 3 one, who the agreement's root
	// is (ByInvMgr, ByAuto), the state of its cancellation request, and
	// whether an amendment was agreed.
	final     set
	lifecycle string
	by        string
	request   string
	amended   bool
}

type scenario struct {
	name   string
	weight int
	build  func(g *generator, r *rand.Rand, t *trade) *plan
	// manual: built for a MANUAL investment manager only, because two
	// different sets of the trade can match and, for an AUTO one, the
	// utility would lock whichever matched first in processing order
	// (lifecycle.go). Such a trade's investment manager is drawn among the
	// MANUAL ones (the scenario becomes clean when there is none).
	manual bool
	// principals: the trade needs two principals (its lifecycle messages
	// are NOT_AUTHORISED on a trade whose Broker is its InvMgr).
	principals bool
}

// realistic is the realistic mix; weights are per thousand trades. About a
// quarter of the trades carry lifecycle messages (messages.md §5a): most of
// those are affirmed; amendments, rejections and cancellation requests are
// the exceptions a desk works on. With mixed affirmation modes
// (affirmation.csv) the utility affirms an AUTO investment manager's
// matched trades too.
var realistic = []scenario{
	{name: "clean", weight: 260, build: clean},
	{name: "duplicate", weight: 80, build: duplicate},
	{name: "cancel_resend", weight: 60, build: cancelResend, manual: true},
	{name: "replace", weight: 60, build: replaceOne, manual: true},
	{name: "replace_chain", weight: 20, build: replaceChain, manual: true},
	{name: "mismatch_price", weight: 12, build: mismatch("price", []int{7})},
	{name: "mismatch_alloc_quantity", weight: 12, build: mismatch("alloc_quantity", []int{9, 12})},
	{name: "mismatch_double_noe", weight: 11, build: mismatch("double_noe", []int{10}), manual: true},
	{name: "mismatch_quantity", weight: 11, build: mismatch("quantity", []int{12})},
	{name: "mismatch_settle_date", weight: 11, build: mismatch("settle_date", []int{13})},
	{name: "mismatch_settle_ccy", weight: 11, build: mismatch("settle_ccy", []int{14})},
	{name: "mismatch_net_amount", weight: 11, build: mismatch("net_amount", []int{15})}, // just beyond the tolerance
	{name: "tolerance_net_amount", weight: 20, build: withinNetAmount},
	{name: "parked_custodian", weight: 11, build: parkedCustodian},
	{name: "mismatch_pset", weight: 10, build: mismatch("pset", []int{17})},
	{name: "incomplete_missing_set", weight: 25, build: missingSet},
	{name: "incomplete_noe_cancelled", weight: 15, build: noeCancelled, manual: true},
	{name: "invalid", weight: 100, build: invalid},
	{name: "conflicting_duplicate", weight: 20, build: conflicting},
	// The lifecycle after the match (lifecycle.go).
	{name: "affirmed", weight: 110, build: affirmed, principals: true},
	{name: "affirm_rejected", weight: 15, build: affirmRejected, manual: true, principals: true},
	{name: "reject_then_affirm", weight: 10, build: rejectThenAffirm, manual: true, principals: true},
	{name: "amended", weight: 30, build: amended, principals: true},
	{name: "change_pending", weight: 20, build: changePending, manual: true, principals: true},
	{name: "cancelled", weight: 20, build: cancelledBoth, principals: true},
	{name: "cancel_pending", weight: 15, build: cancelPending, principals: true},
	{name: "cancel_rejected", weight: 10, build: cancelRejected, principals: true},
	{name: "cancel_request_unlocked", weight: 10, build: cancelRequestUnlocked, manual: true, principals: true},
}

// allocationCounts of the realistic mix (the standard mix always uses 2).
var allocationCounts = []struct{ k, weight int }{{1, 15}, {2, 45}, {3, 20}, {4, 12}, {5, 5}, {8, 3}}

func (g *generator) signed(d *schemas.Draft) item {
	return item{draft: d, key: refdata.DemoPrivateKey(d.Sender)}
}

func (g *generator) all(ds []*schemas.Draft) []item {
	items := make([]item, 0, len(ds)+2)
	for _, d := range ds {
		items = append(items, g.signed(d))
	}
	return items
}

func clean(g *generator, r *rand.Rand, t *trade) *plan {
	ds := t.messages()
	return &plan{items: g.all(ds), outcome: OutcomeMatched, final: ds}
}

func duplicate(g *generator, r *rand.Rand, t *trade) *plan {
	p := clean(g, r, t)
	n := 1 + r.IntN(2)
	for i := 0; i < n; i++ {
		p.items = append(p.items, p.items[r.IntN(len(p.items))]) // same draft, same key: same bytes
	}
	p.duplicates = n
	return p
}

// later is a Created after every standard message of the trade.
func later(t *trade, minutes int) string {
	return stamp(t.base.Add(time.Duration(minutes) * time.Minute))
}

func cancelResend(g *generator, r *rand.Rand, t *trade) *plan {
	ds := t.messages()
	j := r.IntN(len(ds))
	orig := ds[j]
	resend := orig.Clone()
	resend.MsgId, resend.Created = orig.MsgId+"-N2", later(t, 95)
	final := append(set(slices.Clone(ds[:j])), ds[j+1:]...)
	final = append(final, resend)
	ds = append(ds, cancel(orig, orig.MsgId+"-C", later(t, 90)), resend)
	return &plan{items: g.all(ds), outcome: OutcomeMatched, final: final}
}

// wrong returns a valid variant of d with different content.
func (g *generator) wrong(r *rand.Rand, t *trade, d *schemas.Draft) *schemas.Draft {
	w := d.Clone()
	switch d.MsgType {
	case "NOE", "ALC":
		q, _ := strconv.ParseInt(d.Get("Quantity"), 10, 64)
		w.Set("Quantity", strconv.FormatInt(q+100, 10))
	case "NPR":
		w.Set("SettleDate", g.u.ref.AddBusinessDays(t.sec.Country, t.settle, 1).String())
	case "SET":
		w.Set("SafekeepingAccount", d.Get("SafekeepingAccount")+"9")
	}
	return w
}

func replaceOne(g *generator, r *rand.Rand, t *trade) *plan {
	ds := t.messages()
	j := r.IntN(len(ds))
	correct := ds[j]
	ds[j] = g.wrong(r, t, correct) // the original, sent with a mistake
	rep := replace(ds[j], correct, correct.MsgId+"-R1", later(t, 90))
	final := set(ds).with(rep)
	ds = append(ds, rep)
	return &plan{items: g.all(ds), outcome: OutcomeMatched, final: final}
}

func replaceChain(g *generator, r *rand.Rand, t *trade) *plan {
	ds := t.messages()
	j := r.IntN(len(ds))
	correct := ds[j]
	orig := g.wrong(r, t, correct)
	ds[j] = orig
	w2 := g.wrong(r, t, orig)
	r1 := replace(orig, w2, correct.MsgId+"-R1", later(t, 90))
	r2 := replace(r1, correct, correct.MsgId+"-R2", later(t, 100))
	final := set(slices.Clone(ds))
	final[j] = r2 // orig replaced by r1, r1 by r2
	ds = append(ds, r1, r2)
	return &plan{items: g.all(ds), outcome: OutcomeMatched, final: final}
}

// mismatch builds a trade that is complete by count and fails exactly the
// given criteria, by one deliberate difference.
func mismatch(kind string, criteria []int) func(g *generator, r *rand.Rand, t *trade) *plan {
	return func(g *generator, r *rand.Rand, t *trade) *plan {
		ds := t.messages()
		j := r.IntN(len(t.allocs))
		alc, set := ds[1+3*j], ds[3+3*j]
		switch kind {
		case "price": // a cent beyond the price tolerance
			p, _ := decimal.Add(t.price, g.tolerance(refdata.CriterionPrice, t.ccy.Code, 6))
			alc.Set("Price", addUnit(p, 2).String())
		case "alloc_quantity":
			alc.Set("Quantity", strconv.FormatInt(t.allocs[j].qty+100, 10))
		case "double_noe":
			second := ds[0].Clone()
			second.MsgId = t.ref + "-NOE2"
			ds = append(ds, second)
		case "quantity":
			set.Set("Quantity", strconv.FormatInt(t.allocs[j].qty+100, 10))
		case "settle_date":
			set.Set("SettleDate", g.u.ref.AddBusinessDays(t.sec.Country, t.settle, 1).String())
		case "settle_ccy":
			set.Set("SettleCcy", g.otherCurrency(t))
		case "net_amount": // one minor unit beyond the amount tolerance
			n, _ := decimal.Add(t.allocs[j].net, g.tolerance(refdata.CriterionNetAmount, t.ccy.Code, t.ccy.MinorUnits))
			set.Set("NetAmount", t.amount(addUnit(n, t.ccy.MinorUnits)))
		case "custodian":
			other := g.otherOf(r, g.u.custodians, t.allocs[j].custodian)
			set.Set("Custodian", other)
			set.Sender = other
		case "pset":
			set.Set("PSET", g.otherOf(r, g.u.csds, t.allocs[j].pset))
		}
		return &plan{items: g.all(ds), outcome: OutcomeMismatched, criteria: criteria}
	}
}

// parkedCustodian is a trade whose SET of one account comes from another
// custodian than the one its ALC names. Version 2 made it mismatched on
// criterion 16; version 3 parks that SET (messages.md §5, attached SETs): it
// is not in force, so the trade is never complete by count. (Built as the
// version 2 scenario was, so generated sets keep their bytes.)
func parkedCustodian(g *generator, r *rand.Rand, t *trade) *plan {
	p := mismatch("custodian", nil)(g, r, t)
	p.outcome, p.criteria = OutcomeIncomplete, nil
	return p
}

// withinNetAmount is a custodian's net amount a few minor units off the
// broker's, within the amount tolerance of the trade's currency: it matches,
// with the NPR's amount in the CLS and criterion 15 in <Tolerance>. Without a
// tolerance for the currency it is a clean trade.
func withinNetAmount(g *generator, r *rand.Rand, t *trade) *plan {
	ds := t.messages()
	tol := g.tolerance(refdata.CriterionNetAmount, t.ccy.Code, t.ccy.MinorUnits)
	units := tol.Coef()
	for sc := tol.Scale(); sc < t.ccy.MinorUnits; sc++ {
		units *= 10
	}
	p := &plan{outcome: OutcomeMatched, final: ds}
	if units > 0 {
		j := r.IntN(len(t.allocs))
		off := decimal.New(1+r.Int64N(units), t.ccy.MinorUnits) // 1 .. units minor units
		if r.IntN(2) == 0 {
			off = off.Neg() // the custodian's amount below the broker's as often as above
		}
		n, _ := decimal.Add(t.allocs[j].net, off)
		ds[3+3*j].Set("NetAmount", t.amount(n))
		p.tolerance = []int{refdata.CriterionNetAmount}
	}
	p.items = g.all(ds)
	return p
}

// tolerance is the reference data's tolerance of a criterion in a currency,
// 0 where it has more decimals than places (a price or amount off by it could
// not be written).
func (g *generator) tolerance(criterion int, ccy string, places int) decimal.Dec {
	d := g.u.ref.Tolerance(criterion, ccy)
	if d.Scale() > places {
		return decimal.Dec{}
	}
	return d
}

// addUnit adds one unit of the given decimal place.
func addUnit(d decimal.Dec, places int) decimal.Dec {
	s, _ := decimal.Add(d, decimal.New(1, places))
	return s
}

func (g *generator) otherOf(r *rand.Rand, xs []string, not string) string {
	for {
		if x := pick(r, xs); x != not {
			return x
		}
	}
}

// otherCurrency is another known currency in which the trade's amounts are
// still whole minor units.
func (g *generator) otherCurrency(t *trade) string {
	for _, m := range g.u.markets {
		if m.ccy.Code != t.ccy.Code && m.ccy.MinorUnits >= t.ccy.MinorUnits {
			return m.ccy.Code
		}
	}
	for _, c := range g.u.ref.Currencies() {
		if c.Code != t.ccy.Code && c.MinorUnits >= t.ccy.MinorUnits {
			return c.Code
		}
	}
	return t.ccy.Code
}

func missingSet(g *generator, r *rand.Rand, t *trade) *plan {
	ds := t.messages()
	j := r.IntN(len(t.allocs))
	ds = append(ds[:3+3*j], ds[4+3*j:]...)
	return &plan{items: g.all(ds), outcome: OutcomeIncomplete}
}

func noeCancelled(g *generator, r *rand.Rand, t *trade) *plan {
	ds := t.messages()
	ds = append(ds, cancel(ds[0], ds[0].MsgId+"-C", later(t, 90)))
	return &plan{items: g.all(ds), outcome: OutcomeIncomplete}
}

// invalidCodes cycle over the trades of the invalid scenario, so that every
// code of section 4 but CONFLICTING_DUPLICATE (its own scenario) appears.
var invalidCodes = []schemas.Reason{schemas.TooLarge, schemas.Malformed, schemas.Schema, schemas.UnknownSender,
	schemas.Signature, schemas.NotAuthorised, schemas.UnknownParty, schemas.UnknownSecurity,
	schemas.UnknownCurrency, schemas.BadDate, schemas.BadAmount}

// invalid is a clean trade plus one record that fails exactly one rule —
// the first failing rule is the intended one — under a MsgId of its own, so
// the trade still matches.
func invalid(g *generator, r *rand.Rand, t *trade) *plan {
	p := clean(g, r, t)
	code := invalidCodes[g.invalidSeq%len(invalidCodes)]
	g.invalidSeq++
	noe := t.noe(t.ref+"-X"+strings.ReplaceAll(code.String(), "_", ""), 5*time.Minute)
	it := item{draft: noe, key: refdata.DemoPrivateKey(t.broker)}
	switch code {
	case schemas.TooLarge:
		noe.Body = append(noe.Body, schemas.Pair{Name: "Remarks", Value: strings.Repeat("x", schemas.MaxRecord)})
	case schemas.Malformed:
		it.post = func(b []byte) []byte { return b[:len(b)-len("</Sig></Msg>")] }
	case schemas.Schema:
		noe.Set("Quantity", strconv.FormatInt(t.block(), 10)+".0")
	case schemas.UnknownSender:
		noe.Sender = g.u.unknownBIC
		it.key = refdata.DemoPrivateKey(noe.Sender)
	case schemas.Signature:
		it.key = refdata.DemoPrivateKey(t.invMgr)
	case schemas.NotAuthorised:
		noe.Sender = t.invMgr
		it.key = refdata.DemoPrivateKey(t.invMgr)
	case schemas.UnknownParty:
		alc := t.alc(0, noe.MsgId, 5*time.Minute)
		alc.Set("Custodian", g.u.notCustodian)
		it = item{draft: alc, key: refdata.DemoPrivateKey(t.invMgr)}
	case schemas.UnknownSecurity:
		isin := t.sec.ISIN
		last := (isin[11]-'0'+1)%10 + '0'
		noe.Set("ISIN", isin[:11]+string(last))
	case schemas.UnknownCurrency:
		noe.Set("TradeCcy", g.u.unknownCcy)
	case schemas.BadDate:
		d := t.tradeDate
		for d.Weekday() != time.Saturday {
			d++
		}
		noe.Set("SettleDate", d.String())
	case schemas.BadAmount:
		npr := t.npr(0, noe.MsgId, 20*time.Minute)
		npr.Set("GrossAmount", t.amount(addUnit(t.allocs[0].gross, t.ccy.MinorUnits)))
		it = item{draft: npr, key: refdata.DemoPrivateKey(t.broker)}
	}
	p.items = append(p.items, it)
	p.rejected = []string{code.String()}
	return p
}

// conflicting is a clean trade plus a second copy of one message under the
// same MsgId whose bytes differ only outside the signed range, so that it is
// valid and of identical content: whichever copy comes first is accepted and
// the other is CONFLICTING_DUPLICATE, in any order, and the trade matches.
func conflicting(g *generator, r *rand.Rand, t *trade) *plan {
	p := clean(g, r, t)
	c := p.items[r.IntN(len(p.items))]
	c.post = func(b []byte) []byte {
		out := append([]byte(nil), b[:len(b)-len("</Msg>")]...)
		return append(out, "<Route>GW2</Route></Msg>"...)
	}
	p.items = append(p.items, c)
	p.rejected = []string{schemas.ConflictingDuplicate.String()}
	return p
}

// forge adds to p the forgeries due (Options.Forged) for its records: NOEs
// of t under new MsgIds claiming to come from one of floodSenders brokers,
// signed with t's investment manager's key. Sender is checked before the
// signature, so each costs a verification and fails it: SIGNATURE.
func (g *generator) forge(p *plan, t *trade) {
	f := g.opts.Forged
	if f <= 0 {
		return
	}
	g.forgedOwed += float64(len(p.items)) * f / (1 - f)
	for ; g.forgedOwed >= 1; g.forgedOwed-- {
		sender := g.u.brokers[g.forgedSeq%min(floodSenders, len(g.u.brokers))]
		noe := t.noe(fmt.Sprintf("%s-F%07d", sender, g.forgedSeq), 6*time.Minute)
		noe.Sender = sender
		g.forgedSeq++
		key := t.invMgr
		if key == sender {
			key = t.broker
		}
		p.items = append(p.items, item{draft: noe, key: refdata.DemoPrivateKey(key)})
		p.rejected = append(p.rejected, schemas.Signature.String())
		p.forged++
	}
}
