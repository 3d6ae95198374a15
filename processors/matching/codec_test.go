package matching

import (
	"github.com/ste-utility/ste/schemas"
	"reflect"
	"testing"
)

func TestTradeCodecRoundTrip(t *testing.T) {
	f := newFixture(t)
	ms := standard("T1")
	f.sendAll(ms)
	f.send(replaceOf(ms[5], "T1-SET1-R", 30, func(d *schemas.Draft) { d.Set("NetAmount", "1.00") })) // mismatched: a status body to keep
	tr := f.book.Trade(tradeKey("T1"))
	b, err := tr.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	back, err := UnmarshalTrade(b, Interner{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tr, back) {
		t.Fatalf("round trip differs:\n%+v\n%+v", tr, back)
	}
	if tomb, at, ok := Header(b); !ok || tomb || at != tr.Newest {
		t.Fatalf("header %v %v %v", tomb, at, ok)
	}
	// Every truncation fails cleanly, but at the end of the entries: a value
	// of the release before the timeliness extension.
	v1 := len(b) - len(appendTimeliness(nil, tr))
	for i := 0; i < len(b); i++ {
		if i == v1 {
			continue
		}
		if _, err := UnmarshalTrade(b[:i], nil); err == nil {
			t.Fatalf("truncated at %d accepted", i)
		}
	}
	ts := Tombstone{Version: 3, StatusN: 7, PurgedAt: 42}
	got, err := UnmarshalTombstone(MarshalTombstone(tr.Key, ts))
	if err != nil || got != ts {
		t.Fatalf("tombstone %+v %v", got, err)
	}
}

func TestTimelinessExtension(t *testing.T) {
	f := newFixture(t)
	ms := standard("T2")
	f.sendAll(ms[:3])
	tr := f.book.Trade(tradeKey("T2"))
	b, _ := tr.MarshalBinary()
	r, ok := ReadRisk(b)
	want := Risk{Market: "XSES", TradeDate: tr.Keys[0].TradeDate, Open: true}
	if !ok || r != want || tr.Risk() != want {
		t.Fatalf("open trade: %+v %v (Risk() %+v), want %+v", r, ok, tr.Risk(), want)
	}
	// A value of the release before reads, without markets; ReadRisk says so.
	v1 := b[:len(b)-len(appendTimeliness(nil, tr))]
	old, err := UnmarshalTrade(v1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ReadRisk(v1); ok {
		t.Error("a v1 value without the extension has a tail")
	}
	if got := old.Risk(); got.Market != "" || !got.Open {
		t.Errorf("old value's risk %+v", got)
	}
	f.sendAll(ms[3:])
	tr = f.book.Trade(tradeKey("T2"))
	b, _ = tr.MarshalBinary()
	if r, ok := ReadRisk(b); !ok || r.Open || r.Market != "XSES" {
		t.Errorf("matched trade: %+v %v", r, ok)
	}
	if _, ok := ReadRisk(MarshalTombstone(tr.Key, Tombstone{})); ok {
		t.Error("a tombstone has a risk")
	}
}

// Risk follows inForce's rule: after every message of a trade with cancels
// and replaces, the two agree on the market and on whether it is open.
func TestRiskAgreesWithInForce(t *testing.T) {
	f := newFixture(t)
	ms := standard("T3")
	f.sendAll(ms)
	f.send(replaceOf(ms[0], "T3-NOE-R", 30, func(d *schemas.Draft) { d.Set("Market", "XNYS") }))
	f.send(cancelOf(ms[5], "T3-SET1-C", 40))
	for _, tr := range []*Trade{f.book.Trade(tradeKey("T3"))} {
		v := inForce(tr, nil)
		want := Risk{TradeDate: tr.Keys[0].TradeDate, Open: !tr.Live && len(v.all) > 0}
		if len(v.noe) > 0 {
			want.Market = v.noe[0].Market
		}
		if got := tr.Risk(); got != want || want.Market != "XNYS" || !want.Open {
			t.Fatalf("Risk %+v, inForce says %+v", got, want)
		}
	}
}
