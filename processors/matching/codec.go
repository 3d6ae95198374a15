package matching

import (
	"encoding/binary"
	"errors"
	"slices"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/bin"
	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/decimal"
)

// Binary layout of a trade in the matching table. The first 18 bytes are
// fixed so that the table's due index reads them without decoding the rest:
//
//	[0]     layout version (1 or 2)
//	[1]     kind: 0 trade, 1 tombstone
//	[2:10]  Newest (trade) or PurgedAt (tombstone), big-endian int64
//	[10:18] TradeKey, big-endian
//	...     the rest, varint-encoded
//
// Layout v2 (version 3 of the contract) keeps v1's prefix up to and with the
// key tuples (ReadStatus, Refs read it for both), writes at most one key
// tuple, drops each entry's key index, adds each entry's Market and
// lifecycle fields, then a version 3 section (the flags, the standing set,
// what was last sent: per-receiver STATUS bodies, CNF, BLK, ALG, the AFFs
// the utility sent), then the timeliness tail (timeliness.go) as v1 does.
// Values of layout v1 stay readable (UnmarshalTrade, UnmarshalTombstone);
// every value written is v2.
const (
	layoutV1      = 1
	layoutV2      = 2
	kindTrade     = 0
	kindTombstone = 1
	headerLen     = 18
)

// ErrLayout is returned for a value of an unknown layout.
var ErrLayout = errors.New("matching: unknown state layout")

// Header reads the fixed part of an encoded value: whether it is a tombstone
// and its event time (Newest of a trade, PurgedAt of a tombstone).
func Header(b []byte) (tomb bool, at int64, ok bool) {
	if len(b) < headerLen || (b[0] != layoutV1 && b[0] != layoutV2) {
		return false, 0, false
	}
	return b[1] == kindTombstone, int64(binary.BigEndian.Uint64(b[2:10])), true
}

// MarshalTombstone encodes a purged trade's tombstone (layout v2).
func MarshalTombstone(key schemas.TradeKey, t Tombstone) []byte {
	b := header(nil, kindTombstone, t.PurgedAt, key)
	b = binary.AppendUvarint(b, uint64(t.Version))
	b = binary.AppendUvarint(b, uint64(t.StatusN))
	b = appendKey(b, t.Key)
	b = binary.AppendUvarint(b, uint64(t.CNFN))
	b = binary.AppendUvarint(b, uint64(t.BLKN))
	b = append(b, flags(t.Cancelled, t.Locked, false))
	b = binary.AppendUvarint(b, uint64(len(t.ALG)))
	for _, a := range t.ALG {
		b = appendString(b, a.Receiver)
		b = binary.AppendUvarint(b, uint64(a.N))
	}
	if len(t.Purged) > 0 {
		b = appendPrints(b, t.Purged) // added to v2 before its release: absent, none
	}
	return b
}

// UnmarshalTombstone decodes MarshalTombstone, of either layout.
func UnmarshalTombstone(b []byte) (Tombstone, error) {
	tomb, at, ok := Header(b)
	if !ok || !tomb {
		return Tombstone{}, ErrLayout
	}
	r := reader{Reader: bin.Reader{B: b[headerLen:]}}
	t := Tombstone{PurgedAt: at, Version: int(r.uvarint()), StatusN: int(r.uvarint())}
	if b[0] == layoutV2 {
		t.Key = r.key()
		t.CNFN, t.BLKN = int(r.uvarint()), int(r.uvarint())
		f := r.byte()
		t.Cancelled, t.Locked = f&flagCancelled != 0, f&flagLocked != 0
		for n := r.count(); n > 0; n-- {
			t.ALG = append(t.ALG, ALGCount{Receiver: r.string(), N: int(r.uvarint())})
		}
		if len(r.B) > 0 {
			t.Purged = r.prints()
		}
	}
	return t, r.err()
}

func header(b []byte, kind byte, at int64, key schemas.TradeKey) []byte {
	b = append(b, layoutV2, kind)
	b = binary.BigEndian.AppendUint64(b, uint64(at))
	return binary.BigEndian.AppendUint64(b, uint64(key))
}

const (
	flagCancelled = 1 << iota
	flagLocked
	flagTombCancelled
)

