package matching

import (
	"encoding/json"
	"slices"
	"strings"
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

// The version 3 fields of the view (gateway.md v2 §4), and a party's view:
// a Custodian sees its accounts only and no held SETs; a stranger nothing.
func TestTradeViewLifecycle(t *testing.T) {
	f := newFixture(t)
	ms := standard("T1")
	f.sendAll(ms)
	tr := f.book.Trade(tradeKey("T1"))
	_, d1 := setOf(t, ms...)
	f.send(affirm("T1-AFF1", invMgr, 40, tr, ""))
	f.send(replaceOf(ms[6], "T1-SET2-R", 41, func(d *schemas.Draft) { d.Set("CashAccount", "CA-NEW") })) // pending, A2's
	f.send(set("T1", 9, "A1", "600", "6306.29", rogue))                                                  // held
	f.send(cxl("T1-CXL1", broker, 42, "ERROR"))
	f.send(aff("T1", "T1-AFF9", invMgr, 43, "AFFIRM", []string{"BRKASGSGXXX:T1-NOE", "X:NOPE"}, d1, "")) // DORMANT
	v := f.book.Trade(tradeKey("T1")).View()
	if v.Lifecycle != "CANCEL_PENDING" || v.MatchDigest != d1 || v.Agreement == nil || v.Agreement.MatchDigest != d1 ||
		v.Agreement.By != "INVMGR" || v.Agreement.Amendments != 0 || v.BlockStatus != "BLOCK_MATCHED" || !v.Locked {
		t.Fatalf("view %+v", v)
	}
	if len(v.Held) != 1 || v.Held[0] != (HeldView{Sender: rogue, MsgId: "T1-SET9", Account: "A1", Custodian: rogue}) {
		t.Fatalf("held %+v", v.Held)
	}
	if len(v.Pending) != 1 || v.Pending[0] != (PendingView{MsgType: "SET", Function: "REPLACE", Sender: cust2, MsgId: "T1-SET2-R"}) ||
		v.Proposal == nil || len(v.Proposal.Messages) != 7 {
		t.Fatalf("pending %+v proposal %+v", v.Pending, v.Proposal)
	}
	if len(v.Affirmations) != 2 || v.Affirmations[0].State != "COUNTED" || v.Affirmations[1].State != "DORMANT" ||
		v.Affirmations[0].Decision != "AFFIRM" {
		t.Fatalf("affirmations %+v", v.Affirmations)
	}
	if len(v.CancelRequests) != 1 || v.CancelRequests[0].State != "PENDING" || len(v.CancelRequests[0].AnsweredBy) != 0 {
		t.Fatalf("cancel requests %+v", v.CancelRequests)
	}
	if len(v.Missing) != 0 || !slices.Equal(v.Parties, []string{broker, invMgr, cust2, cust1}) {
		t.Fatalf("missing %+v parties %v", v.Missing, v.Parties)
	}
	// JSON names of gateway.md §4.
	b, _ := json.Marshal(v)
	for _, k := range []string{`"held":[`, `"lifecycle":"CANCEL_PENDING"`, `"match_digest":"` + d1, `"agreement":{"match_digest":`,
		`"by":"INVMGR"`, `"amendments":0`, `"pending":[{"msg_type":"SET","function":"REPLACE"`, `"proposal":{"match_digest":`,
		`"affirmations":[{"sender":`, `"state":"DORMANT"`, `"cancel_requests":[{"sender":"BRKASGSGXXX","msg_id":"T1-CXL1","state":"PENDING","answered_by":[]}]`,
		`"block_status":"BLOCK_MATCHED"`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("JSON lacks %s", k)
		}
	}
	// cust1's view: A1 only; cust2's: A2 with its pending change.
	c1, ok := v.For(cust1)
	if !ok || c1.Held != nil || len(c1.Pending) != 0 || len(c1.Proposal.Messages) != 3 {
		t.Fatalf("cust1 %v: held %+v pending %+v proposal %+v", ok, c1.Held, c1.Pending, c1.Proposal)
	}
	for _, m := range c1.Messages {
		if m.Account != "A1" || m.Type == "NOE" {
			t.Fatalf("cust1 sees %+v", m)
		}
	}
	c2, _ := v.For(cust2)
	if len(c2.Pending) != 1 || c2.Proposal.MatchDigest != v.Proposal.MatchDigest {
		t.Fatalf("cust2 pending %+v", c2.Pending)
	}
	if _, ok := v.For(rogue); ok {
		t.Fatal("a rogue custodian sees the trade")
	}
	if full, ok := v.For(invMgr); !ok || len(full.Held) != 1 || len(full.Messages) != len(v.Messages) {
		t.Fatal("the InvMgr's view is not whole")
	}
	// Cancelled: nothing in force, the parties those of the cancelled match;
	// a custodian of it still sees the trade (lifecycle CANCELLED).
	f.send(cxa("T1-CXA1", invMgr, 44, "T1-CXL1"))
	v = f.book.Trade(tradeKey("T1")).View()
	if v.Lifecycle != "CANCELLED" || v.State != "incomplete" || v.Agreement != nil || v.MatchDigest != "" || v.BlockStatus != "NONE" ||
		!v.IsParty(cust1) || v.CancelRequests[0].State != "ACCEPTED" || v.CancelRequests[0].AnsweredBy[0] != "INVMSGSGXXX:T1-CXA1" {
		t.Fatalf("cancelled view %+v", v)
	}
}

// A participant that becomes a party while a version 3 value stands gets
// that STATUS, with its n: the InvMgr replaces an ALC of a cancelled trade to
// name another custodian.
func TestNewPartyGetsTheStandingStatus(t *testing.T) {
	f := newFixture(t)
	ms := single("T1")
	f.sendAll(ms)
	f.send(cxl("T1-CXL1", invMgr, 40, "ERROR"))
	f.send(cxa("T1-CXA1", broker, 41, "T1-CXL1"))
	k := tradeKey("T1").String()
	out := f.send(replaceOf(ms[1], "T1-ALC1-R", 42, func(d *schemas.Draft) { d.Set("Custodian", rogue) }))
	if allIDs(out) != "ACK:INVMSGSGXXX:T1-ALC1-R ST:"+k+":3:"+rogue {
		t.Fatalf("%s", allIDs(out))
	}
	if !strings.Contains(string(out[1].Body), "<Status>CANCELLED</Status>") {
		t.Fatalf("%s", out[1].Body)
	}
}

// The view's market is the Market of the NOE in force (messages.md §8):
// the replacing NOE's once it replaces, none without a NOE in force.
func TestTradeViewMarket(t *testing.T) {
	f := newFixture(t)
	ms := standard("TM")
	f.sendAll(ms[1:])
	if v := f.book.Trade(tradeKey("TM")).View(); v.Market != "" {
		t.Fatalf("no NOE yet: market %q", v.Market)
	}
	f.send(ms[0])
	if v := f.book.Trade(tradeKey("TM")).View(); v.Market != "XSES" {
		t.Fatalf("market %q, want XSES", v.Market)
	}
	r := replaceOf(ms[0], "TM-NOE-R", 30, func(d *schemas.Draft) { d.Set("Market", "XNYS") })
	f.send(r)
	if v := f.book.Trade(tradeKey("TM")).View(); v.Market != "XNYS" {
		t.Fatalf("after the NOE's replace: market %q, want XNYS", v.Market)
	}
	f.send(cancelOf(r, "TM-NOE-C", 40))
	if v := f.book.Trade(tradeKey("TM")).View(); v.Market != "" {
		t.Fatalf("NOE cancelled: market %q", v.Market)
	}
}
