package schemas_test

import (
	"crypto/ed25519"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
)

func noe() *schemas.Draft {
	return &schemas.Draft{MsgId: "BRKASGSGXXX-0000000001", MsgType: "NOE", Function: "NEW", Sender: "BRKASGSGXXX",
		Created: "2026-11-29T09:30:00.123Z", Body: []schemas.Pair{
			{Name: "TradeRef", Value: "T1"}, {Name: "TradeDate", Value: "2026-11-27"}, {Name: "ISIN", Value: "SG1L01001701"},
			{Name: "Side", Value: "BUY"}, {Name: "Broker", Value: "BRKASGSGXXX"}, {Name: "InvMgr", Value: "INVMSGSGXXX"},
			{Name: "Quantity", Value: "1000"}, {Name: "Price", Value: "10.50"}, {Name: "TradeCcy", Value: "SGD"},
			{Name: "SettleDate", Value: "2026-12-01"}, {Name: "Market", Value: "XSES"}, {Name: "ExecTime", Value: "2026-11-27T09:00:00Z"}}}
}

// raw builds a record by text substitution of a signed NOE, for markup cases
// a Draft cannot express.
func raw(replace ...string) []byte {
	s := string(noe().AppendSigned(nil, refdata.DemoPrivateKey("BRKASGSGXXX")))
	for i := 0; i+1 < len(replace); i += 2 {
		s = strings.Replace(s, replace[i], replace[i+1], 1)
	}
	return []byte(s)
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name   string
		rec    []byte
		want   schemas.Reason // 0: decodes
		detail string
	}{
		{"plain", raw(), 0, ""},
		{"declaration and whitespace", append([]byte("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"), raw("<Header>", "\n  <Header>\n", "</Body>", "</Body>\n")...), 0, ""},
		{"unknown elements ignored", raw("<Body>", "<Body><Remark><Price>1</Price></Remark>", "</Msg>", "<Trailer/></Msg>"), 0, ""},
		{"no Body", raw("<Body>", "<X>", "</Body>", "</X>"), schemas.Malformed, "<Body>"},
		{"root not Msg", []byte("<Message><Header/><Body/></Message>"), schemas.Malformed, "root"},
		{"truncated", raw()[:100], schemas.Malformed, "well-formed"},
		{"undefined entity", raw("<TradeRef>T1", "<TradeRef>T&nbsp;1"), schemas.Malformed, ""},
		{"doctype", append([]byte("<!DOCTYPE Msg>"), raw()...), schemas.Malformed, ""},
		{"field twice", raw("<Side>BUY</Side>", "<Side>BUY</Side><Side>BUY</Side>"), schemas.Schema, "twice"},
		{"markup in a field", raw("<Side>BUY</Side>", "<Side><b>BUY</b></Side>"), schemas.Schema, "text"},
		{"missing field", raw("<Market>XSES</Market>", ""), schemas.Schema, "Market"},
		{"empty field", raw("<Market>XSES</Market>", "<Market>  </Market>"), schemas.Schema, "Market"},
		{"lower-case side", raw("<Side>BUY</Side>", "<Side>buy</Side>"), schemas.Schema, "Side"},
		{"bad MsgId", raw("<MsgId>BRKASGSGXXX-0000000001</MsgId>", "<MsgId>a b</MsgId>"), schemas.Schema, "MsgId"},
		{"MsgId of 65", raw("<MsgId>BRKASGSGXXX-0000000001</MsgId>", "<MsgId>"+strings.Repeat("a", 65)+"</MsgId>"), schemas.Schema, "MsgId"},
		{"bad BIC", raw("<Broker>BRKASGSGXXX</Broker>", "<Broker>BRKASGSGXX</Broker>"), schemas.Schema, "Broker"},
		{"bad ISIN", raw("<ISIN>SG1L01001701</ISIN>", "<ISIN>SG1L0100170</ISIN>"), schemas.Schema, "ISIN"},
		{"bad currency", raw("<TradeCcy>SGD</TradeCcy>", "<TradeCcy>sgd</TradeCcy>"), schemas.Schema, "TradeCcy"},
		{"bad Created", raw("<Created>2026-11-29T09:30:00.123Z</Created>", "<Created>2026-11-29 09:30</Created>"), schemas.Schema, "Created"},
		{"CANCEL without RelatedMsgId", raw("<Function>NEW</Function>", "<Function>CANCEL</Function>"), schemas.Schema, "RelatedMsgId"},
		{"TradeRef of 36", raw("<TradeRef>T1</TradeRef>", "<TradeRef>"+strings.Repeat("x", 36)+"</TradeRef>"), schemas.Schema, "TradeRef"},
		{"too large", raw("<Body>", "<Body><Pad>"+strings.Repeat("x", 65536)+"</Pad>"), schemas.TooLarge, ""},
		// docs/spec/messages.md §4: nesting deeper than 64 levels is MALFORMED; <Msg> is
		// level 1, so 63 levels of <X> under it are the deepest accepted.
		{"64 levels", raw("</Msg>", strings.Repeat("<X>", 63)+strings.Repeat("</X>", 63)+"</Msg>"), 0, ""},
		{"65 levels", raw("</Msg>", strings.Repeat("<X>", 64)+strings.Repeat("</X>", 64)+"</Msg>"), schemas.Malformed, "deeper than 64"},
		{"65 levels inside Body", raw("</Body>", strings.Repeat("<X>", 63)+strings.Repeat("</X>", 63)+"</Body>"), schemas.Malformed, "deeper than 64"},
		{"65 levels of empty elements", raw("</Msg>", strings.Repeat("<X>", 63)+"<Y/>"+strings.Repeat("</X>", 63)+"</Msg>"), schemas.Malformed, "deeper than 64"},
	}
	var d schemas.Decoder
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, rej := d.Decode(tt.rec)
			var got schemas.Reason
			if rej != nil {
				got = rej.Reason
			}
			if got != tt.want {
				t.Fatalf("got %v (%v), want %v", got, rej, tt.want)
			}
			if rej != nil && !strings.Contains(rej.Detail, tt.detail) {
				t.Fatalf("detail %q lacks %q", rej.Detail, tt.detail)
			}
		})
	}
}

