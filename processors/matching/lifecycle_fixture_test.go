package matching

import (
	"strings"
	"testing"

	"github.com/ste-utility/ste/schemas"
)

// Lifecycle messages for tests. Until the wire decoder reads AFF, CXL, CXA
// and CXJ (schemas.Decoder), decodeDraft builds their schemas.Message from
// the draft's fields, as the decoder will.

const utility = "STEUTLSGXXX"

func decodeDraft(dec *schemas.Decoder, d *schemas.Draft, rec []byte) (*schemas.Message, *schemas.Rejection) {
	var typ schemas.MsgType
	switch d.MsgType {
	case "AFF":
		typ = schemas.AFF
	case "CXL":
		typ = schemas.CXL
	case "CXA":
		typ = schemas.CXA
	case "CXJ":
		typ = schemas.CXJ
	default:
		return dec.Decode(rec)
	}
	created, err := schemas.ParseTimestamp(d.Created)
	if err != nil {
		return nil, &schemas.Rejection{Reason: schemas.Schema, Detail: err.Error()}
	}
	m := &schemas.Message{Raw: rec, MsgId: d.MsgId, Type: typ, Function: schemas.NEW, Sender: d.Sender,
		Created: created, RelatedMsgId: d.RelatedMsgId}
	m.Key = schemas.Key{TradeRef: d.Get("TradeRef"), TradeDate: d.Get("TradeDate"), ISIN: d.Get("ISIN"),
		Side: d.Get("Side"), Broker: d.Get("Broker"), InvMgr: d.Get("InvMgr")}
	switch d.Get("Decision") {
	case "AFFIRM":
		m.Decision = schemas.AFFIRM
	case "REJECT":
		m.Decision = schemas.REJECT
	}
	m.MatchDigest, m.Amends, m.CancelReason = d.Get("MatchDigest"), d.Get("Amends"), d.Get("CancelReason")
	m.Affirms = strings.Fields(d.Get("Affirms"))
	m.RejectReason = strings.Fields(d.Get("RejectReason"))
	return m, nil
}

// lifecycle is a lifecycle draft of trade ref.
func lifecycle(ref, id, typ, sender string, minutes int, body ...schemas.Pair) *schemas.Draft {
	return draft(id, typ, sender, minutes, ref, body...)
}

// aff is an AFF of trade ref naming toks with digest; amends "" for a first
// affirmation.
func aff(ref, id, sender string, minutes int, decision string, toks []string, digest, amends string, reasons ...string) *schemas.Draft {
	body := []schemas.Pair{kv("Decision", decision), kv("MatchDigest", digest), kv("Affirms", strings.Join(toks, " "))}
	if amends != "" {
		body = append(body, kv("Amends", amends))
	}
	if len(reasons) > 0 {
		body = append(body, kv("RejectReason", strings.Join(reasons, " ")))
	}
	return lifecycle(ref, id, "AFF", sender, minutes, body...)
}

// affirm affirms the trade's messages in force now (what its CNF says).
func affirm(id, sender string, minutes int, tr *Trade, amends string) *schemas.Draft {
	a := assess(tr, nil)
	return aff(tr.Keys[0].TradeRef, id, sender, minutes, "AFFIRM", a.match.tokens, a.match.hex, amends)
}

// reject rejects the trade's messages in force now.
func reject(id, sender string, minutes int, tr *Trade, reasons string) *schemas.Draft {
	a := assess(tr, nil)
	return aff(tr.Keys[0].TradeRef, id, sender, minutes, "REJECT", a.match.tokens, a.match.hex, "", strings.Fields(reasons)...)
}

func cxl(id, sender string, minutes int, reason string) *schemas.Draft {
	ref, _, _ := strings.Cut(id, "-")
	return lifecycle(ref, id, "CXL", sender, minutes, kv("CancelReason", reason))
}

func cxa(id, sender string, minutes int, related string) *schemas.Draft {
	ref, _, _ := strings.Cut(id, "-")
	d := lifecycle(ref, id, "CXA", sender, minutes)
	d.RelatedMsgId = related
	return d
}

func cxj(id, sender string, minutes int, related, reason string) *schemas.Draft {
	ref, _, _ := strings.Cut(id, "-")
	d := lifecycle(ref, id, "CXJ", sender, minutes, kv("CancelReason", reason))
	d.RelatedMsgId = related
	return d
}

// setOf is what an AFF naming ds says: their tokens (byte order) and their
// MatchDigest, computed by matching ds alone in a scratch book.
func setOf(t testing.TB, ds ...*schemas.Draft) (toks []string, digest string) {
	t.Helper()
	f := newFixture(t)
	f.sendAll(ds)
	tr := f.book.Trade(tradeKey(ds[0].Get("TradeRef")))
	a := assess(tr, nil)
	if !a.matched() || len(a.match.set) != len(ds) {
		t.Fatalf("setOf: the drafts do not match on their own")
	}
	return a.match.tokens, a.match.hex
}
