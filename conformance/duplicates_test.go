package conformance

import (
	"strings"
	"testing"
	"time"
)

// §4: an exact duplicate of an accepted message is not an error: no
// exception, and the same ACK (same MsgId, same content) again.
func TestDuplicate_Exact_Unmatched_SameACKNoException(t *testing.T) {
	tr := stdTrade("DUP-1")
	noe := tr.NOE()
	r := runMatch(t, lines(noe, noe))
	if len(r.Exc) != 0 {
		t.Errorf("exact duplicate produced an exception:\n%s", r.ExcRaw)
	}
	acks := r.ByID("ACK:" + BRK + ":" + noe.ID())
	if len(acks) != 2 {
		t.Errorf("want the ACK twice (re-emitted for the duplicate), got %d\n%s", len(acks), r.OutRaw)
	}
	if r.num("messages") != 2 || r.num("exceptions") != 0 {
		t.Errorf("summary %s, want messages 2 exceptions 0", r.Stdout)
	}
	if len(r.Out) != 2 {
		t.Errorf("want only the two ACKs, got %d outbound records", len(r.Out))
	}
}

// §4: an exact duplicate when the trade is matched re-emits the ACK and the
// trade's current CLS and STATUS, with MsgIds (and contents) unchanged, and
// changes nothing (no new version or status number).
func TestDuplicate_Exact_Matched_ReemitsACKCLSStatus(t *testing.T) {
	tr := stdTrade("DUP-2")
	ms := tr.All()
	in := append(ms, ms[0]) // duplicate the NOE (not the message that completed the trade)
	r := runMatch(t, lines(in...))
	key := tr.Key()
	if len(r.Exc) != 0 {
		t.Errorf("exceptions:\n%s", r.ExcRaw)
	}
	if n := len(r.ByID("ACK:" + BRK + ":" + ms[0].ID())); n != 2 {
		t.Errorf("ACK of the NOE emitted %d times, want 2", n)
	}
	cls := r.CLSFor(key)
	if len(cls) != 2 || cls[0].ID() != "CLS-"+key+"-1" || cls[1].ID() != "CLS-"+key+"-1" {
		t.Errorf("CLS records %v, want CLS-%s-1 twice (re-emitted for the duplicate)", r.CLSIDs(key), key)
	}
	st := r.Statuses(key)
	rounds := r.StatusRounds(key)
	if len(rounds) != 1 {
		t.Errorf("duplicate created a new status number:\n%s", statusSummary(r, key))
	}
	if len(st) <= 4 {
		t.Errorf("current STATUS not re-emitted for the duplicate (%d STATUS records)", len(st))
	}
	// the duplicate's sender receives its STATUS again
	n := 0
	for _, o := range st {
		if o.ID() == "ST:"+key+":1:"+BRK {
			n++
		}
	}
	if n < 2 {
		t.Errorf("STATUS ST:%s:1:%s emitted %d times, want it re-emitted", key, BRK, n)
	}
	if r.num("cls") != 1 || r.num("messages") != 8 {
		t.Errorf("summary %s", r.Stdout)
	}
}

// §4: same (Sender, MsgId) as an accepted message but different bytes →
// CONFLICTING_DUPLICATE (with a NACK); the accepted one stays in force.
func TestDuplicate_Conflicting(t *testing.T) {
	tr := stdTrade("DUP-3")
	ms := tr.All()
	conf := ms[0].Clone().Set("Price", "12.5")
	in := append([]*Msg{ms[0], conf}, ms[1:]...)
	r := runMatch(t, lines(in...))
	if r.Reason(2) != "CONFLICTING_DUPLICATE" {
		t.Fatalf("line 2: %q, want CONFLICTING_DUPLICATE\n%s", r.Reason(2), r.ExcRaw)
	}
	e := r.ExcAt(2)
	if e["sender"] != BRK || e["msg_id"] != ms[0].ID() {
		t.Errorf("exception sender/msg_id = %v/%v", e["sender"], e["msg_id"])
	}
	nack := "NACK:" + BRK + ":" + ms[0].ID() + ":" + nackHash(conf.Line())
	if o := r.ByID(nack); len(o) != 1 {
		t.Errorf("want one %s", nack)
	} else {
		checkNACK(t, o[0], BRK, ms[0].ID(), "CONFLICTING_DUPLICATE")
	}
	if len(r.CLSFor(tr.Key())) != 1 {
		t.Errorf("trade not matched with the first NOE: %v", r.CLSIDs(tr.Key()))
	} else {
		checkCLSNew(t, r.CLSFor(tr.Key())[0], tr, 1)
	}
	// a conflicting duplicate differing only in its signature bytes / field
	// order is still different bytes
	reord := ms[0].Clone()
	reord.Hdr[0], reord.Hdr[1] = reord.Hdr[1], reord.Hdr[0]
	r2 := runMatch(t, lines(ms[0], reord))
	if r2.Reason(2) != "CONFLICTING_DUPLICATE" {
		t.Errorf("reordered header, same MsgId: %q, want CONFLICTING_DUPLICATE", r2.Reason(2))
	}
}

