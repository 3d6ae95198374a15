package schemas

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/ste-utility/ste/schemas/date"
)

// Version 3 outputs (messages.md §6): the STATUS elements of the lifecycle,
// CNF, BLK and ALG bodies and MsgIds, and the MatchDigest. Like the version
// 2 encoders above, each is a pure function of its content; the matching
// engine decides the content.

// StatusV3 is what version 3 adds to a STATUS body, after the Discrepancy
// or Tolerance elements, in the contract's order.
type StatusV3 struct {
	MatchDigest    string   // AFFIRMED, CHANGE_PENDING, CANCEL_PENDING, AFFIRM_REJECTED
	RejectReasons  []string // AFFIRM_REJECTED: distinct codes, byte order
	HasPending     bool     // write <Pending> (CHANGE_PENDING; CANCEL_PENDING with pending changes), even empty
	Pending        []string // tokens, byte order
	Proposal       *Proposal
	CancelRequests []CancelRequest // every CXL not accepted, by token (not on CANCELLED, EXPIRED, UNMATCHED)
	HasCancelledBy bool            // CANCELLED
	CancelledBy    []string        // accepted CXLs and the CXAs accepting them, byte order
}

// Proposal is a CHANGE_PENDING's proposal: the set both principals would
// affirm for the pending changes to take effect.
type Proposal struct {
	Digest string
	Tokens []string // byte order
}

// CancelRequest is one CXL that is not accepted: PENDING or REJECTED.
type CancelRequest struct {
	Token string
	State string
}

// StatusBodyV3 is the body of a STATUS of any value: StatusBody, then v's
// elements. ds are Discrepancy elements for MISMATCHED and Tolerance
// elements for every other value that carries them.
func StatusBodyV3(tk TradeKey, tradeRef string, s Status, ds []Discrepancy, v *StatusV3) []byte {
	b := StatusBody(tk, tradeRef, s, ds)
	if v == nil {
		return b
	}
	return AppendStatusV3(b, v)
}

// AppendStatusV3 writes v's elements.
func AppendStatusV3(b []byte, v *StatusV3) []byte {
	if v.MatchDigest != "" {
		b = elem(b, "MatchDigest", v.MatchDigest)
	}
	for _, r := range v.RejectReasons {
		b = elem(b, "RejectReason", r)
	}
	if v.HasPending {
		b = tokensElem(b, "Pending", v.Pending)
	}
	if p := v.Proposal; p != nil {
		b = append(b, `<Proposal digest="`...)
		b = escape(b, p.Digest)
		b = append(b, `">`...)
		b = appendTokens(b, p.Tokens)
		b = append(b, "</Proposal>"...)
	}
	b = AppendCancelRequests(b, v.CancelRequests)
	if v.HasCancelledBy {
		b = tokensElem(b, "CancelledBy", v.CancelledBy)
	}
	return b
}

// AppendCancelRequests writes the CancelRequest elements.
func AppendCancelRequests(b []byte, crs []CancelRequest) []byte {
	for _, c := range crs {
		b = append(b, `<CancelRequest state="`...)
		b = escape(b, c.State)
		b = append(b, `">`...)
		b = escape(b, c.Token)
		b = append(b, "</CancelRequest>"...)
	}
	return b
}

func tokensElem(b []byte, name string, tokens []string) []byte {
	b = append(b, '<')
	b = append(b, name...)
	b = append(b, '>')
	b = appendTokens(b, tokens)
	b = append(b, "</"...)
	b = append(b, name...)
	return append(b, '>')
}

func appendTokens(b []byte, tokens []string) []byte {
	for i, t := range tokens {
		if i > 0 {
			b = append(b, ' ')
		}
		b = escape(b, t)
	}
	return b
}

// CNFBody is the body of a CNF NEW: the CLS NEW body of c without its
// Version, with the MatchDigest after TradeKey. custodian != "" keeps only
// that custodian's legs and writes no Messages; otherwise every leg and
// messages (the messages in force, byte order).
func CNFBody(c *CLSContent, digest, custodian string, messages []string) []byte {
	b := make([]byte, 0, 512+256*len(c.Legs)+len(messages)*32)
	b = elem(b, "TradeRef", c.Key.TradeRef)
	b = elem(b, "TradeDate", c.Key.TradeDate)
	b = elem(b, "ISIN", c.Key.ISIN)
	b = elem(b, "Side", c.Key.Side)
	b = elem(b, "Broker", c.Key.Broker)
	b = elem(b, "InvMgr", c.Key.InvMgr)
	b = closeTag(c.TradeKey.Append(openTag(b, "TradeKey")), "TradeKey")
	b = elem(b, "MatchDigest", digest)
	b = appendTerms(b, c, custodian)
	if custodian == "" {
		b = tokensElem(b, "Messages", messages)
	}
	return b
}

