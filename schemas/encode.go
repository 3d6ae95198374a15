package schemas

import (
	"strconv"

	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/decimal"
)

// Output is one message the utility sends, before it is signed: the content
// (Body) is fixed by the matching logic, the Header's Created is the wall clock
// at signing time. Keeping them apart lets outputs be signed in parallel and
// re-signed on re-emission without changing their content.
type Output struct {
	Type         MsgType  // ACK, NACK, STATUS or CLS
	Function     Function // NEW, or CANCEL for a CLS CANCEL
	MsgId        string
	Receiver     string // the participant; the utility's own BIC for CLS
	RelatedMsgId string // "" when the header carries none
	Key          string // Kafka key: the receiver for outbound, the trade key for CLS
	Body         []byte // inner XML of <Body>, escaped
}

// IsCLS reports whether o goes to the cls topic (else outbound).
func (o *Output) IsCLS() bool { return o.Type == CLS }

// Status is a STATUS value of section 6.
type Status uint8

const (
	Matched Status = iota + 1
	Mismatched
	Unmatched
	Expired
	// Version 3 values (messages.md §5a step 10), appended so stored values
	// keep their numbers.
	Affirmed
	AffirmRejected
	ChangePending
	CancelPending
	Cancelled
)

var statusNames = [...]string{"", "MATCHED", "MISMATCHED", "UNMATCHED", "EXPIRED",
	"AFFIRMED", "AFFIRM_REJECTED", "CHANGE_PENDING", "CANCEL_PENDING", "CANCELLED"}

// IsV3 reports whether s is one of the five values version 3 adds.
func (s Status) IsV3() bool { return s >= Affirmed && s <= Cancelled }

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return ""
}

// Discrepancy is one failing criterion with the messages compared under it,
// as "Sender:MsgId" tokens in byte order.
type Discrepancy struct {
	Criterion int
	Tokens    []string
}

// CLSContent is the content of a CLS NEW.
type CLSContent struct {
	Key        Key
	TradeKey   TradeKey
	Version    int
	Quantity   int64
	Price      decimal.Dec
	TradeCcy   string
	SettleDate date.Date
	MatchedAt  int64 // Unix nanoseconds
	Legs       []Leg // ordered by Account, byte order
}

// Leg is one allocation of a CLS.
type Leg struct {
	Account            string
	Quantity           int64
	NetAmount          decimal.Dec
	NetUnits           int // minor units of SettleCcy: amounts are written with exactly these
	SettleCcy          string
	Custodian          string
	PSET               string
	SafekeepingAccount string
	CashAccount        string
}

// ACKBody is the body of an ACK.
func ACKBody(related string) []byte {
	return elem(make([]byte, 0, len("<RelatedMsgId></RelatedMsgId>")+len(related)), "RelatedMsgId", related)
}

// NACKBody is the body of a NACK.
func NACKBody(related string, r Reason, detail string) []byte {
	b := elem(make([]byte, 0, 96+len(related)+len(detail)), "RelatedMsgId", related)
	b = elem(b, "Reason", r.String())
	return elem(b, "Detail", detail)
}

// StatusBody is the body of a STATUS. ds are written as <Discrepancy>
// elements for a MISMATCHED and as <Tolerance> elements (the criteria held
// only within tolerance) for every other value that carries them (MATCHED,
// and version 3's AFFIRMED, AFFIRM_REJECTED, CHANGE_PENDING, CANCEL_PENDING);
// the form is the same.
func StatusBody(tk TradeKey, tradeRef string, s Status, ds []Discrepancy) []byte {
	return statusBody(tk, tradeRef, s.String(), s == Mismatched, ds)
}

// statusBody is the body of a STATUS or a BLK: the trade, its status, and
// ds as Discrepancy elements (mismatched) or as Tolerance elements, in one
// buffer sized for them.
func statusBody(tk TradeKey, tradeRef, status string, mismatched bool, ds []Discrepancy) []byte {
	b := closeTag(tk.Append(openTag(make([]byte, 0, 128+len(tradeRef)+96*len(ds)), "TradeKey")), "TradeKey")
	b = elem(b, "TradeRef", tradeRef)
	b = elem(b, "Status", status)
	name := "Tolerance"
	if mismatched {
		name = "Discrepancy"
	}
	return appendCriteria(b, name, ds)
}

