package matching

import (
	"time"

	"github.com/ste-utility/ste/schemas"
)

// View is a trade as an operator reads it: its key fields, every accepted
// message with whether it is in force, where the trade stands by the
// criteria now, its last status and its CLS versions. It is JSON (what an
// instance's /trades endpoint answers) and is computed from the state alone,
// by the same functions that decide matching.
type View struct {
	TradeKey string         `json:"trade_key"`
	Keys     []KeyView      `json:"keys"`     // one, barring a hash collision
	State    string         `json:"state"`    // matched, mismatched, incomplete (by the criteria now)
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
}

// PurgedView is what a purged trade left: its counters and when.
type PurgedView struct {
	Version  int       `json:"version"`
	StatusN  int       `json:"status_n"`
	PurgedAt time.Time `json:"purged_at"` // event time
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

// MessageView is one accepted message as the trade holds it.
type MessageView struct {
	Sender     string    `json:"sender"`
	MsgId      string    `json:"msg_id"`
	Type       string    `json:"type"`
	Function   string    `json:"function"`
	Related    string    `json:"related_msg_id,omitempty"`
	Created    time.Time `json:"created"`
	InForce    bool      `json:"in_force"`
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
	v := View{TradeKey: t.Key.String(), StatusN: t.StatusN, Newest: time.Unix(0, t.Newest).UTC()}
	for _, k := range t.Keys {
		v.Keys = append(v.Keys, KeyView{k.TradeRef, k.TradeDate, k.ISIN, k.Side, k.Broker, k.InvMgr})
	}
	if t.Last.Status != 0 {
		v.LastStatus = t.Last.Status.String()
	}
	in := inForce(t, tol)
	v.Complete = in.completeByCount()
	ev := evaluate(t, in)
	v.Missing = missing(t, in)
	v.State = [...]string{incomplete: "incomplete", matched: "matched", mismatched: "mismatched"}[ev.state]
	for _, d := range ev.failing {
		v.Failing = append(v.Failing, CriterionRow{N: d.Criterion, Name: criterionName(d.Criterion), Messages: d.Tokens})
	}
	for _, d := range ev.within {
		v.Tolerance = append(v.Tolerance, CriterionRow{N: d.Criterion, Name: criterionName(d.Criterion), Messages: d.Tokens})
	}
	for ver := 1; ver <= t.Version; ver++ {
		v.CLS = append(v.CLS, CLSVersion{Version: ver, MsgId: schemas.CLSId(t.Key, ver), Standing: ver == t.Version && t.Live})
	}
	inf := map[*Entry]bool{}
	for _, e := range in.all {
		inf[e] = true
	}
	for i := range t.Entries {
		e := &t.Entries[i]
		m := MessageView{Sender: e.Sender, MsgId: e.MsgId, Type: e.Type.String(), Function: e.Function.String(),
			Related: e.Related, Created: time.Unix(0, e.Created).UTC(), InForce: inf[e],
			Quantity: e.Quantity, AllocCount: e.AllocCount, TradeCcy: e.TradeCcy, SettleCcy: e.SettleCcy,
			Account: e.Account, Custodian: e.Custodian, PSET: e.PSET}
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
	return v
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
		return View{TradeKey: key.String(), State: "purged", StatusN: ts.StatusN, Messages: []MessageView{}, Missing: []Owed{},
			Purged: &PurgedView{Version: ts.Version, StatusN: ts.StatusN, PurgedAt: time.Unix(0, ts.PurgedAt).UTC()}}, nil
	}
	t, err := UnmarshalTrade(value, Interner{})
	if err != nil {
		return View{}, err
	}
	return t.ViewWith(tol), nil
}
