// Package schemas is the wire contract of STE (docs/spec/messages.md):
// the inbound message model, its strict XML decoding, the outputs' encoding,
// Ed25519 signatures over the exact signed byte range, and the rejection codes.
// Everything here is a pure function of its input bytes; reference data and
// matching state live in processors/.
package schemas

import (
	"hash/fnv"
	"strconv"

	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/decimal"
)

// MaxRecord is the largest inbound record in bytes (a larger one is TOO_LARGE).
const MaxRecord = 65536

// MsgType is the business message type; inbound types come first so that
// they index small arrays.
type MsgType uint8

const (
	NOE MsgType = iota + 1
	ALC
	NPR
	SET
	ACK
	NACK
	STATUS
	CLS
	// Version 3 (messages.md §3a, §6): appended after the version 2 types so
	// that stored values keep their numbers. The lifecycle's inbound types:
	AFF // affirmation (or rejection) of a matched set
	CXL // cancellation request
	CXA // cancellation acceptance
	CXJ // cancellation rejection
	// and its outputs:
	CNF // confirmation to a party
	BLK // block status
	ALG // allegement
)

var msgTypeNames = [...]string{"", "NOE", "ALC", "NPR", "SET", "ACK", "NACK", "STATUS", "CLS",
	"AFF", "CXL", "CXA", "CXJ", "CNF", "BLK", "ALG"}

// IsLifecycle reports whether t is one of version 3's lifecycle inbound
// types (AFF, CXL, CXA, CXJ): Function NEW only, no content of a trade.
func (t MsgType) IsLifecycle() bool { return t >= AFF && t <= CXJ }

// IsContent reports whether t is one of the four content types (NOE, ALC,
// NPR, SET) whose NEW and REPLACE are a trade's content (messages.md §5a).
func (t MsgType) IsContent() bool { return t >= NOE && t <= SET }

func (t MsgType) String() string {
	if int(t) < len(msgTypeNames) {
		return msgTypeNames[t]
	}
	return "MsgType(" + strconv.Itoa(int(t)) + ")"
}

// ParseMsgType accepts only the inbound types: the four content types and
// version 3's four lifecycle types (AFF, CXL, CXA, CXJ).
func ParseMsgType(s string) (MsgType, bool) {
	switch s {
	case "NOE":
		return NOE, true
	case "ALC":
		return ALC, true
	case "NPR":
		return NPR, true
	case "SET":
		return SET, true
	case "AFF":
		return AFF, true
	case "CXL":
		return CXL, true
	case "CXA":
		return CXA, true
	case "CXJ":
		return CXJ, true
	}
	return 0, false
}

// IsInbound reports whether t is a type participants send (ParseMsgType's).
func (t MsgType) IsInbound() bool { return t.IsContent() || t.IsLifecycle() }

// Function is what a message does to its trade.
type Function uint8

const (
	NEW Function = iota + 1
	CANCEL
	REPLACE
)

var functionNames = [...]string{"", "NEW", "CANCEL", "REPLACE"}

func (f Function) String() string {
	if int(f) < len(functionNames) {
		return functionNames[f]
	}
	return "Function(" + strconv.Itoa(int(f)) + ")"
}

// ParseFunction accepts NEW, CANCEL and REPLACE.
func ParseFunction(s string) (Function, bool) {
	switch s {
	case "NEW":
		return NEW, true
	case "CANCEL":
		return CANCEL, true
	case "REPLACE":
		return REPLACE, true
	}
	return 0, false
}

// Decision is an AFF's Decision (messages.md §3a).
type Decision uint8

const (
	AFFIRM Decision = iota + 1
	REJECT
)

// ParseDecision accepts AFFIRM and REJECT.
func ParseDecision(s string) (Decision, bool) {
	switch s {
	case "AFFIRM":
		return AFFIRM, true
	case "REJECT":
		return REJECT, true
	}
	return 0, false
}

