package fixgw

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
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
