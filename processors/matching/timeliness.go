package matching

import (
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/bin"
)

// Timeliness (docs/timeliness.md) needs of every trade its market (the Market
// of its NOE in force), its TradeDate and whether it is still unmatched; the
// partition's at-risk index reads them from each value the table stores, on
// every write and when a table is rebuilt, so they are kept where they can be
// read without decoding the trade.
//
// They extend state layout v1 after the entries, where a reader without the
// extension stops (it never asks that a value be read to its end): values
// stay readable by the release before and after.
//
//	[per entry]  a string each: a NOE's Market, "" for the other types
//	[tail]       open (1 byte), TradeDate (string), market (string),
//	             the tail's length (1 byte), tailMagic (1 byte)
//
// ReadRisk reads the tail from the value's end.
const tailMagic = 0xE7

// Risk is what the at-risk index keeps of a trade.
type Risk struct {
	Market    string // Market of the NOE in force, "" without one
	TradeDate string
	Open      bool // unmatched: messages in force and no standing CLS
}

// Risk computes the trade's Risk from its messages in force (inForce's
// rule, without building the view: MarshalBinary asks it for every message).
func (t *Trade) Risk() Risk {
	var r Risk
	if len(t.Keys) > 0 {
		r.TradeDate = t.Keys[0].TradeDate
	}
	held := false
	for i := range t.Entries {
		e := &t.Entries[i]
		if e.Function == schemas.CANCEL || t.superseded(e) {
			continue
		}
		held = true
		if e.Type == schemas.NOE && r.Market == "" {
			r.Market = e.Market
		}
	}
	r.Open = !t.Live && held
	return r
}

// superseded: a CANCEL or REPLACE of the same sender and type names e.
func (t *Trade) superseded(e *Entry) bool {
	for j := range t.Entries {
		f := &t.Entries[j]
		if f.Function != schemas.NEW && f.Related == e.MsgId && f.Sender == e.Sender && f.Type == e.Type {
			return true
		}
	}
	return false
}

func appendTimeliness(b []byte, t *Trade) []byte {
	for i := range t.Entries {
		b = appendString(b, t.Entries[i].Market)
	}
	r := t.Risk()
	start := len(b)
	b = appendBool(b, r.Open)
	b = appendString(b, r.TradeDate)
	b = appendString(b, r.Market)
	if n := len(b) - start; n < 256 {
		return append(b, byte(n), tailMagic)
	}
	// Key fields and MICs are validated short; a tail that cannot say its
	// length is left out (ReadRisk then reports none, the trade is decoded).
	return b[:start]
}

// readTimeliness reads the extension of a value that has one (a value of the
// release before ends after its entries).
func readTimeliness(r *reader, t *Trade) {
	if len(r.B) == 0 || r.Bad {
		return
	}
	for i := range t.Entries {
		t.Entries[i].Market = r.interned()
	}
	if b := r.B; r.Bad || len(b) < 2 || b[len(b)-1] != tailMagic || int(b[len(b)-2])+2 != len(b) {
		r.Bad, r.B = true, nil
		return
	}
	r.B = nil // the tail is derived from the rest
}

// ReadRisk reads a trade value's tail without decoding the trade; ok is false
// for a tombstone, a value that is not a trade's, or one written before the
// extension (decode it and ask Trade.Risk).
func ReadRisk(b []byte) (r Risk, ok bool) {
	tomb, _, hok := Header(b)
	if !hok || tomb || len(b) < headerLen+2 || b[len(b)-1] != tailMagic {
		return Risk{}, false
	}
	n := int(b[len(b)-2])
	end := len(b) - 2
	if end-n < headerLen {
		return Risk{}, false
	}
	rd := bin.Reader{B: b[end-n : end]}
	open := rd.Byte()
	r.TradeDate = string(rd.Bytes())
	r.Market = string(rd.Bytes())
	if rd.Bad || len(rd.B) != 0 || open > 1 || len(r.TradeDate) != 10 {
		return Risk{}, false
	}
	r.Open = open == 1
	return r, true
}
