package matching

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/ste-utility/ste/schemas"
)

// View is a trade as an operator reads it: its key fields, every accepted
// message with whether it is in force, where the trade stands by the
// criteria now, its lifecycle (messages.md §5a: the fields of gateway.md v2
// §4 computable from its set), its last status and its CLS versions. It is
// JSON (what an instance's /trades endpoint answers) and is computed from
// the state alone, by the same functions that decide matching. A party's
// view is View.For.
type View struct {
	TradeKey string         `json:"trade_key"`
	Keys     []KeyView      `json:"keys"`     // one: the trade's key fields
	State    string         `json:"state"`    // matched, mismatched, incomplete (the messages in force, by the criteria now)
	Complete bool           `json:"complete"` // complete by count
	Failing  []CriterionRow `json:"failing,omitempty"`
	// Tolerance lists, for a matched trade, the criteria (7, 15) that hold
	// only within tolerance, with the messages compared.
	Tolerance []CriterionRow `json:"tolerance,omitempty"`
	// Missing is who owes what (Trade.Missing); [] when nothing is owed.
	Missing []Owed `json:"missing"`
	// LastStatus is the last STATUS sent ("" when none), StatusN how many
	// status changes the trade has had.
	LastStatus string        `json:"last_status,omitempty"`
	StatusN    int           `json:"status_n"`
	CLS        []CLSVersion  `json:"cls,omitempty"`
	Messages   []MessageView `json:"messages"`
	Newest     time.Time     `json:"newest"` // newest Created: retention runs from it
	// Purged is set for a tombstone: the trade was purged by retention and
	// only its counters remain.
	Purged *PurgedView `json:"purged,omitempty"`

	// Version 3 (messages.md §5a; gateway.md v2 §4).
	//
	// Parties are the trade's parties (messages.md §6): who may see it.
	// Custodians are each Custodian party's accounts (the ALCs naming it of
	// the set the parties come from): what it sees (View.For).
	Parties    []string            `json:"parties"`
	Custodians map[string][]string `json:"custodian_accounts,omitempty"`
	// Held are the parked SETs (not attached, not cancelled or replaced by
	// their sender), by Sender then MsgId.
	Held []HeldView `json:"held"`
	// Lifecycle is the version 3 status value (section 5a step 10), or NONE.
	Lifecycle string `json:"lifecycle"`
	// MatchDigest is the standing digest, "" when no match stands.
	MatchDigest    string              `json:"match_digest"`
	Agreement      *AgreementView      `json:"agreement"`       // nil when not locked
	Pending        []PendingView       `json:"pending"`         // by MsgType, Sender, MsgId
	Proposal       *ProposalView       `json:"proposal"`        // nil when none
	Affirmations   []AffirmationView   `json:"affirmations"`    // every AFF, by Sender, MsgId
	CancelRequests []CancelRequestView `json:"cancel_requests"` // every CXL, by Sender, MsgId
	// BlockStatus is the block status (section 5a "Early information"),
	// NONE while the block is not complete.
	BlockStatus string `json:"block_status"`
	// Market is the trade's market for timeliness (messages.md §8
	// markets.csv): the Market of its NOE in force, "" without one (of two
	// NOEs in force, the first by Sender, then MsgId, so that it is a
	// function of the set).
	Market string `json:"market,omitempty"`
	// Locked and Cancelled say where the lifecycle stands (steps 2, 6).
	Locked    bool `json:"locked"`
	Cancelled bool `json:"cancelled"`
}

// HeldView is a parked SET.
type HeldView struct {
	Sender    string `json:"sender"`
	MsgId     string `json:"msg_id"`
	Account   string `json:"account"`
	Custodian string `json:"custodian"`
}

// AgreementView is a locked trade's agreement: its MatchDigest, the kind of
// root it grew from (INVMGR, or AUTO for the utility's AFF) and the steps of
// its replay.
type AgreementView struct {
	MatchDigest string `json:"match_digest"`
	By          string `json:"by"`
	Amendments  int    `json:"amendments"`
}

