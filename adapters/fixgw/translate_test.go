package fixgw

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/ste-utility/ste/adapters"
	"github.com/ste-utility/ste/adapters/journal"
	"github.com/ste-utility/ste/schemas/fix"
	"github.com/ste-utility/ste/schemas/refdata"
)

// rawFIX writes a FIX message from its fields after 9= ("|" for SOH), with
// BodyLength and CheckSum as an engine writes them.
func rawFIX(body string) []byte {
	body = strings.ReplaceAll(body, "|", "\x01")
	head := "8=FIX.4.4\x019=" + fmt.Sprint(len(body)) + "\x01"
	msg := head + body
	sum := 0
	for i := 0; i < len(msg); i++ {
		sum += int(msg[i])
	}
	return []byte(fmt.Sprintf("%s10=%03d\x01", msg, sum%256))
}

func parse(t *testing.T, body string) *Message {
	t.Helper()
	dd, err := fix.Parsed()
	if err != nil {
		t.Fatal(err)
	}
	m, ok := Parse(rawFIX(body), dd)
	if !ok {
		t.Fatalf("cannot parse %q", body)
	}
	return m
}

func demoInbound(j *journal.Index) *Inbound {
	if j == nil {
		j = journal.NewIndex()
	}
	return &Inbound{Signer: &adapters.Signer{BIC: refdata.FIXSignerBIC, Key: refdata.DemoPrivateKey(refdata.FIXSignerBIC), Demo: true},
		J: j, Now: func() string { return "20261127-09:31:01.000" }}
}

// The J of adapters.md §4.9, as the IM's engine sends it.
const exampleJ = "35=J|34=12|49=AQGOSGSG|52=20261127-09:31:00.000|56=STEUTLSGXXX|70=ALLOC/2026/77|71=0|626=2|857=1|73=1|11=AQGO-ORD-5521|37=BT-20261127-0001|54=1|55=[N/A]|48=SG1A01315179|22=4|53=10000|6=10.05|15=SGD|453=2|448=AMPFSGSGMHX|447=B|452=1|448=AQGOSGSG|447=B|452=13|75=20261127|60=20261127-09:30:59.250|78=2|79=ACC1|80=6000|539=2|524=AFKZSGSGXXX|525=B|538=28|524=CDPLSGSGXXX|525=B|538=10|79=ACC2|80=4000|539=2|524=AFKZSGSGXXX|525=B|538=28|524=CDPLSGSGXXX|525=B|538=10|"

