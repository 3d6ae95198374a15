package matching

import (
	"encoding/binary"
	"errors"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/bin"
	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/decimal"
)

// Binary layout of a trade in the matching table (state layout v1). The first
// 18 bytes are fixed so that the table's due index reads them without
// decoding the rest:
//
//	[0]     layout version (1)
//	[1]     kind: 0 trade, 1 tombstone
//	[2:10]  Newest (trade) or PurgedAt (tombstone), big-endian int64
//	[10:18] TradeKey, big-endian
//	...     the rest, varint-encoded
const (
	layoutV1      = 1
	kindTrade     = 0
	kindTombstone = 1
	headerLen     = 18
)

// ErrLayout is returned for a value of an unknown layout.
var ErrLayout = errors.New("matching: unknown state layout")

// Header reads the fixed part of an encoded value: whether it is a tombstone
// and its event time (Newest of a trade, PurgedAt of a tombstone).
func Header(b []byte) (tomb bool, at int64, ok bool) {
	if len(b) < headerLen || b[0] != layoutV1 {
		return false, 0, false
	}
	return b[1] == kindTombstone, int64(binary.BigEndian.Uint64(b[2:10])), true
}

// MarshalTombstone encodes a purged trade's counters.
func MarshalTombstone(key schemas.TradeKey, t Tombstone) []byte {
	b := header(nil, kindTombstone, t.PurgedAt, key)
	b = binary.AppendUvarint(b, uint64(t.Version))
	return binary.AppendUvarint(b, uint64(t.StatusN))
}

// UnmarshalTombstone decodes MarshalTombstone.
func UnmarshalTombstone(b []byte) (Tombstone, error) {
	tomb, at, ok := Header(b)
	if !ok || !tomb {
		return Tombstone{}, ErrLayout
	}
	r := reader{Reader: bin.Reader{B: b[headerLen:]}}
	t := Tombstone{PurgedAt: at, Version: int(r.uvarint()), StatusN: int(r.uvarint())}
	return t, r.err()
}

func header(b []byte, kind byte, at int64, key schemas.TradeKey) []byte {
	b = append(b, layoutV1, kind)
	b = binary.BigEndian.AppendUint64(b, uint64(at))
	return binary.BigEndian.AppendUint64(b, uint64(key))
}

// MarshalBinary encodes the trade.
func (t *Trade) MarshalBinary() ([]byte, error) {
	b := make([]byte, 0, 256+len(t.Entries)*160)
	b = header(b, kindTrade, t.Newest, t.Key)
	b = binary.AppendUvarint(b, uint64(t.Version))
	b = appendBool(b, t.Live)
	b = append(b, t.LiveDigest[:]...)
	b = binary.AppendUvarint(b, uint64(t.StatusN))
	b = append(b, byte(t.Last.Status))
	b = appendBytes(b, t.Last.Criteria)
	b = appendBytes(b, t.Last.Body)
	b = binary.AppendUvarint(b, uint64(len(t.Last.To)))
	for _, s := range t.Last.To {
		b = appendString(b, s)
	}
	b = binary.AppendUvarint(b, uint64(len(t.Keys)))
	for _, k := range t.Keys {
		for _, s := range [...]string{k.TradeRef, k.TradeDate, k.ISIN, k.Side, k.Broker, k.InvMgr} {
			b = appendString(b, s)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(t.Entries)))
	for i := range t.Entries {
		e := &t.Entries[i]
		for _, s := range [...]string{e.Sender, e.MsgId, e.Related} {
			b = appendString(b, s)
		}
		b = append(b, e.Digest[:]...)
		b = append(b, byte(e.Type), byte(e.Function), e.KeyIdx, byte(e.NetUnits))
		b = binary.AppendUvarint(b, uint64(e.Has))
		b = binary.AppendVarint(b, e.Created)
		b = binary.AppendVarint(b, e.Quantity)
		b = appendDec(b, e.Price)
		b = appendDec(b, e.NetAmount)
		b = binary.AppendVarint(b, int64(e.SettleDate))
		b = binary.AppendVarint(b, int64(e.AllocCount))
		for _, s := range [...]string{e.TradeCcy, e.SettleCcy, e.Account, e.Custodian, e.PSET, e.SafekeepingAccount, e.CashAccount} {
			b = appendString(b, s)
		}
	}
	return appendTimeliness(b, t), nil
}

