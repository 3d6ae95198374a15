package matching

import (
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/bin"
)

// Refs returns the TradeRef of each key of an encoded match table value
// without decoding the rest of it: the trade lookup's index reads it on
// every write to the table. A tombstone has none. The slices alias b.
func Refs(b []byte) ([][]byte, error) {
	tomb, _, ok := Header(b)
	if !ok {
		return nil, ErrLayout
	}
	if tomb {
		return nil, nil
	}
	// The fields before the keys, in MarshalBinary's order: version, live,
	// live digest, status count, last status, its criteria, its body, its
	// receivers.
	r := reader{Reader: bin.Reader{B: b[headerLen:]}}
	r.uvarint()
	r.byte()
	r.take(16)
	r.uvarint()
	r.byte()
	r.take(r.count())
	r.take(r.count())
	for n := r.count(); n > 0; n-- {
		r.take(r.count())
	}
	n := r.count()
	refs := make([][]byte, 0, min(n, 4))
	for ; n > 0; n-- {
		refs = append(refs, r.take(r.count()))
		for range 5 { // TradeDate, ISIN, Side, Broker, InvMgr
			r.take(r.count())
		}
	}
	if err := r.err(); err != nil {
		return nil, err
	}
	return refs, nil
}

// Mentions calls f with whom the trade mentions, as Mentions does with its
// encoded value (MarshalBinary's): its Broker, its InvMgr and the Custodian
// of each of its ALC messages. The work-queue index takes them from the
// trade the match stage decided instead of reading the value back. ok is
// false for a trade without its key tuple, whose value Mentions cannot
// read either: a caller must take it to mention anyone.
func (t *Trade) Mentions(f func(bic string)) (ok bool) {
	if len(t.Keys) != 1 {
		return false
	}
	f(t.Keys[0].Broker)
	f(t.Keys[0].InvMgr)
	for i := range t.Entries {
		if e := &t.Entries[i]; e.Type == schemas.ALC && e.Custodian != "" {
			f(e.Custodian)
		}
	}
	return true
}

// Mentions calls f with every participant that may be a party of the trade
// of an encoded match table value, without decoding it: its Broker, its
// InvMgr and the Custodian of each of its ALC messages (the parties,
// messages.md §6, are among them; a SET's Custodian never is by its SET).
// The work-queue index reads it when a question finds a trade written and
// not handed over (Trade.Mentions), to know whether that question must wait
// for the trade's summary. The slices alias b and are
// not kept by f. ok is false for a tombstone (no party) and for a value of
// the layout before version 3, which a caller must take to mention anyone.
func Mentions(b []byte, f func(bic []byte)) (ok bool, _ error) {
	tomb, _, hok := Header(b)
	if !hok {
		return false, ErrLayout
	}
	if tomb || b[0] != layoutV2 {
		return false, nil
	}
	r := reader{Reader: bin.Reader{B: b[headerLen:]}}
	// What Refs skips, then the key.
	r.uvarint()
	r.byte()
	r.take(16)
	r.uvarint()
	r.byte()
	r.take(r.count())
	r.take(r.count())
	for n := r.count(); n > 0; n-- {
		r.take(r.count())
	}
	if r.count() != 1 {
		return false, ErrLayout
	}
	for range 4 { // TradeRef, TradeDate, ISIN, Side
		r.take(r.count())
	}
	broker, invMgr := r.take(r.count()), r.take(r.count())
	if err := r.err(); err != nil {
		return false, err
	}
	f(broker)
	f(invMgr)
	// The entries, in MarshalBinary's order.
	for n := r.count(); n > 0; n-- {
		for range 3 { // Sender, MsgId, Related
			r.take(r.count())
		}
		r.take(16)
		typ := schemas.MsgType(r.byte())
		r.byte()
		r.byte()
		r.uvarint()
		r.varint()
		r.varint()
		r.varint() // Price
		r.byte()
		r.varint() // NetAmount
		r.byte()
		r.varint()
		r.varint()
		for range 3 { // TradeCcy, SettleCcy, Account
			r.take(r.count())
		}
		custodian := r.take(r.count())
		for range 4 { // PSET, SafekeepingAccount, CashAccount, Market
			r.take(r.count())
		}
		r.byte()
		if typ.IsLifecycle() {
			r.take(r.count())
			for k := r.count(); k > 0; k-- {
				r.take(r.count())
			}
			r.take(r.count())
			for k := r.count(); k > 0; k-- {
				r.take(r.count())
			}
			r.take(r.count())
		}
		if err := r.err(); err != nil {
			return false, err
		}
		if typ == schemas.ALC && len(custodian) > 0 {
			f(custodian)
		}
	}
	return true, r.err()
}