func (d Decision) String() string {
	switch d {
	case AFFIRM:
		return "AFFIRM"
	case REJECT:
		return "REJECT"
	}
	return ""
}

// Side is the investment manager's side of the trade.
type Side uint8

const (
	BUY Side = iota + 1
	SELL
)

func (s Side) String() string {
	switch s {
	case BUY:
		return "BUY"
	case SELL:
		return "SELL"
	}
	return ""
}

// Field names a body field of section 3. The set a message carries is a bit
// set, so "present" checks on CANCEL bodies are one AND.
type Field uint8

const (
	FQuantity Field = iota
	FPrice
	FTradeCcy
	FSettleDate
	FMarket
	FExecTime
	FAllocCount
	FAccount
	FCustodian
	FPSET
	FGrossAmount
	FCommission
	FFees
	FNetAmount
	FSettleCcy
	FSafekeepingAccount
	FCashAccount
	// Version 3 (messages.md §3a): the lifecycle fields, appended so that
	// the bits of a stored FieldSet keep their meaning.
	FDecision
	FMatchDigest
	FAffirms
	FAmends
	FRejectReason
	FCancelReason
	numFields
)

var fieldNames = [numFields]string{"Quantity", "Price", "TradeCcy", "SettleDate", "Market", "ExecTime",
	"AllocCount", "Account", "Custodian", "PSET", "GrossAmount", "Commission", "Fees", "NetAmount",
	"SettleCcy", "SafekeepingAccount", "CashAccount",
	"Decision", "MatchDigest", "Affirms", "Amends", "RejectReason", "CancelReason"}

func (f Field) String() string { return fieldNames[f] }

// FieldSet is a set of body fields.
type FieldSet uint32

// Has reports whether f is in the set.
func (s FieldSet) Has(f Field) bool { return s&(1<<f) != 0 }

func fields(fs ...Field) FieldSet {
	var s FieldSet
	for _, f := range fs {
		s |= 1 << f
	}
	return s
}

// BodyFields lists, per inbound type, the extra body fields of sections 3
// and 3a in the contract's order. Those of the content types are all
// required on NEW and REPLACE; of the lifecycle types' (all NEW),
// RequiredFields says which. A field a type does not list is an unknown
// element to it and ignored: CancelReason on a CXA, for one.
var BodyFields = [CXJ + 1][]Field{
	NOE: {FQuantity, FPrice, FTradeCcy, FSettleDate, FMarket, FExecTime},
	ALC: {FAllocCount, FAccount, FQuantity, FPrice, FTradeCcy, FCustodian, FPSET},
	NPR: {FAccount, FQuantity, FPrice, FTradeCcy, FGrossAmount, FCommission, FFees, FNetAmount, FSettleCcy, FSettleDate},
	SET: {FAccount, FQuantity, FSettleDate, FSettleCcy, FNetAmount, FCustodian, FPSET, FSafekeepingAccount, FCashAccount},
	// Decision first: whether RejectReason is read depends on it.
	AFF: {FDecision, FMatchDigest, FAffirms, FAmends, FRejectReason},
	CXL: {FCancelReason},
	CXA: {},
	CXJ: {FCancelReason},
}

var bodyFieldSets = func() (s [CXJ + 1]FieldSet) {
	for t, fs := range BodyFields {
		s[t] = fields(fs...)
	}
	return
}()

// RequiredFields is, per inbound type, the body fields its NEW (and a
// content type's REPLACE) must carry: all of BodyFields but an AFF's Amends
// (absent in a first affirmation) and RejectReason (required on a REJECT
// only, ignored on an AFFIRM).
var RequiredFields = func() (s [CXJ + 1]FieldSet) {
	s = bodyFieldSets
	s[AFF] = fields(FDecision, FMatchDigest, FAffirms)
	return
}()

// Key is the six key fields that route a message to its trade, each trimmed
// and kept as written (the trade key hashes the text).
type Key struct {
	TradeRef  string
	TradeDate string
	ISIN      string
	Side      string
	Broker    string
	InvMgr    string
}

