package rows

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/decimal"
	"github.com/ste-utility/ste/schemas/refdata"
)

func src() Source {
	return Source{Namespace: "ns", Partition: 3, Offset: 42, Time: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)}
}

func TestDecodeAuditRows(t *testing.T) {
	ev := schemas.AuditEvent{TradeKey: "00000000000000ab", Sender: "BRKASGSGXXX", MsgId: "M-1", Type: "NOE", Function: "NEW",
		Partition: 5, Offset: 77, InboundAt: "2026-11-29T10:00:00.000100Z", Outcome: "accepted",
		Steps: []schemas.AuditStep{
			{Stage: "validate", Event: "valid", At: "2026-11-29T10:00:00.000200Z"},
			{Stage: "identity", Event: "accepted", At: "2026-11-29T10:00:00.000300Z"},
			{Stage: "match", Event: "applied", At: "2026-11-29T10:00:00.000400Z"},
		},
		Outputs: []string{"ACK:BRKASGSGXXX:M-1", "CLS-00000000000000ab-1"}}
	rs, err := DecodeAudit(nil, src(), ev.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 3 {
		t.Fatalf("%d rows, want one per step", len(rs))
	}
	for i, r := range rs {
		if r.Step != uint8(i) || r.Steps != 3 || r.Stage != ev.Steps[i].Stage || r.Event != ev.Steps[i].Event ||
			r.At != time.Date(2026, 11, 29, 10, 0, 0, (i+2)*100_000, time.UTC) || r.InboundOffset != 77 || r.Offset != 42 ||
			r.InboundAt != time.Date(2026, 11, 29, 10, 0, 0, 100_000, time.UTC) || r.Outcome != "accepted" {
			t.Errorf("row %d: %+v", i, r)
		}
		if (i == 2) != (len(r.Outputs) == 2) {
			t.Errorf("row %d outputs %v: want them on the last step only", i, r.Outputs)
		}
	}
	// A record without steps still counts once.
	rs, err = DecodeAudit(nil, src(), []byte(`{"partition":-1,"offset":-1,"outcome":"expired","steps":null}`))
	if err != nil || len(rs) != 1 || rs[0].Step != 0 || rs[0].Steps != 1 || rs[0].Stage != "" {
		t.Fatalf("%+v, %v", rs, err)
	}
	for _, bad := range []string{"", "null", "{}", `{"outcome":"accepted","steps":[{"stage":"x","at":"yesterday"}]}`, `{"outcome":1}`} {
		if _, err := DecodeAudit(nil, src(), []byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	// A batch is every event's rows, in order; a batch with an event it
	// cannot read adds none.
	purge := schemas.AuditEvent{Partition: -1, Offset: -1, Outcome: "expired"}
	batch := schemas.AppendAuditBatch(schemas.AppendAuditBatch(nil, &ev), &purge)
	rs, err = DecodeAudit(nil, src(), batch)
	if err != nil || len(rs) != 4 || rs[2].Stage != "match" || rs[3].Outcome != "expired" || rs[3].Step != 0 {
		t.Fatalf("batch: %+v, %v", rs, err)
	}
	kept := rs[:1]
	if rs, err = DecodeAudit(kept, src(), append(batch, "\n{}"...)); err == nil || len(rs) != 1 {
		t.Fatalf("batch with an event without outcome: %d rows, %v", len(rs), err)
	}
}

func TestDecodeCLS(t *testing.T) {
	signer := &schemas.Signer{BIC: "STEUTLSGXXX", Key: refdata.DemoPrivateKey("STEUTLSGXXX"),
		Now: func() time.Time { return time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC) }}
	k := schemas.Key{TradeRef: "T1", TradeDate: "2026-11-27", ISIN: "SG1234567890", Side: "SELL", Broker: "BRKASGSGXXX", InvMgr: "INVMSGSGXXX"}
	tk := k.TradeKey()
	body := schemas.CLSBody(&schemas.CLSContent{Key: k, TradeKey: tk, Version: 2, Quantity: 500, Price: decimal.MustParse("1.25"),
		TradeCcy: "SGD", SettleDate: date.MustParse("2026-12-01"), MatchedAt: time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC).UnixNano(),
		Legs: []schemas.Leg{{Account: "A"}, {Account: "B"}}})
	raw := signer.Encode(&schemas.Output{Type: schemas.CLS, MsgId: schemas.CLSId(tk, 2), Receiver: "STEUTLSGXXX", Body: body})
	c, err := DecodeCLS(src(), raw)
	if err != nil {
		t.Fatal(err)
	}
	if c.MsgId != schemas.CLSId(tk, 2) || c.Function != "NEW" || c.TradeKey != tk.String() || c.Version != 2 || c.Quantity != 500 ||
		c.Price != "1.25" || c.Side != "SELL" || c.Legs != 2 || c.SettleDate != time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) ||
		c.MatchedAt != time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC) || c.Created != time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC) ||
		c.Body != string(body) {
		t.Fatalf("%+v", c)
	}
	cancel := signer.Encode(&schemas.Output{Type: schemas.CLS, Function: schemas.CANCEL, MsgId: schemas.CLSCancelId(tk, 2),
		RelatedMsgId: schemas.CLSId(tk, 2), Receiver: "STEUTLSGXXX", Body: schemas.CLSCancelBody(tk, 2)})
	c, err = DecodeCLS(src(), cancel)
	if err != nil || c.Function != "CANCEL" || c.RelatedMsgId != schemas.CLSId(tk, 2) || c.Version != 2 {
		t.Fatalf("%+v %v", c, err)
	}
	ack := signer.Encode(&schemas.Output{Type: schemas.ACK, MsgId: "ACK:X:Y", Receiver: "X", Body: schemas.ACKBody("Y")})
	if _, err := DecodeCLS(src(), ack); err == nil {
		t.Fatal("an ACK on the cls topic decoded")
	}
}