func flags(cancelled, locked, tombCancelled bool) byte {
	var f byte
	if cancelled {
		f |= flagCancelled
	}
	if locked {
		f |= flagLocked
	}
	if tombCancelled {
		f |= flagTombCancelled
	}
	return f
}

func appendKey(b []byte, k schemas.Key) []byte {
	for _, s := range [...]string{k.TradeRef, k.TradeDate, k.ISIN, k.Side, k.Broker, k.InvMgr} {
		b = appendString(b, s)
	}
	return b
}

func (r *reader) key() schemas.Key {
	return schemas.Key{TradeRef: r.string(), TradeDate: r.interned(), ISIN: r.interned(),
		Side: r.interned(), Broker: r.interned(), InvMgr: r.interned()}
}

// MarshalBinary encodes the trade (layout v2).
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
	b = binary.AppendUvarint(b, uint64(min(len(t.Keys), 1)))
	if len(t.Keys) > 0 {
		b = appendKey(b, t.Keys[0])
	}
	b = binary.AppendUvarint(b, uint64(len(t.Entries)))
	for i := range t.Entries {
		e := &t.Entries[i]
		for _, s := range [...]string{e.Sender, e.MsgId, e.Related} {
			b = appendString(b, s)
		}
		b = append(b, e.Digest[:]...)
		b = append(b, byte(e.Type), byte(e.Function), byte(e.NetUnits))
		b = binary.AppendUvarint(b, uint64(e.Has))
		b = binary.AppendVarint(b, e.Created)
		b = binary.AppendVarint(b, e.Quantity)
		b = appendDec(b, e.Price)
		b = appendDec(b, e.NetAmount)
		b = binary.AppendVarint(b, int64(e.SettleDate))
		b = binary.AppendVarint(b, int64(e.AllocCount))
		for _, s := range [...]string{e.TradeCcy, e.SettleCcy, e.Account, e.Custodian, e.PSET, e.SafekeepingAccount,
			e.CashAccount, e.Market} {
			b = appendString(b, s)
		}
		b = append(b, byte(e.Decision))
		if e.Type.IsLifecycle() {
			b = appendString(b, e.MatchDigest)
			b = appendStrings(b, e.Affirms)
			b = appendString(b, e.Amends)
			b = appendStrings(b, e.RejectReason)
			b = appendString(b, e.CancelReason)
		}
	}
	// The version 3 section.
	b = append(b, flags(t.Cancelled, t.Locked, t.TombCancelled))
	b = binary.AppendUvarint(b, uint64(len(t.Last.Bodies)))
	for _, body := range t.Last.Bodies {
		b = appendBytes(b, body)
	}
	b = appendBytes(b, t.Last.Requests)
	b = binary.AppendUvarint(b, uint64(len(t.Standing)))
	for _, i := range t.Standing {
		b = binary.AppendUvarint(b, uint64(i))
	}
	b = binary.AppendUvarint(b, uint64(t.CNF.N))
	b = appendBool(b, t.CNF.Live)
	b = append(b, t.CNF.Digest[:]...)
	b = appendStrings(b, t.CNF.To)
	b = binary.AppendUvarint(b, uint64(t.BLK.N))
	b = append(b, byte(t.BLK.Status))
	b = appendBytes(b, t.BLK.Body)
	b = binary.AppendUvarint(b, uint64(len(t.ALG)))
	for _, s := range t.ALG {
		b = appendString(b, s.Receiver)
		b = binary.AppendUvarint(b, uint64(s.N))
		b = binary.AppendUvarint(b, uint64(s.NewN))
		b = appendBytes(b, s.Body)
	}
	b = appendStrings(b, t.AutoSent)
	b = appendRedelivery(b, t)
	return appendRisk(b, t), nil
}

// The redelivery section (redeliver.go) follows AutoSent: a tag, its
// length, then the pending AFFs, the prints of purged messages and the CNF
// receivers gone. It was added to layout v2 before any release of v2; a
// value without it (written before) reads with none, so a reader knows it
// by its tag, which no tail starts with (a tail's first byte is 0 or 1).
// Written only when it holds something: most trades never need it.
const redeliveryTag = 'K'