// CNFCancelBody is the body of a CNF CANCEL.
func CNFCancelBody(tk TradeKey, digest string) []byte {
	b := elem(nil, "TradeKey", tk.String())
	return elem(b, "MatchDigest", digest)
}

// BlockStatus is a BLK value (messages.md §5a "Block status").
type BlockStatus uint8

const (
	BlockMatched BlockStatus = iota + 1
	BlockMismatched
	BlockIncomplete
)

func (s BlockStatus) String() string {
	switch s {
	case BlockMatched:
		return "BLOCK_MATCHED"
	case BlockMismatched:
		return "BLOCK_MISMATCHED"
	case BlockIncomplete:
		return "BLOCK_INCOMPLETE"
	}
	return ""
}

// BLKBody is the body of a BLK: ds are Discrepancy elements of a
// BLOCK_MISMATCHED and Tolerance elements of a BLOCK_MATCHED.
func BLKBody(tk TradeKey, tradeRef string, s BlockStatus, ds []Discrepancy) []byte {
	return statusBody(tk, tradeRef, s.String(), s == BlockMismatched, ds)
}

// Owed is one item of an allegement: a message the receiver owes.
type Owed struct {
	MsgType  string
	Account  string // NPR, SET
	Quantity int64  // NPR, SET: the ALC's Quantity
	Count    int    // ALC, when some but not all allocations are in force
}

// ALGBody is the body of an ALG NEW: the six key fields, TradeKey, the
// SettleDate when there is one (0: absent), and one Owed element per item,
// in the order given.
func ALGBody(k *Key, tk TradeKey, settle date.Date, items []Owed) []byte {
	b := make([]byte, 0, 256+64*len(items))
	b = elem(b, "TradeRef", k.TradeRef)
	b = elem(b, "TradeDate", k.TradeDate)
	b = elem(b, "ISIN", k.ISIN)
	b = elem(b, "Side", k.Side)
	b = elem(b, "Broker", k.Broker)
	b = elem(b, "InvMgr", k.InvMgr)
	b = elem(b, "TradeKey", tk.String())
	if settle != 0 {
		b = elem(b, "SettleDate", settle.String())
	}
	for _, o := range items {
		b = append(b, `<Owed msgType="`...)
		b = escape(b, o.MsgType)
		b = append(b, '"')
		if o.MsgType == "NPR" || o.MsgType == "SET" {
			b = append(b, ` account="`...)
			b = escape(b, o.Account)
			b = append(b, `" quantity="`...)
			b = strconv.AppendInt(b, o.Quantity, 10)
			b = append(b, '"')
		}
		if o.Count > 0 {
			b = append(b, ` count="`...)
			b = strconv.AppendInt(b, int64(o.Count), 10)
			b = append(b, '"')
		}
		b = append(b, "/>"...)
	}
	return b
}

// ALGCancelBody is the body of an ALG CANCEL.
func ALGCancelBody(tk TradeKey, tradeRef string) []byte {
	b := elem(nil, "TradeKey", tk.String())
	return elem(b, "TradeRef", tradeRef)
}

// CNFId is the MsgId of the c-th confirmation of a trade to a receiver.
func CNFId(tk TradeKey, c int, receiver string) string {
	return "CNF:" + tk.String() + ":" + strconv.Itoa(c) + ":" + receiver
}

// CNFCancelId is the MsgId of the CANCEL of CNFId(tk, c, receiver).
func CNFCancelId(tk TradeKey, c int, receiver string) string {
	return CNFId(tk, c, receiver) + ":CANCEL"
}

// BLKId is the MsgId of the n-th BLK emission of a trade to a receiver.
func BLKId(tk TradeKey, n int, receiver string) string {
	return "BLK:" + tk.String() + ":" + strconv.Itoa(n) + ":" + receiver
}

// ALGId is the MsgId of a receiver's n-th ALG record of a trade.
func ALGId(tk TradeKey, n int, receiver string) string {
	return "ALG:" + tk.String() + ":" + strconv.Itoa(n) + ":" + receiver
}

