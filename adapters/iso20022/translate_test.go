package iso20022

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ste-utility/ste/adapters"
	"github.com/ste-utility/ste/adapters/iso20022/xsdcheck"
	"github.com/ste-utility/ste/adapters/journal"
	"github.com/ste-utility/ste/schemas/refdata"
)

const cust = "AFKZSGSGXXX"

func exampleDoc(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(xsdcheck.Dir(), "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// translated is the worked example's SET, as the journal records it.
func translated(t *testing.T, x *journal.Index, body []byte) *journal.Translation {
	t.Helper()
	d, p := ParseDocument(body)
	if p != nil {
		t.Fatalf("%+v", p)
	}
	in := Translate023(d, cust, refdata.ISOSignerBIC)
	if len(in.Failures) > 0 {
		t.Fatalf("profile: %v", in.Failures)
	}
	s := &adapters.Signer{BIC: refdata.ISOSignerBIC, Key: refdata.DemoPrivateKey(refdata.ISOSignerBIC)}
	rec, err := s.Build(in.Header, in.Body)
	if err != nil {
		t.Fatal(err)
	}
	tr := adapters.Translation(journal.ISO20022, cust, rec, in.Header, in.Body, []string{in.TxId}, adapters.Origin{Bytes: body})
	x.Apply(journal.Entry{Translation: tr})
	return tr
}

func stOut(status, body string) []byte {
	return []byte(`<Msg><Header><MsgId>ST:` + tk + `:4:` + cust + `</MsgId><MsgType>STATUS</MsgType><Function>NEW</Function><Sender>STEUTLSGXXX</Sender><Receiver>` + cust +
		`</Receiver><Created>2026-11-27T10:00:00.000Z</Created></Header><Body><TradeKey>` + tk + `</TradeKey><TradeRef>BT-20261127-0001</TradeRef><Status>` +
		status + `</Status>` + body + `</Body><Sig alg="ed25519">x</Sig></Msg>`)
}

func answerOut(typ, msgID, related, body string) []byte {
	return []byte(`<Msg><Header><MsgId>` + msgID + `</MsgId><MsgType>` + typ + `</MsgType><Function>NEW</Function><Sender>STEUTLSGXXX</Sender><Receiver>` + cust +
		`</Receiver><Created>2026-11-27T10:00:00.000Z</Created><RelatedMsgId>` + related + `</RelatedMsgId></Header><Body><RelatedMsgId>` + related + `</RelatedMsgId>` + body + `</Body><Sig alg="ed25519">x</Sig></Msg>`)
}

func apply(x *journal.Index, r Result) Result {
	for _, e := range r.Journal {
		x.Apply(e)
	}
	for _, o := range r.Outs {
		keep(o.XML)
	}
	return r
}

func xmls(r Result) []string {
	var out []string
	for _, o := range r.Outs {
		out = append(out, o.XML)
	}
	return out
}

// ACK, NACK and STATUS of an ISO-origin SET become the sese.024s of §5.6,
// the reference forms byte for byte.
func TestTranslateAnswersAndStatus(t *testing.T) {
	x := journal.NewIndex()
	tr := translated(t, x, exampleDoc(t, "sese.023-in-SET-NEW.xml"))
	if tr.TradeKey != tk || tr.MsgId != "S1:CUST_2F2026_2F000123" {
		t.Fatalf("%+v", tr)
	}
	tl := &Translator{J: x}
	r := apply(x, tl.Translate(cust, answerOut("ACK", "ACK:"+cust+":"+tr.MsgId, tr.MsgId, "")))
	if got := xmls(r); len(got) != 1 || got[0] != example(t, "sese.024-out-ACK.xml") || r.Outs[0].TxId != "CUST/2026/000123" ||
		r.Outs[0].SourceMsgId != "ACK:"+cust+":"+tr.MsgId || r.Outs[0].MsgDef != DefSese024 {
		t.Fatalf("ACK: %+v", r.Outs)
	}
	for status, ex := range map[string]string{"MATCHED": "sese.024-out-MATCHED.xml", "UNMATCHED": "sese.024-out-UNMATCHED.xml",
		"EXPIRED": "sese.024-out-EXPIRED.xml", "AFFIRMED": "sese.024-out-MATCHED.xml", "CHANGE_PENDING": "sese.024-out-MATCHED.xml",
		"AFFIRM_REJECTED": "sese.024-out-MATCHED.xml"} {
		r := apply(x, tl.Translate(cust, stOut(status, "")))
		if got := xmls(r); len(got) != 1 || got[0] != example(t, ex) {
			t.Errorf("%s: %v", status, got)
		}
	}
	r = apply(x, tl.Translate(cust, stOut("MISMATCHED", `<Discrepancy criterion="15">A:1 B:2</Discrepancy><Discrepancy criterion="17">A:1</Discrepancy>`)))
	if got := xmls(r); len(got) != 1 || got[0] != example(t, "sese.024-out-MISMATCHED.xml") {
		t.Errorf("MISMATCHED: %v", got)
	}
	for _, c := range []string{"CANCEL_PENDING", "CANCELLED"} {
		r = apply(x, tl.Translate(cust, stOut(c, "")))
		if len(r.Outs) != 1 {
			t.Errorf("%s: %d outputs", c, len(r.Outs))
		}
	}
	if !strings.Contains(xmls(apply(x, tl.Translate(cust, stOut("CANCEL_PENDING", ""))))[0], "<PrcgSts><CxlReqd/></PrcgSts><MtchgSts><Mtchd/></MtchgSts>") {
		t.Error("CANCEL_PENDING is not CxlReqd before Mtchd")
	}
	// Every criterion has its code (§5.6).
	all := ""
	for c := 7; c <= 17; c++ {
		all += `<Discrepancy criterion="` + string(rune('0'+c/10)) + string(rune('0'+c%10)) + `">A:1</Discrepancy>`
	}
	got := xmls(apply(x, tl.Translate(cust, stOut("MISMATCHED", all))))[0]
	for _, code := range []string{"DDEA", "DQUA", "OTHR", "INVE", "DDAT", "NCRR", "DMON", "ICUS", "DEPT"} {
		if !strings.Contains(got, "<Cd>"+code+"</Cd>") {
			t.Errorf("criterion code %s missing: %s", code, got)
		}
	}
	// A record for another receiver's key, a BLK, a CNF, a CLS: nothing.
	for _, raw := range [][]byte{stOut("MATCHED", ""), []byte(strings.Replace(string(stOut("BLOCK_MATCHED", "")), "<MsgType>STATUS", "<MsgType>BLK", 1)),
		[]byte(strings.Replace(string(stOut("MATCHED", "")), "<MsgType>STATUS", "<MsgType>CNF", 1))} {
		if r := tl.Translate("OTHERBICXXX", raw); len(r.Outs) != 0 {
			t.Errorf("translated for the wrong key: %v", xmls(r))
		}
	}
	// A NACK names its record: sese.024 Rjctd with the code of the table.
	h := tr.RecordSHA256[:16]
	r = apply(x, tl.Translate(cust, answerOut("NACK", "NACK:"+cust+":"+tr.MsgId+":"+h, tr.MsgId,
		`<Reason>UNKNOWN_SECURITY</Reason><Detail>ISIN SG1A01315179 not ACTIVE</Detail>`)))
	if got := xmls(r); len(got) != 1 || got[0] != example(t, "sese.024-out-NACK.xml") {
		t.Fatalf("NACK: %v", got)
	}
	// NACKed, the SET is no longer current: a STATUS gives nothing.
	if r := tl.Translate(cust, stOut("MATCHED", "")); len(r.Outs) != 0 {
		t.Errorf("a NACKed SET got a STATUS: %v", xmls(r))
	}
	// A native (non-adapter) message's ACK is skipped.
	if r := tl.Translate(cust, answerOut("ACK", "ACK:"+cust+":NATIVE-1", "NATIVE-1", "")); len(r.Outs) != 0 {
		t.Errorf("a native message's ACK translated: %v", xmls(r))
	}
}

// A SET CANCEL's ACK and NACK (sese.027), and a held cancellation: PdgCxl
// while a STATUS lists it in Pending, CANI once one no longer does.
func TestTranslateCancellation(t *testing.T) {
	x := journal.NewIndex()
	tr := translated(t, x, exampleDoc(t, "sese.023-in-SET-NEW.xml"))
	s := &adapters.Signer{BIC: refdata.ISOSignerBIC, Key: refdata.DemoPrivateKey(refdata.ISOSignerBIC)}
	h := cancelHeader(tr)
	rec, err := s.Build(h, cancelBody(tr))
	if err != nil {
		t.Fatal(err)
	}
	cx := adapters.Translation(journal.ISO20022, cust, rec, h, cancelBody(tr), []string{"CUST/2026/000123"}, adapters.Origin{})
	x.Apply(journal.Entry{Translation: cx})
	tl := &Translator{J: x}
	r := apply(x, tl.Translate(cust, stOut("CHANGE_PENDING", `<Pending>`+cust+`:`+cx.MsgId+` ZZZZSGSGXXX:OTHER</Pending>`)))
	var defs []string
	for _, o := range r.Outs {
		defs = append(defs, o.MsgDef)
	}
	// The SET NEW is no longer current (its CANCEL stands): only the PdgCxl.
	if !slices.Equal(defs, []string{DefSese027}) || !strings.Contains(r.Outs[0].XML, "<PdgCxl><NoSpcfdRsn>NORE</NoSpcfdRsn></PdgCxl>") {
		t.Fatalf("pending: %v", xmls(r))
	}
	r = apply(x, tl.Translate(cust, stOut("CANCELLED", ``)))
	if len(r.Outs) != 1 || !strings.Contains(r.Outs[0].XML, "<Canc><Rsn><Cd><Cd>CANI</Cd></Cd></Rsn></Canc>") {
		t.Fatalf("no longer pending: %v", xmls(r))
	}
	if r := apply(x, tl.Translate(cust, stOut("CANCELLED", ``))); len(r.Outs) != 0 {
		t.Errorf("CANI twice: %v", xmls(r))
	}
	r = apply(x, tl.Translate(cust, answerOut("ACK", "ACK:"+cust+":"+cx.MsgId, cx.MsgId, "")))
	if got := xmls(r); len(got) != 1 || got[0] != example(t, "sese.027-out-CANCEL-ACK.xml") {
		t.Fatalf("CANCEL ACK: %v", got)
	}
	r = apply(x, tl.Translate(cust, answerOut("NACK", "NACK:"+cust+":"+cx.MsgId+":"+cx.RecordSHA256[:16], cx.MsgId,
		`<Reason>CONFLICTING_DUPLICATE</Reason><Detail>d</Detail>`)))
	if len(r.Outs) != 1 || !strings.Contains(r.Outs[0].XML, "<Rjctd><Rsn><Cd><Cd>REFE</Cd></Cd><AddtlRsnInf>CONFLICTING_DUPLICATE: d</AddtlRsnInf>") {
		t.Fatalf("CANCEL NACK: %v", xmls(r))
	}
}

func algOut(n, fn, related, body string) []byte {
	rel := ""
	if related != "" {
		rel = `<RelatedMsgId>` + related + `</RelatedMsgId>`
	}
	return []byte(`<Msg><Header><MsgId>ALG:` + tk + `:` + n + `:` + cust + `</MsgId><MsgType>ALG</MsgType><Function>` + fn +
		`</Function><Sender>STEUTLSGXXX</Sender><Receiver>` + cust + `</Receiver><Created>2026-11-27T10:00:00.000Z</Created>` + rel +
		`</Header><Body>` + body + `</Body><Sig alg="ed25519">x</Sig></Msg>`)
}

const algKey = `<TradeRef>BT-20261127-0001</TradeRef><TradeDate>2026-11-27</TradeDate><ISIN>SG1A01315179</ISIN><Side>BUY</Side><Broker>AMPFSGSGMHX</Broker><InvMgr>AQGOSGSG</InvMgr><TradeKey>` + tk + `</TradeKey>`

// Allegements (messages.md §6 ALG bodies, constructed): sese.028 per SET
// item, sese.029 for the previous ones, ALG CANCEL removing them; routed by
// the signers column, not by ISO-origin messages.
func TestTranslateAllegements(t *testing.T) {
	x := journal.NewIndex()
	enabled := true
	tl := &Translator{J: x, Enabled: func(bic string) bool { return bic == cust && enabled }}
	// ALG n=3 with one SET item: the reference form.
	r := apply(x, tl.Translate(cust, algOut("3", "NEW", "", algKey+`<SettleDate>2026-11-30</SettleDate><Owed msgType="SET" account="ACC1" quantity="6000"/>`)))
	if got := xmls(r); len(got) != 1 || got[0] != example(t, "sese.028-out-ALG-v3.xml") || r.Outs[0].TxId != tk+"-3" {
		t.Fatalf("ALG NEW: %v", got)
	}
	// Repeated (a crash before the commit): the same sese.028 again, no removal.
	if r := apply(x, tl.Translate(cust, algOut("3", "NEW", "", algKey+`<SettleDate>2026-11-30</SettleDate><Owed msgType="SET" account="ACC1" quantity="6000"/>`))); len(r.Outs) != 1 || r.Outs[0].MsgDef != DefSese028 {
		t.Fatalf("repeat: %v", xmls(r))
	}
	// ALG CANCEL of it: the reference removal.
	r = apply(x, tl.Translate(cust, algOut("4", "CANCEL", "ALG:"+tk+":3:"+cust, `<TradeKey>`+tk+`</TradeKey><TradeRef>BT-20261127-0001</TradeRef>`)))
	if got := xmls(r); len(got) != 1 || got[0] != example(t, "sese.029-out-ALG-CANCEL-v3.xml") {
		t.Fatalf("ALG CANCEL: %v", got)
	}
	// Two SET items (and items of other types) after a NEW not cancelled:
	// the old ones removed first, then TxIds <key>-<n>-<i>.
	apply(x, tl.Translate(cust, algOut("5", "NEW", "", algKey+`<SettleDate>2026-11-30</SettleDate><Owed msgType="SET" account="ACC1" quantity="6000"/>`)))
	r = apply(x, tl.Translate(cust, algOut("6", "NEW", "", algKey+`<SettleDate>2026-11-30</SettleDate><Owed msgType="NPR" account="ACC1" quantity="6000"/><Owed msgType="SET" account="ACC1" quantity="6000"/><Owed msgType="SET" account="`+strings.Repeat("L", 40)+`" quantity="4000"/>`)))
	var got []string
	for _, o := range r.Outs {
		got = append(got, o.MsgDef+" "+o.TxId)
	}
	if want := []string{DefSese029 + " " + tk + "-5", DefSese028 + " " + tk + "-6-1", DefSese028 + " " + tk + "-6-2"}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if strings.Contains(r.Outs[2].XML, "<Invstr>") {
		t.Error("an account over 35 characters is written")
	}
	// Without SettleDate: no sese.028, the previous ones removed.
	r = apply(x, tl.Translate(cust, algOut("7", "NEW", "", algKey+`<Owed msgType="SET" account="ACC1" quantity="6000"/>`)))
	got = nil
	for _, o := range r.Outs {
		got = append(got, o.MsgDef+" "+o.TxId)
	}
	if want := []string{DefSese029 + " " + tk + "-6-1", DefSese029 + " " + tk + "-6-2"}; !slices.Equal(got, want) {
		t.Fatalf("without SettleDate: %v", got)
	}
	// A participant that does not list the signer gets none.
	enabled = false
	if r := tl.Translate(cust, algOut("8", "NEW", "", algKey+`<SettleDate>2026-11-30</SettleDate><Owed msgType="SET" account="ACC1" quantity="6000"/>`)); len(r.Outs) != 0 {
		t.Errorf("ALG to a participant without the signer: %v", xmls(r))
	}
}
