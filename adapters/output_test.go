package adapters_test

import (
	"reflect"
	"testing"

	"github.com/ste-utility/ste/adapters"
	"github.com/ste-utility/ste/adapters/journal"
)

// ReadOutput reads every field either adapter translates from (§4.7,
// §5.6), defaults Function to NEW, takes a NACK's Body RelatedMsgId when
// its Header has none, and refuses what is not an STE output.
func TestReadOutput(t *testing.T) {
	raw := `<Msg><Header><MsgId>ST:k:1:B</MsgId><MsgType>STATUS</MsgType><Receiver>B</Receiver>` +
		`<Created>2026-01-02T03:04:05Z</Created></Header><Body><TradeKey>k</TradeKey><TradeRef>R</TradeRef>` +
		`<TradeDate>2026-01-02</TradeDate><ISIN>US0000000001</ISIN><Side>BUY</Side><Broker>BR</Broker><InvMgr>IM</InvMgr>` +
		`<Status>MISMATCHED</Status><Discrepancy criterion="9">a b</Discrepancy><Discrepancy criterion="x">c</Discrepancy>` +
		`<Tolerance criterion="15">d</Tolerance><RejectReason> PRICE </RejectReason><Proposal digest="ab">p</Proposal>` +
		`<CancelRequest state="PENDING"> B:C1 </CancelRequest><CancelRequest state="DONE">B:C2</CancelRequest>` +
		`<Leg><Account>A1</Account><Quantity>10</Quantity><NetAmount>1.00</NetAmount><SettleCcy>USD</SettleCcy></Leg>` +
		`<Pending>B:M1  B:M2</Pending><Owed msgType="SET" account="A1" quantity="10"/><SettleDate>2026-01-05</SettleDate>` +
		`</Body><Sig alg="ed25519">x</Sig></Msg>`
	o, ok := adapters.ReadOutput([]byte(raw))
	if !ok {
		t.Fatal("a STATUS not read")
	}
	want := &adapters.Output{MsgId: "ST:k:1:B", MsgType: "STATUS", Function: "NEW", Receiver: "B", Created: "2026-01-02T03:04:05Z",
		TradeKey: "k", Status: "MISMATCHED", SettleDate: "2026-01-05",
		Key:      journal.KeyFields{TradeRef: "R", TradeDate: "2026-01-02", ISIN: "US0000000001", Side: "BUY", Broker: "BR", InvMgr: "IM"},
		Criteria: []int{9}, Tolerances: []int{15}, RejectReasons: []string{"PRICE"}, Proposal: "ab", CancelRequests: []string{"B:C1"},
		Legs:    []adapters.Leg{{Account: "A1", Quantity: "10", NetAmount: "1.00", SettleCcy: "USD"}},
		Pending: []string{"B:M1", "B:M2"}, Owed: []adapters.Owed{{MsgType: "SET", Account: "A1", Quantity: "10"}}}
	if !reflect.DeepEqual(o, want) {
		t.Errorf("read\n%+v\nwant\n%+v", o, want)
	}

	nack := `<Msg><Header><MsgId>NACK:B:-:00</MsgId><MsgType>NACK</MsgType><Function>NEW</Function></Header>` +
		`<Body><RelatedMsgId>bad id</RelatedMsgId><Reason>SCHEMA</Reason><Detail>d</Detail></Body></Msg>`
	if o, ok := adapters.ReadOutput([]byte(nack)); !ok || o.RelatedMsgId != "bad id" || o.Reason != "SCHEMA" {
		t.Errorf("NACK read as %+v, %v: want the Body's RelatedMsgId", o, ok)
	}
	for _, bad := range []string{"", "not xml", "<Other><Header/><Body/></Other>", "<Msg><Header/></Msg>", "<Msg><Body/></Msg>"} {
		if _, ok := adapters.ReadOutput([]byte(bad)); ok {
			t.Errorf("%q read as an output", bad)
		}
	}
}