func TestDecodeExceptionAndMonitor(t *testing.T) {
	e := schemas.Exception{ID: "1-2", Reason: "SCHEMA", Detail: "d", ReceivedAt: "2026-11-29T10:00:00.5Z", Payload: []byte{0, 1, 2}}
	x, err := DecodeException(src(), e.Marshal())
	if err != nil || x.ID != "1-2" || x.Payload != "\x00\x01\x02" || x.ReceivedAt.Nanosecond() != 5e8 {
		t.Fatalf("%+v %v", x, err)
	}
	m := schemas.MonitorSample{At: "2026-11-29T10:00:01.000000Z", Stage: "match", Interval: 1, Arrivals: 3, Completions: 2, Queue: 1,
		Partitions: []schemas.PartitionSample{{Partition: 1, End: 10, Committed: 9, Lag: 1}}}
	y, err := DecodeMonitor(src(), m.Marshal())
	if err != nil || y.Stage != "match" || y.Queue != 1 || len(y.PartLag) != 1 || y.PartLag[0] != 1 {
		t.Fatalf("%+v %v", y, err)
	}
	for _, bad := range []string{`{"stage":"m","at":"x"}`, `{"at":"2026-11-29T10:00:01Z"}`, `{"stage":"m","at":"2026-11-29T10:00:01Z","interval":-1}`} {
		if _, err := DecodeMonitor(src(), []byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func BenchmarkDecodeAudit(b *testing.B) {
	ev := schemas.AuditEvent{TradeKey: "00000000000000ab", Sender: "BRKASGSGXXX", MsgId: "BRKASGSGXXX-0000000001", Type: "NOE",
		Function: "NEW", Partition: 5, Offset: 77, InboundAt: "2026-11-29T10:00:00.000100Z", Outcome: "accepted",
		Steps: []schemas.AuditStep{
			{Stage: "validate", Event: "valid", At: "2026-11-29T10:00:00.000200Z"},
			{Stage: "identity", Event: "accepted", At: "2026-11-29T10:00:00.000300Z"},
			{Stage: "match", Event: "applied", At: "2026-11-29T10:00:00.000400Z"},
		},
		Outputs: []string{"ACK:BRKASGSGXXX:BRKASGSGXXX-0000000001", "ST:00000000000000ab:1:BRKASGSGXXX"}}
	raw := ev.Marshal()
	b.ReportAllocs()
	var dst []Audit
	for i := 0; i < b.N; i++ {
		dst, _ = DecodeAudit(dst[:0], src(), raw)
	}
}

func BenchmarkDecodeAuditEncodingJSON(b *testing.B) {
	ev := schemas.AuditEvent{TradeKey: "00000000000000ab", Sender: "BRKASGSGXXX", MsgId: "BRKASGSGXXX-0000000001", Type: "NOE",
		Function: "NEW", Partition: 5, Offset: 77, InboundAt: "2026-11-29T10:00:00.000100Z", Outcome: "accepted",
		Steps: []schemas.AuditStep{
			{Stage: "validate", Event: "valid", At: "2026-11-29T10:00:00.000200Z"},
			{Stage: "identity", Event: "accepted", At: "2026-11-29T10:00:00.000300Z"},
			{Stage: "match", Event: "applied", At: "2026-11-29T10:00:00.000400Z"},
		},
		Outputs: []string{"ACK:BRKASGSGXXX:BRKASGSGXXX-0000000001", "ST:00000000000000ab:1:BRKASGSGXXX"}}
	raw := ev.Marshal()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var e schemas.AuditEvent
		_ = json.Unmarshal(raw, &e)
	}
}

func TestDecodeOutbound(t *testing.T) {
	signer := &schemas.Signer{BIC: "STEUTLSGXXX", Key: refdata.DemoPrivateKey("STEUTLSGXXX")}
	tk := schemas.TradeKey(0xab)
	st := signer.Encode(&schemas.Output{Type: schemas.STATUS, MsgId: schemas.StatusId(tk, 3, "BRKASGSGXXX"), Receiver: "BRKASGSGXXX",
		Body: schemas.StatusBody(tk, "T1", schemas.Mismatched, []schemas.Discrepancy{{Criterion: 7, Tokens: []string{"A:1", "B:2"}}, {Criterion: 12, Tokens: []string{"A:1"}}})})
	o, err := DecodeOutbound(src(), st)
	if err != nil {
		t.Fatal(err)
	}
	if o.MsgType != "STATUS" || o.Status != "MISMATCHED" || o.TradeKey != tk.String() || o.Receiver != "BRKASGSGXXX" ||
		!reflect.DeepEqual(o.Criteria, []uint8{7, 12}) || !strings.Contains(o.Body, `criterion="12"`) || o.Offset != 42 {
		t.Fatalf("%+v", o)
	}
	ack := signer.Encode(&schemas.Output{Type: schemas.ACK, MsgId: "ACK:X:Y", Receiver: "X", RelatedMsgId: "Y", Body: schemas.ACKBody("Y")})
	if o, err := DecodeOutbound(src(), ack); err != nil || o.MsgType != "ACK" || o.RelatedMsgId != "Y" || o.Criteria != nil {
		t.Fatalf("%+v %v", o, err)
	}
	cls := signer.Encode(&schemas.Output{Type: schemas.CLS, Function: schemas.CANCEL, MsgId: schemas.CLSCancelId(tk, 1),
		Receiver: "STEUTLSGXXX", Body: schemas.CLSCancelBody(tk, 1)})
	for _, bad := range [][]byte{cls, nil, []byte("<x")} {
		if _, err := DecodeOutbound(src(), bad); err == nil {
			t.Fatalf("%q decoded as an outbound record", bad)
		}
	}
}

// The version 3 outputs' lifecycle facts are read from their Bodies: a
// STATUS's digest, pending changes, proposal and cancel requests; a CNF's
// key fields and digest; an ALG's items.
func TestDecodeOutboundLifecycle(t *testing.T) {
	signer := &schemas.Signer{BIC: "STEUTLSGXXX", Key: refdata.DemoPrivateKey("STEUTLSGXXX")}
	tk := schemas.TradeKey(0xab)
	d0, d1 := strings.Repeat("a", 64), strings.Repeat("b", 64)
	st := signer.Encode(&schemas.Output{Type: schemas.STATUS, MsgId: schemas.StatusId(tk, 4, "IMGRSGSGXXX"), Receiver: "IMGRSGSGXXX",
		Body: schemas.StatusBodyV3(tk, "T1", schemas.ChangePending, nil, &schemas.StatusV3{MatchDigest: d0, HasPending: true,
			Pending: []string{"CUSASGSGXXX:S1-R"}, Proposal: &schemas.Proposal{Digest: d1, Tokens: []string{"A:1", "B:2"}},
			CancelRequests: []schemas.CancelRequest{{Token: "BRKASGSGXXX:X1", State: "REJECTED"}}})})
	o, err := DecodeOutbound(src(), st)
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != "CHANGE_PENDING" || o.TradeRef != "T1" || o.MatchDigest != d0 || o.ProposalDigest != d1 ||
		!reflect.DeepEqual(o.Pending, []string{"CUSASGSGXXX:S1-R"}) || !reflect.DeepEqual(o.CancelRequests, []string{"REJECTED BRKASGSGXXX:X1"}) {
		t.Fatalf("%+v", o.Lifecycle)
	}
	k := schemas.Key{TradeRef: "T1", TradeDate: "2026-11-27", ISIN: "SG1F53948286", Side: "BUY", Broker: "BRKASGSGXXX", InvMgr: "IMGRSGSGXXX"}
	c := &schemas.CLSContent{Key: k, TradeKey: tk, Quantity: 10, Legs: []schemas.Leg{{Account: "A1", Custodian: "CUSASGSGXXX"}}}
	cnf := signer.Encode(&schemas.Output{Type: schemas.CNF, MsgId: schemas.CNFId(tk, 1, "IMGRSGSGXXX"), Receiver: "IMGRSGSGXXX",
		Body: schemas.CNFBody(c, d1, "", []string{"A:1"})})
	if o, err := DecodeOutbound(src(), cnf); err != nil || o.MsgType != "CNF" || o.Broker != "BRKASGSGXXX" || o.InvMgr != "IMGRSGSGXXX" ||
		o.MatchDigest != d1 || o.TradeKey != tk.String() {
		t.Fatalf("%+v %v", o, err)
	}
	alg := signer.Encode(&schemas.Output{Type: schemas.ALG, MsgId: schemas.ALGId(tk, 1, "CUSASGSGXXX"), Receiver: "CUSASGSGXXX",
		Body: schemas.ALGBody(&k, tk, 0, []schemas.Owed{{MsgType: "ALC", Count: 2}, {MsgType: "SET", Account: "A1", Quantity: 10}})})
	if o, err := DecodeOutbound(src(), alg); err != nil || o.MsgType != "ALG" || !reflect.DeepEqual(o.Owed, []string{"ALC 2", "SET A1"}) ||
		o.Broker != "BRKASGSGXXX" {
		t.Fatalf("%+v %v", o, err)
	}
}