// PendingView is a pending change (section 5a step 9).
type PendingView struct {
	MsgType  string `json:"msg_type"`
	Function string `json:"function"`
	Sender   string `json:"sender"`
	MsgId    string `json:"msg_id"`
}

// ProposalView is what both principals would affirm, with Amends = the
// agreement's MatchDigest, for the pending changes to take effect.
type ProposalView struct {
	MatchDigest string   `json:"match_digest"`
	Messages    []string `json:"messages"` // Sender:MsgId, byte order
}

// AffirmationView is an AFF with its state (section 5a step 3).
type AffirmationView struct {
	Sender   string `json:"sender"`
	MsgId    string `json:"msg_id"`
	Decision string `json:"decision"`
	Amends   string `json:"amends"`
	State    string `json:"state"`
}

// CancelRequestView is a CXL with its state (section 5a step 2) and the
// answers that decide it.
type CancelRequestView struct {
	Sender     string   `json:"sender"`
	MsgId      string   `json:"msg_id"`
	State      string   `json:"state"`
	AnsweredBy []string `json:"answered_by"`
}

// PurgedView is what a purged trade left: its counters and when.
type PurgedView struct {
	Version   int       `json:"version"`
	StatusN   int       `json:"status_n"`
	PurgedAt  time.Time `json:"purged_at"` // event time
	Cancelled bool      `json:"cancelled,omitempty"`
}

// KeyView is the six key fields.
type KeyView struct {
	TradeRef  string `json:"trade_ref"`
	TradeDate string `json:"trade_date"`
	ISIN      string `json:"isin"`
	Side      string `json:"side"`
	Broker    string `json:"broker"`
	InvMgr    string `json:"inv_mgr"`
}

// CriterionRow is one failing criterion with the messages compared under it.
type CriterionRow struct {
	N        int      `json:"n"`
	Name     string   `json:"name"`
	Messages []string `json:"messages"` // Sender:MsgId
}

// CLSVersion is one CLS version the trade emitted.
type CLSVersion struct {
	Version  int    `json:"version"`
	MsgId    string `json:"msg_id"`
	Standing bool   `json:"standing"` // not cancelled
}

// MessageView is one accepted message as the trade holds it. Account is, for
// a CANCEL of an ALC, NPR or SET, the Account of the message it cancels (a
// Custodian's view counts it as of that account).
type MessageView struct {
	Sender     string    `json:"sender"`
	MsgId      string    `json:"msg_id"`
	Type       string    `json:"type"`
	Function   string    `json:"function"`
	Related    string    `json:"related_msg_id,omitempty"`
	Created    time.Time `json:"created"`
	InForce    bool      `json:"in_force"`
	Held       bool      `json:"held,omitempty"`    // a parked SET
	Pending    bool      `json:"pending,omitempty"` // a pending change
	Quantity   int64     `json:"quantity,omitempty"`
	Price      string    `json:"price,omitempty"`
	NetAmount  string    `json:"net_amount,omitempty"`
	SettleDate string    `json:"settle_date,omitempty"`
	AllocCount int32     `json:"alloc_count,omitempty"`
	TradeCcy   string    `json:"trade_ccy,omitempty"`
	SettleCcy  string    `json:"settle_ccy,omitempty"`
	Account    string    `json:"account,omitempty"`
	Custodian  string    `json:"custodian,omitempty"`
	PSET       string    `json:"pset,omitempty"`
	// Lifecycle messages (AFF, CXL, CXA, CXJ).
	Decision     string   `json:"decision,omitempty"`
	MatchDigest  string   `json:"match_digest,omitempty"`
	Affirms      []string `json:"affirms,omitempty"`
	Amends       string   `json:"amends,omitempty"`
	RejectReason []string `json:"reject_reason,omitempty"`
	CancelReason string   `json:"cancel_reason,omitempty"`
}

// criterionName names criterion n (1–17) as the contract's table does.
func criterionName(n int) string {
	if n >= 1 && n <= len(criteria) {
		return criteria[n-1].name
	}
	return ""
}

// View describes the trade, evaluated without tolerances (see ViewWith).
func (t *Trade) View() View { return t.ViewWith(nil) }

