package schemas_test

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
)

const (
	digestA = "33502b3e6d602bb593de06beb58d90cb6f82a50865b4a4aaf17c14e94ea7bba5"
	digestB = "ab00000000000000000000000000000000000000000000000000000000000001"
)

// lifecycle is a version 3 message of type typ from sender, with the key
// fields of noe() and the extra fields given as name, value pairs.
func lifecycle(typ, sender string, extra ...string) *schemas.Draft {
	d := noe()
	d.MsgType, d.Sender, d.MsgId = typ, sender, typ+"-1"
	d.Body = d.Body[:6] // the key fields
	for i := 0; i+1 < len(extra); i += 2 {
		d.Body = append(d.Body, schemas.Pair{Name: extra[i], Value: extra[i+1]})
	}
	return d
}

func aff(extra ...string) *schemas.Draft {
	return lifecycle("AFF", "INVMSGSGXXX", append([]string{"Decision", "AFFIRM", "MatchDigest", digestA,
		"Affirms", "BRKASGSGXXX:N1 INVMSGSGXXX:A1 CUSASGSGXXX:S1 BRKASGSGXXX:P1"}, extra...)...)
}

// signedRaw signs d with its Sender's (or Signer's) demo key, then applies
// text substitutions, for markup a Draft cannot write.
func signedRaw(d *schemas.Draft, replace ...string) []byte {
	who := d.Sender
	if d.Signer != "" {
		who = d.Signer
	}
	s := string(d.AppendSigned(nil, refdata.DemoPrivateKey(who)))
	for i := 0; i+1 < len(replace); i += 2 {
		if !strings.Contains(s, replace[i]) {
			panic("no " + replace[i] + " in " + s)
		}
		s = strings.Replace(s, replace[i], replace[i+1], 1)
	}
	return []byte(s)
}

func tokens(n int, f func(i int) string) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(f(i))
	}
	return b.String()
}

