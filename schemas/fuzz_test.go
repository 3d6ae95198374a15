package schemas_test

import (
	"math"
	"testing"
	"unicode/utf8"

	"github.com/ste-utility/ste/schemas"
)

// FuzzDecode: any input decodes or is rejected with a code of the decoding
// rules, never panics, and what decodes satisfies the model's invariants.
func FuzzDecode(f *testing.F) {
	f.Add(raw())
	f.Add(raw("<Side>BUY</Side>", "<Side>SELL</Side>", "<TradeRef>T1</TradeRef>", "<TradeRef><![CDATA[a&b]]></TradeRef>"))
	f.Add(raw("<Function>NEW</Function>", "<Function>CANCEL</Function><RelatedMsgId>X</RelatedMsgId>"))
	f.Add(raw()[:200])
	f.Add([]byte("<Msg><Header/><Body/></Msg>"))
	f.Add(raw("<Created>2026-11-29T09:30:00.123Z</Created>", "<Created>9999-12-31T23:59:59Z</Created>"))
	f.Add([]byte{})
	// Version 3: the lifecycle types and a delegated signer.
	f.Add(signedRaw(aff()))
	f.Add(signedRaw(aff("Amends", digestB, "RejectReason", "PRICE SSI"), "<Decision>AFFIRM", "<Decision>REJECT"))
	f.Add(signedRaw(aff(), "<Affirms>BRKASGSGXXX:N1 ", "<Affirms>BRKASGSGXXX:N1  "))
	f.Add(signedRaw(lifecycle("CXL", "BRKASGSGXXX", "CancelReason", "ERROR")))
	f.Add(signedRaw(lifecycle("CXA", "INVMSGSGXXX"), "</Sender>", "</Sender><RelatedMsgId>CXL-1</RelatedMsgId>"))
	f.Add(signedRaw(lifecycle("CXJ", "INVMSGSGXXX", "CancelReason", "OTHER"), "</Sender>", "</Sender><RelatedMsgId>C</RelatedMsgId>"))
	f.Add(signedRaw(noe(), "</Sender>", "</Sender><Signer>STEUTLSGFIX</Signer>"))
	f.Add(signedRaw(noe(), "</Sender>", "</Sender><Signer/>"))
	var d schemas.Decoder
	f.Fuzz(func(t *testing.T, rec []byte) {
		m, rej := d.Decode(rec)
		if rej != nil {
			switch rej.Reason {
			case schemas.TooLarge, schemas.Malformed, schemas.Schema:
			default:
				t.Fatalf("decoding gave %v", rej.Reason)
			}
			if rej.Detail == "" || !utf8.ValidString(rej.Detail) && utf8.Valid(rec) {
				t.Fatalf("rejection detail %q", rej.Detail)
			}
			return
		}
		if m == nil || !schemas.IsMsgId(m.MsgId) || !schemas.IsBIC(m.Sender) || !m.Type.IsInbound() ||
			m.Signer != "" && !schemas.IsBIC(m.Signer) {
			t.Fatalf("decoded an invalid header: %+v", m)
		}
		if m.Type.IsLifecycle() {
			lifecycleInvariants(t, m)
		} else if m.Decision != 0 || m.MatchDigest != "" || m.Affirms != nil || m.Amends != "" || m.RejectReason != nil || m.CancelReason != "" {
			t.Fatalf("a %s holds lifecycle fields: %+v", m.Type, m)
		}
		if m.SignedStart >= 0 && (m.SignedEnd <= m.SignedStart || m.SignedEnd > len(rec)) {
			t.Fatalf("signed range %d..%d of %d", m.SignedStart, m.SignedEnd, len(rec))
		}
		if m.CreatedOutOfRange && m.Created != math.MaxInt64 && m.Created != math.MinInt64 {
			t.Fatalf("Created %d (out of range: %v)", m.Created, m.CreatedOutOfRange)
		}
		if (m.Function != schemas.NEW || m.Type == schemas.CXA || m.Type == schemas.CXJ) && !schemas.IsMsgId(m.RelatedMsgId) {
			t.Fatal("CANCEL/REPLACE without a RelatedMsgId")
		}
		_ = m.Key.TradeKey().String()
	})
}

// lifecycleInvariants: what a decoded AFF, CXL, CXA or CXJ holds (messages.md
// §3a, §4).
func lifecycleInvariants(t *testing.T, m *schemas.Message) {
	if m.Function != schemas.NEW {
		t.Fatalf("%s %s decoded", m.Type, m.Function)
	}
	switch m.Type {
	case schemas.AFF:
		if m.Decision != schemas.AFFIRM && m.Decision != schemas.REJECT || !schemas.IsMatchDigest(m.MatchDigest) ||
			m.Amends != "" && !schemas.IsMatchDigest(m.Amends) || len(m.Affirms) < 1 || len(m.Affirms) > schemas.MaxAffirms ||
			m.RelatedMsgId != "" || m.CancelReason != "" {
			t.Fatalf("AFF %+v", m)
		}
		seen := map[string]bool{}
		for _, tok := range m.Affirms {
			if _, ok := schemas.ParseToken(tok); !ok || seen[tok] {
				t.Fatalf("Affirms token %q", tok)
			}
			seen[tok] = true
		}
		if (m.Decision == schemas.REJECT) != (len(m.RejectReason) > 0) {
			t.Fatalf("%s with RejectReason %q", m.Decision, m.RejectReason)
		}
		for _, c := range m.RejectReason {
			if seen[c] {
				t.Fatalf("RejectReason %q", m.RejectReason)
			}
			seen[c] = true
		}
	case schemas.CXL, schemas.CXJ:
		if m.CancelReason == "" || m.Affirms != nil || m.Decision != 0 {
			t.Fatalf("%s %+v", m.Type, m)
		}
	case schemas.CXA:
		if m.CancelReason != "" || m.Affirms != nil || m.Decision != 0 {
			t.Fatalf("CXA %+v", m)
		}
	}
	if m.Type == schemas.AFF || m.Type == schemas.CXL {
		if m.RelatedMsgId != "" {
			t.Fatalf("%s kept a RelatedMsgId", m.Type)
		}
	}
}