func appendRedelivery(b []byte, t *Trade) []byte {
	if len(t.AutoPending) == 0 && len(t.Purged) == 0 && len(t.CNF.Gone) == 0 {
		return b
	}
	var x []byte
	x = binary.AppendUvarint(x, uint64(len(t.AutoPending)))
	for _, p := range t.AutoPending {
		x = appendString(x, p.MsgId)
		x = binary.AppendVarint(x, p.MatchedAt)
		x = append(x, p.Digest[:]...)
		x = binary.AppendUvarint(x, uint64(len(p.Set)))
		for _, i := range p.Set {
			x = binary.AppendUvarint(x, uint64(i))
		}
	}
	x = appendPrints(x, t.Purged)
	x = binary.AppendUvarint(x, uint64(len(t.CNF.Gone)))
	for _, g := range t.CNF.Gone {
		x = appendString(x, g.Receiver)
		x = binary.AppendUvarint(x, uint64(g.N))
		x = append(x, g.Digest[:]...)
	}
	b = append(b, redeliveryTag)
	return appendBytes(b, x)
}

func readRedelivery(r *reader, t *Trade) {
	if r.Bad || len(r.B) == 0 || r.B[0] != redeliveryTag {
		return
	}
	r.byte()
	x := reader{Reader: bin.Reader{B: r.take(r.count())}, it: r.it}
	for n := x.count(); n > 0; n-- {
		p := AutoPending{MsgId: x.string(), MatchedAt: x.varint()}
		copy(p.Digest[:], x.take(32))
		for m := x.count(); m > 0; m-- {
			i := int32(x.uvarint())
			if int(i) >= len(t.Entries) || i < 0 {
				x.Bad = true
			}
			p.Set = append(p.Set, i)
		}
		t.AutoPending = append(t.AutoPending, p)
	}
	t.Purged = x.prints()
	for n := x.count(); n > 0; n-- {
		g := CNFGone{Receiver: x.interned(), N: int(x.uvarint())}
		copy(g.Digest[:], x.take(32))
		t.CNF.Gone = append(t.CNF.Gone, g)
	}
	if x.Bad || len(x.B) != 0 {
		r.Bad = true
	}
}

func appendPrints(b []byte, ps []Print) []byte {
	b = binary.AppendUvarint(b, uint64(len(ps)))
	for _, p := range ps {
		b = binary.BigEndian.AppendUint64(b, p.ID)
		b = append(b, p.Digest[:]...)
	}
	return b
}

func (r *reader) prints() []Print {
	n := r.count()
	if n == 0 {
		return nil
	}
	ps := make([]Print, 0, min(n, len(r.B)/24))
	for ; n > 0 && !r.Bad; n-- {
		p := Print{ID: binary.BigEndian.Uint64(r.take(8))}
		copy(p.Digest[:], r.take(16))
		ps = append(ps, p)
	}
	return ps
}

