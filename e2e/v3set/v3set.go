// Package v3set builds message sets of contract version 3 for the suites
// that hold the Kafka path to `ste match` (instance, e2e, chaos): a
// realistic set (workload) whose matched trades get the lifecycle of
// messages.md §5a — affirmations (MANUAL) and the utility's (AUTO),
// rejections, an amendment both principals affirm, a bilateral
// cancellation, cancel requests unanswered and rejected, rogue SETs — with
// the AFFs naming the sets `ste match` confirmed (their CNFs' digests and
// tokens), as participants would read them. Test code: no production
// package imports it.
//
// Every outcome of such a set is a function of the set (messages.md §5),
// but for an AUTO investment manager which matched set the utility
// affirms, which depends on which matched first in processing order: the
// Kafka path's order within a trade differs from the file's (inbound is
// keyed by sender). So an AUTO investment manager's trades are only those
// with one set that can ever match, in any order, and get no lifecycle
// message of their own (a REJECT or a cancellation before the match would
// decide whether the utility affirms at all).
package v3set

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/ste-utility/ste/processors/offline"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/workload"
)

// Options of a set.
type Options struct {
	Trades int
	Seed   uint64
	// Ref is the reference data the set is generated against (default
	// refdata.Default()); Build returns a clone with the AUTO rows.
	Ref *refdata.Set
	// Utility is the utility's BIC (default refdata.DefaultUtilityBIC),
	// its key the demo key (Build runs ste match's engine with it).
	Utility string
}

// Set is a version 3 set.
type Set struct {
	Records [][]byte // shuffled
	Ref     *refdata.Set
	// Auto are the investment managers in AUTO mode (affirmation.csv rows).
	Auto []string
	// Cases counts the lifecycle cases given to trades.
	Cases map[string]int
}

// The lifecycle cases of a MANUAL investment manager's clean matched trade,
// in turn.
const (
	CaseAffirm       = "affirm (and a rogue SET)"
	CaseReject       = "reject"
	CaseAmend        = "affirm, a broker's replace, both amend"
	CaseCancel       = "affirm, CXL, CXA"
	CaseCancelAlone  = "affirm, CXL unanswered"
	CaseCancelReject = "CXL, CXJ (unlocked)"
)

var cases = []string{CaseAffirm, CaseReject, CaseAmend, CaseCancel, CaseCancelAlone, CaseCancelReject}

