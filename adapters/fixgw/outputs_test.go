package fixgw

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/quickfixgo/quickfix"

	"github.com/ste-utility/ste/adapters/journal"
)

// steOut is an STE output record as the pipeline writes it.
func steOut(receiver, header, body string) []byte {
	return []byte("<Msg><Header>" + header + "<Sender>STEUTLSGXXX</Sender><Receiver>" + receiver +
		"</Receiver><Created>2026-11-27T09:35:00.123Z</Created></Header><Body>" + body + "</Body><Sig alg=\"ed25519\">AA==</Sig></Msg>")
}

func ackOut(receiver, msgID string) []byte {
	return steOut(receiver, "<MsgId>ACK:"+receiver+":"+msgID+"</MsgId><MsgType>ACK</MsgType><RelatedMsgId>"+msgID+"</RelatedMsgId>",
		"<RelatedMsgId>"+msgID+"</RelatedMsgId>")
}

func nackOut(receiver string, t *journal.Translation, code, detail string) []byte {
	return steOut(receiver, "<MsgId>NACK:"+receiver+":"+t.MsgId+":"+t.RecordSHA256[:16]+"</MsgId><MsgType>NACK</MsgType><RelatedMsgId>"+t.MsgId+"</RelatedMsgId>",
		"<RelatedMsgId>"+t.MsgId+"</RelatedMsgId><Reason>"+code+"</Reason><Detail>"+detail+"</Detail>")
}

func statusOut(receiver, status, extra string) []byte {
	return steOut(receiver, "<MsgId>ST:ea6dfb599eb7ba5a:1:"+receiver+"</MsgId><MsgType>STATUS</MsgType>",
		"<TradeKey>ea6dfb599eb7ba5a</TradeKey><TradeRef>BT-20261127-0001</TradeRef><Status>"+status+"</Status>"+extra)
}

func types(ms []*quickfix.Message) string {
	var out []string
	for _, m := range ms {
		out = append(out, field(m, 35))
	}
	return strings.Join(out, " ")
}

// outputsRig: the worked example's J, an AE and an AK of its trade, all in
// the journal.
func outputsRig(t *testing.T) (*Outputs, []*journal.Translation, *journal.Translation, *journal.Translation) {
	in := demoInbound(nil)
	j := translate(t, in, im, exampleJ)
	ae := translate(t, in, brk, aeHead+strings.Replace(aeBody, "37=BT-20261127-0001|", "37=BT-20261127-0001|", 1))
	ak := translate(t, in, brk, akHead+akBody)
	for _, o := range []Outcome{j, ae, ak} {
		if o.Sub == nil {
			t.Fatal(o.What)
		}
		apply(in.J, o.Sub)
	}
	var alcs []*journal.Translation
	for _, e := range j.Sub.Journal {
		alcs = append(alcs, e.Translation)
	}
	return &Outputs{J: in.J, Now: func() string { return "20261127-10:00:00.000" }}, alcs, ae.Sub.Journal[0].Translation, ak.Sub.Journal[0].Translation
}