// TradeKey is the FNV-1a 64-bit hash of the key fields joined by '|'.
type TradeKey uint64

// TradeKey computes the contract's trade key of k.
func (k *Key) TradeKey() TradeKey {
	h := fnv.New64a()
	for i, s := range [...]string{k.TradeRef, k.TradeDate, k.ISIN, k.Side, k.Broker, k.InvMgr} {
		if i > 0 {
			h.Write([]byte{'|'})
		}
		h.Write([]byte(s))
	}
	return TradeKey(h.Sum64())
}

// String is the 16 lower-case hex characters of the contract.
func (t TradeKey) String() string { return string(t.Append(make([]byte, 0, 16))) }

// Append writes t as String does to b.
func (t TradeKey) Append(b []byte) []byte {
	const hexdig = "0123456789abcdef"
	n := len(b)
	b = append(b, "0000000000000000"...)
	for i := n + 15; i >= n; i-- {
		b[i] = hexdig[t&0xf]
		t >>= 4
	}
	return b
}

// ParseTradeKey reads 16 lower-case hex characters.
func ParseTradeKey(s string) (TradeKey, bool) {
	if len(s) != 16 {
		return 0, false
	}
	var v uint64
	for i := 0; i < 16; i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | uint64(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | uint64(c-'a'+10)
		default:
			return 0, false
		}
	}
	return TradeKey(v), true
}

// Message is one decoded inbound message. String fields are trimmed and share
// memory with one copy of the record; keep only what you need.
type Message struct {
	Raw []byte // the whole record, as received

	SignedStart, SignedEnd int // Raw[SignedStart:SignedEnd] is what the signature covers
	HasSig                 bool
	Sig                    string // trimmed text of <Sig>
	SigAlg                 string // alg attribute, "" when absent
	HasSigAlg              bool

	MsgId    string
	Type     MsgType
	Function Function
	Sender   string
	Created  int64 // Unix nanoseconds
	// CreatedOutOfRange: Created is well-formed but outside MinTime..MaxTime
	// (Created then holds the nearest bound); validation makes it BAD_DATE.
	CreatedOutOfRange bool
	RelatedMsgId      string

	Key       Key
	TradeDate date.Date
	Side      Side

	Has                FieldSet // body fields present (non-empty)
	OutOfRange         FieldSet // well-formed numbers beyond 18 significant digits (BAD_AMOUNT)
	Quantity           int64
	Price              decimal.Dec
	TradeCcy           string
	SettleDate         date.Date
	Market             string
	ExecTime           int64
	AllocCount         int
	Account            string
	Custodian          string
	PSET               string
	GrossAmount        decimal.Dec
	Commission         decimal.Dec
	Fees               decimal.Dec
	NetAmount          decimal.Dec
	SettleCcy          string
	SafekeepingAccount string
	CashAccount        string

	// Version 3 (messages.md §2, §3a). Signer is the delegated signer's BIC
	// ("" when the Sender signed itself); the rest are the lifecycle fields of
	// AFF, CXL, CXA and CXJ, trimmed as written.
	Signer       string
	Decision     Decision
	MatchDigest  string   // 64 lower-case hex
	Affirms      []string // the Sender:MsgId tokens of an AFF, as written (validated form)
	Amends       string   // "" for a first affirmation, else 64 lower-case hex
	RejectReason []string // codes of a REJECT, as written
	CancelReason string   // one code, on CXL and CXJ
}

// Signed is the byte range the signature covers.
func (m *Message) Signed() []byte { return m.Raw[m.SignedStart:m.SignedEnd] }

// Identity is the message identity of the contract: (Sender, MsgId).
type Identity struct{ Sender, MsgId string }

// ID returns the message identity.
func (m *Message) ID() Identity { return Identity{m.Sender, m.MsgId} }

// Token is the "Sender:MsgId" form used in discrepancy lists.
func (id Identity) Token() string { return id.Sender + ":" + id.MsgId }