// Build generates the set.
func Build(o Options) (*Set, error) {
	if o.Ref == nil {
		o.Ref = refdata.Default()
	}
	if o.Utility == "" {
		o.Utility = refdata.DefaultUtilityBIC
	}
	ref := o.Ref.Clone()
	var recs [][]byte
	var plans []workload.TradePlan
	if _, err := workload.Generate(workload.Options{Trades: o.Trades, Mix: workload.Realistic, Seed: o.Seed, Ref: ref},
		func(b []byte) error { recs = append(recs, bytes.Clone(b)); return nil },
		func(p workload.TradePlan) { plans = append(plans, p) }); err != nil {
		return nil, err
	}
	scenario := map[string]string{}
	for _, p := range plans {
		scenario[p.TradeKey] = p.Scenario
	}
	// The trades, their messages and investment managers.
	trades := map[string]*trade{}
	var order []string
	var dec schemas.Decoder
	keyOf := make([]string, len(recs))
	for i, r := range recs {
		m, rej := dec.Decode(r)
		if m == nil || rej != nil && rej.Reason <= schemas.Schema {
			continue
		}
		k := m.Key.TradeKey().String()
		keyOf[i] = k
		tr := trades[k]
		if tr == nil {
			tr = &trade{key: k, invMgr: m.Key.InvMgr}
			trades[k] = tr
			order = append(order, k)
		}
		if rej == nil {
			if d, err := schemas.ParseDraft(r); err == nil {
				tr.drafts = append(tr.drafts, d)
			}
			tr.latest = max(tr.latest, m.Created)
		}
	}
	// Every other investment manager is AUTO.
	var invMgrs []string
	for _, k := range order {
		if !slices.Contains(invMgrs, trades[k].invMgr) {
			invMgrs = append(invMgrs, trades[k].invMgr)
		}
	}
	slices.Sort(invMgrs)
	s := &Set{Ref: ref, Cases: map[string]int{}}
	for i, im := range invMgrs {
		if i%2 == 0 && len(ref.ParticipantsWithRole(refdata.RoleInvMgr, true)) > 0 {
			s.Auto = append(s.Auto, im)
			ref.PutAffirmation(refdata.Affirmation{InvMgr: im, Mode: refdata.AffirmAuto})
		}
	}
	// An AUTO investment manager's trades are those of the scenarios where
	// no other set of the trade's messages matches, in any order (see the
	// package doc): a NOE cancelled after its trade matched is pending
	// under the lock of the utility's AFF, while cancelled first it leaves
	// the trade incomplete; a second NOE, a cancel and resend, a replace
	// of a correct message are alike.
	single := func(sc string) bool {
		switch sc {
		case "clean", "duplicate", "tolerance_net_amount", "conflicting_duplicate", "invalid",
			"incomplete_missing_set", "parked_custodian":
			return true
		}
		return strings.HasPrefix(sc, "mismatch_") && sc != "mismatch_double_noe"
	}
	kept := recs[:0:0]
	for i, r := range recs {
		if k := keyOf[i]; k != "" && ref.AutoAffirms(trades[k].invMgr) && !single(scenario[k]) {
			continue
		}
		kept = append(kept, r)
	}
	recs = kept

	g := &gen{ref: ref, utility: o.Utility}
	// Round 1: what ste match confirms of each trade.
	out1, err := g.match(recs)
	if err != nil {
		return nil, err
	}
	cnf := lastCNFs(out1)
	var custodians []string
	for _, p := range ref.ParticipantsWithRole(refdata.RoleCustodian, true) {
		custodians = append(custodians, p.BIC)
	}
	slices.Sort(custodians)
	// Round 2: the lifecycle of MANUAL clean matched trades.
	var life, amended []*schemas.Draft
	type amendment struct {
		tr     *trade
		digest string
	}
	var amends []amendment
	n := 0
	for _, k := range order {
		tr := trades[k]
		c, ok := cnf[k+" "+tr.invMgr]
		if !ok || scenario[k] != "clean" || ref.AutoAffirms(tr.invMgr) {
			continue
		}
		noe := tr.find("NOE")
		if noe == nil || noe.Get("Broker") == tr.invMgr {
			// A trade whose Broker is its InvMgr (the generator makes a
			// few) has one principal: its lifecycle is not the cases' (an
			// AFF of that BIC is both principals', so the NPR replace of
			// CaseAmend makes no proposal; chaos seed 1796596616534789798).
			continue
		}
		at := func(min int) string {
			return time.Unix(0, tr.latest).Add(time.Duration(min) * time.Minute).UTC().Format("2006-01-02T15:04:05.000Z")
		}
		broker := noe.Get("Broker")
		which := cases[n%len(cases)]
		n++
		s.Cases[which]++
		id := func(suffix string) string { return noe.Get("TradeRef") + "-" + suffix }
		affirm := func(sender, msgId, digest, toks, amends string, min int) *schemas.Draft {
			d := g.life(noe, "AFF", msgId, sender, at(min), "Decision", "AFFIRM", "MatchDigest", digest, "Affirms", toks)
			if amends != "" {
				d.Set("Amends", amends)
			}
			return d
		}
		switch which {
		case CaseAffirm:
			life = append(life, affirm(tr.invMgr, id("AFF"), c.digest, c.tokens, "", 5))
			if set := tr.find("SET"); set != nil {
				rogue := set.Clone()
				for _, cu := range custodians {
					if cu != set.Get("Custodian") {
						rogue.Sender = cu
						rogue.Set("Custodian", cu)
						break
					}
				}
				rogue.MsgId, rogue.Created = id("ROGUE"), at(6)
				life = append(life, rogue)
			}
		case CaseReject:
			d := g.life(noe, "AFF", id("REJ"), tr.invMgr, at(5), "Decision", "REJECT", "MatchDigest", c.digest,
				"Affirms", c.tokens, "RejectReason", "PRICE OTHER")
			life = append(life, d)
		case CaseAmend:
			life = append(life, affirm(tr.invMgr, id("AFF"), c.digest, c.tokens, "", 5))
			npr := tr.find("NPR")
			if npr == nil {
				continue
			}
			r := npr.Clone()
			r.Function, r.RelatedMsgId, r.MsgId, r.Created = "REPLACE", npr.MsgId, id("NPR-R"), at(6)
			life = append(life, r)
			amends = append(amends, amendment{tr, c.digest})
		case CaseCancel:
			life = append(life, affirm(tr.invMgr, id("AFF"), c.digest, c.tokens, "", 5),
				g.life(noe, "CXL", id("CXL"), broker, at(7), "CancelReason", "ERROR"),
				g.related(g.life(noe, "CXA", id("CXA"), tr.invMgr, at(8)), id("CXL")))
		case CaseCancelAlone:
			life = append(life, affirm(tr.invMgr, id("AFF"), c.digest, c.tokens, "", 5),
				g.life(noe, "CXL", id("CXL"), tr.invMgr, at(7), "CancelReason", "CLIENT_REQUEST"))
		case CaseCancelReject:
			life = append(life, g.life(noe, "CXL", id("CXL"), broker, at(7), "CancelReason", "DUPLICATE"),
				g.related(g.life(noe, "CXJ", id("CXJ"), tr.invMgr, at(8), "CancelReason", "OTHER"), id("CXL")))
		}
	}
	all := slices.Concat(recs, g.sign(life))
	if len(amends) > 0 {
		// Round 3: both principals affirm the proposal the replace made.
		out2, err := g.match(all)
		if err != nil {
			return nil, err
		}
		props := proposals(out2)
		for _, a := range amends {
			p, ok := props[a.tr.key]
			if !ok {
				return nil, fmt.Errorf("v3set: trade %s has no proposal after its replace", a.tr.key)
			}
			noe := a.tr.find("NOE")
			at := time.Unix(0, a.tr.latest).Add(9 * time.Minute).UTC().Format("2006-01-02T15:04:05.000Z")
			for _, sender := range []string{a.tr.invMgr, noe.Get("Broker")} {
				d := g.life(noe, "AFF", noe.Get("TradeRef")+"-AMD-"+sender[:4], sender, at, "Decision", "AFFIRM",
					"MatchDigest", p.digest, "Affirms", p.tokens, "Amends", a.digest)
				amended = append(amended, d)
			}
		}
		all = slices.Concat(all, g.sign(amended))
	}
	rand.New(rand.NewPCG(o.Seed, 53)).Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	s.Records = all
	return s, nil
}

