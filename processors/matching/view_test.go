package matching

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/ste-utility/ste/schemas"
)

// The view says what the engine decided: after a replace that changes a
// matched trade's CLS, version 1 is cancelled and 2 stands, the replaced
// SET is out of force; after a price change the trade is mismatched on
// criterion 7 with the messages compared; a value round-trips through the
// table layout; a tombstone reads as purged.
func TestTradeView(t *testing.T) {
	f := newFixture(t)
	msgs := standard("T1")
	f.sendAll(msgs)
	f.send(replaceOf(msgs[5], "T1-SET1-R", 30, func(d *schemas.Draft) { d.Set("CashAccount", "CA-NEW") }))
	tr := f.book.Trade(tradeKey("T1"))
	b, err := tr.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	v, err := ViewOf(tr.Key, b)
	if err != nil {
		t.Fatal(err)
	}
	if v.State != "matched" || !v.Complete || len(v.Failing) != 0 || v.LastStatus != "MATCHED" || v.StatusN != 2 {
		t.Fatalf("view %+v", v)
	}
	if len(v.CLS) != 2 || v.CLS[0].Standing || !v.CLS[1].Standing || v.CLS[1].MsgId != schemas.CLSId(tr.Key, 2) {
		t.Fatalf("CLS versions %+v", v.CLS)
	}
	if len(v.Keys) != 1 || v.Keys[0].TradeRef != "T1" || v.Keys[0].ISIN != "SG1L01001701" {
		t.Fatalf("keys %+v", v.Keys)
	}
	inForce := map[string]bool{}
	for _, m := range v.Messages {
		inForce[m.MsgId] = m.InForce
	}
	if len(v.Messages) != 8 || inForce["T1-SET1"] || !inForce["T1-SET1-R"] || !inForce["T1-NOE"] {
		t.Fatalf("messages in force %v", inForce)
	}
	if m := v.Messages[0]; m.Type != "NOE" || m.Price != "10.5" || m.Quantity != 1000 || m.SettleDate != "2026-11-04" {
		t.Fatalf("NOE %+v", m)
	}
	for _, m := range v.Messages {
		if m.Type == "NPR" && m.NetAmount != "6306.29" && m.NetAmount != "4204.61" {
			t.Fatalf("NPR net amount %q, in the currency's minor units", m.NetAmount)
		}
	}

	f.send(replaceOf(msgs[0], "T1-NOE-R", 40, func(d *schemas.Draft) { d.Set("Price", "10.60") }))
	v = f.book.Trade(tradeKey("T1")).View()
	if v.State != "mismatched" || v.LastStatus != "MISMATCHED" || len(v.Failing) != 1 {
		t.Fatalf("after a price change: %+v", v)
	}
	if c := v.Failing[0]; c.N != 7 || c.Name != "Price" || !slices.Contains(c.Messages, "BRKASGSGXXX:T1-NOE-R") {
		t.Fatalf("failing %+v", c)
	}
	if _, err := json.Marshal(v); err != nil {
		t.Fatal(err)
	}

	tomb := MarshalTombstone(tr.Key, Tombstone{Version: 2, StatusN: 3, PurgedAt: 5e18})
	if v, err := ViewOf(tr.Key, tomb); err != nil || v.State != "purged" || v.Purged.Version != 2 {
		t.Fatalf("tombstone view %+v %v", v, err)
	}
	if _, err := ViewOf(tr.Key, []byte{9, 9}); err == nil {
		t.Fatal("garbage decoded")
	}
}