// TestWorkedExample holds the translation to adapters.md §4.9 byte for
// byte: the two records, their digests, their order and the P 87=3; the
// same J resent with PossDupFlag gives the same records.
func TestWorkedExample(t *testing.T) {
	want := []string{
		`<Msg><Header><MsgId>J1:ALLOC_2F2026_2F77:ACC1</MsgId><MsgType>ALC</MsgType><Function>NEW</Function><Sender>AQGOSGSG</Sender><Signer>STEUTLSGFIX</Signer><Created>2026-11-27T09:30:59.250Z</Created></Header><Body><TradeRef>BT-20261127-0001</TradeRef><TradeDate>2026-11-27</TradeDate><ISIN>SG1A01315179</ISIN><Side>BUY</Side><Broker>AMPFSGSGMHX</Broker><InvMgr>AQGOSGSG</InvMgr><AllocCount>2</AllocCount><Account>ACC1</Account><Quantity>6000</Quantity><Price>10.05</Price><TradeCcy>SGD</TradeCcy><Custodian>AFKZSGSGXXX</Custodian><PSET>CDPLSGSGXXX</PSET></Body><Sig alg="ed25519">ss/tC3ojXOim+M/PLCNu+Di51FbYWbeqRThuftEHhQAFJXFAVZDMHwYfm0LYR86r1o41doRCzzfyiimPL8P8DQ==</Sig></Msg>`,
		`<Msg><Header><MsgId>J1:ALLOC_2F2026_2F77:ACC2</MsgId><MsgType>ALC</MsgType><Function>NEW</Function><Sender>AQGOSGSG</Sender><Signer>STEUTLSGFIX</Signer><Created>2026-11-27T09:30:59.250Z</Created></Header><Body><TradeRef>BT-20261127-0001</TradeRef><TradeDate>2026-11-27</TradeDate><ISIN>SG1A01315179</ISIN><Side>BUY</Side><Broker>AMPFSGSGMHX</Broker><InvMgr>AQGOSGSG</InvMgr><AllocCount>2</AllocCount><Account>ACC2</Account><Quantity>4000</Quantity><Price>10.05</Price><TradeCcy>SGD</TradeCcy><Custodian>AFKZSGSGXXX</Custodian><PSET>CDPLSGSGXXX</PSET></Body><Sig alg="ed25519">o6A4KBeEg46WsVRy4mfYnBh66neT7EcNdl44AdHP9G44e7OE+hjPxgAgvZ7AZFEfT+XYFTOQ2MSQ48KsUrbcCg==</Sig></Msg>`,
	}
	wantSHA := []string{"949512d6395e0fa870070740aa45df0651b5f4be4d649c89416846288a1cf16e",
		"d16591f1058fa8004de3b6cf86aec61a01bf4850f08d36200364d1fdb906d926"}
	for _, body := range []string{exampleJ, strings.Replace(exampleJ, "|52=", "|43=Y|122=20261127-09:31:00.000|52=", 1)} {
		m := parse(t, body)
		in := demoInbound(nil)
		out := in.Translate(m, "AQGOSGSG", adapters.Origin{Bytes: m.Raw, Ref: "AQGOSGSG:STEUTLSGXXX:12"})
		if out.Sub == nil {
			t.Fatalf("no submission: %s", out.What)
		}
		if len(out.Sub.Records) != 2 {
			t.Fatalf("%d records", len(out.Sub.Records))
		}
		for i, r := range out.Sub.Records {
			if string(r.Bytes) != want[i] {
				t.Errorf("record %d:\n%s\nwant\n%s", i, r.Bytes, want[i])
			}
			s := sha256.Sum256(r.Bytes)
			if hex.EncodeToString(s[:]) != wantSHA[i] {
				t.Errorf("record %d SHA-256 %x", i, s)
			}
			if tk := out.Sub.Journal[i].Translation.TradeKey; tk != "ea6dfb599eb7ba5a" {
				t.Errorf("trade key %s", tk)
			}
		}
		if p := string(out.Ack.Bytes()); !strings.Contains(p, "\x0170=ALLOC/2026/77\x01") || !strings.Contains(p, "\x0187=3\x01") ||
			!strings.Contains(p, "\x0160=20261127-09:30:59.250\x01") || !strings.Contains(p, "\x0175=20261127\x01") {
			t.Errorf("P 87=3: %q", p)
		}
	}
}

// translate runs a message body (after 9=) through Inbound for sender.
func translate(t *testing.T, in *Inbound, sender, body string) Outcome {
	t.Helper()
	m := parse(t, body)
	return in.Translate(m, sender, adapters.Origin{Bytes: m.Raw, Ref: sender + ":STEUTLSGXXX:1"})
}

// apply puts a submission's journal entries into the index, as the
// journal would once they are written.
func apply(j *journal.Index, s *adapters.Submission) {
	for _, e := range s.Journal {
		j.Apply(e)
	}
}

func signedRange(r []byte) string {
	s := string(r)
	return s[strings.Index(s, "<Header>"):strings.Index(s, "<Sig ")]
}

func ranges(s *adapters.Submission) []string {
	var out []string
	for _, r := range s.Records {
		out = append(out, signedRange(r.Bytes))
	}
	return out
}

func text58(m interface{ Bytes() []byte }) string {
	b := string(m.Bytes())
	i := strings.Index(b, "\x0158=")
	if i < 0 {
		return ""
	}
	rest := b[i+4:]
	return rest[:strings.IndexByte(rest, 1)]
}

func field(m interface{ Bytes() []byte }, tag int) string {
	b := "\x01" + string(m.Bytes())
	k := fmt.Sprintf("\x01%d=", tag)
	i := strings.Index(b, k)
	if i < 0 {
		return ""
	}
	rest := b[i+len(k):]
	return rest[:strings.IndexByte(rest, 1)]
}

