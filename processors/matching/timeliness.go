package matching

import (
	"encoding/binary"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/bin"
)

// Timeliness (docs/timeliness.md) needs of every trade its market (the Market
// of its NOE in force), its TradeDate and whether it is still unmatched; the
// partition's at-risk index reads them from each value the table stores, on
// every write and when a table is rebuilt, so they are kept where they can be
// read without decoding the trade.
//
// Layout v1 extended itself after the entries, where a reader without the
// extension stops: a string per entry (a NOE's Market, "" for the other
// types), then the tail. Layout v2 keeps each entry's Market in the entry and
// ends with the same tail:
//
//	[tail]       open (1 byte), TradeDate (string), market (string),
//	             [AllegeAt (varint), when not 0],
//	             the tail's length (1 byte), tailMagic (1 byte)
//
// ReadRisk reads the tail from the value's end, in either layout, and
// ReadAllegeAt the allegement timer the Kafka path keeps there (its
// table's timers read it from every value written). A reader from before
// AllegeAt skips the tail by its length (UnmarshalTrade), and its ReadRisk
// reports none for a tail that holds it (the trade is decoded instead).
const tailMagic = 0xE7

// Risk is what the at-risk index keeps of a trade.
type Risk struct {
	Market    string // Market of the NOE in force, "" without one
	TradeDate string
	Open      bool // unmatched: messages in force and no standing CLS (neither locked nor cancelled)
}

// Risk computes the trade's Risk from its messages in force. An open trade
// is unlocked and not cancelled (a locked one has a standing CLS), so its
// messages in force are F0 (section 5a step 1), which no tolerance decides:
// MarshalBinary asks it for every message.
func (t *Trade) Risk() Risk {
	var r Risk
	if len(t.Keys) > 0 {
		r.TradeDate = t.Keys[0].TradeDate
	}
	a := &assessment{t: t}
	if len(t.Keys) > 0 {
		a.key = t.Keys[0]
	}
	if t.Live && len(t.Standing) > 0 {
		a.f0 = t.standingSet()
	} else {
		a.unlockedView()
	}
	for _, e := range a.f0 {
		if e.Type == schemas.NOE && r.Market == "" {
			r.Market = e.Market
		}
	}
	r.Open = !t.Live && !t.Cancelled && !t.TombCancelled && len(a.f0) > 0
	return r
}

// appendRisk writes the tail.
func appendRisk(b []byte, t *Trade) []byte {
	r := t.Risk()
	start := len(b)
	b = appendBool(b, r.Open)
	b = appendString(b, r.TradeDate)
	b = appendString(b, r.Market)
	if t.AllegeAt != 0 {
		b = binary.AppendVarint(b, t.AllegeAt)
	}
	if n := len(b) - start; n < 256 {
		return append(b, byte(n), tailMagic)
	}
	// Key fields and MICs are validated short; a tail that cannot say its
	// length is left out (ReadRisk then reports none, the trade is decoded).
	return b[:start]
}

// readRisk skips the tail of a layout v2 value (derived from the rest), or
// fails when there is something else.
func readRisk(r *reader) (allegeAt int64) {
	if r.Bad || len(r.B) == 0 {
		return 0
	}
	b := r.B
	if len(b) < 2 || b[len(b)-1] != tailMagic || int(b[len(b)-2])+2 != len(b) {
		r.Bad, r.B = true, nil
		return 0
	}
	r.B = nil
	// The tail is derived from the rest, but for AllegeAt after its strings.
	rd := bin.Reader{B: b[:len(b)-2]}
	rd.Byte()
	rd.Bytes()
	rd.Bytes()
	if len(rd.B) > 0 && !rd.Bad {
		allegeAt = rd.Varint()
	}
	if rd.Bad || len(rd.B) != 0 {
		r.Bad = true
		return 0
	}
	return allegeAt
}

// readTimelinessV1 reads the extension of a layout v1 value that has one (a
// value of the release before it ends after its entries).
func readTimelinessV1(r *reader, entries []Entry) {
	if len(r.B) == 0 || r.Bad {
		return
	}
	for i := range entries {
		entries[i].Market = r.interned()
	}
	readRisk(r)
}

// ReadRisk reads a trade value's tail without decoding the trade; ok is false
// for a tombstone, a value that is not a trade's, or one written before the
// extension (decode it and ask Trade.Risk).
func ReadRisk(b []byte) (r Risk, ok bool) {
	t, ok := readTail(b)
	if !ok {
		return Risk{}, false
	}
	return Risk{Market: string(t.market), TradeDate: string(t.tradeDate), Open: t.open}, true
}

// ReadAllegeAt reads a trade value's allegement timer (Trade.AllegeAt)
// from its tail without decoding the trade (nor allocating: the table's
// timers read it from every value written), as Trade.AllegeAt holds it:
// positive a timer set, negative none set (minus the last one), 0 none
// ever; ok false for a tombstone or a value without the tail (decode it).
func ReadAllegeAt(b []byte) (at int64, ok bool) {
	t, ok := readTail(b)
	return t.allegeAt, ok
}

// tail is a value's tail read in place.
type tail struct {
	open              bool
	tradeDate, market []byte
	allegeAt          int64
}

func readTail(b []byte) (t tail, ok bool) {
	tomb, _, hok := Header(b)
	if !hok || tomb || len(b) < headerLen+2 || b[len(b)-1] != tailMagic {
		return tail{}, false
	}
	n := int(b[len(b)-2])
	end := len(b) - 2
	if end-n < headerLen {
		return tail{}, false
	}
	rd := bin.Reader{B: b[end-n : end]}
	open := rd.Byte()
	t.tradeDate = rd.Bytes()
	t.market = rd.Bytes()
	if len(rd.B) > 0 && !rd.Bad {
		t.allegeAt = rd.Varint()
	}
	if rd.Bad || len(rd.B) != 0 || open > 1 || len(t.tradeDate) != 10 {
		return tail{}, false
	}
	t.open = open == 1
	return t, true
}