// checkNACK checks the NACK header and body of §6.
func checkNACK(t *testing.T, o *OutMsg, sender, relID, reason string) {
	t.Helper()
	if o.H("MsgType") != "NACK" || o.H("Function") != "NEW" || o.H("Receiver") != sender {
		t.Errorf("NACK %s header: MsgType %q Function %q Receiver %q", o.ID(), o.H("MsgType"), o.H("Function"), o.H("Receiver"))
	}
	if o.B("RelatedMsgId") != relID {
		t.Errorf("NACK %s body RelatedMsgId %q, want %q", o.ID(), o.B("RelatedMsgId"), relID)
	}
	if o.B("Reason") != reason {
		t.Errorf("NACK %s Reason %q, want %q", o.ID(), o.B("Reason"), reason)
	}
	if o.B("Detail") == "" {
		t.Errorf("NACK %s: empty Detail", o.ID())
	}
}

// §4: a rejected message does not claim its MsgId: a later valid message with
// the same MsgId is accepted; an identical resend of the rejected message is
// rejected again with the same code (its earlier code, not
// CONFLICTING_DUPLICATE, which comes last).
func TestDuplicate_RejectedDoesNotClaimMsgId(t *testing.T) {
	tr := stdTrade("DUP-4")
	good := tr.NOE()
	bad := good.Clone().Set("Quantity", "0") // BAD_AMOUNT
	r := runMatch(t, lines(bad, bad, good, bad, good))
	want := []string{"BAD_AMOUNT", "BAD_AMOUNT", "", "BAD_AMOUNT", ""}
	for i, w := range want {
		if got := r.Reason(i + 1); got != w {
			t.Errorf("line %d: %q, want %q", i+1, got, w)
		}
	}
	acks := r.ByID("ACK:" + BRK + ":" + good.ID())
	if len(acks) != 2 {
		t.Errorf("valid message with the rejected MsgId: %d ACKs, want 2 (accepted, then exact duplicate)", len(acks))
	}
	nack := "NACK:" + BRK + ":" + good.ID() + ":" + nackHash(bad.Line())
	if n := len(r.ByID(nack)); n != 3 {
		t.Errorf("want 3 NACKs %s (same MsgId for identical resends), got %d", nack, n)
	}
	// ids name the physical lines
	for _, n := range []int{1, 2, 4} {
		if r.ExcAt(n) == nil {
			t.Errorf("no exception with id line-%d", n)
		}
	}
}

// §4: an identical resend of a message rejected for any code is rejected
// again with the same code (signature failure here).
func TestDuplicate_IdenticalResendOfRejected_SameCode(t *testing.T) {
	tr := stdTrade("DUP-5")
	m := tr.ALC(0)
	m.SignAs = BRK
	r := runMatch(t, lines(m, m, m))
	for i := 1; i <= 3; i++ {
		if r.Reason(i) != "SIGNATURE" {
			t.Errorf("line %d: %q, want SIGNATURE", i, r.Reason(i))
		}
	}
}