// One P per J once every ALC has its answer (§4.7.1): 87=0, 1 or 2 with
// the NACKed accounts; AR and AU for the NOE's and NPR's answers.
func TestAnswers(t *testing.T) {
	o, alcs, noe, npr := outputsRig(t)
	if d := o.Translate(im, ackOut(im, alcs[0].MsgId)); len(d.Msgs) != 0 || len(d.Journal) != 1 {
		t.Fatalf("after one ACK: %s", types(d.Msgs))
	}
	d := o.Translate(im, nackOut(im, alcs[1], "UNKNOWN_PARTY", "Custodian AFKZSGSGXXX is not ACTIVE"))
	if len(d.Msgs) != 1 {
		t.Fatalf("after both answers: %s", types(d.Msgs))
	}
	p := d.Msgs[0]
	for tag, want := range map[int]string{35: "P", 70: "ALLOC/2026/77", 87: "2", 88: "7", 78: "1", 79: "ACC2", 776: "7",
		161: "UNKNOWN_PARTY: Custodian AFKZSGSGXXX is not ACTIVE", 58: "1 of 2 allocations rejected", 60: "20261127-09:35:00.123", 75: "20261127"} {
		if got := field(p, tag); got != want {
			t.Errorf("P %d=%q, want %q: %q", tag, got, want, p.Bytes())
		}
	}
	// A repeated answer repeats the P (a state, not an event).
	if d := o.Translate(im, ackOut(im, alcs[0].MsgId)); len(d.Msgs) != 1 || field(d.Msgs[0], 87) != "2" {
		t.Errorf("repeated ACK: %s", types(d.Msgs))
	}
	ar := o.Translate(brk, nackOut(brk, noe, "UNKNOWN_SECURITY", "SG1A01315179"))
	if len(ar.Msgs) != 1 || field(ar.Msgs[0], 35) != "AR" || field(ar.Msgs[0], 150) != "8" || field(ar.Msgs[0], 939) != "1" ||
		field(ar.Msgs[0], 751) != "2" || field(ar.Msgs[0], 571) != "TR/1" || field(ar.Msgs[0], 58) != "UNKNOWN_SECURITY: SG1A01315179" ||
		field(ar.Msgs[0], 55) != isin || field(ar.Msgs[0], 22) != "4" {
		t.Errorf("AR %q", ar.Msgs[0].Bytes())
	}
	au := o.Translate(brk, ackOut(brk, npr.MsgId))
	if len(au.Msgs) != 1 || field(au.Msgs[0], 35) != "AU" || field(au.Msgs[0], 940) != "1" || field(au.Msgs[0], 664) != "CF-1" ||
		field(au.Msgs[0], 58) != "" || field(au.Msgs[0], 75) != "20261127" {
		t.Errorf("AU %q", au.Msgs[0].Bytes())
	}
	// A record re-signed after a key rotation (§2): STE refuses it
	// CONFLICTING_DUPLICATE; the adapter answers it as the accepted one.
	rot := *noe
	rot.RecordSHA256 = strings.Repeat("f", 64)
	rotated := o.Translate(brk, nackOut(brk, &rot, "CONFLICTING_DUPLICATE", "same MsgId, other bytes"))
	if len(rotated.Msgs) != 1 || field(rotated.Msgs[0], 150) != "F" || field(rotated.Msgs[0], 939) != "0" {
		t.Errorf("rotation: %q", rotated.Msgs[0].Bytes())
	}
	// Outputs about messages of other channels are skipped.
	if d := o.Translate(brk, ackOut(brk, "NATIVE-1")); len(d.Msgs)+len(d.Journal) != 0 {
		t.Errorf("a native message's ACK: %s", types(d.Msgs))
	}
}

// STATUS → one P per J with a current ALC, then AR per NOE, then AU per
// NPR (§4.7.2), with the table's values and Texts.
func TestStatus(t *testing.T) {
	o, _, _, _ := outputsRig(t)
	d := o.Translate(brk, statusOut(brk, "MATCHED", `<Tolerance criterion="7">x</Tolerance><Tolerance criterion="15">y</Tolerance>`))
	if types(d.Msgs) != "AR AU" {
		t.Fatalf("broker's MATCHED: %s", types(d.Msgs))
	}
	if ar := d.Msgs[0]; field(ar, 939) != "0" || field(ar, 150) != "F" || field(ar, 880) != "ea6dfb599eb7ba5a" ||
		field(ar, 58) != "STE MATCHED ea6dfb599eb7ba5a tolerance 7,15" || field(ar, 60) != "20261127-09:35:00.123" {
		t.Errorf("AR %q", ar.Bytes())
	}
	if au := d.Msgs[1]; field(au, 940) != "1" || field(au, 573) != "0" {
		t.Errorf("AU %q", au.Bytes())
	}
	for status, want := range map[string][]string{
		"MISMATCHED":      {`<Discrepancy criterion="7">a</Discrepancy><Discrepancy criterion="12">b</Discrepancy>`, "1", "1", "", "STE MISMATCHED ea6dfb599eb7ba5a criteria 7,12"},
		"AFFIRMED":        {"", "0", "3", "", "STE AFFIRMED ea6dfb599eb7ba5a"},
		"AFFIRM_REJECTED": {"<MatchDigest>x</MatchDigest><RejectReason>SSI</RejectReason><RejectReason>OTHER</RejectReason>", "0", "2", "99", "STE AFFIRM_REJECTED ea6dfb599eb7ba5a reasons SSI,OTHER"},
		"CHANGE_PENDING":  {`<Proposal digest="dd">x</Proposal>`, "0", "3", "", "STE CHANGE_PENDING ea6dfb599eb7ba5a proposal dd"},
		"CANCEL_PENDING":  {`<CancelRequest state="PENDING">AQGOSGSG:C1</CancelRequest><CancelRequest state="REJECTED">X:Y</CancelRequest>`, "0", "3", "", "STE CANCEL_PENDING ea6dfb599eb7ba5a request AQGOSGSG:C1"},
		"CANCELLED":       {"", "1", "1", "", "STE CANCELLED ea6dfb599eb7ba5a"},
		"EXPIRED":         {"", "1", "1", "", "STE EXPIRED ea6dfb599eb7ba5a"},
	} {
		d := o.Translate(brk, statusOut(brk, status, want[0]))
		if len(d.Msgs) != 2 {
			t.Fatalf("%s: %s", status, types(d.Msgs))
		}
		au := d.Msgs[1]
		if field(au, 573) != want[1] || field(au, 940) != want[2] || field(au, 774) != want[3] || field(au, 58) != want[4] {
			t.Errorf("%s: AU %q", status, au.Bytes())
		}
	}
	ip := o.Translate(im, statusOut(im, "MATCHED", ""))
	if types(ip.Msgs) != "P" || field(ip.Msgs[0], 70) != "ALLOC/2026/77" || field(ip.Msgs[0], 573) != "0" || field(ip.Msgs[0], 87) != "0" {
		t.Errorf("IM's MATCHED: %q", ip.Msgs)
	}
	blk := o.Translate(im, steOut(im, "<MsgId>BLK:ea6dfb599eb7ba5a:1:AQGOSGSG</MsgId><MsgType>BLK</MsgType>",
		`<TradeKey>ea6dfb599eb7ba5a</TradeKey><TradeRef>BT-20261127-0001</TradeRef><Status>BLOCK_MISMATCHED</Status><Discrepancy criterion="9">x</Discrepancy>`))
	if types(blk.Msgs) != "P" || field(blk.Msgs[0], 573) != "2" || field(blk.Msgs[0], 58) != "STE BLOCK_MISMATCHED ea6dfb599eb7ba5a criteria 9" {
		t.Errorf("BLK: %q", blk.Msgs)
	}
	if d := o.Translate(cust, statusOut(cust, "MATCHED", "")); len(d.Msgs) != 0 {
		t.Errorf("a receiver with no FIX-origin message: %s", types(d.Msgs))
	}
}