// AutoAFFId is the MsgId of the AFF the utility sends for an AUTO
// investment manager (messages.md §5a step 4).
func AutoAFFId(tk TradeKey, digestHex string) string {
	return "AUTO:" + tk.String() + ":" + digestHex[:16]
}

// MatchDigest is the SHA-256 of a matched set's text (messages.md §6).
type MatchDigest [32]byte

// String is the 64 lower-case hex characters of the contract.
func (d MatchDigest) String() string { return hex.EncodeToString(d[:]) }

// IsZero reports whether d is the zero value (no digest).
func (d MatchDigest) IsZero() bool { return d == MatchDigest{} }

// ComputeMatchDigest is the MatchDigest of the set whose CLS content is c and
// whose messages are tokens (Sender:MsgId, any order). c's legs are in
// Account order, as CLSBody writes them.
func ComputeMatchDigest(c *CLSContent, tokens []string) MatchDigest {
	return sha256.Sum256(MatchDigestText(c, tokens))
}

// MatchDigestText is the text MatchDigest hashes; tokens must be in byte
// order.
func MatchDigestText(c *CLSContent, tokens []string) []byte {
	b := make([]byte, 0, 320+160*len(c.Legs)+40*len(tokens))
	line := func(name string, v string) {
		b = append(b, name...)
		b = append(b, '=')
		b = digestValue(b, v)
		b = append(b, '\n')
	}
	b = append(b, "STE-MATCH-3\n"...)
	line("TradeKey", c.TradeKey.String())
	line("TradeRef", c.Key.TradeRef)
	line("TradeDate", c.Key.TradeDate)
	line("ISIN", c.Key.ISIN)
	line("Side", c.Key.Side)
	line("Broker", c.Key.Broker)
	line("InvMgr", c.Key.InvMgr)
	line("Quantity", strconv.FormatInt(c.Quantity, 10))
	line("Price", c.Price.String())
	line("TradeCcy", c.TradeCcy)
	line("SettleDate", c.SettleDate.String())
	line("MatchedAt", FormatTimestamp(c.MatchedAt))
	for i := range c.Legs {
		l := &c.Legs[i]
		b = append(b, "Leg="...)
		for j, v := range [...]string{l.Account, strconv.FormatInt(l.Quantity, 10), l.NetAmount.Fixed(l.NetUnits),
			l.SettleCcy, l.Custodian, l.PSET, l.SafekeepingAccount, l.CashAccount} {
			if j > 0 {
				b = append(b, '|')
			}
			b = digestValue(b, v)
		}
		b = append(b, '\n')
	}
	for _, t := range tokens {
		line("Msg", t)
	}
	return b
}

// digestValue writes v with '%', '|', 0x00-0x1F and 0x7F as '%' and two
// upper-case hex digits.
func digestValue(b []byte, v string) []byte {
	const hexdig = "0123456789ABCDEF"
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '%' || c == '|' || c < 0x20 || c == 0x7F {
			b = append(b, '%', hexdig[c>>4], hexdig[c&0xF])
			continue
		}
		b = append(b, c)
	}
	return b
}

func appendLeg(b []byte, l *Leg) []byte {
	b = append(b, "<Leg>"...)
	b = elem(b, "Account", l.Account)
	b = closeTag(strconv.AppendInt(openTag(b, "Quantity"), l.Quantity, 10), "Quantity")
	b = closeTag(l.NetAmount.Append(openTag(b, "NetAmount"), l.NetUnits), "NetAmount")
	b = elem(b, "SettleCcy", l.SettleCcy)
	b = elem(b, "Custodian", l.Custodian)
	b = elem(b, "PSET", l.PSET)
	b = elem(b, "SafekeepingAccount", l.SafekeepingAccount)
	b = elem(b, "CashAccount", l.CashAccount)
	return append(b, "</Leg>"...)
}

func appendCriteria(b []byte, name string, ds []Discrepancy) []byte {
	for _, d := range ds {
		b = append(b, '<')
		b = append(b, name...)
		b = append(b, ` criterion="`...)
		b = strconv.AppendInt(b, int64(d.Criterion), 10)
		b = append(b, `">`...)
		b = appendTokens(b, d.Tokens)
		b = append(b, "</"...)
		b = append(b, name...)
		b = append(b, '>')
	}
	return b
}