// §4 rule order: a conflicting duplicate that also fails an earlier rule gets
// the earlier code.
func TestDuplicate_ConflictingButInvalid_EarlierCodeWins(t *testing.T) {
	tr := stdTrade("DUP-6")
	noe := tr.NOE()
	for _, c := range []struct {
		name, code string
		mut        func(m *Msg)
	}{
		{"BAD_AMOUNT", "BAD_AMOUNT", func(m *Msg) { m.Set("Price", "-1") }},
		{"BAD_DATE", "BAD_DATE", func(m *Msg) { m.Set("SettleDate", dSat) }},
		{"SIGNATURE", "SIGNATURE", func(m *Msg) { m.SignAs = INV }},
		{"SCHEMA", "SCHEMA", func(m *Msg) { m.Set("Quantity", "1.5") }},
	} {
		m := noe.Clone()
		c.mut(m)
		r := runMatch(t, lines(noe, m))
		if r.Reason(2) != c.code {
			t.Errorf("%s: line 2 %q, want %q", c.name, r.Reason(2), c.code)
		}
	}
}

// §4: the duplicate check is per (Sender, MsgId): the same MsgId from two
// senders is two messages.
func TestDuplicate_IdentityIsSenderAndMsgId(t *testing.T) {
	tr := stdTrade("DUP-7")
	ms := tr.All()
	for _, m := range ms {
		m.Set("MsgId", "SAME-ID-"+m.Get("MsgType"))
	}
	// NPR1/NPR2 and SET1/SET2 need distinct ids within a sender: NPRs share a
	// sender, SETs do not.
	ms[3].Set("MsgId", "SAME-ID-NPR1")
	ms[4].Set("MsgId", "SAME-ID-NPR2")
	ms[1].Set("MsgId", "SAME-ID-ALC1")
	ms[2].Set("MsgId", "SAME-ID-ALC2")
	ms[5].Set("MsgId", "SAME-ID-SET") // CUSA
	ms[6].Set("MsgId", "SAME-ID-SET") // CUSB: same MsgId, other sender
	r := runMatch(t, lines(ms...))
	if len(r.Exc) != 0 {
		t.Errorf("exceptions:\n%s", r.ExcRaw)
	}
	if len(r.CLSFor(tr.Key())) != 1 {
		t.Errorf("not matched: %v", r.CLSIDs(tr.Key()))
	}
	_ = strings.Join
	_ = time.Second
}

// §4: an exact duplicate re-emits the trade's *current* CLS and STATUS: after
// a compensation (v2, status 2), a duplicate of the NOE re-emits CLS v2 and
// the STATUS of round 2, with unchanged MsgIds; a duplicate of a message no
// longer in force does the same.
func TestDuplicate_Exact_AfterCompensation_ReemitsCurrentVersion(t *testing.T) {
	tr := stdTrade("DUP-8")
	ms := tr.All()
	rp := Replace(ms[6], "DUP-8-SET2-R", tr.Base.Add(time.Hour), "CashAccount", "CA-NEW")
	in := append(ms, rp, ms[0], ms[6])
	r := runMatch(t, lines(in...))
	key := tr.Key()
	want := []string{"CLS-" + key + "-1", "CLS-" + key + "-1-CANCEL", "CLS-" + key + "-2", "CLS-" + key + "-2", "CLS-" + key + "-2"}
	if got := r.CLSIDs(key); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("CLS sequence %v, want %v", got, want)
	}
	if n := len(r.StatusRounds(key)); n != 2 {
		t.Errorf("duplicates created status numbers:\n%s", statusSummary(r, key))
	}
	st := r.Statuses(key)
	tail := st[len(st)-1]
	if !strings.HasPrefix(tail.ID(), "ST:"+key+":2:") {
		t.Errorf("last STATUS re-emitted is %s, want one of round 2", tail.ID())
	}
	for _, o := range st {
		if strings.HasPrefix(o.ID(), "ST:"+key+":1:") && o != st[0] && o != st[1] && o != st[2] && o != st[3] {
			t.Errorf("round 1 STATUS %s re-emitted after the compensation (not the current status)", o.ID())
		}
	}
	if len(r.Exc) != 0 {
		t.Errorf("exceptions:\n%s", r.ExcRaw)
	}
}