const aeHead = "35=AE|34=5|49=AMPFSGSGMHX|52=20261127-09:31:00.000|56=STEUTLSGXXX|"
const aeBody = "571=TR/1|570=N|55=[N/A]|48=SG1A01315179|22=4|32=10000.0|31=10.050|30=XSES|75=20261127|64=20261130|60=20261127-09:30:00.123456|552=1|54=1|37=BT-20261127-0001|453=2|448=AMPFSGSGMHX|447=B|452=1|448=AQGOSGSG|447=B|452=13|15=SGD|"

// AE → NOE (§4.5.1): the Body in the table's order, the values of §3.3;
// a CANCEL holds the key fields only; 487 runs the other way from 71/666.
func TestTradeCaptureReport(t *testing.T) {
	in := demoInbound(nil)
	out := translate(t, in, brk, aeHead+aeBody)
	if out.Sub == nil {
		t.Fatal(out.What)
	}
	want := "<Header><MsgId>E1:TR_2F1</MsgId><MsgType>NOE</MsgType><Function>NEW</Function><Sender>AMPFSGSGMHX</Sender><Signer>STEUTLSGFIX</Signer><Created>2026-11-27T09:30:00.123Z</Created></Header><Body><TradeRef>BT-20261127-0001</TradeRef><TradeDate>2026-11-27</TradeDate><ISIN>SG1A01315179</ISIN><Side>BUY</Side><Broker>AMPFSGSGMHX</Broker><InvMgr>AQGOSGSG</InvMgr><Quantity>10000</Quantity><Price>10.05</Price><TradeCcy>SGD</TradeCcy><SettleDate>2026-11-30</SettleDate><Market>XSES</Market><ExecTime>2026-11-27T09:30:00.123Z</ExecTime></Body>"
	if got := ranges(out.Sub)[0]; got != want {
		t.Errorf("NOE\n%s\nwant\n%s", got, want)
	}
	cancel := translate(t, in, brk, aeHead+strings.Replace(aeBody, "571=TR/1|", "571=TR/2|487=1|572=TR/1|", 1))
	if got := ranges(cancel.Sub)[0]; !strings.Contains(got, "<Function>CANCEL</Function>") || !strings.Contains(got, "<RelatedMsgId>E1:TR_2F1</RelatedMsgId>") ||
		!strings.HasSuffix(got, "<InvMgr>AQGOSGSG</InvMgr></Body>") {
		t.Errorf("CANCEL %s", got)
	}
	repl := translate(t, in, brk, aeHead+strings.Replace(aeBody, "571=TR/1|", "571=TR/3|487=2|572=TR/1|", 1))
	if got := ranges(repl.Sub)[0]; !strings.Contains(got, "<Function>REPLACE</Function>") || !strings.Contains(got, "<ExecTime>") {
		t.Errorf("REPLACE %s", got)
	}
	for body, text := range map[string]string{
		strings.Replace(aeBody, "571=TR/1|", "571=TR/1|487=3|", 1):             "unsupported TradeReportTransType(487)=3",
		strings.Replace(aeBody, "571=TR/1|", "571=TR/1|487=2|", 1):             "TradeReportRefID(572) required",
		strings.Replace(aeBody, "30=XSES|", "", 1):                             "LastMkt(30) required",
		strings.Replace(aeBody, "22=4|", "22=1|", 1):                           "no ISIN: SecurityIDSource(22)=4 required",
		strings.Replace(aeBody, "|54=1|", "|54=5|", 1):                         "Side must be 1 or 2",
		strings.Replace(aeBody, "448=AQGOSGSG|447=B", "448=AQGOSGSG|447=D", 1): "Parties: exactly one role 13 with PartyIDSource B required",
		strings.Replace(aeBody, "75=20261127|", "75=2026112|", 1):              "invalid character in TradeDate(75)",
	} {
		out := translate(t, in, brk, aeHead+body)
		if out.Answer == nil || text58(out.Answer) != text {
			t.Errorf("%s: %s, want %q", body, out.What, text)
			continue
		}
		if field(out.Answer, 35) != "AR" || field(out.Answer, 150) != "8" || field(out.Answer, 939) != "1" {
			t.Errorf("answer %q", out.Answer.Bytes())
		}
	}
	// The rejection of an AE with no ISIN echoes its Symbol.
	noISIN := translate(t, in, brk, aeHead+strings.Replace(aeBody, "22=4|", "22=1|", 1))
	if field(noISIN.Answer, 55) != "[N/A]" || field(noISIN.Answer, 48) != "" || field(noISIN.Answer, 751) != "2" {
		t.Errorf("instrument of the rejection: %q", noISIN.Answer.Bytes())
	}
	// A reference already replaced or cancelled (§4.8), not once NACKed.
	apply(in.J, cancel.Sub)
	again := translate(t, in, brk, aeHead+strings.Replace(aeBody, "571=TR/1|", "571=TR/4|487=1|572=TR/1|", 1))
	if again.Answer == nil || text58(again.Answer) != "TradeReportRefID(572) already replaced or cancelled by TR/2" {
		t.Errorf("superseded: %s", again.What)
	}
	// The same CANCEL again is no supersession of itself.
	if same := translate(t, in, brk, aeHead+strings.Replace(aeBody, "571=TR/1|", "571=TR/2|487=1|572=TR/1|", 1)); same.Sub == nil {
		t.Errorf("the CANCEL resent: %s", same.What)
	}
	nack := cancel.Sub.Journal[0].Translation
	in.J.Apply(journal.Entry{Answer: &journal.Answer{Participant: brk, MsgId: nack.MsgId, Verdict: "NACK", Code: "SCHEMA",
		RecordHash: nack.RecordSHA256[:16], OutputMsgId: "NACK:x"}})
	if ok := translate(t, in, brk, aeHead+strings.Replace(aeBody, "571=TR/1|", "571=TR/4|487=1|572=TR/1|", 1)); ok.Sub == nil {
		t.Errorf("after the first CANCEL's NACK: %s", ok.What)
	}
}