// TestDecodeValues: entities, character references and CDATA are decoded
// before use, values are trimmed, and the trade key hashes the decoded text.
func TestDecodeValues(t *testing.T) {
	var d schemas.Decoder
	plain, rej := d.Decode(raw("<TradeRef>T1</TradeRef>", "<TradeRef>A&amp;B</TradeRef>"))
	if rej != nil {
		t.Fatal(rej)
	}
	for _, variant := range []string{"<TradeRef> A&#38;B </TradeRef>", "<TradeRef><![CDATA[A&B]]></TradeRef>", "<TradeRef>A<![CDATA[&]]>B</TradeRef>"} {
		m, rej := d.Decode(raw("<TradeRef>T1</TradeRef>", variant))
		if rej != nil {
			t.Fatalf("%s: %v", variant, rej)
		}
		if m.Key.TradeRef != "A&B" || m.Key.TradeKey() != plain.Key.TradeKey() {
			t.Fatalf("%s: TradeRef %q", variant, m.Key.TradeRef)
		}
	}
	if plain.Price.String() != "10.5" || plain.Quantity != 1000 || plain.SettleDate.String() != "2026-12-01" {
		t.Fatalf("fields %+v", plain)
	}
	// The signed range is exactly <Header> through </Body>.
	s := string(plain.Signed())
	if !strings.HasPrefix(s, "<Header>") || !strings.HasSuffix(s, "</Body>") {
		t.Fatalf("signed range %q…", s[:20])
	}
}

