package fixgw

import (
	"strconv"
	"strings"
	"time"

	"github.com/quickfixgo/quickfix"
)

// The FIX messages the adapter sends (docs/spec/adapters.md §4.6, §4.7).
// The session fills the standard header (BeginString, CompIDs, MsgSeqNum,
// SendingTime) and trailer; body fields go out in tag order, the fields of
// a group entry in the dictionary's order, each entry beginning with the
// group's first field (what a client validating with its stock FIX44
// dictionary checks, §4.7.4).

func newFIX(msgType string) *quickfix.Message {
	m := quickfix.NewMessage()
	m.Header.SetString(tagMsgType, msgType)
	return m
}

func set(m *quickfix.Message, tag int, v string) {
	if v != "" {
		m.Body.SetString(quickfix.Tag(tag), v)
	}
}

// fixField is one body field of a message; an empty value is not written.
type fixField struct {
	tag int
	v   string
}

// fixMessage is a message of msgType with the body fields given (those
// with a value).
func fixMessage(msgType string, fields []fixField) *quickfix.Message {
	m := newFIX(msgType)
	for _, f := range fields {
		set(m, f.tag, f.v)
	}
	return m
}

// FIXTime is t as a FIX UTCTimestamp with milliseconds.
func FIXTime(t time.Time) string { return t.UTC().Format("20060102-15:04:05.000") }

// fixTimeOf turns an STE timestamp (RFC 3339) into a FIX UTCTimestamp with
// milliseconds; an unreadable one is kept as now.
func fixTimeOf(created string, now func() string) string {
	for _, layout := range []string{time.RFC3339Nano, time.RFC3339} {
		if t, err := time.Parse(layout, created); err == nil {
			return FIXTime(t)
		}
	}
	return now()
}

// fixDateOf turns YYYY-MM-DD into a FIX LocalMktDate YYYYMMDD.
func fixDateOf(d string) string { return strings.ReplaceAll(d, "-", "") }

// instrument writes the Instrument block of §4.7.4: Symbol = SecurityID =
// the ISIN, SecurityIDSource 4; without an ISIN, Symbol only (symbol, or
// [N/A]).
func instrument(m *quickfix.Message, isin, symbol string) {
	if isin != "" {
		set(m, tagSymbol, isin)
		set(m, tagSecurityID, isin)
		set(m, tagSecurityIDSource, "4")
		return
	}
	if symbol == "" {
		symbol = "[N/A]"
	}
	set(m, tagSymbol, symbol)
}

func group(tag int, fields ...int) *quickfix.RepeatingGroup {
	t := make(quickfix.GroupTemplate, len(fields))
	for i, f := range fields {
		t[i] = quickfix.GroupElement(quickfix.Tag(f))
	}
	return quickfix.NewRepeatingGroup(quickfix.Tag(tag), t)
}

// ---- P AllocationInstructionAck ----

// pAlloc is a NACKed account in a P (87 1 or 2).
type pAlloc struct{ Account, Code, Text string }

// pAck is a P's content.
type pAck struct {
	AllocID, TransactTime, TradeDate string
	Status, RejCode, MatchStatus     string
	Text                             string
	Allocs                           []pAlloc
}

func (p pAck) message() *quickfix.Message {
	m := fixMessage("P", []fixField{{tagAllocID, p.AllocID}, {tagTransactTime, p.TransactTime}, {tagTradeDate, p.TradeDate},
		{tagAllocStatus, p.Status}, {tagAllocRejCode, p.RejCode}, {tagMatchStatus, p.MatchStatus}, {tagText, p.Text}})
	if len(p.Allocs) > 0 {
		g := group(tagNoAllocs, tagAllocAccount, tagIndividualAllocRejCode, tagAllocText)
		for _, a := range p.Allocs {
			e := g.Add()
			e.SetString(tagAllocAccount, a.Account)
			e.SetString(tagIndividualAllocRejCode, a.Code)
			e.SetString(tagAllocText, a.Text)
		}
		m.Body.SetGroup(g)
	}
	return m
}

// receivedJ is the P 87=3 of §4.4 step 6: received, not yet processed.
func receivedJ(allocID, transactTime, tradeDate string) *quickfix.Message {
	return pAck{AllocID: allocID, TransactTime: transactTime, TradeDate: tradeDate, Status: "3"}.message()
}

// rejectJ is a J's adapter-level rejection (§4.6).
func rejectJ(allocID string, r *rejection, now string) *quickfix.Message {
	st := r.p87
	if st == "" {
		st = "1"
	}
	return pAck{AllocID: allocID, TransactTime: now, Status: st, RejCode: r.p88, Text: r.text}.message()
}

// ---- AR TradeCaptureReportAck ----

type arAck struct {
	TradeReportID, TransType, ExecType, Status, RejectReason string
	MatchID, TransactTime, Text, ISIN, Symbol                string
}

