package matching

import (
	"fmt"
	"testing"

	"github.com/ste-utility/ste/schemas"
)

// BenchmarkMatch is the matching engine per message: standard trades of 7
// messages applied to a Book (state, criteria, CLS and status bodies), no
// signing. Trades are distinct so the book grows as in a real run.
func BenchmarkMatch(b *testing.B) { benchMatch(b, Config{}, 0) }

// BenchmarkMatchTolerances is BenchmarkMatch on trades of which one in 8 has
// a SET a cent off its NPR: matched within tolerance with the SGD tolerance
// configured ("configured"), mismatched without ("none"). The difference is
// what tolerances cost the engine (docs/benchmarks.md).
func BenchmarkMatchTolerances(b *testing.B) {
	b.Run("none", func(b *testing.B) { benchMatch(b, Config{}, 8) })
	b.Run("configured", func(b *testing.B) { benchMatch(b, Config{Tolerances: tolerances()}, 8) })
}

// benchMatch applies the messages of 512 trades to a Book; every offEvery-th
// trade (0: none) has SET1's NetAmount a cent above NPR1's.
func benchMatch(b *testing.B, cfg Config, offEvery int) {
	var dec schemas.Decoder
	const trades = 512
	var ins []*Inbound
	for i := 0; i < trades; i++ {
		ds := standard(fmt.Sprintf("B%d", i))
		if offEvery > 0 && i%offEvery == 0 {
			ds[5].Set("NetAmount", "6306.30")
		}
		for _, d := range ds {
			rec := d.AppendSigned(nil, nil)
			m, rej := dec.Decode(rec)
			if rej != nil {
				b.Fatal(rej)
			}
			ins = append(ins, &Inbound{Msg: m, Digest: digestOfRecord(rec), NetUnits: 2})
		}
	}
	b.ReportAllocs()
	book := NewBook(WithConfig(cfg))
	n := 0
	for b.Loop() {
		if n == len(ins) {
			b.StopTimer()
			book, n = NewBook(WithConfig(cfg)), 0
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

// BenchmarkLargeTradeEvaluation is one evaluation of a locked trade of k
// allocations with a pending change (steps 1 to 12, the STATUS body): the
// cost each message of such a trade pays. It grows as k log k, not with
// the number of subsets (an AFF names its set).
func BenchmarkLargeTradeEvaluation(b *testing.B) {
	for _, k := range []int{2, 25, 250} {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			f := newFixture(b)
			ms := allocations("L", k)
			f.sendAll(ms)
			tr := f.book.Trade(tradeKey("L"))
			f.send(affirm("L-AFF", invMgr, 90, tr, ""))
			f.send(replaceOf(ms[len(ms)-1], "L-SET-R", 91, func(d *schemas.Draft) { d.Set("CashAccount", "X") }))
			if tr.Last.Status != schemas.ChangePending {
				b.Fatalf("status %v", tr.Last.Status)
			}
			b.ReportAllocs()
			for b.Loop() {
				a := assess(tr, nil)
				a.statusBody(a.value, "")
				a.blockOf()
			}
		})
	}
}

// allocations is a trade of k allocations of 100 each (accounts A0000…).
func allocations(ref string, k int) []*schemas.Draft {
	noe := draft(ref+"-NOE", "NOE", broker, 0, ref, kv("Quantity", fmt.Sprint(100*k)), kv("Price", "10.5"),
		kv("TradeCcy", "SGD"), kv("SettleDate", "2026-11-04"), kv("Market", "XSES"), kv("ExecTime", at(-5)))
	out := []*schemas.Draft{noe}
	for i := 0; i < k; i++ {
		acct := fmt.Sprintf("A%04d", i)
		a := alc(ref, i, acct, "100", cust1)
		a.Set("AllocCount", fmt.Sprint(k))
		a.MsgId = fmt.Sprintf("%s-ALC%04d", ref, i)
		n := npr(ref, i, acct, "100", "1050.00", "1.00", "0.50", "1051.50")
		n.MsgId = fmt.Sprintf("%s-NPR%04d", ref, i)
		s := set(ref, i, acct, "100", "1051.50", cust1)
		s.MsgId = fmt.Sprintf("%s-SET%04d", ref, i)
		out = append(out, a, n, s)
	}
	return out
}
