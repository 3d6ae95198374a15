package schemas

import (
	"encoding/binary"
	"errors"

	"github.com/ste-utility/ste/schemas/bin"
	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/decimal"
)

// The compact form of a decoded Message: what the stages after validation
// need of it (identity, key, every body field, the range flags), so that an
// inbound message is decoded from its XML once, by the validate stage, and
// the stages downstream read this instead of parsing the XML again. It is
// binary and versioned by its first byte; it leaves out the record's bytes
// and its signature (Raw, the signed range, Sig and SigAlg), which only
// validation reads.
//
// Layout, version 1: the version byte; Type, Function, Side and a flag byte
// (bit 0: CreatedOutOfRange); the integers as varints (Created, TradeDate,
// Has, OutOfRange, Quantity, SettleDate, ExecTime, AllocCount) and the five
// decimals as varint coefficient and scale byte; then the lengths of the
// sixteen strings (uvarints) and their bytes, back to back, so that
// decoding makes one string of them all, as the XML decoder does.
//
// Version 2 (contract version 3) is version 1 followed by a Decision byte
// and the six strings of the version 3 fields (Signer, MatchDigest, Amends,
// CancelReason, and Affirms and RejectReason each joined by single spaces,
// which their items never hold): lengths, then bytes, all after version 1's
// so that one string still holds every field. A message without any of
// them (every message of a version 2 set) is written in version 1, byte for
// byte as the release before, so that a match stage not yet upgraded reads
// what an upgraded validate stage writes.
const (
	compactV1 = 1
	compactV2 = 2
)

var errCompact = errors.New("schemas: bad compact message")

// compactStrings lists the string fields of m in the form's order.
func compactStrings(m *Message) [16]*string {
	return [16]*string{&m.MsgId, &m.Sender, &m.RelatedMsgId,
		&m.Key.TradeRef, &m.Key.TradeDate, &m.Key.ISIN, &m.Key.Side, &m.Key.Broker, &m.Key.InvMgr,
		&m.TradeCcy, &m.Market, &m.Account, &m.Custodian, &m.PSET, &m.SettleCcy, &m.SafekeepingAccount}
}

// hasV3 reports whether m holds a field only compact version 2 carries.
func (m *Message) hasV3() bool {
	return m.Signer != "" || m.Decision != 0 || m.MatchDigest != "" || m.Amends != "" || m.CancelReason != "" ||
		len(m.Affirms) > 0 || len(m.RejectReason) > 0
}

// AppendCompact appends the compact form of m to b.
func (m *Message) AppendCompact(b []byte) []byte {
	var flags byte
	if m.CreatedOutOfRange {
		flags |= 1
	}
	v3 := m.hasV3()
	version := byte(compactV1)
	if v3 {
		version = compactV2
	}
	b = append(b, version, byte(m.Type), byte(m.Function), byte(m.Side), flags)
	b = binary.AppendVarint(b, m.Created)
	b = binary.AppendVarint(b, int64(m.TradeDate))
	b = binary.AppendUvarint(b, uint64(m.Has))
	b = binary.AppendUvarint(b, uint64(m.OutOfRange))
	b = binary.AppendVarint(b, m.Quantity)
	b = binary.AppendVarint(b, int64(m.SettleDate))
	b = binary.AppendVarint(b, m.ExecTime)
	b = binary.AppendVarint(b, int64(m.AllocCount))
	for _, d := range [...]decimal.Dec{m.Price, m.GrossAmount, m.Commission, m.Fees, m.NetAmount} {
		b = binary.AppendVarint(b, d.Coef())
		b = append(b, byte(d.Scale()))
	}
	if v3 {
		b = append(b, byte(m.Decision))
	}
	strs := compactStrings(m)
	for _, s := range strs {
		b = binary.AppendUvarint(b, uint64(len(*s)))
	}
	b = binary.AppendUvarint(b, uint64(len(m.CashAccount)))
	var more [6]string
	if v3 {
		more = [6]string{m.Signer, m.MatchDigest, m.Amends, m.CancelReason, joinSpace(m.Affirms), joinSpace(m.RejectReason)}
		for _, s := range more {
			b = binary.AppendUvarint(b, uint64(len(s)))
		}
	}
	for _, s := range strs {
		b = append(b, *s...)
	}
	b = append(b, m.CashAccount...)
	for _, s := range more {
		b = append(b, s...)
	}
	return b
}

// DecodeCompact reads AppendCompact's form, either version. The Message has
// no Raw: it is the decoded content, not the record. Its strings share one
// allocation and none of b.
func DecodeCompact(b []byte) (*Message, error) {
	if len(b) < 5 || b[0] != compactV1 && b[0] != compactV2 {
		return nil, errCompact
	}
	v3 := b[0] == compactV2
	m := &Message{Type: MsgType(b[1]), Function: Function(b[2]), Side: Side(b[3]), CreatedOutOfRange: b[4]&1 != 0}
	r := bin.Reader{B: b[5:]}
	m.Created = r.Varint()
	m.TradeDate = date.Date(r.Varint())
	m.Has = FieldSet(r.Uvarint())
	m.OutOfRange = FieldSet(r.Uvarint())
	m.Quantity = r.Varint()
	m.SettleDate = date.Date(r.Varint())
	m.ExecTime = r.Varint()
	m.AllocCount = int(r.Varint())
	for _, d := range [...]*decimal.Dec{&m.Price, &m.GrossAmount, &m.Commission, &m.Fees, &m.NetAmount} {
		c := r.Varint()
		*d = decimal.Of(c, r.Byte())
	}
	if v3 {
		m.Decision = Decision(r.Byte())
	}
	strs := compactStrings(m)
	var more [6]string
	n := len(strs) + 1
	if v3 {
		n += len(more)
	}
	var lens [len(strs) + 1 + len(more)]uint64
	total := uint64(0)
	for i := range lens[:n] {
		lens[i] = r.Uvarint()
		if lens[i] > uint64(len(r.B)) {
			return nil, errCompact
		}
		total += lens[i]
	}
	if r.Bad || total != uint64(len(r.B)) {
		return nil, errCompact
	}
	text := string(r.B)
	at := uint64(0)
	next := func(i int) string {
		s := text[at : at+lens[i]]
		at += lens[i]
		return s
	}
	for i, s := range strs {
		*s = next(i)
	}
	m.CashAccount = next(len(strs))
	if v3 {
		for i := range more {
			more[i] = next(len(strs) + 1 + i)
		}
		m.Signer, m.MatchDigest, m.Amends, m.CancelReason = more[0], more[1], more[2], more[3]
		var ok1, ok2 bool
		m.Affirms, ok1 = splitSpace(more[4])
		m.RejectReason, ok2 = splitSpace(more[5])
		if !ok1 || !ok2 {
			return nil, errCompact
		}
	}
	return m, nil
}

// joinSpace joins items with single spaces.
func joinSpace(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	n := len(items) - 1
	for _, s := range items {
		n += len(s)
	}
	b := make([]byte, 0, n)
	for i, s := range items {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, s...)
	}
	return string(b)
}

// splitSpace is joinSpace's inverse: nil for "", the items sharing s; not
// ok when s is no such join (an empty item).
func splitSpace(s string) (items []string, ok bool) {
	if s == "" {
		return nil, true
	}
	items, problem := splitSingle(s, len(s)+1)
	return items, problem == ""
}