// CNF NEW to the InvMgr → one AK per leg; CNF CANCEL → AKs cancelling
// them (§4.7.3); the AKs are what an AU answers.
func TestConfirmations(t *testing.T) {
	o, _, _, _ := outputsRig(t)
	digest := strings.Repeat("cd", 32)
	cnf := steOut(im, "<MsgId>CNF:ea6dfb599eb7ba5a:1:AQGOSGSG</MsgId><MsgType>CNF</MsgType><Function>NEW</Function>",
		"<TradeRef>BT-20261127-0001</TradeRef><TradeDate>2026-11-27</TradeDate><ISIN>SG1A01315179</ISIN><Side>BUY</Side><Broker>AMPFSGSGMHX</Broker><InvMgr>AQGOSGSG</InvMgr><TradeKey>ea6dfb599eb7ba5a</TradeKey><MatchDigest>"+digest+"</MatchDigest><Quantity>10000</Quantity><Price>10.05</Price><TradeCcy>SGD</TradeCcy><SettleDate>2026-11-30</SettleDate><MatchedAt>2026-11-27T09:31:00.000Z</MatchedAt>"+
			"<Leg><Account>ACC1</Account><Quantity>6000</Quantity><NetAmount>60345.15</NetAmount><SettleCcy>SGD</SettleCcy><Custodian>AFKZSGSGXXX</Custodian><PSET>CDPLSGSGXXX</PSET><SafekeepingAccount>S</SafekeepingAccount><CashAccount>C</CashAccount></Leg>"+
			"<Leg><Account>ACC2</Account><Quantity>4000</Quantity><NetAmount>40230.10</NetAmount><SettleCcy>SGD</SettleCcy><Custodian>AFKZSGSGXXX</Custodian><PSET>CDPLSGSGXXX</PSET><SafekeepingAccount>S</SafekeepingAccount><CashAccount>C</CashAccount></Leg>"+
			"<Messages>AMPFSGSGMHX:E1:TR_2F1 AQGOSGSG:J1:ALLOC_2F2026_2F77:ACC1</Messages>")
	d := o.Translate(im, cnf)
	if types(d.Msgs) != "AK AK" || len(d.Journal) != 1 {
		t.Fatalf("CNF NEW: %s, %d journal entries", types(d.Msgs), len(d.Journal))
	}
	ak := d.Msgs[0]
	for tag, want := range map[int]string{664: "CNF:ea6dfb599eb7ba5a:1:AQGOSGSG:1", 666: "0", 773: "2", 665: "4", 80: "6000", 54: "1",
		15: "SGD", 79: "ACC1", 6: "10.05", 381: "60300.00", 118: "60345.15", 120: "SGD", 64: "20261130", 75: "20261127",
		55: isin, 48: isin, 22: "4", 711: "0", 555: "0", 862: "1", 528: "A", 863: "6000", 73: "1", 11: "BT-20261127-0001",
		37: "BT-20261127-0001", 60: "20261127-09:35:00.123"} {
		if got := field(ak, tag); got != want {
			t.Errorf("AK %d=%q, want %q", tag, got, want)
		}
	}
	if !strings.Contains(string(ak.Bytes()), "\x01453=2\x01448=AMPFSGSGMHX\x01447=B\x01452=1\x01448=AQGOSGSG\x01447=B\x01452=13\x01") {
		t.Errorf("AK parties: %q", ak.Bytes())
	}
	if g := field(d.Msgs[1], 381); g != "40200.00" {
		t.Errorf("second leg's GrossTradeAmt %s", g)
	}
	// An AU on either AK now translates.
	in := &Inbound{Signer: demoInbound(nil).Signer, J: o.J, Now: o.Now}
	if r := translate(t, in, im, "35=AU|34=9|49=AQGOSGSG|52=20261127-11:00:00.000|56=STEUTLSGXXX|664=CNF:ea6dfb599eb7ba5a:1:AQGOSGSG:2|75=20261127|60=20261127-11:00:00|940=3|"); r.Sub == nil ||
		!strings.Contains(string(r.Sub.Records[0].Bytes), "<Affirms>AMPFSGSGMHX:E1:TR_2F1 AQGOSGSG:J1:ALLOC_2F2026_2F77:ACC1</Affirms>") {
		t.Errorf("AU after the AKs: %s", r.What)
	}
	cancel := o.Translate(im, steOut(im, "<MsgId>CNF:ea6dfb599eb7ba5a:1:AQGOSGSG:CANCEL</MsgId><MsgType>CNF</MsgType><Function>CANCEL</Function><RelatedMsgId>CNF:ea6dfb599eb7ba5a:1:AQGOSGSG</RelatedMsgId>",
		"<TradeKey>ea6dfb599eb7ba5a</TradeKey><MatchDigest>"+digest+"</MatchDigest>"))
	if types(cancel.Msgs) != "AK AK" || field(cancel.Msgs[0], 666) != "2" || field(cancel.Msgs[0], 772) != "CNF:ea6dfb599eb7ba5a:1:AQGOSGSG:1" ||
		field(cancel.Msgs[1], 664) != "CNF:ea6dfb599eb7ba5a:1:AQGOSGSG:CANCEL:2" || field(cancel.Msgs[1], 79) != "ACC2" {
		t.Errorf("CNF CANCEL: %q", cancel.Msgs)
	}
	// A CNF to the Broker is not translated.
	if d := o.Translate(brk, []byte(strings.ReplaceAll(string(cnf), "<Receiver>AQGOSGSG", "<Receiver>"+brk))); len(d.Msgs) != 0 {
		t.Errorf("CNF to the broker: %s", types(d.Msgs))
	}
}

