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
	// Every truncation fails cleanly.
	for i := 0; i < len(b); i++ {
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