const akHead = "35=AK|34=6|49=AMPFSGSGMHX|52=20261127-09:31:00.000|56=STEUTLSGXXX|"
const akBody = "664=CF-1|666=0|773=2|665=1|453=2|448=AMPFSGSGMHX|447=B|452=1|448=AQGOSGSG|447=B|452=13|73=1|11=X|37=BT-20261127-0001|60=20261127-10:00:00|75=20261127|55=[N/A]|48=SG1A01315179|22=4|80=6000|54=1|15=SGD|862=1|528=A|863=6000|79=ACC1|6=10.05|381=60300.00|118=60345.15|64=20261130|12=40.15|13=3|136=2|137=2.50|138=SGD|137=2.5|"

// AK → NPR (§4.5.3): fees summed exactly, SettleCcy from Currency when
// SettlCurrency is absent, Commission 0 without CommissionData.
func TestConfirmation(t *testing.T) {
	in := demoInbound(nil)
	out := translate(t, in, brk, akHead+akBody)
	if out.Sub == nil {
		t.Fatal(out.What)
	}
	want := "<Body><TradeRef>BT-20261127-0001</TradeRef><TradeDate>2026-11-27</TradeDate><ISIN>SG1A01315179</ISIN><Side>BUY</Side><Broker>AMPFSGSGMHX</Broker><InvMgr>AQGOSGSG</InvMgr><Account>ACC1</Account><Quantity>6000</Quantity><Price>10.05</Price><TradeCcy>SGD</TradeCcy><GrossAmount>60300</GrossAmount><Commission>40.15</Commission><Fees>5</Fees><NetAmount>60345.15</NetAmount><SettleCcy>SGD</SettleCcy><SettleDate>2026-11-30</SettleDate></Body>"
	if got := ranges(out.Sub)[0]; !strings.HasSuffix(got, want) || !strings.Contains(got, "<MsgId>K1:CF-1</MsgId>") ||
		!strings.Contains(got, "<Created>2026-11-27T10:00:00.000Z</Created>") {
		t.Errorf("NPR\n%s\nwant …%s", got, want)
	}
	noComm := translate(t, in, brk, akHead+strings.Replace(strings.Replace(akBody, "12=40.15|13=3|", "", 1), "136=2|137=2.50|138=SGD|137=2.5|", "", 1))
	if got := ranges(noComm.Sub)[0]; !strings.Contains(got, "<Commission>0</Commission><Fees>0</Fees>") {
		t.Errorf("no commission, no fees: %s", got)
	}
	for body, text := range map[string]string{
		strings.Replace(akBody, "13=3|", "13=1|", 1):                     "CommType(13) must be 3 (absolute)",
		strings.Replace(akBody, "138=SGD|", "138=USD|", 1):               "MiscFeeCurr(138) must equal the settlement currency SGD",
		strings.Replace(akBody, "773=2|", "773=1|", 1):                   "unsupported ConfirmType(773)=1",
		strings.Replace(akBody, "73=1|11=X|37=BT-20261127-0001|", "", 1): "exactly one OrderID(37) required",
	} {
		out := translate(t, in, brk, akHead+body)
		if out.Answer == nil || text58(out.Answer) != text || field(out.Answer, 35) != "AU" || field(out.Answer, 940) != "2" ||
			field(out.Answer, 774) != "99" || field(out.Answer, 664) != "CF-1" || field(out.Answer, 75) != "20261127" {
			t.Errorf("%q: %s", text, out.What)
		}
	}
}