// UnmarshalTrade decodes MarshalBinary, of either layout; strings are
// interned through it.
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
		t.Keys = append(t.Keys, r.key())
	}
	if b[0] == layoutV1 {
		return unmarshalV1(t, &r)
	}
	if len(t.Keys) != 1 {
		return nil, ErrLayout
	}
	n = r.count()
	// Room for one more: the match stage decodes a trade to apply a message
	// to it, and Apply appends its entry. Without it that append copied
	// every entry into a slice twice the size (an Entry is ~400 bytes: the
	// largest allocation of the match stage, issue 50).
	t.Entries = make([]Entry, n, n+1)
	for i := 0; i < n; i++ {
		e := &t.Entries[i]
		e.Sender, e.MsgId, e.Related = r.interned(), r.string(), r.string()
		copy(e.Digest[:], r.take(16))
		e.Type, e.Function, e.NetUnits = schemas.MsgType(r.byte()), schemas.Function(r.byte()), int8(r.byte())
		e.Has = schemas.FieldSet(r.uvarint())
		e.Created, e.Quantity = r.varint(), r.varint()
		e.Price, e.NetAmount = r.dec(), r.dec()
		e.SettleDate, e.AllocCount = date.Date(r.varint()), int32(r.varint())
		e.TradeCcy, e.SettleCcy, e.Account = r.interned(), r.interned(), r.string()
		e.Custodian, e.PSET, e.SafekeepingAccount, e.CashAccount = r.interned(), r.interned(), r.string(), r.string()
		e.Market = r.interned()
		e.Decision = schemas.Decision(r.byte())
		if e.Type.IsLifecycle() {
			e.MatchDigest = r.string()
			e.Affirms = r.strings(false)
			e.Amends = r.string()
			e.RejectReason = r.strings(true)
			e.CancelReason = r.interned()
		}
	}
	f := r.byte()
	t.Cancelled, t.Locked, t.TombCancelled = f&flagCancelled != 0, f&flagLocked != 0, f&flagTombCancelled != 0
	if n = r.count(); n > 0 {
		t.Last.Bodies = make([][]byte, n)
		for i := range t.Last.Bodies {
			t.Last.Bodies[i] = r.bytes()
		}
	}
	t.Last.Requests = r.bytes()
	if n = r.count(); n > 0 {
		t.Standing = make([]int32, n)
		for i := range t.Standing {
			if t.Standing[i] = int32(r.uvarint()); int(t.Standing[i]) >= len(t.Entries) {
				r.Bad = true
			}
		}
	}
	t.CNF.N = int(r.uvarint())
	t.CNF.Live = r.byte() == 1
	copy(t.CNF.Digest[:], r.take(32))
	t.CNF.To = r.strings(true)
	t.BLK.N = int(r.uvarint())
	t.BLK.Status = schemas.BlockStatus(r.byte())
	t.BLK.Body = r.bytes()
	for n = r.count(); n > 0; n-- {
		t.ALG = append(t.ALG, ALGState{Receiver: r.interned(), N: int(r.uvarint()), NewN: int(r.uvarint()), Body: r.bytes()})
	}
	t.AutoSent = r.strings(false)
	readRedelivery(&r, t)
	t.AllegeAt = readRisk(&r)
	if err := r.err(); err != nil {
		return nil, err
	}
	return t, nil
}

// unmarshalV1 reads the rest of a layout v1 value: entries with a key index
// (a trade of v1 could hold two key tuples after a trade-key collision; it
// is read as the first tuple's trade, the other tuple's messages left out:
// version 3 would have rejected them, KEY_COLLISION) and the optional
// timeliness extension.
func unmarshalV1(t *Trade, r *reader) (*Trade, error) {
	n := r.count()
	entries := make([]Entry, n)
	keyIdx := make([]uint8, n)
	for i := 0; i < n; i++ {
		e := &entries[i]
		e.Sender, e.MsgId, e.Related = r.interned(), r.string(), r.string()
		copy(e.Digest[:], r.take(16))
		e.Type, e.Function, keyIdx[i], e.NetUnits = schemas.MsgType(r.byte()), schemas.Function(r.byte()), r.byte(), int8(r.byte())
		e.Has = schemas.FieldSet(r.uvarint())
		e.Created, e.Quantity = r.varint(), r.varint()
		e.Price, e.NetAmount = r.dec(), r.dec()
		e.SettleDate, e.AllocCount = date.Date(r.varint()), int32(r.varint())
		e.TradeCcy, e.SettleCcy, e.Account = r.interned(), r.interned(), r.string()
		e.Custodian, e.PSET, e.SafekeepingAccount, e.CashAccount = r.interned(), r.interned(), r.string(), r.string()
	}
	readTimelinessV1(r, entries)
	if err := r.err(); err != nil {
		return nil, err
	}
	if len(t.Keys) == 0 || int(slices.Max(append(keyIdx, 0))) >= len(t.Keys) {
		return nil, ErrLayout
	}
	t.Keys = t.Keys[:1]
	for i := range entries {
		if keyIdx[i] == 0 {
			t.Entries = append(t.Entries, entries[i])
		}
	}
	// What v1 did not keep: the standing set (the messages in force by
	// version 2's rule while the CLS stands), and who was confirmed (no CNF
	// was sent: none stands, the next evaluation sends one).
	if t.Live {
		a := &assessment{t: t, key: t.Keys[0]}
		a.unlockedView()
		t.Standing = t.indices(a.f0)
	}
	return t, nil
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

func appendStrings(b []byte, ss []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(ss)))
	for _, s := range ss {
		b = appendString(b, s)
	}
	return b
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

func (r *reader) strings(interned bool) []string {
	n := r.count()
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		if interned {
			out[i] = r.interned()
		} else {
			out[i] = r.string()
		}
	}
	return out
}

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