// ViewWith describes the trade, evaluated with the tolerances its instance
// matches with.
func (t *Trade) ViewWith(tol Tolerances) View {
	v := View{TradeKey: t.Key.String(), StatusN: t.StatusN, Newest: time.Unix(0, t.Newest).UTC(),
		Missing: []Owed{}, Held: []HeldView{}, Pending: []PendingView{}, Affirmations: []AffirmationView{},
		CancelRequests: []CancelRequestView{}, Lifecycle: "NONE", BlockStatus: "NONE", Parties: []string{}}
	for _, k := range t.Keys {
		v.Keys = append(v.Keys, KeyView{k.TradeRef, k.TradeDate, k.ISIN, k.Side, k.Broker, k.InvMgr})
	}
	if t.Last.Status != 0 {
		v.LastStatus = t.Last.Status.String()
	}
	a := assess(t, tol)
	v.Locked, v.Cancelled = a.locked, a.cancelled
	v.State = "incomplete"
	if m := a.match; m != nil {
		v.Complete = m.v.completeByCount()
		v.State = [...]string{incomplete: "incomplete", matched: "matched", mismatched: "mismatched"}[m.ev.state]
		for _, d := range m.ev.failing {
			v.Failing = append(v.Failing, CriterionRow{N: d.Criterion, Name: criterionName(d.Criterion), Messages: d.Tokens})
		}
		for _, d := range m.ev.within {
			v.Tolerance = append(v.Tolerance, CriterionRow{N: d.Criterion, Name: criterionName(d.Criterion), Messages: d.Tokens})
		}
		if a.matched() {
			v.MatchDigest = m.hex
		}
	}
	if len(t.Keys) > 0 && !a.locked && !a.cancelled {
		v.Missing = missing(a.key, newView(a.inForce, nil))
	}
	if a.value.IsV3() {
		v.Lifecycle = a.value.String()
	}
	if ag := a.agreement; ag != nil && a.locked {
		by := "INVMGR"
		if ag.root.aff.Sender != a.key.InvMgr {
			by = "AUTO" // the root is an AFF the utility sent (only the InvMgr and the utility send first affirmations)
		}
		v.Agreement = &AgreementView{MatchDigest: ag.c.hex, By: by, Amendments: ag.steps}
	}
	if b := a.blockOf(); b.status != 0 {
		v.BlockStatus = b.status.String()
	}
	v.Parties = append(v.Parties, a.parties...)
	for _, ca := range a.custodianAccounts() {
		if v.Custodians == nil {
			v.Custodians = map[string][]string{}
		}
		v.Custodians[ca.custodian] = append(v.Custodians[ca.custodian], ca.account)
	}
	for c, accts := range v.Custodians {
		slices.Sort(accts)
		v.Custodians[c] = slices.Compact(accts) // two ALCs may name one account
	}
	// Held: parked SETs that no SET CANCEL or REPLACE of their sender names.
	named := map[ref]bool{}
	for i := range t.Entries {
		if e := &t.Entries[i]; isChange(e) {
			named[relatedOf(e)] = true
		}
	}
	held := map[*Entry]bool{}
	for _, e := range a.parked {
		if !named[refOf(e)] {
			held[e] = true
			v.Held = append(v.Held, HeldView{Sender: e.Sender, MsgId: e.MsgId, Account: e.Account, Custodian: e.Custodian})
		}
	}
	slices.SortFunc(v.Held, func(x, y HeldView) int {
		return cmp.Or(strings.Compare(x.Sender, y.Sender), strings.Compare(x.MsgId, y.MsgId))
	})
	pending := map[*Entry]bool{}
	for _, e := range a.pending {
		pending[e] = true
		v.Pending = append(v.Pending, PendingView{MsgType: e.Type.String(), Function: e.Function.String(), Sender: e.Sender, MsgId: e.MsgId})
	}
	slices.SortFunc(v.Pending, func(x, y PendingView) int {
		return cmp.Or(cmp.Compare(typeRank(x.MsgType), typeRank(y.MsgType)), strings.Compare(x.Sender, y.Sender), strings.Compare(x.MsgId, y.MsgId))
	})
	if p := a.proposal; p != nil {
		v.Proposal = &ProposalView{MatchDigest: p.hex, Messages: p.tokens}
	}
	for _, f := range a.affs {
		v.Affirmations = append(v.Affirmations, AffirmationView{Sender: f.aff.Sender, MsgId: f.aff.MsgId,
			Decision: f.aff.Decision.String(), Amends: f.aff.Amends, State: f.state.String()})
	}
	for _, r := range a.requests {
		cr := CancelRequestView{Sender: r.cxl.Sender, MsgId: r.cxl.MsgId, State: r.state.String(), AnsweredBy: []string{}}
		for _, x := range r.answers {
			cr.AnsweredBy = append(cr.AnsweredBy, x.Token())
		}
		v.CancelRequests = append(v.CancelRequests, cr)
	}
	for ver := 1; ver <= t.Version; ver++ {
		v.CLS = append(v.CLS, CLSVersion{Version: ver, MsgId: schemas.CLSId(t.Key, ver), Standing: ver == t.Version && t.Live})
	}
	inf := map[*Entry]bool{}
	var noe *Entry
	for _, e := range a.inForce {
		inf[e] = true
		if e.Type == schemas.NOE && (noe == nil || cmp.Or(strings.Compare(e.Sender, noe.Sender), strings.Compare(e.MsgId, noe.MsgId)) < 0) {
			noe = e
		}
	}
	if noe != nil {
		v.Market = noe.Market
	}
	for i := range t.Entries {
		e := &t.Entries[i]
		m := MessageView{Sender: e.Sender, MsgId: e.MsgId, Type: e.Type.String(), Function: e.Function.String(),
			Related: e.Related, Created: time.Unix(0, e.Created).UTC(), InForce: inf[e], Held: held[e], Pending: pending[e],
			Quantity: e.Quantity, AllocCount: e.AllocCount, TradeCcy: e.TradeCcy, SettleCcy: e.SettleCcy,
			Account: e.Account, Custodian: e.Custodian, PSET: e.PSET,
			MatchDigest: e.MatchDigest, Affirms: e.Affirms, Amends: e.Amends, RejectReason: e.RejectReason, CancelReason: e.CancelReason}
		if e.Type == schemas.AFF {
			m.Decision = e.Decision.String()
		}
		if acct, ok := a.accountOf(e); ok {
			m.Account = acct
		}
		if e.Has.Has(schemas.FPrice) {
			m.Price = e.Price.String()
		}
		if e.Has.Has(schemas.FNetAmount) {
			m.NetAmount = e.NetAmount.Fixed(int(e.NetUnits)) // in the currency's minor units, as outputs write it
		}
		if e.Has.Has(schemas.FSettleDate) {
			m.SettleDate = e.SettleDate.String()
		}
		v.Messages = append(v.Messages, m)
	}
	if t.TombCancelled {
		v.Lifecycle = "CANCELLED"
	}
	return v
}

