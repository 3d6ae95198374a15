// Package matching is the matching engine of section 5, pure Go with no Kafka
// in it: the state of one trade (Trade), how each accepted message changes it,
// the 17 criteria (criteria.go, written to be read beside the contract), and
// an in-memory Book of trades with event-time retention for `ste match` and
// tests. The Kafka processors keep the same Trade in a goka table.
package matching

import (
	"strings"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/decimal"
)

// Digest identifies a record's exact bytes (the first 16 bytes of its
// SHA-256): equal digests mean an exact duplicate.
type Digest [16]byte

// Entry is the compact state of one accepted message: what matching, the CLS
// and duplicate detection need, not the XML.
type Entry struct {
	Sender   string
	MsgId    string
	Related  string // RelatedMsgId of a CANCEL or REPLACE
	Digest   Digest
	Type     schemas.MsgType
	Function schemas.Function
	NetUnits int8 // minor units of SettleCcy, for writing NetAmount in the CLS
	Has      schemas.FieldSet
	Created  int64

	Quantity           int64
	Price              decimal.Dec
	NetAmount          decimal.Dec
	SettleDate         date.Date
	AllocCount         int32
	TradeCcy           string
	SettleCcy          string
	Account            string
	Custodian          string
	PSET               string
	SafekeepingAccount string
	CashAccount        string
	Market             string // a NOE's Market: the trade's market for timeliness (timeliness.go)

	// Version 3 lifecycle fields (AFF, CXL, CXA, CXJ; messages.md §3a).
	Decision     schemas.Decision
	MatchDigest  string   // an AFF's, 64 lower-case hex
	Affirms      []string // an AFF's Sender:MsgId tokens
	Amends       string   // an AFF's, "" for a first affirmation
	RejectReason []string // a REJECT's codes
	CancelReason string   // a CXL's or CXJ's
}

// Token is the "Sender:MsgId" of discrepancy lists.
func (e *Entry) Token() string { return e.Sender + ":" + e.MsgId }

// Inbound is an accepted message as the engine receives it.
type Inbound struct {
	Msg      *schemas.Message
	Digest   Digest
	NetUnits int // minor units of the message's SettleCcy (NPR, SET), from reference data
}

// Interner shares the memory of repeated strings (BICs, currencies) between
// entries and detaches every kept string from the record it came from, so
// that state does not pin whole records in memory.
type Interner map[string]string

// Intern returns a detached copy of s, shared when it was seen before.
func (in Interner) Intern(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := in[s]; ok {
		return v
	}
	c := string(append([]byte(nil), s...))
	if len(in) < 1<<16 { // bounded: only the small vocabulary of BICs and codes repeats
		in[c] = c
	}
	return c
}

func clone(s string) string {
	if s == "" {
		return ""
	}
	return string(append([]byte(nil), s...))
}

// newEntry keeps what matching needs of m.
func newEntry(in *Inbound, it Interner) Entry {
	m := in.Msg
	// The message's own strings are copied into one (an allocation each
	// was five a message); the entry keeps slices of it.
	parts := [...]string{m.MsgId, m.RelatedMsgId, m.Account, m.SafekeepingAccount, m.CashAccount}
	n := 0
	for _, s := range parts {
		n += len(s)
	}
	var own strings.Builder
	own.Grow(n)
	for _, s := range parts {
		own.WriteString(s)
	}
	all := own.String()
	for i, s := range parts {
		parts[i], all = all[:len(s)], all[len(s):]
	}
	e := Entry{
		Sender:             it.Intern(m.Sender),
		MsgId:              parts[0],
		Related:            parts[1],
		Digest:             in.Digest,
		Type:               m.Type,
		Function:           m.Function,
		NetUnits:           int8(in.NetUnits),
		Has:                m.Has,
		Created:            m.Created,
		Quantity:           m.Quantity,
		Price:              m.Price,
		NetAmount:          m.NetAmount,
		SettleDate:         m.SettleDate,
		AllocCount:         int32(m.AllocCount),
		TradeCcy:           it.Intern(m.TradeCcy),
		SettleCcy:          it.Intern(m.SettleCcy),
		Account:            parts[2],
		Custodian:          it.Intern(m.Custodian),
		PSET:               it.Intern(m.PSET),
		SafekeepingAccount: parts[3],
		CashAccount:        parts[4],
		Market:             it.Intern(m.Market),
	}
	if m.Type.IsLifecycle() {
		e.Decision = m.Decision
		e.MatchDigest = clone(m.MatchDigest)
		e.Amends = clone(m.Amends)
		e.CancelReason = it.Intern(m.CancelReason)
		for _, tok := range m.Affirms {
			e.Affirms = append(e.Affirms, clone(tok))
		}
		for _, r := range m.RejectReason {
			e.RejectReason = append(e.RejectReason, it.Intern(r))
		}
	}
	return e
}
