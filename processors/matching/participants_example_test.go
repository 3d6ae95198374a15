package matching

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ste-utility/ste/schemas"
)

// TestParticipantsWorkedExample plays docs/participants.md §11's worked
// example — the contract's trade BT1 (messages.md §6) — through the engine:
// CNF → AFF → locked; a custodian's corrected SET held as a change with a
// proposal → both principals affirm it → locked on the amended set; CXL →
// CANCEL_PENDING → CXA → CANCELLED. Every status, digest and token the page
// shows is the engine's, and the page shows each of them.
func TestParticipantsWorkedExample(t *testing.T) {
	const (
		brk, im, cus = "BRKASGSGXXX", "IMGRSGSGXXX", "CUSASGSGXXX"
		d0           = "33502b3e6d602bb593de06beb58d90cb6f82a50865b4a4aaf17c14e94ea7bba5" // messages.md §6
		d1           = "b7b0bb50f95e70a3edf7c11959385a74b9c6f14f3fde9ffbde9892ac3d13722c" // the amended set
	)
	key := []schemas.Pair{kv("TradeRef", "BT1"), kv("TradeDate", "2026-11-27"), kv("ISIN", "SG1F53948286"),
		kv("Side", "BUY"), kv("Broker", brk), kv("InvMgr", im)}
	msg := func(id, typ, fn, sender, created string, body ...schemas.Pair) *schemas.Draft {
		return &schemas.Draft{MsgId: id, MsgType: typ, Function: fn, Sender: sender, Created: "2026-11-27T" + created + "Z",
			Body: append(append([]schemas.Pair(nil), key...), body...)}
	}
	set := func(id, fn, created, safe string) *schemas.Draft {
		return msg(id, "SET", fn, cus, created, kv("Account", "ACC|1"), kv("Quantity", "1000"), kv("SettleDate", "2026-11-30"),
			kv("SettleCcy", "SGD"), kv("NetAmount", "10508.40"), kv("Custodian", cus), kv("PSET", "CDPLSGSGXXX"),
			kv("SafekeepingAccount", safe), kv("CashAccount", "CASH1"))
	}
	n1 := msg("N1", "NOE", "NEW", brk, "09:00:00.000", kv("Quantity", "1000"), kv("Price", "10.50"), kv("TradeCcy", "SGD"),
		kv("SettleDate", "2026-11-30"), kv("Market", "XSES"), kv("ExecTime", "2026-11-27T08:59:00.000Z"))
	a1 := msg("A1", "ALC", "NEW", im, "09:05:00.000", kv("AllocCount", "1"), kv("Account", "ACC|1"), kv("Quantity", "1000"),
		kv("Price", "10.50"), kv("TradeCcy", "SGD"), kv("Custodian", cus), kv("PSET", "CDPLSGSGXXX"))
	p1 := msg("P1", "NPR", "NEW", brk, "09:20:00.000", kv("Account", "ACC|1"), kv("Quantity", "1000"), kv("Price", "10.50"),
		kv("TradeCcy", "SGD"), kv("GrossAmount", "10500.00"), kv("Commission", "7.15"), kv("Fees", "1.25"),
		kv("NetAmount", "10508.40"), kv("SettleCcy", "SGD"), kv("SettleDate", "2026-11-30"))
	s1 := set("S1", "NEW", "09:31:00.000", "SAFE1")
	s2 := set("S2", "REPLACE", "10:15:00.000", "SAFE2")
	s2.RelatedMsgId = "S1"
	aff := func(id, sender, created, digest, amends string, toks ...string) *schemas.Draft {
		body := []schemas.Pair{kv("Decision", "AFFIRM"), kv("MatchDigest", digest), kv("Affirms", strings.Join(toks, " "))}
		if amends != "" {
			body = append(body, kv("Amends", amends))
		}
		return msg(id, "AFF", "NEW", sender, created, body...)
	}
	first := []string{brk + ":N1", brk + ":P1", cus + ":S1", im + ":A1"}
	amended := []string{brk + ":N1", brk + ":P1", cus + ":S2", im + ":A1"}

	f := newFixture(t)
	k := schemas.Key{TradeRef: "BT1", TradeDate: "2026-11-27", ISIN: "SG1F53948286", Side: "BUY", Broker: brk, InvMgr: im}
	tk := k.TradeKey()
	status := func(out []schemas.Output) string { // the InvMgr's STATUS Body
		for _, o := range out {
			if o.Type == schemas.STATUS && o.Receiver == im {
				return string(o.Body)
			}
		}
		return ""
	}
	var doc []string // what the page must show
	step := func(name string, out []schemas.Output, wants ...string) {
		t.Helper()
		var all strings.Builder
		for _, o := range out {
			all.WriteString(o.MsgId + " " + string(o.Body) + "\n")
		}
		for _, w := range wants {
			if !strings.Contains(all.String(), w) {
				t.Fatalf("%s: no %q in\n%s", name, w, all.String())
			}
		}
		doc = append(doc, wants...)
	}
	f.sendAll([]*schemas.Draft{n1, a1, p1})
	out := f.send(s1)
	step("the match", out, "CLS-"+tk.String()+"-1", "CNF:"+tk.String()+":1:"+im, "<MatchDigest>"+d0+"</MatchDigest>",
		"<Messages>"+strings.Join(first, " ")+"</Messages>", "<Status>MATCHED</Status>")
	out = f.send(aff("AFF1", im, "09:40:00.000", d0, "", first...))
	step("the affirmation", out, "<Status>AFFIRMED</Status><MatchDigest>"+d0+"</MatchDigest>")
	out = f.send(s2)
	step("the custodian's correction", out, "<Status>CHANGE_PENDING</Status>", "<Pending>"+cus+":S2</Pending>",
		`<Proposal digest="`+d1+`">`+strings.Join(amended, " ")+"</Proposal>")
	if only(out, schemas.CLS) != nil || only(out, schemas.CNF) != nil {
		t.Fatalf("a held change moved the CLS or the CNF: %s", allIDs(out))
	}
	out = f.send(aff("AFF2", im, "10:20:00.000", d1, d0, amended...))
	if st := status(out); strings.Contains(st, "AFFIRMED") || only(out, schemas.CLS) != nil {
		t.Fatalf("one principal's amendment took effect: %s", allIDs(out))
	}
	out = f.send(aff("AFF3", brk, "10:25:00.000", d1, d0, amended...))
	step("both principals affirm", out, "CLS-"+tk.String()+"-1-CANCEL", "CLS-"+tk.String()+"-2", "CNF:"+tk.String()+":2:"+im,
		"<Status>AFFIRMED</Status><MatchDigest>"+d1+"</MatchDigest>")
	out = f.send(msg("X1", "CXL", "NEW", brk, "11:00:00.000", kv("CancelReason", "CLIENT_REQUEST")))
	step("the cancellation request", out, "<Status>CANCEL_PENDING</Status>", `<CancelRequest state="PENDING">`+brk+":X1</CancelRequest>")
	cxa := msg("Y1", "CXA", "NEW", im, "11:05:00.000")
	cxa.RelatedMsgId = "X1"
	out = f.send(cxa)
	step("the acceptance", out, "CLS-"+tk.String()+"-2-CANCEL", ":CANCEL", "<Status>CANCELLED</Status>",
		"<CancelledBy>"+brk+":X1 "+im+":Y1</CancelledBy>")

	page, err := os.ReadFile(filepath.Join("..", "..", "docs", "participants.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range append(doc, d0, d1, tk.String()) {
		if !strings.Contains(string(page), w) && !strings.HasPrefix(w, "CNF:") && w != ":CANCEL" {
			t.Errorf("docs/participants.md §11 does not show %q", w)
		}
	}
}
