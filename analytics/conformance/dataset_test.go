package conformance

import (
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/decimal"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topology"
)

// Dataset is a generated set of records for a namespace's cls, audit,
// exceptions and monitor topics, in the formats the processors and the
// monitor write, with the row counts the store must end with.
type Dataset struct {
	NS      string
	Records []*kgo.Record
	Want    Want
}

// Want is what a complete, duplicate-free ingest of a Dataset stores.
type Want struct {
	CLS              int            // distinct CLS MsgIds
	CLSRecords       int            // CLS rows
	Audit            int            // audit events (here one a record)
	AuditSteps       int            // audit rows
	Exceptions       int            // distinct exception ids
	ExceptionRecords int            // exception rows
	Monitor          int            // queue samples
	Stages           map[string]int // sum(n) per stage in throughput_1s
	Bad              map[string]int // undecodable records per topic
	CLSNew           int            // distinct CLS NEW MsgIds (latency sample size)
}

// Generate builds a dataset of trades trades starting at base. Every trade
// has seven accepted messages and one CLS; some have a duplicate (CLS
// re-emitted), a correction (CLS CANCEL then a NEW version 2), a rejected
// message (exception, sometimes re-emitted with the same id) or a retention
// purge; one monitor sample per stage per simulated second; and three
// undecodable records per topic.
func Generate(ns string, trades int, base time.Time) *Dataset {
	n := topology.Names{NS: ns}
	d := &Dataset{NS: ns, Want: Want{Stages: map[string]int{}, Bad: map[string]int{}}}
	signer := &schemas.Signer{BIC: refdata.DefaultUtilityBIC, Key: refdata.DemoPrivateKey(refdata.DefaultUtilityBIC)}
	var inOffset int64
	add := func(topic, key string, value []byte, ts time.Time) {
		d.Records = append(d.Records, &kgo.Record{Topic: topic, Key: []byte(key), Value: value, Timestamp: ts})
	}
	audit := func(tk, sender, msgID, outcome, reason string, sent time.Time, steps [][2]string, outputs []string) {
		ev := schemas.AuditEvent{TradeKey: tk, Sender: sender, MsgId: msgID, Type: "ALC", Function: "NEW",
			Partition: int32(inOffset % 8), Offset: inOffset, Outcome: outcome, Reason: reason, Outputs: outputs}
		inOffset++
		if outcome == "expired" {
			ev.Partition, ev.Offset, ev.Sender, ev.MsgId, ev.Type, ev.Function = -1, -1, "", "", "", ""
		} else {
			ev.InboundAt = schemas.MicroTime(sent.UnixMicro())
			d.Want.Stages["inbound"]++
			d.Want.Stages["network"]++
		}
		for i, st := range steps {
			at := sent.Add(time.Duration(i+1) * 100 * time.Microsecond)
			ev.Steps = append(ev.Steps, schemas.AuditStep{Stage: st[0], Event: st[1], At: schemas.MicroTime(at.UnixMicro())})
			d.Want.Stages[st[0]]++
		}
		add(n.Audit(), tk, ev.Marshal(), sent.Add(time.Millisecond))
		d.Want.Audit++
		d.Want.AuditSteps += max(len(steps), 1)
	}
	accepted := [][2]string{{"validate", "valid"}, {"identity", "accepted"}, {"match", "applied"}}
	clsNew := func(tk schemas.TradeKey, v int, at time.Time) {
		body := schemas.CLSBody(&schemas.CLSContent{
			Key: schemas.Key{TradeRef: "REF" + tk.String()[:8], TradeDate: "2026-11-27", ISIN: "SG1234567890", Side: "BUY",
				Broker: "BRKASGSGXXX", InvMgr: "INVMSGSGXXX"},
			TradeKey: tk, Version: v, Quantity: 1000, Price: decimal.MustParse("12.5"), TradeCcy: "SGD",
			SettleDate: date.MustParse("2026-12-01"), MatchedAt: at.UnixNano(),
			Legs: []schemas.Leg{{Account: "ACC1", Quantity: 1000, NetAmount: decimal.MustParse("12500"), NetUnits: 2,
				SettleCcy: "SGD", Custodian: "CUSTSGSGXXX", PSET: "CDPLSGSGXXX", SafekeepingAccount: "SK1", CashAccount: "CA1"}},
		})
		signer.Now = func() time.Time { return at }
		add(n.CLS(), tk.String(), signer.Encode(&schemas.Output{Type: schemas.CLS, MsgId: schemas.CLSId(tk, v),
			Receiver: refdata.DefaultUtilityBIC, Key: tk.String(), Body: body}), at)
		d.Want.CLSRecords++
		d.Want.Stages["cls"]++
	}
	clsCancel := func(tk schemas.TradeKey, v int, at time.Time) {
		signer.Now = func() time.Time { return at }
		add(n.CLS(), tk.String(), signer.Encode(&schemas.Output{Type: schemas.CLS, Function: schemas.CANCEL,
			MsgId: schemas.CLSCancelId(tk, v), RelatedMsgId: schemas.CLSId(tk, v), Receiver: refdata.DefaultUtilityBIC,
			Key: tk.String(), Body: schemas.CLSCancelBody(tk, v)}), at)
		d.Want.CLSRecords++
		d.Want.Stages["cls"]++
	}
	exception := func(id string, at time.Time) {
		e := schemas.Exception{ID: id, Reason: "SCHEMA", Detail: "Quantity is not an integer", Sender: "BRKASGSGXXX",
			MsgId: "BRKASGSGXXX-" + id, ReceivedAt: at.Format(time.RFC3339Nano), SourcePartition: 1, SourceOffset: 7,
			Payload: []byte("<Msg>…</Msg>")}
		add(n.Exceptions(), "BRKASGSGXXX", e.Marshal(), at)
		d.Want.ExceptionRecords++
		d.Want.Stages["exceptions"]++
	}
	for i := 0; i < trades; i++ {
		k := schemas.Key{TradeRef: fmt.Sprintf("T%06d", i), TradeDate: "2026-11-27", ISIN: "SG1234567890", Side: "BUY",
			Broker: "BRKASGSGXXX", InvMgr: "INVMSGSGXXX"}
		tk := k.TradeKey()
		t0 := base.Add(time.Duration(i) * 10 * time.Millisecond)
		var last time.Time
		for j := 0; j < 7; j++ {
			sent := t0.Add(time.Duration(j) * time.Millisecond)
			outs := []string{fmt.Sprintf("ACK:BRKASGSGXXX:M%06d-%d", i, j)}
			if j == 6 {
				outs = append(outs, schemas.StatusId(tk, 1, "BRKASGSGXXX"), schemas.CLSId(tk, 1))
			}
			audit(tk.String(), "BRKASGSGXXX", fmt.Sprintf("M%06d-%d", i, j), "accepted", "", sent, accepted, outs)
			last = sent
		}
		// CLS latency: 1 to 10 ms after the completing message was sent.
		clsNew(tk, 1, last.Add(time.Duration(1+i%10)*time.Millisecond))
		d.Want.CLS++
		d.Want.CLSNew++
		if i%10 == 4 { // an exact duplicate: the CLS is re-emitted with its MsgId
			sent := last.Add(20 * time.Millisecond)
			audit(tk.String(), "BRKASGSGXXX", fmt.Sprintf("M%06d-6", i), "duplicate", "", sent,
				[][2]string{{"validate", "valid"}, {"identity", "duplicate"}, {"match", "reemitted"}}, []string{schemas.CLSId(tk, 1)})
			clsNew(tk, 1, sent.Add(time.Millisecond))
		}
		if i%7 == 3 { // a correction: CANCEL v1, NEW v2
			sent := last.Add(30 * time.Millisecond)
			audit(tk.String(), "BRKASGSGXXX", fmt.Sprintf("M%06d-R", i), "accepted", "", sent, accepted,
				[]string{schemas.CLSCancelId(tk, 1), schemas.CLSId(tk, 2)})
			clsCancel(tk, 1, sent.Add(time.Millisecond))
			clsNew(tk, 2, sent.Add(2*time.Millisecond))
			d.Want.CLS += 2
			d.Want.CLSNew++
		}
		if i%5 == 0 { // a rejected message
			sent := t0.Add(8 * time.Millisecond)
			id := fmt.Sprintf("3-%d", i)
			audit("", "BRKASGSGXXX", fmt.Sprintf("X%06d", i), "rejected", "SCHEMA", sent,
				[][2]string{{"validate", "rejected"}}, []string{"NACK:BRKASGSGXXX:X:0"})
			exception(id, sent.Add(time.Millisecond))
			d.Want.Exceptions++
			if i%15 == 0 { // re-emitted after a processor crash: same id
				exception(id, sent.Add(5*time.Millisecond))
			}
		}
		if i%50 == 49 { // a retention purge
			audit(tk.String(), "", "", "expired", "", t0.Add(9*time.Millisecond), [][2]string{{"match", "expired"}}, nil)
		}
	}
	// Monitor: one sample per stage per simulated second.
	secs := int(time.Duration(trades)*10*time.Millisecond/time.Second) + 1
	for s := 1; s <= secs; s++ {
		for _, stage := range []string{"validate", "identity", "match", "network"} {
			m := schemas.MonitorSample{At: schemas.MicroTime(base.Add(time.Duration(s) * time.Second).UnixMicro()),
				Namespace: ns, Stage: stage, Interval: 1, Arrivals: 700, Completions: 690, Queue: int64(s % 3 * 5),
				Partitions: []schemas.PartitionSample{{Partition: 0, End: 100, Committed: 95, Lag: 5}}}
			add(n.Monitor(), stage, m.Marshal(), base.Add(time.Duration(s)*time.Second))
			d.Want.Monitor++
		}
	}
	// Undecodable records: counted, skipped, never fatal.
	for _, t := range []string{n.Audit(), n.CLS(), n.Exceptions(), n.Monitor()} {
		for _, v := range []string{"", "not a record", `{"at":"yesterday"}`} {
			add(t, "bad", []byte(v), base)
			d.Want.Bad[t]++
		}
	}
	return d
}