// An AFF's NACK is a j naming the ConfirmID (§4.7.1); its ACK, nothing.
func TestAffirmationAnswers(t *testing.T) {
	o, _, _, _ := outputsRig(t)
	tr := &journal.Translation{Adapter: journal.FIX44, Participant: im, MsgId: "U1:CNF_3Ax:3", MsgType: "AFF", Function: "NEW",
		OriginalIDs: []string{"CNF:x:1", "3"}, TradeKey: "ea6dfb599eb7ba5a", SignedSHA256: "aa", RecordSHA256: hex.EncodeToString(func() []byte { s := sha256.Sum256([]byte("r")); return s[:] }())}
	o.J.Apply(journal.Entry{Translation: tr})
	if d := o.Translate(im, ackOut(im, tr.MsgId)); len(d.Msgs) != 0 {
		t.Errorf("AFF ACK: %s", types(d.Msgs))
	}
	d := o.Translate(im, nackOut(im, tr, "BAD_REFERENCE", "Amends equals MatchDigest"))
	if types(d.Msgs) != "j" || field(d.Msgs[0], 372) != "AU" || field(d.Msgs[0], 379) != "CNF:x:1" || field(d.Msgs[0], 380) != "0" ||
		field(d.Msgs[0], 58) != "BAD_REFERENCE: Amends equals MatchDigest" {
		t.Errorf("AFF NACK: %q", d.Msgs)
	}
}