// CLSBody is the body of a CLS NEW. Version is part of the body; callers
// comparing content across versions compare with Version zeroed.
func CLSBody(c *CLSContent) []byte {
	b := make([]byte, 0, 512+256*len(c.Legs))
	b = elem(b, "TradeRef", c.Key.TradeRef)
	b = elem(b, "TradeDate", c.Key.TradeDate)
	b = elem(b, "ISIN", c.Key.ISIN)
	b = elem(b, "Side", c.Key.Side)
	b = elem(b, "Broker", c.Key.Broker)
	b = elem(b, "InvMgr", c.Key.InvMgr)
	b = closeTag(c.TradeKey.Append(openTag(b, "TradeKey")), "TradeKey")
	b = closeTag(strconv.AppendInt(openTag(b, "Version"), int64(c.Version), 10), "Version")
	return appendTerms(b, c, "")
}

// appendTerms writes the terms a CLS NEW and a CNF NEW share, from Quantity
// on: custodian != "" keeps only that custodian's legs.
func appendTerms(b []byte, c *CLSContent, custodian string) []byte {
	b = closeTag(strconv.AppendInt(openTag(b, "Quantity"), c.Quantity, 10), "Quantity")
	b = closeTag(c.Price.Append(openTag(b, "Price"), -1), "Price")
	b = elem(b, "TradeCcy", c.TradeCcy)
	b = closeTag(c.SettleDate.Append(openTag(b, "SettleDate")), "SettleDate")
	b = closeTag(AppendTimestamp(openTag(b, "MatchedAt"), c.MatchedAt), "MatchedAt")
	for i := range c.Legs {
		if custodian != "" && c.Legs[i].Custodian != custodian {
			continue
		}
		b = appendLeg(b, &c.Legs[i])
	}
	return b
}

// CLSCancelBody is the body of a CLS CANCEL.
func CLSCancelBody(tk TradeKey, version int) []byte {
	b := elem(nil, "TradeKey", tk.String())
	return elem(b, "Version", strconv.Itoa(version))
}

// Output MsgIds of section 6.

// ACKId is the MsgId of the ACK of (sender, msgId).
func ACKId(sender, msgId string) string { return "ACK:" + sender + ":" + msgId }

// NACKId is the MsgId of a NACK; msgId is "-" when missing or not of its form.
func NACKId(sender, msgId, recordHash16 string) string {
	if !IsMsgId(msgId) {
		msgId = "-"
	}
	return "NACK:" + sender + ":" + msgId + ":" + recordHash16
}

// StatusId is the MsgId of the n-th status change of a trade for one receiver.
func StatusId(tk TradeKey, n int, receiver string) string {
	return "ST:" + tk.String() + ":" + strconv.Itoa(n) + ":" + receiver
}

// CLSId is the MsgId of CLS NEW version v.
func CLSId(tk TradeKey, v int) string { return "CLS-" + tk.String() + "-" + strconv.Itoa(v) }

// CLSCancelId is the MsgId of the CANCEL of CLS version v.
func CLSCancelId(tk TradeKey, v int) string { return CLSId(tk, v) + "-CANCEL" }

func elem(b []byte, name, value string) []byte {
	return closeTag(escape(openTag(b, name), value), name)
}

// openTag and closeTag surround a value that needs no escaping (a number,
// a date, a time, a trade key) appended in place, without a string of its
// own: the outputs' bodies are written for every message.
func openTag(b []byte, name string) []byte {
	b = append(b, '<')
	b = append(b, name...)
	return append(b, '>')
}

func closeTag(b []byte, name string) []byte {
	b = append(b, "</"...)
	b = append(b, name...)
	return append(b, '>')
}

// escape writes s as XML character data. Line breaks and tabs become character
// references so that every output stays on one line of a message-set file and
// keeps its value exactly.
func escape(b []byte, s string) []byte {
	// The runs between characters to replace are appended whole: most
	// values have none (codes, BICs, amounts), and a byte-at-a-time append
	// was a visible cost of encoding every output; a table says which bytes
	// to replace (a switch of seven cases tested each byte in turn).
	start := 0
	for i := 0; i < len(s); i++ {
		e := escapeOf[s[i]]
		if e == 0 {
			continue
		}
		b = append(b, s[start:i]...)
		b = append(b, escapeRefs[e]...)
		start = i + 1
	}
	return append(b, s[start:]...)
}

// escapeOf numbers the references escape writes, by byte (0: the byte
// itself); escapeRefs are they.
var (
	escapeOf   = [256]uint8{'&': 1, '<': 2, '>': 3, '"': 4, '\n': 5, '\r': 6, '\t': 7}
	escapeRefs = [...]string{1: "&amp;", 2: "&lt;", 3: "&gt;", 4: "&quot;", 5: "&#10;", 6: "&#13;", 7: "&#9;"}
)
