package matching

import (
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/ste-utility/ste/schemas"
)

// BenchmarkMatch is the matching engine per message: standard trades of 7
// messages applied to a Book (state, criteria, CLS and status bodies), no
// signing. Trades are distinct so the book grows as in a real run.
func BenchmarkMatch(b *testing.B) {
	var dec schemas.Decoder
	const trades = 512
	var ins []*Inbound
	for i := 0; i < trades; i++ {
		for _, d := range standard(fmt.Sprintf("B%d", i)) {
			rec := d.AppendSigned(nil, nil)
			m, rej := dec.Decode(rec)
			if rej != nil {
				b.Fatal(rej)
			}
			sum := sha256.Sum256(rec)
			var dg Digest
			copy(dg[:], sum[:])
			ins = append(ins, &Inbound{Msg: m, Digest: dg, NetUnits: 2})
		}
	}
	b.ReportAllocs()
	book := NewBook()
	n := 0
	for b.Loop() {
		if n == len(ins) {
			b.StopTimer()
			book, n = NewBook(), 0
			b.StartTimer()
		}
		book.Accept(ins[n])
		n++
	}
}

// BenchmarkTradeCodec is the table value round trip the Kafka match stage
// pays per message: decode the trade, encode it back.
func BenchmarkTradeCodec(b *testing.B) {
	f := newFixture(b)
	f.sendAll(standard("T1"))
	tr := f.book.Trade(tradeKey("T1"))
	enc, _ := tr.MarshalBinary()
	it := Interner{}
	b.SetBytes(int64(len(enc)))
	b.ReportAllocs()
	for b.Loop() {
		t, err := UnmarshalTrade(enc, it)
		if err != nil {
			b.Fatal(err)
		}
		t.MarshalBinary()
	}
}
