package matching

import "github.com/ste-utility/ste/schemas/bin"

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
