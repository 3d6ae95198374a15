package instance_test

import (
	"bytes"
	"context"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/processors/offline"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/broker"
	"github.com/ste-utility/ste/topology"
)

// Version 3's validation on the Kafka path (messages.md §2, §4): messages
// signed by the adapters' delegated signers, the lifecycle types'
// authorisation (the utility's AFF for an AUTO investment manager read from
// affirmation's record on <ns>.refdata) and BAD_REFERENCE get ste match's
// verdict, message by message: the validate stage, which verifies in
// batches, calls the same validation.
func TestV3VerdictsOnKafkaAreSteMatchs(t *testing.T) {
	e := newEnv(t, "v3v", 2*time.Minute, broker.Options{})
	recs, _ := set(t, 4, 21)
	// The key fields and tokens of the generated trades, by TradeRef.
	type trade struct {
		noe    *schemas.Draft
		tokens []string
		broker string
		invMgr string
	}
	trades := map[string]*trade{}
	var refs []string
	for _, r := range recs {
		d, err := schemas.ParseDraft(r)
		if err != nil || d.Function != "NEW" || d.Get("TradeRef") == "" {
			continue
		}
		ref := d.Get("TradeRef")
		tr := trades[ref]
		if tr == nil {
			tr = &trade{broker: d.Get("Broker"), invMgr: d.Get("InvMgr")}
			trades[ref] = tr
			refs = append(refs, ref)
		}
		if d.MsgType == "NOE" {
			tr.noe = d
		}
		tr.tokens = append(tr.tokens, d.Sender+":"+d.MsgId)
	}
	if len(refs) < 4 {
		t.Fatalf("%d trades", len(refs))
	}
	sign := func(d *schemas.Draft, key string) []byte { return d.AppendSigned(nil, refdata.DemoPrivateKey(key)) }
	life := func(tr *trade, typ, id, sender string, body ...string) *schemas.Draft {
		d := &schemas.Draft{MsgId: id, MsgType: typ, Function: "NEW", Sender: sender, Created: tr.noe.Created}
		for _, k := range []string{"TradeRef", "TradeDate", "ISIN", "Side", "Broker", "InvMgr"} {
			d.Set(k, tr.noe.Get(k))
		}
		if typ == "CXA" || typ == "CXJ" {
			d.RelatedMsgId = "CXL-1"
		}
		for i := 0; i+1 < len(body); i += 2 {
			d.Set(body[i], body[i+1])
		}
		return d
	}
	aff := func(tr *trade, id, sender string, body ...string) *schemas.Draft {
		return life(tr, "AFF", id, sender, append([]string{"Decision", "AFFIRM", "MatchDigest", strings.Repeat("ab", 32),
			"Affirms", strings.Join(tr.tokens, " ")}, body...)...)
	}
	delegated := func(d *schemas.Draft, signer, key string) []byte {
		d = d.Clone()
		d.MsgId += "-D" + signer[len(signer)-3:] + key[len(key)-3:] + key[:2]
		d.Signer = signer
		return sign(d, key)
	}
	t0, t1, t2, t3 := trades[refs[0]], trades[refs[1]], trades[refs[2]], trades[refs[3]]
	// t2's investment manager affirms AUTO; the others are MANUAL.
	ref := refdata.Default().Clone()
	ref.PutAffirmation(refdata.Affirmation{InvMgr: t2.invMgr, Mode: refdata.AffirmAuto})
	auto := refdata.NewSet()
	auto.PutAffirmation(refdata.Affirmation{InvMgr: t2.invMgr, Mode: refdata.AffirmAuto})
	if t3.invMgr == t2.invMgr {
		t.Skip("two trades of one investment manager: another seed")
	}
	if _, err := topics.PublishRefdata(e.ctx, e.cl, e.ns, auto); err != nil {
		t.Fatal(err)
	}
	fix, iso := refdata.FIXSignerBIC, refdata.ISOSignerBIC
	v3 := [][]byte{
		delegated(t0.noe, fix, fix),             // accepted
		delegated(t1.noe, iso, iso),             // accepted: every broker lists both
		delegated(t0.noe, fix, t0.broker),       // SIGNATURE: the Sender's key is not tried
		delegated(t1.noe, "SGNXSGSGXXX", fix),   // SIGNATURE: no such signer
		delegated(t1.noe, t1.invMgr, t1.invMgr), // SIGNATURE: not a SIGNER
		sign(aff(t0, "AFF-1", t0.invMgr), t0.invMgr),
		sign(aff(t0, "AFF-2", t0.broker), t0.broker),                                         // NOT_AUTHORISED
		sign(aff(t0, "AFF-3", t0.broker, "Amends", strings.Repeat("cd", 32)), t0.broker),     // accepted
		sign(aff(t0, "AFF-4", t0.invMgr, "Affirms", t0.invMgr+":X"), t0.invMgr),              // BAD_REFERENCE
		sign(aff(t0, "AFF-5", t0.invMgr, "Amends", strings.Repeat("ab", 32)), t0.invMgr),     // BAD_REFERENCE
		delegated(aff(t1, "AFF-6", t1.invMgr), fix, fix),                                     // accepted
		sign(aff(t2, "AUTO:1", refdata.DefaultUtilityBIC), refdata.DefaultUtilityBIC),        // accepted: AUTO
		sign(aff(t3, "AUTO:2", refdata.DefaultUtilityBIC), refdata.DefaultUtilityBIC),        // NOT_AUTHORISED: MANUAL
		sign(life(t0, "CXL", "CXL-1", t0.broker, "CancelReason", "ERROR"), t0.broker),        // accepted
		sign(life(t0, "CXA", "CXA-1", t0.invMgr), t0.invMgr),                                 // accepted
		sign(life(t1, "CXJ", "CXJ-1", t1.invMgr, "CancelReason", "OTHER"), t1.invMgr),        // accepted
		sign(life(t1, "CXL", "CXL-2", fix, "CancelReason", "ERROR"), fix),                    // NOT_AUTHORISED: a SIGNER
		sign(life(t1, "CXA", "CXA-2", t1.noe.Get("Broker"), "CancelReason", "X"), t1.invMgr), // SIGNATURE
		sign(life(t1, "CXL", "CXL-3", t1.broker), t1.broker),                                 // SCHEMA
	}
	all := append(append([][]byte(nil), recs...), v3...)
	e.start("v", instance.Options{})
	e.drive(all)
	e.waitZero()

	// ste match on the same set, with the same reference data.
	var offExc, offOut [][]byte
	src, _ := msgset.NewReader(bytes.NewReader(append(bytes.Join(all, []byte("\n")), '\n')), "set")
	if _, _, err := offline.Run(context.Background(), src, offline.Sinks{
		CLS:        func([]byte) error { return nil },
		Outbound:   func(b []byte) error { offOut = append(offOut, bytes.Clone(b)); return nil },
		Exceptions: func(b []byte) error { offExc = append(offExc, bytes.Clone(b)); return nil },
	}, offline.Options{Validator: validation.New(ref, validation.WithUtilityBIC(refdata.DefaultUtilityBIC)),
		Signer: &schemas.Signer{BIC: refdata.DefaultUtilityBIC, Key: refdata.DemoPrivateKey(refdata.DefaultUtilityBIC)}}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, b := range offExc {
		x := parseException(t, b)
		want[x.Sender+" "+x.MsgId] = x.Reason
	}
	got := map[string]string{}
	for _, x := range e.exceptions() {
		got[x.Sender+" "+x.MsgId] = x.Reason
	}
	if !maps.Equal(got, want) {
		t.Errorf("exceptions differ:\n Kafka    %v\n ste match %v", got, want)
	}
	acks := func(outs [][]byte) map[string]bool {
		m := map[string]bool{}
		for _, b := range outs {
			if id := string(msgIDRe.FindSubmatch(b)[1]); strings.HasPrefix(id, "ACK:") {
				m[id] = true
			}
		}
		return m
	}
	var kafkaOut [][]byte
	topics.Dump(e.ctx, e.brokers, topology.Names{NS: e.ns}.Outbound(), func(r *kgo.Record) error {
		kafkaOut = append(kafkaOut, bytes.Clone(r.Value))
		return nil
	})
	if a, b := acks(kafkaOut), acks(offOut); !maps.Equal(a, b) {
		t.Errorf("ACKs differ: %d on Kafka, %d from ste match", len(a), len(b))
	}
	// The set exercises every new row, so the comparison means something.
	codes := map[string]int{}
	for _, r := range want {
		codes[r]++
	}
	for c, n := range map[string]int{"SIGNATURE": 4, "NOT_AUTHORISED": 3, "BAD_REFERENCE": 2, "SCHEMA": 1} {
		if codes[c] < n {
			t.Errorf("ste match gave %d %s, want at least %d: %v", codes[c], c, n, want)
		}
	}
	for _, id := range []string{"ACK:" + refdata.DefaultUtilityBIC + ":AUTO:1", "ACK:" + t0.broker + ":" + t0.noe.MsgId + "-DFIXFIXST",
		"ACK:" + t1.invMgr + ":AFF-6-DFIXFIXST"} {
		if !acks(offOut)[id] {
			t.Errorf("no %s", id)
		}
	}
}
