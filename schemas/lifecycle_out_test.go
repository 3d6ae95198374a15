package schemas

import (
	"strings"
	"testing"

	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/decimal"
)

// The worked example of messages.md §6 "MatchDigest", text and digest, with
// MatchedAt read from the offset form with sub-millisecond digits.
func TestMatchDigestWorkedExample(t *testing.T) {
	k := Key{TradeRef: "BT1", TradeDate: "2026-11-27", ISIN: "SG1F53948286", Side: "BUY", Broker: "BRKASGSGXXX", InvMgr: "IMGRSGSGXXX"}
	if got := k.TradeKey().String(); got != "93ca9392cb6c5d34" {
		t.Fatalf("trade key %s", got)
	}
	at, err := ParseTimestamp("2026-11-27T17:31:00.0009+08:00")
	if err != nil {
		t.Fatal(err)
	}
	net, _, _ := decimal.Parse("10508.4")
	price, _, _ := decimal.Parse("10.50")
	c := &CLSContent{Key: k, TradeKey: k.TradeKey(), Quantity: 1000, Price: price, TradeCcy: "SGD",
		SettleDate: date.MustParse("2026-11-30"), MatchedAt: at,
		Legs: []Leg{{Account: "ACC|1", Quantity: 1000, NetAmount: net, NetUnits: 2, SettleCcy: "SGD",
			Custodian: "CUSASGSGXXX", PSET: "CDPLSGSGXXX", SafekeepingAccount: "SAFE1", CashAccount: "CASH1"}}}
	tokens := []string{"BRKASGSGXXX:N1", "BRKASGSGXXX:P1", "CUSASGSGXXX:S1", "IMGRSGSGXXX:A1"}
	want := strings.Join([]string{"STE-MATCH-3", "TradeKey=93ca9392cb6c5d34", "TradeRef=BT1", "TradeDate=2026-11-27",
		"ISIN=SG1F53948286", "Side=BUY", "Broker=BRKASGSGXXX", "InvMgr=IMGRSGSGXXX", "Quantity=1000", "Price=10.5",
		"TradeCcy=SGD", "SettleDate=2026-11-30", "MatchedAt=2026-11-27T09:31:00.000Z",
		"Leg=ACC%7C1|1000|10508.40|SGD|CUSASGSGXXX|CDPLSGSGXXX|SAFE1|CASH1",
		"Msg=BRKASGSGXXX:N1", "Msg=BRKASGSGXXX:P1", "Msg=CUSASGSGXXX:S1", "Msg=IMGRSGSGXXX:A1", ""}, "\n")
	if got := string(MatchDigestText(c, tokens)); got != want {
		t.Fatalf("text\n%s\nwant\n%s", got, want)
	}
	if got := ComputeMatchDigest(c, tokens).String(); got != "33502b3e6d602bb593de06beb58d90cb6f82a50865b4a4aaf17c14e94ea7bba5" {
		t.Fatalf("digest %s", got)
	}
}

func TestDigestValueEscapes(t *testing.T) {
	got := string(digestValue(nil, "a%b|c\x00\x1f\x7f\u00e9"))
	if got != "a%25b%7Cc%00%1F%7F\u00e9" {
		t.Fatalf("%q", got)
	}
}

func TestLifecycleBodies(t *testing.T) {
	tk := TradeKey(0x93ca9392cb6c5d34)
	b := StatusBodyV3(tk, "BT1", ChangePending, []Discrepancy{{15, []string{"B:P1", "C:S1"}}}, &StatusV3{
		MatchDigest: "d1", HasPending: true, Pending: []string{"C:S2"}, Proposal: &Proposal{"d2", []string{"B:N1", "C:S2"}},
		CancelRequests: []CancelRequest{{"B:X1", "REJECTED"}}})
	want := `<TradeKey>93ca9392cb6c5d34</TradeKey><TradeRef>BT1</TradeRef><Status>CHANGE_PENDING</Status>` +
		`<Tolerance criterion="15">B:P1 C:S1</Tolerance><MatchDigest>d1</MatchDigest><Pending>C:S2</Pending>` +
		`<Proposal digest="d2">B:N1 C:S2</Proposal><CancelRequest state="REJECTED">B:X1</CancelRequest>`
	if string(b) != want {
		t.Fatalf("\n got %s\nwant %s", b, want)
	}
	b = StatusBodyV3(tk, "BT1", Cancelled, nil, &StatusV3{HasCancelledBy: true, CancelledBy: []string{"B:X1", "I:Y1"}})
	if !strings.HasSuffix(string(b), "<Status>CANCELLED</Status><CancelledBy>B:X1 I:Y1</CancelledBy>") {
		t.Fatalf("%s", b)
	}
	k := Key{"BT1", "2026-11-27", "SG1F53948286", "BUY", "B", "I"}
	b = ALGBody(&k, tk, date.MustParse("2026-11-30"), []Owed{{MsgType: "ALC", Count: 2}, {MsgType: "SET", Account: "A&1", Quantity: 600}})
	want = `<TradeRef>BT1</TradeRef><TradeDate>2026-11-27</TradeDate><ISIN>SG1F53948286</ISIN><Side>BUY</Side>` +
		`<Broker>B</Broker><InvMgr>I</InvMgr><TradeKey>93ca9392cb6c5d34</TradeKey><SettleDate>2026-11-30</SettleDate>` +
		`<Owed msgType="ALC" count="2"/><Owed msgType="SET" account="A&amp;1" quantity="600"/>`
	if string(b) != want {
		t.Fatalf("\n got %s\nwant %s", b, want)
	}
	if got := string(BLKBody(tk, "BT1", BlockMismatched, []Discrepancy{{9, []string{"B:N1"}}})); !strings.HasSuffix(got,
		`<Status>BLOCK_MISMATCHED</Status><Discrepancy criterion="9">B:N1</Discrepancy>`) {
		t.Fatal(got)
	}
	if got := AutoAFFId(tk, "33502b3e6d602bb593de06beb58d90cb6f82a50865b4a4aaf17c14e94ea7bba5"); got != "AUTO:93ca9392cb6c5d34:33502b3e6d602bb5" {
		t.Fatal(got)
	}
}

var bodySink []byte

// The bodies written for every message are one allocation each: ACKBody
// and BLKBody appended to a nil buffer grew it three and five times.
func TestBodiesAllocateOnce(t *testing.T) {
	tk, ds := TradeKey(0x1234abcd), []Discrepancy{{9, []string{"BRKASGSGXXX:N1", "INVMSGSGXXX:A1"}}, {12, []string{"CUSTSGSGXXX:S1"}}}
	for name, f := range map[string]func(){
		"ACKBody":    func() { bodySink = ACKBody("BT261207-00000013-SET2") },
		"NACKBody":   func() { bodySink = NACKBody("BT261207-00000013-SET2", Schema, "a detail of some forty bytes or so") },
		"StatusBody": func() { bodySink = StatusBody(tk, "BT261207-00000013", Mismatched, ds) },
		"BLKBody":    func() { bodySink = BLKBody(tk, "BT261207-00000013", BlockMismatched, ds) },
	} {
		if n := testing.AllocsPerRun(100, f); n != 1 {
			t.Errorf("%s allocates %.0f times, want 1", name, n)
		}
	}
}