// trade is a generated trade: its valid messages, its investment manager
// and its latest Created.
type trade struct {
	key    string
	invMgr string
	drafts []*schemas.Draft
	latest int64
}

// find is the trade's first NEW of a type.
func (tr *trade) find(typ string) *schemas.Draft {
	for _, d := range tr.drafts {
		if d.MsgType == typ && d.Function == "NEW" {
			return d
		}
	}
	return nil
}

type gen struct {
	ref     *refdata.Set
	utility string
}

// life is a lifecycle message of the trade of noe (its key fields).
func (g *gen) life(noe *schemas.Draft, typ, id, sender, created string, body ...string) *schemas.Draft {
	d := &schemas.Draft{MsgId: id, MsgType: typ, Function: "NEW", Sender: sender, Created: created}
	for _, k := range []string{"TradeRef", "TradeDate", "ISIN", "Side", "Broker", "InvMgr"} {
		d.Set(k, noe.Get(k))
	}
	for i := 0; i+1 < len(body); i += 2 {
		d.Set(body[i], body[i+1])
	}
	return d
}

func (g *gen) related(d *schemas.Draft, to string) *schemas.Draft {
	d.RelatedMsgId = to
	return d
}

// sign signs each draft with its sender's demo key.
func (g *gen) sign(ds []*schemas.Draft) [][]byte {
	out := make([][]byte, 0, len(ds))
	for _, d := range ds {
		out = append(out, d.AppendSigned(nil, refdata.DemoPrivateKey(d.Sender)))
	}
	return out
}

// match runs ste match's engine over recs and returns its outbound records.
func (g *gen) match(recs [][]byte) ([][]byte, error) {
	src, err := msgset.NewReader(bytes.NewReader(append(bytes.Join(recs, []byte("\n")), '\n')), "set")
	if err != nil {
		return nil, err
	}
	var out [][]byte
	_, _, err = offline.Run(context.Background(), src, offline.Sinks{
		Outbound: func(b []byte) error { out = append(out, bytes.Clone(b)); return nil },
	}, offline.Options{Validator: validation.New(g.ref, validation.WithUtilityBIC(g.utility)),
		Signer: &schemas.Signer{BIC: g.utility, Key: refdata.DemoPrivateKey(g.utility)}})
	return out, err
}

// confirmed is a set as a CNF or a proposal names it.
type confirmed struct{ digest, tokens string }

// lastCNFs are the last CNF NEW of each trade to each receiver, by "trade
// key receiver", with the digest and tokens it confirms.
func lastCNFs(out [][]byte) map[string]confirmed {
	m := map[string]confirmed{}
	for _, b := range out {
		r, err := schemas.ParseOutput(b)
		if err != nil || r.MsgType != "CNF" || r.Function != "NEW" {
			continue
		}
		m[r.TradeKey+" "+r.Receiver] = confirmed{element(r.Body, "MatchDigest"), element(r.Body, "Messages")}
	}
	return m
}

// proposals are the last proposal of each trade (a CHANGE_PENDING STATUS).
func proposals(out [][]byte) map[string]confirmed {
	m := map[string]confirmed{}
	for _, b := range out {
		r, err := schemas.ParseOutput(b)
		if err != nil || r.MsgType != "STATUS" {
			continue
		}
		body := string(r.Body)
		i := strings.Index(body, `<Proposal digest="`)
		if i < 0 {
			continue
		}
		rest := body[i+len(`<Proposal digest="`):]
		digest, rest, _ := strings.Cut(rest, `">`)
		toks, _, _ := strings.Cut(rest, "</Proposal>")
		m[r.TradeKey] = confirmed{digest, toks}
	}
	return m
}

func element(body []byte, name string) string {
	s := string(body)
	i := strings.Index(s, "<"+name+">")
	if i < 0 {
		return ""
	}
	v, _, _ := strings.Cut(s[i+len(name)+2:], "</"+name+">")
	return v
}
