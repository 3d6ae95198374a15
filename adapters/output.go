package adapters

import (
	"strconv"
	"strings"

	"github.com/ste-utility/ste/adapters/journal"
	"github.com/ste-utility/ste/schemas/xmltext"
)

// Output is an STE output record (messages.md §6) read for translation
// into a standard format: the union of what the FIX (§4.7) and the ISO
// 20022 (§5.6) adapters read. Absent elements are empty.
type Output struct {
	MsgId, MsgType, Function, Receiver, Created string
	// RelatedMsgId is the Header's; when the Header has none, the Body's
	// (a NACK of a message whose MsgId is not of its form).
	RelatedMsgId                                            string
	TradeKey, Status, Reason, Detail, MatchDigest, Messages string
	Key                                                     journal.KeyFields
	Quantity, Price, TradeCcy, SettleDate                   string
	Criteria, Tolerances                                    []int // Discrepancy, Tolerance
	RejectReasons                                           []string
	Proposal                                                string   // its digest
	CancelRequests                                          []string // the PENDING ones
	Legs                                                    []Leg    // CNF
	Pending                                                 []string // STATUS
	Owed                                                    []Owed   // ALG
}

// Leg is one Leg of a CNF.
type Leg struct {
	Account   string `json:"account"`
	Quantity  string `json:"quantity"`
	NetAmount string `json:"net_amount"`
	SettleCcy string `json:"settle_ccy"`
}

// Owed is one item an ALG's receiver owes.
type Owed struct{ MsgType, Account, Quantity string }

// ReadOutput reads an STE output record; false when it is not one (not XML,
// no Msg with a Header and a Body). Function defaults to NEW.
func ReadOutput(raw []byte) (*Output, bool) {
	var d xmltext.Document
	if d.Parse(raw) != nil || len(d.Elements) == 0 || string(d.Elements[0].Name) != "Msg" {
		return nil, false
	}
	h, b := d.Child(0, "Header"), d.Child(0, "Body")
	if h < 0 || b < 0 {
		return nil, false
	}
	text := func(parent int, name string) string {
		if i := d.Child(parent, name); i >= 0 {
			return strings.Trim(string(d.Elements[i].Text), " \t\r\n")
		}
		return ""
	}
	o := &Output{MsgId: text(h, "MsgId"), MsgType: text(h, "MsgType"), Function: text(h, "Function"),
		Receiver: text(h, "Receiver"), Created: text(h, "Created"), RelatedMsgId: text(h, "RelatedMsgId"),
		TradeKey: text(b, "TradeKey"), Status: text(b, "Status"), Reason: text(b, "Reason"), Detail: text(b, "Detail"),
		MatchDigest: text(b, "MatchDigest"), Messages: text(b, "Messages"),
		Quantity: text(b, "Quantity"), Price: text(b, "Price"), TradeCcy: text(b, "TradeCcy"), SettleDate: text(b, "SettleDate"),
		Key: journal.KeyFields{TradeRef: text(b, "TradeRef"), TradeDate: text(b, "TradeDate"), ISIN: text(b, "ISIN"),
			Side: text(b, "Side"), Broker: text(b, "Broker"), InvMgr: text(b, "InvMgr")}}
	if o.Function == "" {
		o.Function = "NEW"
	}
	if o.RelatedMsgId == "" {
		o.RelatedMsgId = text(b, "RelatedMsgId")
	}
	criterion := func(e *xmltext.Element) (int, bool) {
		v, ok := e.Attr("criterion")
		if !ok {
			return 0, false
		}
		n, err := strconv.Atoi(string(v))
		return n, err == nil
	}
	for _, i := range d.Children(nil, b) {
		e := &d.Elements[i]
		switch string(e.Name) {
		case "Discrepancy":
			if n, ok := criterion(e); ok {
				o.Criteria = append(o.Criteria, n)
			}
		case "Tolerance":
			if n, ok := criterion(e); ok {
				o.Tolerances = append(o.Tolerances, n)
			}
		case "RejectReason":
			o.RejectReasons = append(o.RejectReasons, strings.TrimSpace(string(e.Text)))
		case "Proposal":
			v, _ := e.Attr("digest")
			o.Proposal = string(v)
		case "CancelRequest":
			if v, _ := e.Attr("state"); string(v) == "PENDING" {
				o.CancelRequests = append(o.CancelRequests, strings.TrimSpace(string(e.Text)))
			}
		case "Leg":
			o.Legs = append(o.Legs, Leg{Account: text(i, "Account"), Quantity: text(i, "Quantity"),
				NetAmount: text(i, "NetAmount"), SettleCcy: text(i, "SettleCcy")})
		case "Pending":
			o.Pending = append(o.Pending, strings.Fields(string(e.Text))...)
		case "Owed":
			t, _ := e.Attr("msgType")
			a, _ := e.Attr("account")
			q, _ := e.Attr("quantity")
			o.Owed = append(o.Owed, Owed{string(t), string(a), string(q)})
		}
	}
	return o, true
}