const jHead = "35=J|34=7|49=AQGOSGSG|52=20261127-09:31:00.000|56=STEUTLSGXXX|"

func jBody(allocID, trans, ref, allocs string, n int) string {
	b := "70=" + allocID + "|71=" + trans + "|"
	if ref != "" {
		b += "72=" + ref + "|"
	}
	return b + "626=2|857=1|73=1|11=O|37=BT-20261127-0001|54=1|55=[N/A]|48=SG1A01315179|22=4|53=10000|6=10.05|15=SGD|453=2|448=AMPFSGSGMHX|447=B|452=1|448=AQGOSGSG|447=B|452=13|75=20261127|60=20261127-09:30:59.250|78=" + fmt.Sprint(n) + "|" + allocs
}

func alloc(acct, qty string) string {
	return "79=" + acct + "|80=" + qty + "|539=2|524=AFKZSGSGXXX|525=B|538=28|524=CDPLSGSGXXX|525=B|538=10|"
}

// J REPLACE and CANCEL (§4.5.2): REPLACEs of the new J's accounts, then
// CANCELs of the old J's accounts it drops; a CANCEL J cancels every
// account of the old one; the checks of the journal.
func TestAllocationReplaceCancel(t *testing.T) {
	in := demoInbound(nil)
	old := translate(t, in, im, jHead+jBody("A1", "0", "", alloc("ACC1", "6000")+alloc("ACC2", "4000"), 2))
	if old.Sub == nil {
		t.Fatal(old.What)
	}
	unknown := translate(t, in, im, jHead+jBody("A2", "1", "A1", alloc("ACC1", "5000")+alloc("ACC3", "5000"), 2))
	if unknown.Answer == nil || text58(unknown.Answer) != "unknown RefAllocID" || field(unknown.Answer, 87) != "1" {
		t.Fatalf("before the journal has A1: %s", unknown.What)
	}
	apply(in.J, old.Sub)
	repl := translate(t, in, im, jHead+jBody("A2", "1", "A1", alloc("ACC1", "5000")+alloc("ACC3", "5000"), 2))
	if repl.Sub == nil {
		t.Fatal(repl.What)
	}
	var got []string
	for _, r := range ranges(repl.Sub) {
		got = append(got, regexp.MustCompile(`<MsgId>([^<]*)</MsgId>.*<Function>(\w+)</Function>.*<RelatedMsgId>([^<]*)</RelatedMsgId>`).
			FindStringSubmatch(r)[1:4]...)
	}
	want := []string{"J1:A2:ACC1", "REPLACE", "J1:A1:ACC1", "J1:A2:ACC3", "REPLACE", "J1:A1:ACC3", "J1:A2:ACC2", "CANCEL", "J1:A1:ACC2"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("records %v, want %v", got, want)
	}
	if r := ranges(repl.Sub)[2]; !strings.HasSuffix(r, "<InvMgr>AQGOSGSG</InvMgr></Body>") {
		t.Errorf("the dropped account's CANCEL carries more than the key fields: %s", r)
	}
	differ := translate(t, in, im, jHead+strings.Replace(jBody("A3", "1", "A1", alloc("ACC1", "10000"), 1), "54=1|", "54=2|", 1))
	if differ.Answer == nil || field(differ.Answer, 88) != "11" {
		t.Errorf("key fields differ: %s", differ.What)
	}
	apply(in.J, repl.Sub)
	twice := translate(t, in, im, jHead+jBody("A4", "2", "A1", "", 0))
	if twice.Answer == nil || text58(twice.Answer) != "RefAllocID(72) already replaced or cancelled by A2" {
		t.Errorf("a second act on A1: %s", twice.What)
	}
	cancel := translate(t, in, im, jHead+jBody("A5", "2", "A2", "", 0))
	if cancel.Sub == nil {
		t.Fatal(cancel.What)
	}
	got = nil
	for _, r := range ranges(cancel.Sub) {
		got = append(got, regexp.MustCompile(`<MsgId>([^<]*)</MsgId>`).FindStringSubmatch(r)[1])
	}
	if strings.Join(got, " ") != "J1:A5:ACC1 J1:A5:ACC3" {
		t.Errorf("cancel J: %v", got)
	}
	// Reuse of an AllocID (§4.5.2): another J under A1 is refused while A1
	// has an ALC not NACKed; the same J again is an exact duplicate.
	if again := translate(t, in, im, jHead+jBody("A1", "0", "", alloc("ACC1", "6000")+alloc("ACC2", "4000"), 2)); again.Sub == nil {
		t.Errorf("the same J again: %s", again.What)
	}
	reuse := translate(t, in, im, jHead+jBody("A1", "0", "", alloc("ACC1", "7000")+alloc("ACC2", "3000"), 2))
	if reuse.Answer == nil || text58(reuse.Answer) != "CONFLICTING_DUPLICATE: AllocID already used" {
		t.Errorf("reuse: %s", reuse.What)
	}
	for _, e := range old.Sub.Journal {
		tr := e.Translation
		in.J.Apply(journal.Entry{Answer: &journal.Answer{Participant: im, MsgId: tr.MsgId, Verdict: "NACK", Code: "SCHEMA",
			RecordHash: tr.RecordSHA256[:16], OutputMsgId: "NACK:" + tr.MsgId}})
	}
	if ok := translate(t, in, im, jHead+jBody("A1", "0", "", alloc("ACC1", "7000")+alloc("ACC2", "3000"), 2)); ok.Sub == nil {
		t.Errorf("reuse once A1 was wholly NACKed: %s", ok.What)
	}
	// The hash form of §3.2.
	long := translate(t, in, im, jHead+jBody(strings.Repeat("A", 40), "0", "", alloc("ACCOUNT-WITH-A-LONG-NAME-0001", "10000"), 1))
	if long.Sub == nil || long.Sub.Journal[0].Translation.MsgId != "J1::ae4951269595621a3c13242739b5b6030a4a246c" {
		t.Errorf("hash form: %s", long.What)
	}
	for body, text := range map[string]string{
		jBody("B1", "0", "", alloc("ACC1", "6000")+alloc("ACC1", "4000"), 2):                                 "duplicate AllocAccount(79) ACC1",
		jBody("B1", "3", "", alloc("ACC1", "10000"), 1):                                                      "unsupported AllocTransType(71)=3",
		strings.Replace(jBody("B1", "0", "", alloc("ACC1", "10000"), 1), "626=2", "626=3", 1):                "unsupported AllocType(626)=3",
		strings.Replace(jBody("B1", "0", "", alloc("ACC1", "10000"), 1), "|60=20261127-09:30:59.250", "", 1): "TransactTime(60) required",
		strings.Replace(jBody("B1", "0", "", alloc("ACC1", "10000"), 1), "857=1", "857=0", 1):                "exactly one OrderID(37) required",
		jBody("B1", "0", "", alloc("ACC1", "10000"), 1) + "892=2|":                                           "fragmented allocations are not supported: TotNoAllocs(892) must equal NoAllocs(78) and LastFragment(893) must not be N",
		strings.Replace(jBody("B1", "0", "", alloc("AC\x021", "10000"), 1), "", "", 1):                       "invalid character in AllocAccount(79)",
	} {
		out := translate(t, in, im, jHead+body)
		if out.Answer == nil || text58(out.Answer) != text {
			t.Errorf("%q: %s", text, out.What)
		}
	}
}

