package stexml

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
)

// The record of docs/spec/adapters.md §5.4, byte for byte, from its fields.
func TestISOWorkedExampleBytes(t *testing.T) {
	body := []Field{{"TradeRef", "BT-20261127-0001"}, {"TradeDate", "2026-11-27"}, {"ISIN", "SG1A01315179"}, {"Side", "BUY"},
		{"Broker", "AMPFSGSGMHX"}, {"InvMgr", "AQGOSGSG"}, {"Account", "ACC1"}, {"Quantity", "6000"}, {"SettleDate", "2026-11-30"},
		{"SettleCcy", "SGD"}, {"NetAmount", "60345.15"}, {"Custodian", "AFKZSGSGXXX"}, {"PSET", "CDPLSGSGXXX"},
		{"SafekeepingAccount", "SAFE-778899"}, {"CashAccount", "CASH-112233"}}
	r, err := Build(Header{MsgId: "S1:CUST_2F2026_2F000123", MsgType: "SET", Function: "NEW", Sender: "AFKZSGSGXXX",
		Signer: refdata.ISOSignerBIC, Created: "2026-11-27T00:00:00.000Z"}, body, refdata.DemoPrivateKey(refdata.ISOSignerBIC))
	if err != nil {
		t.Fatal(err)
	}
	const want = `<Msg><Header><MsgId>S1:CUST_2F2026_2F000123</MsgId><MsgType>SET</MsgType><Function>NEW</Function><Sender>AFKZSGSGXXX</Sender><Signer>STEUTLSGISO</Signer><Created>2026-11-27T00:00:00.000Z</Created></Header><Body><TradeRef>BT-20261127-0001</TradeRef><TradeDate>2026-11-27</TradeDate><ISIN>SG1A01315179</ISIN><Side>BUY</Side><Broker>AMPFSGSGMHX</Broker><InvMgr>AQGOSGSG</InvMgr><Account>ACC1</Account><Quantity>6000</Quantity><SettleDate>2026-11-30</SettleDate><SettleCcy>SGD</SettleCcy><NetAmount>60345.15</NetAmount><Custodian>AFKZSGSGXXX</Custodian><PSET>CDPLSGSGXXX</PSET><SafekeepingAccount>SAFE-778899</SafekeepingAccount><CashAccount>CASH-112233</CashAccount></Body><Sig alg="ed25519">8biAEe5MGEsMeVKAuDHFklCCYePMsDwBsrfB7XbIMPcvi+1XAZxZsX5R9cTEBOSqIKUbTzAfp8HYaL2RD1/GCQ==</Sig></Msg>`
	if string(r.Bytes) != want {
		t.Fatalf("record:\n%s\nwant\n%s", r.Bytes, want)
	}
	if s := sha256.Sum256(r.Bytes); hex.EncodeToString(s[:]) != "2a761ecda0d5f7fb0b1420db48fc0a5d612de6c4fa3e238d017ccb7ddc40c5ed" {
		t.Errorf("sha256 %x", s)
	}
	if tk := TradeKey(body); tk != "ea6dfb599eb7ba5a" {
		t.Errorf("trade key %s", tk)
	}
	if k := base64.StdEncoding.EncodeToString(refdata.DemoPublicKey(refdata.ISOSignerBIC)); k != "iBHSpwx0XHZMuI5TJK98fom/TI5+1STu/vQy7I6k020=" {
		t.Errorf("demo key %s", k)
	}
	m, err := (&schemas.Decoder{}).Decode(r.Bytes)
	if m == nil || m.Signer != refdata.ISOSignerBIC || m.MsgId != "S1:CUST_2F2026_2F000123" {
		t.Errorf("STE's decoder reads %s %s, %v", m.MsgId, m.Signer, err)
	}
}

// The first record of §4.9 (the FIX worked example): the writer is the FIX
// adapter's too.
func TestFIXWorkedExampleBytes(t *testing.T) {
	body := []Field{{"TradeRef", "BT-20261127-0001"}, {"TradeDate", "2026-11-27"}, {"ISIN", "SG1A01315179"}, {"Side", "BUY"},
		{"Broker", "AMPFSGSGMHX"}, {"InvMgr", "AQGOSGSG"}, {"AllocCount", "2"}, {"Account", "ACC1"}, {"Quantity", "6000"},
		{"Price", "10.05"}, {"TradeCcy", "SGD"}, {"Custodian", "AFKZSGSGXXX"}, {"PSET", "CDPLSGSGXXX"}}
	created, err := FIXTimestamp("20261127-09:30:59.250")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build(Header{MsgId: "J1:ALLOC_2F2026_2F77:ACC1", MsgType: "ALC", Function: "NEW", Sender: "AQGOSGSG",
		Signer: refdata.FIXSignerBIC, Created: created}, body, refdata.DemoPrivateKey(refdata.FIXSignerBIC))
	if err != nil {
		t.Fatal(err)
	}
	if s := sha256.Sum256(r.Bytes); hex.EncodeToString(s[:]) != "949512d6395e0fa870070740aa45df0651b5f4be4d649c89416846288a1cf16e" {
		t.Errorf("sha256 %x of %s", s, r.Bytes)
	}
}