// TestDecodeLifecycle: the version 3 SCHEMA rules of messages.md §4, one
// case each, and what is ignored.
func TestDecodeLifecycle(t *testing.T) {
	cxl := lifecycle("CXL", "BRKASGSGXXX", "CancelReason", "ERROR")
	cxa := lifecycle("CXA", "INVMSGSGXXX")
	cxa.RelatedMsgId = "CXL-1"
	cxj := lifecycle("CXJ", "INVMSGSGXXX", "CancelReason", "OTHER")
	cxj.RelatedMsgId = "CXL-1"
	reject := aff("RejectReason", "PRICE SSI")
	reject.Set("Decision", "REJECT")
	with := func(d *schemas.Draft, f func(*schemas.Draft)) *schemas.Draft { c := d.Clone(); f(c); return c }
	set := func(d *schemas.Draft, name, v string) *schemas.Draft {
		return with(d, func(c *schemas.Draft) { c.Set(name, v) })
	}
	del := func(d *schemas.Draft, name string) *schemas.Draft {
		return with(d, func(c *schemas.Draft) { c.Delete(name) })
	}
	delegated := with(noe(), func(c *schemas.Draft) { c.Signer = "STEUTLSGFIX" })
	tests := []struct {
		name   string
		rec    []byte
		detail string // "": decodes
	}{
		{"AFF", signedRaw(aff()), ""},
		{"AFF amending", signedRaw(aff("Amends", digestB)), ""},
		{"AFF with empty Amends", signedRaw(aff("Amends", "")), ""},
		{"AFF REJECT", signedRaw(reject), ""},
		{"AFF REJECT, every code", signedRaw(set(reject, "RejectReason", strings.Join(schemas.RejectReasonCodes, " "))), ""},
		{"AFF of one token", signedRaw(set(aff(), "Affirms", "BRKASGSGXXX:N1")), ""},
		{"AFF of 1000 tokens", signedRaw(set(aff(), "Affirms", tokens(1000, func(i int) string { return "BRKASGSGXXX:N" + strconv.Itoa(i) }))), ""},
		{"AFF token with ':' in its MsgId", signedRaw(set(aff(), "Affirms", "BRKASGSGXXX:N:1 INVMSGSG:A:1:b")), ""},
		{"AFFIRM ignores RejectReason", signedRaw(aff("RejectReason", "NOT A CODE"), "</Body>", "<RejectReason>X</RejectReason></Body>"), ""},
		{"AFF ignores RelatedMsgId", signedRaw(with(aff(), func(c *schemas.Draft) { c.RelatedMsgId = "not of the form!" })), ""},
		{"CXL", signedRaw(cxl), ""},
		{"CXL ignores RelatedMsgId", signedRaw(with(cxl, func(c *schemas.Draft) { c.RelatedMsgId = "x y" })), ""},
		{"CXA", signedRaw(cxa), ""},
		{"CXA ignores CancelReason", signedRaw(with(cxa, func(c *schemas.Draft) { c.Set("CancelReason", "NOT ONE") })), ""},
		{"CXJ", signedRaw(cxj), ""},
		{"delegated", signedRaw(delegated), ""},

		{"AFF CANCEL", signedRaw(with(aff(), func(c *schemas.Draft) { c.Function, c.RelatedMsgId = "CANCEL", "X" })), "Function NEW only"},
		{"CXL REPLACE", signedRaw(with(cxl, func(c *schemas.Draft) { c.Function, c.RelatedMsgId = "REPLACE", "X" })), "Function NEW only"},
		{"CXA CANCEL", signedRaw(with(cxa, func(c *schemas.Draft) { c.Function = "CANCEL" })), "Function NEW only"},
		{"CXJ REPLACE", signedRaw(with(cxj, func(c *schemas.Draft) { c.Function = "REPLACE" })), "Function NEW only"},
		{"unknown MsgType", signedRaw(lifecycle("CNF", "BRKASGSGXXX")), "MsgType"},
		{"no Decision", signedRaw(del(aff(), "Decision")), "<Decision>"},
		{"bad Decision", signedRaw(set(aff(), "Decision", "affirm")), "Decision"},
		{"no MatchDigest", signedRaw(del(aff(), "MatchDigest")), "<MatchDigest>"},
		{"upper-case MatchDigest", signedRaw(set(aff(), "MatchDigest", strings.ToUpper(digestA))), "MatchDigest"},
		{"short MatchDigest", signedRaw(set(aff(), "MatchDigest", digestA[:63])), "MatchDigest"},
		{"bad Amends", signedRaw(aff("Amends", digestA+"0")), "Amends"},
		{"upper-case Amends", signedRaw(aff("Amends", strings.ToUpper(digestB))), "Amends"},
		{"no Affirms", signedRaw(del(aff(), "Affirms")), "<Affirms>"},
		{"empty Affirms", signedRaw(set(aff(), "Affirms", "  ")), "<Affirms>"},
		{"1001 tokens", signedRaw(set(aff(), "Affirms", tokens(1001, func(i int) string { return "BRKASGSGXXX:N" + strconv.Itoa(i) }))), "at most 1000"},
		{"two spaces", signedRaw(set(aff(), "Affirms", "BRKASGSGXXX:N1  INVMSGSGXXX:A1")), "single spaces"},
		{"a tab", signedRaw(set(aff(), "Affirms", "BRKASGSGXXX:N1\tINVMSGSGXXX:A1")), "Sender:MsgId"},
		{"token without ':'", signedRaw(set(aff(), "Affirms", "BRKASGSGXXX-N1")), "Sender:MsgId"},
		{"token of no BIC", signedRaw(set(aff(), "Affirms", "brkasgsgxxx:N1")), "Sender:MsgId"},
		{"token of an empty MsgId", signedRaw(set(aff(), "Affirms", "BRKASGSGXXX:")), "Sender:MsgId"},
		{"token of a bad MsgId", signedRaw(set(aff(), "Affirms", "BRKASGSGXXX:N/1")), "Sender:MsgId"},
		{"token twice", signedRaw(set(aff(), "Affirms", "BRKASGSGXXX:N1 INVMSGSGXXX:A1 BRKASGSGXXX:N1")), "twice"},
		{"token twice among many", signedRaw(set(aff(), "Affirms", tokens(40, func(i int) string { return "BRKASGSGXXX:N" + strconv.Itoa(i%39) }))), "twice"},
		{"REJECT without RejectReason", signedRaw(del(reject, "RejectReason")), "<RejectReason>"},
		{"REJECT with empty RejectReason", signedRaw(set(reject, "RejectReason", "")), "<RejectReason>"},
		{"unknown reject code", signedRaw(set(reject, "RejectReason", "PRICE TIMING")), "TIMING"},
		{"lower-case reject code", signedRaw(set(reject, "RejectReason", "price")), "price"},
		{"reject codes by two spaces", signedRaw(set(reject, "RejectReason", "PRICE  SSI")), "single spaces"},
		{"reject codes by comma", signedRaw(set(reject, "RejectReason", "PRICE,SSI")), "PRICE,SSI"},
		{"reject code twice", signedRaw(set(reject, "RejectReason", "SSI PRICE SSI")), "twice"},
		{"RejectReason given twice", signedRaw(reject, "</Body>", "<RejectReason>SSI</RejectReason></Body>"), "twice"},
		{"CXL without CancelReason", signedRaw(del(cxl, "CancelReason")), "<CancelReason>"},
		{"CXL of two reasons", signedRaw(set(cxl, "CancelReason", "ERROR OTHER")), "exactly one"},
		{"CXJ of an unknown reason", signedRaw(set(cxj, "CancelReason", "MISTAKE")), "exactly one"},
		{"CXA without RelatedMsgId", signedRaw(with(cxa, func(c *schemas.Draft) { c.RelatedMsgId = "" })), "RelatedMsgId is required on CXA"},
		{"CXJ without RelatedMsgId", signedRaw(with(cxj, func(c *schemas.Draft) { c.RelatedMsgId = "" })), "RelatedMsgId is required on CXJ"},
		{"CXA of a bad RelatedMsgId", signedRaw(with(cxa, func(c *schemas.Draft) { c.RelatedMsgId = "a b" })), "RelatedMsgId"},
		{"AFF without a key field", signedRaw(del(aff(), "ISIN")), "<ISIN>"},
		{"CXL of a bad Broker", signedRaw(set(cxl, "Broker", "BRKA")), "Broker"},
		{"empty Signer", signedRaw(noe(), "</Sender>", "</Sender><Signer></Signer>"), "Signer"},
		{"blank Signer", signedRaw(noe(), "</Sender>", "</Sender><Signer> </Signer>"), "Signer"},
		{"self-closed Signer", signedRaw(noe(), "</Sender>", "</Sender><Signer/>"), "Signer"},
		{"Signer not a BIC", signedRaw(with(noe(), func(c *schemas.Draft) { c.Signer = "steutlsgfix" })), "Signer"},
		{"Signer of 9", signedRaw(with(noe(), func(c *schemas.Draft) { c.Signer = "STEUTLSGF" })), "Signer"},
		{"Signer twice", signedRaw(delegated, "</Sender>", "</Sender><Signer>STEUTLSGFIX</Signer>"), "twice"},
		{"Signer holding markup", signedRaw(noe(), "</Sender>", "</Sender><Signer><b>STEUTLSGFIX</b></Signer>"), "text"},
	}
	var d schemas.Decoder
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, rej := d.Decode(tt.rec)
			switch {
			case tt.detail == "" && rej != nil:
				t.Fatalf("rejected: %v", rej)
			case tt.detail != "" && rej == nil:
				t.Fatalf("decoded, want SCHEMA naming %q", tt.detail)
			case rej != nil && (rej.Reason != schemas.Schema || !strings.Contains(rej.Detail, tt.detail)):
				t.Fatalf("got %v, want SCHEMA naming %q", rej, tt.detail)
			case rej != nil && (m == nil || m.Sender == "" || m.MsgId == ""):
				t.Fatalf("a SCHEMA rejection names no identity: %+v", m)
			}
		})
	}
}