// UnmarshalTrade decodes MarshalBinary; strings are interned through it.
func UnmarshalTrade(b []byte, it Interner) (*Trade, error) {
	tomb, at, ok := Header(b)
	if !ok || tomb {
		return nil, ErrLayout
	}
	r := reader{Reader: bin.Reader{B: b[headerLen:]}, it: it}
	t := &Trade{Newest: at, Key: schemas.TradeKey(binary.BigEndian.Uint64(b[10:18]))}
	t.Version = int(r.uvarint())
	t.Live = r.byte() == 1
	copy(t.LiveDigest[:], r.take(16))
	t.StatusN = int(r.uvarint())
	t.Last.Status = schemas.Status(r.byte())
	t.Last.Criteria = r.bytes()
	t.Last.Body = r.bytes()
	n := r.count()
	for i := 0; i < n; i++ {
		t.Last.To = append(t.Last.To, r.interned())
	}
	n = r.count()
	for i := 0; i < n; i++ {
		t.Keys = append(t.Keys, schemas.Key{TradeRef: r.string(), TradeDate: r.interned(), ISIN: r.interned(),
			Side: r.interned(), Broker: r.interned(), InvMgr: r.interned()})
	}
	n = r.count()
	t.Entries = make([]Entry, n)
	for i := 0; i < n; i++ {
		e := &t.Entries[i]
		e.Sender, e.MsgId, e.Related = r.interned(), r.string(), r.string()
		copy(e.Digest[:], r.take(16))
		e.Type, e.Function, e.KeyIdx, e.NetUnits = schemas.MsgType(r.byte()), schemas.Function(r.byte()), r.byte(), int8(r.byte())
		e.Has = schemas.FieldSet(r.uvarint())
		e.Created, e.Quantity = r.varint(), r.varint()
		e.Price, e.NetAmount = r.dec(), r.dec()
		e.SettleDate, e.AllocCount = date.Date(r.varint()), int32(r.varint())
		e.TradeCcy, e.SettleCcy, e.Account = r.interned(), r.interned(), r.string()
		e.Custodian, e.PSET, e.SafekeepingAccount, e.CashAccount = r.interned(), r.interned(), r.string(), r.string()
	}
	readTimeliness(&r, t)
	if err := r.err(); err != nil {
		return nil, err
	}
	if len(t.Keys) == 0 || int(maxKeyIdx(t.Entries)) >= len(t.Keys) {
		return nil, ErrLayout
	}
	return t, nil
}

func maxKeyIdx(es []Entry) uint8 {
	var m uint8
	for i := range es {
		m = max(m, es[i].KeyIdx)
	}
	return m
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendBytes(b []byte, s []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendDec(b []byte, d decimal.Dec) []byte {
	b = binary.AppendVarint(b, d.Coef())
	return append(b, byte(d.Scale()))
}

// reader decodes a state value with schemas/bin's checked reads (sticky:
// after the first failure every read returns zero values and err reports it
// once at the end), interning the strings it reads through it.
type reader struct {
	bin.Reader
	it Interner
}

var errShort = errors.New("matching: truncated state value")

func (r *reader) err() error {
	if r.Bad {
		return errShort
	}
	return nil
}

func (r *reader) take(n int) []byte { return r.Take(n) }
func (r *reader) byte() byte        { return r.Byte() }
func (r *reader) uvarint() uint64   { return r.Uvarint() }
func (r *reader) varint() int64     { return r.Varint() }

// count reads a length that must fit in what is left (a corrupt value cannot
// make us allocate gigabytes).
func (r *reader) count() int {
	n := r.Uvarint()
	if n > uint64(len(r.B)) {
		r.Bad, r.B = true, nil
		return 0
	}
	return int(n)
}

func (r *reader) bytes() []byte {
	n := r.count()
	if n == 0 {
		return nil
	}
	return append([]byte(nil), r.take(n)...)
}

func (r *reader) string() string { return string(r.take(r.count())) }

func (r *reader) interned() string {
	b := r.take(r.count())
	if r.it == nil {
		return string(b)
	}
	if s, ok := r.it[string(b)]; ok { // no allocation for the lookup
		return s
	}
	return r.it.Intern(string(b))
}

func (r *reader) dec() decimal.Dec {
	c := r.varint()
	return decimal.New(c, int(r.byte()))
}