// AU → AFF (§4.5.4): the CNF's key fields, digest and tokens from the
// journal of AKs sent; 940=1 is not translated; an unknown ConfirmID is a j
// 380=1.
func TestConfirmationAck(t *testing.T) {
	in := demoInbound(nil)
	note := cnfNote{MsgId: "CNF:ea6dfb599eb7ba5a:1:AQGOSGSG", Function: "NEW", TradeKey: "ea6dfb599eb7ba5a",
		Key:         journal.KeyFields{TradeRef: "BT-20261127-0001", TradeDate: "2026-11-27", ISIN: isin, Side: "BUY", Broker: brk, InvMgr: im},
		MatchDigest: strings.Repeat("ab", 32), Messages: "AMPFSGSGMHX:E1:TR AQGOSGSG:J1:A:ACC1", Legs: []adapters.Leg{{Account: "ACC1"}}}
	in.J.Apply(journal.NoteEntry(journal.FIX44, noteCNF, im+"|"+note.MsgId, note))
	head := "35=AU|34=9|49=AQGOSGSG|52=20261127-11:00:00.000|56=STEUTLSGXXX|"
	out := translate(t, in, im, head+"664=CNF:ea6dfb599eb7ba5a:1:AQGOSGSG:1|75=20261127|60=20261127-11:00:00|940=2|774=2|")
	if out.Sub == nil {
		t.Fatal(out.What)
	}
	want := "<Header><MsgId>U1:CNF_3Aea6dfb599eb7ba5a_3A1_3AAQGOSGSG_3A1:2</MsgId><MsgType>AFF</MsgType><Function>NEW</Function><Sender>AQGOSGSG</Sender><Signer>STEUTLSGFIX</Signer><Created>2026-11-27T11:00:00.000Z</Created></Header><Body><TradeRef>BT-20261127-0001</TradeRef><TradeDate>2026-11-27</TradeDate><ISIN>SG1A01315179</ISIN><Side>BUY</Side><Broker>AMPFSGSGMHX</Broker><InvMgr>AQGOSGSG</InvMgr><Decision>REJECT</Decision><MatchDigest>" + strings.Repeat("ab", 32) + "</MatchDigest><Affirms>AMPFSGSGMHX:E1:TR AQGOSGSG:J1:A:ACC1</Affirms><RejectReason>SSI</RejectReason></Body>"
	if got := ranges(out.Sub)[0]; got != want {
		t.Errorf("AFF\n%s\nwant\n%s", got, want)
	}
	if r := translate(t, in, im, head+"664=CNF:ea6dfb599eb7ba5a:1:AQGOSGSG:1|75=20261127|60=20261127-11:00:00|940=1|"); !r.Ignore {
		t.Errorf("940=1: %s", r.What)
	}
	for _, cid := range []string{"CNF:ea6dfb599eb7ba5a:1:AQGOSGSG:2", "CNF:other:1:AQGOSGSG:1", "nope"} {
		r := translate(t, in, im, head+"664="+cid+"|75=20261127|60=20261127-11:00:00|940=3|")
		if r.Reject == nil || r.Reject.RejectReason() != 1 || !r.Reject.IsBusinessReject() || r.Reject.BusinessRejectRefID() != cid {
			t.Errorf("%s: %s", cid, r.What)
		}
	}
	if r := translate(t, in, brk, head+"664=CNF:ea6dfb599eb7ba5a:1:AQGOSGSG:1|75=20261127|60=20261127-11:00:00|940=3|"); r.Reject == nil {
		t.Errorf("an AK sent to another session: %s", r.What)
	}
}