func typeRank(t string) int {
	switch t {
	case "NOE":
		return 0
	case "ALC":
		return 1
	case "NPR":
		return 2
	case "SET":
		return 3
	}
	return 4
}

// IsParty says whether bic is a party to the trade as messages.md §6 and
// gateway.md §4 define its parties: its Broker and InvMgr from the key
// fields (whether or not they have sent a message), and every Custodian
// named by an ALC in force (for a cancelled trade, by an ALC of the
// messages section 5a takes its parties from). A SET alone makes its
// Custodian no party. A participant that is not a party is told nothing of
// the trade, not even that it exists.
func (v *View) IsParty(bic string) bool {
	if bic == "" || v.Purged != nil {
		return false
	}
	for _, k := range v.Keys {
		if k.Broker == bic || k.InvMgr == bic {
			return true
		}
	}
	return slices.Contains(v.Parties, bic)
}

// For is the view a party may see (gateway.md v2 §4): the whole view for
// the Broker and the InvMgr; for a Custodian every field but Held, with
// Messages, Missing, Pending and the Proposal's messages limited to its
// accounts (the ALC, NPR and SET messages and the items of the Accounts an
// ALC names it for; a CANCEL counts as of the Account of the message it
// cancels; the NOE and other accounts' messages and items left out). ok is
// false for anyone who is not a party.
func (v *View) For(bic string) (View, bool) {
	if !v.IsParty(bic) {
		return View{}, false
	}
	for _, k := range v.Keys {
		if k.Broker == bic || k.InvMgr == bic {
			return *v, true
		}
	}
	mine := map[string]bool{}
	for _, a := range v.Custodians[bic] {
		mine[a] = true
	}
	c := *v
	c.Held = nil
	c.Custodians = map[string][]string{bic: v.Custodians[bic]}
	ofMine := func(m *MessageView) bool {
		return (m.Type == "ALC" || m.Type == "NPR" || m.Type == "SET") && m.Account != "" && mine[m.Account]
	}
	byToken := map[string]*MessageView{}
	c.Messages = []MessageView{}
	for i := range v.Messages {
		m := &v.Messages[i]
		byToken[m.Sender+":"+m.MsgId] = m
		if ofMine(m) {
			c.Messages = append(c.Messages, *m)
		}
	}
	c.Missing = []Owed{}
	for _, o := range v.Missing {
		if (o.MsgType == "NPR" || o.MsgType == "SET") && mine[o.Account] {
			c.Missing = append(c.Missing, o)
		}
	}
	c.Pending = []PendingView{}
	for _, p := range v.Pending {
		if m := byToken[p.Sender+":"+p.MsgId]; m != nil && ofMine(m) {
			c.Pending = append(c.Pending, p)
		}
	}
	if v.Proposal != nil {
		p := &ProposalView{MatchDigest: v.Proposal.MatchDigest, Messages: []string{}}
		for _, tok := range v.Proposal.Messages {
			if m := byToken[tok]; m != nil && ofMine(m) {
				p.Messages = append(p.Messages, tok)
			}
		}
		c.Proposal = p
	}
	c.Failing = filterRows(v.Failing, byToken, ofMine)
	c.Tolerance = filterRows(v.Tolerance, byToken, ofMine)
	return c, true
}