func TestTradeKeyKnownValue(t *testing.T) {
	// FNV-1a 64 of "T1|2026-11-27|SG1L01001701|BUY|BRKASGSGXXX|INVMSGSGXXX",
	// computed independently of hash/fnv.
	const in = "T1|2026-11-27|SG1L01001701|BUY|BRKASGSGXXX|INVMSGSGXXX"
	var h uint64 = 14695981039346656037
	for i := 0; i < len(in); i++ {
		h ^= uint64(in[i])
		h *= 1099511628211
	}
	k := schemas.Key{TradeRef: "T1", TradeDate: "2026-11-27", ISIN: "SG1L01001701", Side: "BUY", Broker: "BRKASGSGXXX", InvMgr: "INVMSGSGXXX"}
	if k.TradeKey() != schemas.TradeKey(h) || len(k.TradeKey().String()) != 16 {
		t.Fatalf("%s", k.TradeKey())
	}
	back, ok := schemas.ParseTradeKey(k.TradeKey().String())
	if !ok || back != k.TradeKey() {
		t.Fatal("ParseTradeKey")
	}
}

func TestOutputsParseAndVerify(t *testing.T) {
	key := refdata.DemoPrivateKey("STEUTLSGXXX")
	s := &schemas.Signer{BIC: "STEUTLSGXXX", Key: key}
	o := schemas.Output{Type: schemas.ACK, Function: schemas.NEW, MsgId: schemas.ACKId("B", "M<&>"), Receiver: "B",
		RelatedMsgId: "M<&>", Key: "B", Body: schemas.ACKBody("M<&>\nx")}
	b := s.Encode(&o)
	if strings.ContainsRune(string(b), '\n') {
		t.Fatal("output spans lines")
	}
	if err := xml.Unmarshal(b, new(struct{})); err != nil {
		t.Fatalf("not XML: %v", err)
	}
	r, err := schemas.ParseOutput(b)
	if err != nil || r.MsgId != "ACK:B:M<&>" || r.RelatedMsgId != "M<&>" {
		t.Fatalf("%+v %v", r, err)
	}
	var d schemas.Decoder
	_ = d
	m := &schemas.Message{Raw: b, HasSig: true}
	i, j := strings.Index(string(b), "<Header>"), strings.Index(string(b), "</Body>")+len("</Body>")
	m.SignedStart, m.SignedEnd = i, j
	m.Sig = string(b[strings.Index(string(b), `">`)+2 : strings.LastIndex(string(b), "</Sig>")])
	if p := schemas.SignatureProblem([]ed25519.PublicKey{refdata.DemoPublicKey("STEUTLSGXXX")}, m); p != "" {
		t.Fatal(p)
	}
}

// TestParseTimestampRange: int64 nanoseconds end at 2262-04-11T23:47:16.854775807Z;
// past either end a timestamp is held at the bound and flagged, never wrapped
// (issue 15: 9999-12-31 used to become a time in 1816 and pass the 24 h rule).
func TestParseTimestampRange(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string // FormatTimestamp of the result
		out  bool   // ErrTimestampRange
	}{
		{"2262-04-11T23:47:16Z", "2262-04-11T23:47:16.000Z", false},
		{"2262-04-11T23:47:16.854775807Z", "2262-04-11T23:47:16.854Z", false},
		{"2262-04-11T23:47:16.854775808Z", "2262-04-11T23:47:16.854Z", true},
		{"2262-04-11T23:47:17Z", "2262-04-11T23:47:16.854Z", true},
		{"9999-12-31T23:59:59Z", "2262-04-11T23:47:16.854Z", true},
		{"2262-04-12T00:30:00+01:00", "2262-04-11T23:30:00.000Z", false},
		{"1677-09-21T00:12:43.145224192Z", "1677-09-21T00:12:43.145Z", false},
		{"1677-09-21T00:12:43.145224191Z", "1677-09-21T00:12:43.145Z", true},
		{"0001-01-01T00:00:00Z", "1677-09-21T00:12:43.145Z", true},
	} {
		ns, err := schemas.ParseTimestamp(tt.in)
		if (err == schemas.ErrTimestampRange) != tt.out || (err != nil && err != schemas.ErrTimestampRange) {
			t.Errorf("%s: err %v, want out of range %v", tt.in, err, tt.out)
		}
		if got := schemas.FormatTimestamp(ns); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.in, got, tt.want)
		}
	}
}