func (a arAck) message() *quickfix.Message {
	m := fixMessage("AR", []fixField{{tagTradeReportID, a.TradeReportID}, {tagTradeReportTransType, a.TransType},
		{tagExecType, a.ExecType}, {tagTrdRptStatus, a.Status}, {tagTradeReportRejectRsn, a.RejectReason},
		{tagTrdMatchID, a.MatchID}, {tagTransactTime, a.TransactTime}, {tagText, a.Text}})
	instrument(m, a.ISIN, a.Symbol)
	return m
}

// rejectAE is an AE's adapter-level rejection (§4.6).
func rejectAE(b *Node, r *rejection, now string) *quickfix.Message {
	isin, _ := isinOf(b)
	return arAck{TradeReportID: b.Get(tagTradeReportID), TransType: b.Get(tagTradeReportTransType), ExecType: "8", Status: "1",
		RejectReason: r.ar751, TransactTime: now, Text: r.text, ISIN: isin, Symbol: b.Get(tagSymbol)}.message()
}

// ---- AU ConfirmationAck ----

type auAck struct {
	ConfirmID, TradeDate, TransactTime, AffirmStatus, RejReason, MatchStatus, Text string
}

func (a auAck) message() *quickfix.Message {
	return fixMessage("AU", []fixField{{tagConfirmID, a.ConfirmID}, {tagTradeDate, a.TradeDate}, {tagTransactTime, a.TransactTime},
		{tagAffirmStatus, a.AffirmStatus}, {tagConfirmRejReason, a.RejReason}, {tagMatchStatus, a.MatchStatus}, {tagText, a.Text}})
}

// rejectAK is an AK's adapter-level rejection (§4.6): AU 940=2 774=99.
func rejectAK(confirmID, tradeDate, text, now string) *quickfix.Message {
	if tradeDate == "" {
		tradeDate = now[:8]
	}
	return auAck{ConfirmID: confirmID, TradeDate: tradeDate, TransactTime: now, AffirmStatus: "2", RejReason: "99", Text: text}.message()
}

// ---- j BusinessMessageReject (an AFF's NACK, §4.7.1) ----

func businessReject(refMsgType, refID string, reason int, text string) *quickfix.Message {
	return fixMessage("j", []fixField{{tagRefMsgType, refMsgType}, {tagBusinessRejectRefID, refID},
		{tagBusinessRejectReason, strconv.Itoa(reason)}, {tagText, text}})
}

// ---- AK Confirmation (a CNF leg to the InvMgr, §4.7.3) ----

type akConfirm struct {
	ConfirmID, TransType, RefID                    string
	Broker, InvMgr, TradeRef, TransactTime         string
	TradeDate, ISIN, Qty, Side, Currency, Account  string
	AvgPx, Gross, NetMoney, SettlCurrency, SettlDt string
}

func (a akConfirm) message() *quickfix.Message {
	m := fixMessage("AK", []fixField{{tagConfirmID, a.ConfirmID}, {tagConfirmTransType, a.TransType}, {tagConfirmRefID, a.RefID},
		{tagConfirmType, "2"}, {tagConfirmStatus, "4"}})
	parties := group(tagNoPartyIDs, tagPartyID, tagPartyIDSource, tagPartyRole)
	for _, p := range [][2]string{{a.Broker, "1"}, {a.InvMgr, "13"}} {
		e := parties.Add()
		e.SetString(tagPartyID, p[0])
		e.SetString(tagPartyIDSource, "B")
		e.SetString(tagPartyRole, p[1])
	}
	m.Body.SetGroup(parties)
	orders := group(tagNoOrders, tagClOrdID, tagOrderID)
	e := orders.Add()
	e.SetString(tagClOrdID, a.TradeRef)
	e.SetString(tagOrderID, a.TradeRef)
	m.Body.SetGroup(orders)
	set(m, tagTransactTime, a.TransactTime)
	set(m, tagTradeDate, a.TradeDate)
	instrument(m, a.ISIN, "")
	m.Body.SetGroup(group(tagNoUnderlyings, 311))
	m.Body.SetGroup(group(tagNoLegs, 600))
	set(m, tagAllocQty, a.Qty)
	set(m, tagSide, a.Side)
	set(m, tagCurrency, a.Currency)
	caps := group(tagNoCapacities, tagOrderCapacity, 529, tagOrderCapacityQty)
	c := caps.Add()
	c.SetString(tagOrderCapacity, "A")
	c.SetString(tagOrderCapacityQty, a.Qty)
	m.Body.SetGroup(caps)
	set(m, tagAllocAccount, a.Account)
	set(m, tagAvgPx, a.AvgPx)
	set(m, tagGrossTradeAmt, a.Gross)
	set(m, tagNetMoney, a.NetMoney)
	set(m, tagSettlCurrency, a.SettlCurrency)
	set(m, tagSettlDate, a.SettlDt)
	return m
}