func filterRows(rows []CriterionRow, byToken map[string]*MessageView, keep func(*MessageView) bool) []CriterionRow {
	if rows == nil {
		return nil
	}
	out := make([]CriterionRow, len(rows))
	for i, r := range rows {
		out[i] = CriterionRow{N: r.N, Name: r.Name, Messages: []string{}}
		for _, tok := range r.Messages {
			if m := byToken[tok]; m != nil && keep(m) {
				out[i].Messages = append(out[i].Messages, tok)
			}
		}
	}
	return out
}

// ViewOf describes a match table value: a trade, or the tombstone a purged
// trade left, evaluated without tolerances (see ViewOfWith).
func ViewOf(key schemas.TradeKey, value []byte) (View, error) { return ViewOfWith(key, value, nil) }

// ViewOfWith is ViewOf evaluated with tolerances.
func ViewOfWith(key schemas.TradeKey, value []byte, tol Tolerances) (View, error) {
	if tomb, _, ok := Header(value); ok && tomb {
		ts, err := UnmarshalTombstone(value)
		if err != nil {
			return View{}, err
		}
		v := View{TradeKey: key.String(), State: "purged", StatusN: ts.StatusN, Messages: []MessageView{}, Missing: []Owed{},
			Held: []HeldView{}, Pending: []PendingView{}, Affirmations: []AffirmationView{}, CancelRequests: []CancelRequestView{},
			Parties: []string{}, Lifecycle: "NONE", BlockStatus: "NONE",
			Purged: &PurgedView{Version: ts.Version, StatusN: ts.StatusN, PurgedAt: time.Unix(0, ts.PurgedAt).UTC(), Cancelled: ts.Cancelled}}
		if ts.Key != (schemas.Key{}) {
			k := ts.Key
			v.Keys = []KeyView{{k.TradeRef, k.TradeDate, k.ISIN, k.Side, k.Broker, k.InvMgr}}
		}
		return v, nil
	}
	t, err := UnmarshalTrade(value, Interner{})
	if err != nil {
		return View{}, err
	}
	return t.ViewWith(tol), nil
}