func TestTextEscapingAndBadValues(t *testing.T) {
	r, err := Build(Header{MsgId: "S1:x", MsgType: "SET", Function: "CANCEL", Sender: "B", Signer: "S", Created: "c", RelatedMsgId: "S1:y"},
		[]Field{{"TradeRef", " a&b<c>d\re\"f' "}, {"Account", ""}}, refdata.DemoPrivateKey("X"))
	if err != nil {
		t.Fatal(err)
	}
	const want = `<Msg><Header><MsgId>S1:x</MsgId><MsgType>SET</MsgType><Function>CANCEL</Function><Sender>B</Sender><Signer>S</Signer><Created>c</Created><RelatedMsgId>S1:y</RelatedMsgId></Header><Body><TradeRef> a&amp;b&lt;c&gt;d&#13;e"f' </TradeRef></Body>`
	if got := string(r.Bytes[:len(want)]); got != want {
		t.Errorf("got %s", r.Bytes)
	}
	var bv *BadValueError
	for _, v := range []string{"a\x01", "\xff", "a\uFFFE"} {
		if _, err := Build(Header{MsgId: "m"}, []Field{{"Account", v}}, refdata.DemoPrivateKey("X")); !errors.As(err, &bv) || bv.Field != "Account" {
			t.Errorf("%q: %v", v, err)
		}
	}
	big := make([]byte, MaxRecord)
	for i := range big {
		big[i] = 'a'
	}
	if _, err := Build(Header{MsgId: "m"}, []Field{{"Account", string(big)}}, refdata.DemoPrivateKey("X")); !errors.Is(err, ErrTooLarge) {
		t.Errorf("oversize: %v", err)
	}
}

func TestValues(t *testing.T) {
	for in, want := range map[string]string{"100.50": "100.5", "1.0": "1", "0.00": "0", "-0": "0", "+5": "5", ".5": "0.5",
		"00.5": "0.5", "6000.0": "6000", "0.5": "0.5", "-1.20": "-1.2", "5.": "5", "007": "7"} {
		if got, ok := Decimal(in); !ok || got != want {
			t.Errorf("Decimal(%q) = %q %v, want %q", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", ".", "1e5", "1.2.3", "--1", "1,5", " 1", "abc", "+"} {
		if got, ok := Decimal(bad); ok {
			t.Errorf("Decimal(%q) = %q", bad, got)
		}
	}
	if s, ok := Sum("0.10", "0.2", "3"); !ok || s != "3.3" {
		t.Errorf("sum %s", s)
	}
	for in, want := range map[string]string{
		"2026-11-27T09:30:00":            "2026-11-27T09:30:00.000Z",
		"2026-11-27T17:30:00.1239+08:00": "2026-11-27T09:30:00.123Z",
		"2026-11-27T01:30:00-02:30":      "2026-11-27T04:00:00.000Z",
		"2026-11-27T09:30:00.5Z":         "2026-11-27T09:30:00.500Z",
		"2026-02-30T10:00:00":            "2026-02-30T10:00:00.000Z",
	} {
		if got, ok := ISODateTime(in); !ok || got != want {
			t.Errorf("ISODateTime(%q) = %q %v, want %q", in, got, ok, want)
		}
	}
	for _, bad := range []string{"2026-11-27", "2026-11-27T09:30", "2026-11-27T09:30:00.", "2026-11-27T09:30:00+0800", "2026-11-27 09:30:00"} {
		if got, ok := ISODateTime(bad); ok {
			t.Errorf("ISODateTime(%q) = %q", bad, got)
		}
	}
	if d, err := FIXDate("20260230"); err != nil || d != "2026-02-30" {
		t.Errorf("FIXDate %s %v", d, err)
	}
	if _, err := FIXDate("2026023"); err == nil {
		t.Error("7 digits")
	}
	if ts, err := FIXTimestamp("20261127-09:30:59.250999"); err != nil || ts != "2026-11-27T09:30:59.250Z" {
		t.Errorf("FIXTimestamp %s %v", ts, err)
	}
}
