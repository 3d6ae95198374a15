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
const compactV1 = 1

var errCompact = errors.New("schemas: bad compact message")

// compactStrings lists the string fields of m in the form's order.
func compactStrings(m *Message) [16]*string {
	return [16]*string{&m.MsgId, &m.Sender, &m.RelatedMsgId,
		&m.Key.TradeRef, &m.Key.TradeDate, &m.Key.ISIN, &m.Key.Side, &m.Key.Broker, &m.Key.InvMgr,
		&m.TradeCcy, &m.Market, &m.Account, &m.Custodian, &m.PSET, &m.SettleCcy, &m.SafekeepingAccount}
}

// AppendCompact appends the compact form of m to b.
func (m *Message) AppendCompact(b []byte) []byte {
	var flags byte
	if m.CreatedOutOfRange {
		flags |= 1
	}
	b = append(b, compactV1, byte(m.Type), byte(m.Function), byte(m.Side), flags)
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
	strs := compactStrings(m)
	for _, s := range strs {
		b = binary.AppendUvarint(b, uint64(len(*s)))
	}
	b = binary.AppendUvarint(b, uint64(len(m.CashAccount)))
	for _, s := range strs {
		b = append(b, *s...)
	}
	return append(b, m.CashAccount...)
}

// DecodeCompact reads AppendCompact's form. The Message has no Raw: it is
// the decoded content, not the record. Its strings share one allocation
// and none of b.
func DecodeCompact(b []byte) (*Message, error) {
	if len(b) < 5 || b[0] != compactV1 {
		return nil, errCompact
	}
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
	strs := compactStrings(m)
	var lens [len(strs) + 1]uint64
	total := uint64(0)
	for i := range lens {
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
	for i, s := range strs {
		*s = text[at : at+lens[i]]
		at += lens[i]
	}
	m.CashAccount = text[at:]
	return m, nil
}