// TestDecodeLifecycleValues: what the decoded message holds.
func TestDecodeLifecycleValues(t *testing.T) {
	var d schemas.Decoder
	r := aff("Amends", digestB, "RejectReason", "PRICE SSI")
	r.Set("Decision", "REJECT")
	r.Signer = "STEUTLSGFIX"
	m, rej := d.Decode(signedRaw(r, "<Affirms>", "<Affirms>\n  ", "<Decision>", "<Decision> "))
	if rej != nil {
		t.Fatal(rej)
	}
	want := []string{"BRKASGSGXXX:N1", "INVMSGSGXXX:A1", "CUSASGSGXXX:S1", "BRKASGSGXXX:P1"}
	if m.Type != schemas.AFF || m.Function != schemas.NEW || m.Decision != schemas.REJECT || m.MatchDigest != digestA ||
		m.Amends != digestB || !reflect.DeepEqual(m.Affirms, want) || !reflect.DeepEqual(m.RejectReason, []string{"PRICE", "SSI"}) ||
		m.Signer != "STEUTLSGFIX" || m.RelatedMsgId != "" || m.CancelReason != "" {
		t.Fatalf("decoded %+v", m)
	}
	for _, f := range []schemas.Field{schemas.FDecision, schemas.FMatchDigest, schemas.FAffirms, schemas.FAmends, schemas.FRejectReason} {
		if !m.Has.Has(f) {
			t.Errorf("Has lacks %s", f)
		}
	}
	if m.Key.TradeKey() != mustDecode(t, raw()).Key.TradeKey() {
		t.Fatal("an AFF with the key fields of a NOE is of another trade")
	}
	// An AFFIRM's RejectReason is not read; a first affirmation has no Amends.
	m, rej = d.Decode(signedRaw(aff("RejectReason", "PRICE")))
	if rej != nil || m.Decision != schemas.AFFIRM || m.RejectReason != nil || m.Amends != "" || m.Has.Has(schemas.FAmends) || m.Has.Has(schemas.FRejectReason) {
		t.Fatalf("%v %+v", rej, m)
	}
	x := lifecycle("CXJ", "INVMSGSGXXX", "CancelReason", " CLIENT_REQUEST ")
	x.RelatedMsgId = "CXL:7"
	if m, rej = d.Decode(signedRaw(x)); rej != nil || m.CancelReason != "CLIENT_REQUEST" || m.RelatedMsgId != "CXL:7" {
		t.Fatalf("%v %+v", rej, m)
	}
	x = lifecycle("CXA", "INVMSGSGXXX", "CancelReason", "ERROR")
	x.RelatedMsgId = "CXL:7"
	if m, rej = d.Decode(signedRaw(x)); rej != nil || m.CancelReason != "" || m.Has != 0 {
		t.Fatalf("a CXA's CancelReason is not read: %v %+v", rej, m)
	}
	// Without <Signer>, the Sender signs.
	if m = mustDecode(t, raw()); m.Signer != "" {
		t.Fatalf("Signer %q", m.Signer)
	}
}

func mustDecode(t *testing.T, rec []byte) *schemas.Message {
	t.Helper()
	var d schemas.Decoder
	m, rej := d.Decode(rec)
	if rej != nil {
		t.Fatal(rej)
	}
	return m
}

func TestParseToken(t *testing.T) {
	for tok, want := range map[string]schemas.Identity{
		"BRKASGSGXXX:N1":  {Sender: "BRKASGSGXXX", MsgId: "N1"},
		"BRKASGSG:a:b:c":  {Sender: "BRKASGSG", MsgId: "a:b:c"},
		"BRKASGSGXXX::":   {Sender: "BRKASGSGXXX", MsgId: ":"},
		"BRKASGSGXX:N1":   {},
		":N1":             {},
		"BRKASGSGXXX":     {},
		"BRKASGSGXXX:N 1": {},
	} {
		got, ok := schemas.ParseToken(tok)
		if ok != (want != schemas.Identity{}) || ok && got != want {
			t.Errorf("%q: %+v %v", tok, got, ok)
		}
	}
}

func TestReasonsInContractOrder(t *testing.T) {
	var names []string
	for _, r := range schemas.Reasons {
		names = append(names, r.String())
	}
	want := "TOO_LARGE MALFORMED SCHEMA UNKNOWN_SENDER SIGNATURE NOT_AUTHORISED UNKNOWN_PARTY UNKNOWN_SECURITY " +
		"UNKNOWN_CURRENCY BAD_DATE BAD_AMOUNT BAD_REFERENCE CONFLICTING_DUPLICATE KEY_COLLISION"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("Reasons %s", got)
	}
	for i, r := range schemas.Reasons {
		if back, ok := schemas.ParseReason(r.String()); !ok || back != r || r.Rank() != i+1 {
			t.Errorf("%s: parsed %v %v, rank %d", r, back, ok, r.Rank())
		}
	}
	// Stored numbers keep their values.
	if schemas.ConflictingDuplicate != 12 || schemas.Internal != 13 || schemas.BadReference != 14 || schemas.KeyCollision != 15 {
		t.Fatal("a Reason changed its number")
	}
	if schemas.Internal.Rank() <= schemas.KeyCollision.Rank() || schemas.BadReference.Nacked() != true || !schemas.KeyCollision.Nacked() {
		t.Fatal("INTERNAL ranks last; the version 3 codes are NACKed")
	}
	k1 := schemas.Key{TradeRef: "A", TradeDate: "2026-11-27", ISIN: "SG1L01001701", Side: "BUY", Broker: "BRKASGSGXXX", InvMgr: "INVMSGSGXXX"}
	k2 := k1
	k2.Side = "SELL"
	if r := schemas.KeyCollisionOf(k1.TradeKey(), &k1, &k2); r.Reason != schemas.KeyCollision || !strings.Contains(r.Detail, `Side "BUY", not "SELL"`) {
		t.Fatalf("%v", r)
	}
}
