package conformance

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

var allParties = []string{BRK, INV, CUSA, CUSB}

// §5: a CANCEL that arrives before its related message is remembered; the
// related message is out of force at once. A later new ALC completes it.
func TestLifecycle_CancelBeforeOriginal(t *testing.T) {
	tr := stdTrade("CXB-1")
	ms := tr.All()
	cx := Cancel(ms[2], "CXB-1-ALC2-CX", tr.Base.Add(30*time.Minute))
	r := runMatch(t, lines(append([]*Msg{cx}, ms...)...))
	expectAccepted(t, r, cx)
	expectNoOutputsFor(t, r, tr.Key())
	if r.num("cls") != 0 || r.num("mismatched") != 0 {
		t.Errorf("summary %s, want cls 0 mismatched 0", r.Stdout)
	}
	// the same followed by a fresh ALC2 with another MsgId: matched
	alc2b := tr.ALC(1).Set("MsgId", "CXB-1-ALC2-B")
	r2 := runMatch(t, lines(append(append([]*Msg{cx}, ms...), alc2b)...))
	if len(r2.CLSFor(tr.Key())) != 1 {
		t.Fatalf("not matched after a new ALC2: %v\n%s", r2.CLSIDs(tr.Key()), r2.dump())
	}
	checkCLSNew(t, r2.CLSFor(tr.Key())[0], tr, 1)
}

// §5: a REPLACE that arrives before its related message: the related message
// is out of force at once and the REPLACE is in force. ALC2 has a wrong price
// that the (earlier) REPLACE corrects, so the trade is never mismatched.
func TestLifecycle_ReplaceBeforeOriginal(t *testing.T) {
	tr := stdTrade("RPB-1")
	ms := tr.All()
	good := ms[2].Clone()
	ms[2].Set("Price", "99")
	rp := Replace(ms[2], "RPB-1-ALC2-R", tr.Base.Add(2*time.Minute), "Price", good.Get("Price"))
	r := runMatch(t, lines(append([]*Msg{rp}, ms...)...))
	expectAccepted(t, r, rp)
	key := tr.Key()
	if ids := r.CLSIDs(key); len(ids) != 1 {
		t.Fatalf("want one CLS NEW, got %v\n%s", ids, statusSummary(r, key))
	}
	checkCLSNew(t, r.CLSFor(key)[0], tr, 1)
	expectStatusRound(t, r, key, 1, "MATCHED", allParties...)
	if len(r.StatusRounds(key)) != 1 {
		t.Errorf("want only the MATCHED round:\n%s", statusSummary(r, key))
	}
}

// §3: two REPLACEs of one message both stay in force (AllocCount 3: the two
// replacements of ALC2 and ALC1 make three allocations).
func TestLifecycle_TwoReplacesOfOneMessage_BothInForce(t *testing.T) {
	tr := stdTrade("TWR-1")
	tr.Allocs = []Alloc{
		{Acct: "ACCA001", Qty: 1000, Cust: CUSA, PSET: CSD, Comm: "10.00", Fees: "1.50"},
		{Acct: "ACCB002", Qty: 250, Cust: CUSB, PSET: CSD, Comm: "5.00", Fees: "0.75"},
		{Acct: "ACCC003", Qty: 250, Cust: CUSC, PSET: CSD, Comm: "5.00", Fees: "0.75"},
	}
	alc2 := tr.ALC(1).Set("Account", "ACCOLD")
	alc3 := tr.ALC(2)
	r1 := Replace(alc2, "TWR-1-ALC2-R1", tr.Base.Add(5*time.Minute), "Account", "ACCB002")
	r2 := Replace(alc2, "TWR-1-ALC2-R2", tr.Base.Add(6*time.Minute), "Account", "ACCC003", "Custodian", CUSC)
	r2.Set("Quantity", alc3.Get("Quantity"))
	in := []*Msg{tr.NOE(), tr.ALC(0), alc2, r1, r2, tr.NPR(0), tr.NPR(1), tr.NPR(2), tr.SET(0), tr.SET(1), tr.SET(2)}
	r := runMatch(t, lines(in...))
	key := tr.Key()
	if len(r.CLSFor(key)) != 1 {
		t.Fatalf("two REPLACEs of ALC2 not both in force: CLS %v\n%s", r.CLSIDs(key), statusSummary(r, key))
	}
	checkCLSNew(t, r.CLSFor(key)[0], tr, 1)
}

// §3: a REPLACE may itself be replaced; only the newest is in force.
func TestLifecycle_ReplaceOfReplace(t *testing.T) {
	tr := stdTrade("ROR-1")
	ms := tr.All()
	t1 := tr.Base.Add(time.Hour)
	r1 := Replace(ms[2], "ROR-1-ALC2-R1", t1, "Price", "12.99")
	r2 := Replace(r1, "ROR-1-ALC2-R2", t1.Add(time.Minute), "Price", "12.345")
	r := runMatch(t, lines(append(ms, r1, r2)...))
	key := tr.Key()
	expectAccepted(t, r, r1, r2)
	// matched (v1), r1 → mismatched (CLS CANCEL), r2 → matched again (v2)
	want := []string{"CLS-" + key + "-1", "CLS-" + key + "-1-CANCEL", "CLS-" + key + "-2"}
	if got := r.CLSIDs(key); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("CLS sequence %v, want %v", got, want)
	}
	if cls := r.CLSFor(key); len(cls) == 3 {
		checkCLSNewAt(t, cls[2], tr, 2, ts(t1.Add(time.Minute)))
	}
	expectStatusRound(t, r, key, 1, "MATCHED", allParties...)
	s2 := expectStatusRound(t, r, key, 2, "MISMATCHED", allParties...)
	expectStatusRound(t, r, key, 3, "MATCHED", allParties...)
	if len(s2) > 0 {
		want7 := discSpec(map[int][]*Msg{7: {ms[0], ms[1], r1, ms[3], ms[4]}})
		if d := discrepancies(s2[0]); d != want7 {
			t.Errorf("round 2 discrepancies %s, want %s", d, want7)
		}
	}
	if r.num("cls") != 1 || r.num("mismatched") != 0 {
		t.Errorf("summary %s", r.Stdout)
	}
}

// §5 compensation: a REPLACE changing a CLS field of a matched trade gives a
// CLS CANCEL for v1 (RelatedMsgId = the NEW's MsgId), then CLS NEW v2 and a
// STATUS MATCHED n=2.
func TestLifecycle_Compensation_ReplaceChangesCLS(t *testing.T) {
	tr := stdTrade("CMP-1")
	ms := tr.All()
	t1 := tr.Base.Add(time.Hour)
	rp := Replace(ms[6], "CMP-1-SET2-R", t1, "SafekeepingAccount", "SK-NEW")
	r := runMatch(t, lines(append(ms, rp)...))
	key := tr.Key()
	cls := r.CLSFor(key)
	want := []string{"CLS-" + key + "-1", "CLS-" + key + "-1-CANCEL", "CLS-" + key + "-2"}
	if got := r.CLSIDs(key); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("CLS sequence %v, want %v", got, want)
	}
	cx := cls[1]
	if cx.H("Function") != "CANCEL" || cx.H("MsgType") != "CLS" || cx.H("RelatedMsgId") != "CLS-"+key+"-1" {
		t.Errorf("CLS CANCEL header: MsgType %q Function %q RelatedMsgId %q", cx.H("MsgType"), cx.H("Function"), cx.H("RelatedMsgId"))
	}
	if cx.B("TradeKey") != key || cx.B("Version") != "1" {
		t.Errorf("CLS CANCEL body: %s, want TradeKey %s Version 1", cx.RawBody, key)
	}
	if cx.H("Receiver") != utilityBIC {
		t.Errorf("CLS CANCEL Receiver %q", cx.H("Receiver"))
	}
	v2 := cls[2]
	if v2.B("Version") != "2" || v2.B("MatchedAt") != ts(t1) {
		t.Errorf("CLS v2: Version %q MatchedAt %q, want 2 and %s", v2.B("Version"), v2.B("MatchedAt"), ts(t1))
	}
	legs := v2.Body.KidsNamed("Leg")
	if len(legs) == 2 && legs[1].T("SafekeepingAccount") != "SK-NEW" {
		t.Errorf("CLS v2 leg 2 SafekeepingAccount %q, want SK-NEW", legs[1].T("SafekeepingAccount"))
	}
	expectStatusRound(t, r, key, 1, "MATCHED", allParties...)
	expectStatusRound(t, r, key, 2, "MATCHED", allParties...)
	if n := len(r.StatusRounds(key)); n != 2 {
		t.Errorf("want 2 status rounds, got:\n%s", statusSummary(r, key))
	}
	if r.num("cls") != 1 {
		t.Errorf("summary %s, want cls 1", r.Stdout)
	}
}

// §5: a change that leaves the CLS content identical emits nothing (but the
// ACK): a REPLACE of the NOE changing only Market and ExecTime, with a Created
// no later than the trade's latest (so MatchedAt is unchanged).
func TestLifecycle_ChangeWithIdenticalCLS_EmitsNothing(t *testing.T) {
	tr := stdTrade("IDC-1")
	ms := tr.All()
	rp := Replace(ms[0], "IDC-1-NOE-R", tr.Base.Add(5*time.Minute), "Market", "XSGX", "ExecTime", ts(tr.Base.Add(-time.Minute)))
	r := runMatch(t, lines(append(ms, rp)...))
	key := tr.Key()
	if got := r.CLSIDs(key); len(got) != 1 {
		t.Errorf("CLS %v, want only CLS-%s-1", got, key)
	}
	if n := len(r.StatusRounds(key)); n != 1 {
		t.Errorf("want one status round:\n%s", statusSummary(r, key))
	}
	// the REPLACE produced exactly its ACK
	if n := len(r.Out); n != len(ms)+1+4 {
		t.Errorf("%d outbound records, want %d (8 ACKs + 4 STATUS)", n, len(ms)+1+4)
	}
	expectAccepted(t, r, rp)
}

// §5: matched → CANCEL of a SET → CLS CANCEL and STATUS UNMATCHED; a new SET
// then gives CLS NEW v2 and STATUS MATCHED (n=3).
func TestLifecycle_CancelSETAfterMatch_UnmatchedThenRematch(t *testing.T) {
	tr := stdTrade("CXS-1")
	ms := tr.All()
	t1 := tr.Base.Add(time.Hour)
	cx := Cancel(ms[6], "CXS-1-SET2-CX", t1)
	set2b := tr.SET(1).Set("MsgId", "CXS-1-SET2-B").Set("Created", ts(t1.Add(time.Minute)))
	key := tr.Key()

	r := runMatch(t, lines(append(ms, cx)...))
	want := []string{"CLS-" + key + "-1", "CLS-" + key + "-1-CANCEL"}
	if got := r.CLSIDs(key); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("CLS sequence %v, want %v", got, want)
	}
	expectStatusRound(t, r, key, 1, "MATCHED", allParties...)
	expectStatusRound(t, r, key, 2, "UNMATCHED", allParties...)
	if r.num("cls") != 0 || r.num("mismatched") != 0 {
		t.Errorf("summary %s, want cls 0 mismatched 0", r.Stdout)
	}

	r2 := runMatch(t, lines(append(ms, cx, set2b)...))
	want = append(want, "CLS-"+key+"-2")
	if got := r2.CLSIDs(key); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("CLS sequence %v, want %v", got, want)
	}
	if cls := r2.CLSFor(key); len(cls) == 3 {
		checkCLSNewAt(t, cls[2], tr, 2, ts(t1.Add(time.Minute)))
	}
	expectStatusRound(t, r2, key, 3, "MATCHED", allParties...)
}

// §5: a mismatched trade that a REPLACE fixes becomes matched: STATUS MATCHED
// (n=2) and CLS NEW version 1 (no CLS CANCEL: nothing was emitted before).
func TestLifecycle_MismatchedThenFixed(t *testing.T) {
	tr := stdTrade("MTF-1")
	ms := tr.All()
	ms[6].Set("PSET", CSD2)
	fix := Replace(ms[6], "MTF-1-SET2-R", tr.Base.Add(time.Hour), "PSET", CSD)
	r := runMatch(t, lines(append(ms, fix)...))
	key := tr.Key()
	expectStatusRound(t, r, key, 1, "MISMATCHED", allParties...)
	expectStatusRound(t, r, key, 2, "MATCHED", allParties...)
	if got := r.CLSIDs(key); len(got) != 1 || got[0] != "CLS-"+key+"-1" {
		t.Errorf("CLS %v, want [CLS-%s-1]", got, key)
	}
}

// §5: a mismatched trade that stops being complete → STATUS UNMATCHED.
func TestLifecycle_MismatchedThenIncomplete_Unmatched(t *testing.T) {
	tr := stdTrade("MTU-1")
	ms := tr.All()
	ms[6].Set("PSET", CSD2)
	cx := Cancel(ms[3], "MTU-1-NPR1-CX", tr.Base.Add(time.Hour))
	r := runMatch(t, lines(append(ms, cx)...))
	key := tr.Key()
	expectStatusRound(t, r, key, 1, "MISMATCHED", allParties...)
	expectStatusRound(t, r, key, 2, "UNMATCHED", allParties...)
	if r.num("mismatched") != 0 || r.num("cls") != 0 {
		t.Errorf("summary %s, want cls 0 mismatched 0", r.Stdout)
	}
}

// §3: a CANCEL acts only on the Sender's own message of that MsgType: the
// InvMgr cannot cancel the broker's NOE (NOT_AUTHORISED) and the broker's
// NOE CANCEL naming the InvMgr's ALC MsgId matches nothing.
func TestLifecycle_CancelOnlyOwnMessages(t *testing.T) {
	tr := stdTrade("OWN-1")
	ms := tr.All()
	// Broker sends an NOE CANCEL whose RelatedMsgId is the ALC1's MsgId.
	cx := Cancel(ms[0], "OWN-1-NOE-CX", tr.Base.Add(time.Hour))
	cx.Set("RelatedMsgId", ms[1].ID())
	r := runMatch(t, lines(append(ms, cx)...))
	key := tr.Key()
	expectAccepted(t, r, cx)
	if got := r.CLSIDs(key); len(got) != 1 {
		t.Errorf("CLS %v: the CANCEL must not take ALC1 out of force", got)
	}
}

// ---------------------------------------------------------------------------
// Retention (§5)

// A trade whose newest Created is more than the retention behind the newest
// accepted Created is purged: EXPIRED to its parties if not matched. The
// boundary is strict ("more than").
func TestRetention_UnmatchedTradeExpires(t *testing.T) {
	a := stdTrade("RTA-1") // newest Created: base+10m (NPR1) in this subset
	am := a.All()
	in := []*Msg{am[0], am[1], am[3]} // NOE, ALC1, NPR1 — incomplete
	newest := a.Base.Add(10 * time.Minute)
	// another trade's messages advance the clock
	b := stdTrade("RTB-1")
	b.Base = newest.Add(time.Hour) // exactly 1h later: not more than the retention
	bNOE := b.NOE()
	c := stdTrade("RTC-1")
	c.Base = newest.Add(time.Hour + time.Millisecond)
	cNOE := c.NOE()

	r := runMatch(t, lines(append(in, bNOE)...), withRetention("1h"))
	if s := r.Statuses(a.Key()); len(s) != 0 {
		t.Errorf("trade purged at exactly the retention (must be more than):\n%s", statusSummary(r, a.Key()))
	}
	r2 := runMatch(t, lines(append(in, bNOE, cNOE)...), withRetention("1h"))
	expectStatusRound(t, r2, a.Key(), 1, "EXPIRED", BRK, INV, CUSA)
	if n := len(r2.StatusRounds(a.Key())); n != 1 {
		t.Errorf("want one status round:\n%s", statusSummary(r2, a.Key()))
	}
	for _, o := range r2.Statuses(a.Key()) {
		if o.B("TradeRef") != a.Ref {
			t.Errorf("EXPIRED STATUS TradeRef %q", o.B("TradeRef"))
		}
	}
	// trades b and c (single NOEs, Created within the window) are not purged
	expectNoOutputsFor(t, r2, b.Key())
	expectNoOutputsFor(t, r2, c.Key())
}

// A mismatched trade that is purged gets EXPIRED too (it is not matched).
func TestRetention_MismatchedTradeExpires(t *testing.T) {
	a := stdTrade("RTM-1")
	ms := a.All()
	ms[6].Set("PSET", CSD2)
	late := stdTrade("RTM-2")
	late.Base = a.Base.Add(5 * time.Hour)
	r := runMatch(t, lines(append(ms, late.NOE())...), withRetention("1h"))
	expectStatusRound(t, r, a.Key(), 1, "MISMATCHED", allParties...)
	expectStatusRound(t, r, a.Key(), 2, "EXPIRED", allParties...)
	if r.num("mismatched") != 0 {
		t.Errorf("summary %s: a purged trade is not mismatched at the end", r.Stdout)
	}
}

// A matched trade is purged silently; a trade with no message in force is
// purged silently.
func TestRetention_MatchedAndEmptyTradesPurgedSilently(t *testing.T) {
	m := stdTrade("RTS-1")
	e := stdTrade("RTS-2")
	eNOE := e.NOE()
	eCX := Cancel(eNOE, "RTS-2-NOE-CX", e.Base.Add(time.Minute))
	late := stdTrade("RTS-3")
	late.Base = m.Base.Add(5 * time.Hour)
	in := append(m.All(), eNOE, eCX, late.NOE())
	r := runMatch(t, lines(in...), withRetention("1h"))
	key := m.Key()
	if n := len(r.StatusRounds(key)); n != 1 {
		t.Errorf("matched trade: want only the MATCHED round, got:\n%s", statusSummary(r, key))
	}
	if got := r.CLSIDs(key); len(got) != 1 {
		t.Errorf("matched trade purged: CLS %v, want only v1 (no CLS CANCEL on purge)", got)
	}
	expectNoOutputsFor(t, r, e.Key())
}

// Only accepted, non-duplicate messages advance the event-time clock: a
// rejected message with a far later Created does not purge anything.
func TestRetention_RejectedMessageDoesNotAdvanceClock(t *testing.T) {
	a := stdTrade("RTR-1")
	late := stdTrade("RTR-2")
	late.Base = a.Base.Add(5 * time.Hour)
	bad := late.NOE()
	bad.SigText = sp(signB64(INV, []byte(bad.SignedRegion()))) // SIGNATURE
	in := []*Msg{a.NOE(), bad}
	r := runMatch(t, lines(in...), withRetention("1h"))
	if r.Reason(2) != "SIGNATURE" {
		t.Fatalf("line 2: %q, want SIGNATURE", r.Reason(2))
	}
	expectNoOutputsFor(t, r, a.Key())
}

// A message for a purged trade starts a new trade whose version and status
// numbers continue from the tombstone (no MsgId reused with other content).
func TestRetention_TombstoneContinuesNumbers(t *testing.T) {
	// (1) unmatched trade expires (status 1 EXPIRED), then a full set with new
	// MsgIds matches: STATUS n=2, CLS v1.
	a := stdTrade("RTT-1")
	am := a.All()
	later := *a
	later.IDPrefix = "RTT-1-B"
	later.Base = a.Base.Add(5 * time.Hour)
	filler := stdTrade("RTT-F")
	filler.Base = a.Base.Add(3 * time.Hour)
	in := append([]*Msg{am[0], am[1]}, filler.NOE())
	in = append(in, later.All()...)
	r := runMatch(t, lines(in...), withRetention("1h"))
	key := a.Key()
	expectStatusRound(t, r, key, 1, "EXPIRED", BRK, INV, CUSA)
	expectStatusRound(t, r, key, 2, "MATCHED", allParties...)
	if got := r.CLSIDs(key); len(got) != 1 || got[0] != "CLS-"+key+"-1" {
		t.Errorf("CLS %v, want [CLS-%s-1]", got, key)
	}

	// (2) matched trade purged silently (CLS v1, status 1), then a full set
	// with new MsgIds matches again: CLS v2 and STATUS n=2.
	m := stdTrade("RTT-2")
	m2 := *m
	m2.IDPrefix = "RTT-2-B"
	m2.Base = m.Base.Add(5 * time.Hour)
	f2 := stdTrade("RTT-G")
	f2.Base = m.Base.Add(3 * time.Hour)
	in = append(m.All(), f2.NOE())
	in = append(in, m2.All()...)
	r2 := runMatch(t, lines(in...), withRetention("1h"))
	key = m.Key()
	want := []string{"CLS-" + key + "-1", "CLS-" + key + "-2"}
	if got := r2.CLSIDs(key); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("CLS %v, want %v (versions continue from the tombstone)", got, want)
	}
	expectStatusRound(t, r2, key, 1, "MATCHED", allParties...)
	expectStatusRound(t, r2, key, 2, "MATCHED", allParties...)
	if cls := r2.CLSFor(key); len(cls) == 2 {
		checkCLSNewAt(t, cls[1], &m2, 2, m2.LatestCreated())
	}
	_ = fmt.Sprint
}

// §3: a REPLACE may be cancelled: ALC2 replaced, then the REPLACE cancelled →
// neither in force → STATUS UNMATCHED and CLS CANCEL.
func TestLifecycle_CancelOfReplace(t *testing.T) {
	tr := stdTrade("COR-1")
	ms := tr.All()
	t1 := tr.Base.Add(time.Hour)
	rp := Replace(ms[2], "COR-1-ALC2-R", t1)
	cx := Cancel(rp, "COR-1-ALC2-R-CX", t1.Add(time.Minute))
	r := runMatch(t, lines(append(ms, rp, cx)...))
	key := tr.Key()
	// rp changes MatchedAt only → v1 CANCEL, v2 NEW; then cx → v2 CANCEL
	want := []string{"CLS-" + key + "-1", "CLS-" + key + "-1-CANCEL", "CLS-" + key + "-2", "CLS-" + key + "-2-CANCEL"}
	if got := r.CLSIDs(key); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("CLS sequence %v, want %v", got, want)
	}
	rounds := r.StatusRounds(key)
	last := len(rounds)
	if last == 0 || len(rounds[last]) == 0 || rounds[last][0].B("Status") != "UNMATCHED" {
		t.Errorf("last status is not UNMATCHED:\n%s", statusSummary(r, key))
	}
	if r.num("cls") != 0 {
		t.Errorf("summary %s, want cls 0", r.Stdout)
	}
}

// §3: a CANCEL acts on the Sender's message *of that MsgType*: an NPR CANCEL
// naming the NOE's MsgId (same sender) acts on nothing.
func TestLifecycle_CancelOfOtherMsgType_ActsOnNothing(t *testing.T) {
	tr := stdTrade("CMT-1")
	ms := tr.All()
	cx := Cancel(ms[3], "CMT-1-NPR-CX", tr.Base.Add(time.Hour)) // MsgType NPR, sender broker
	cx.Set("RelatedMsgId", ms[0].ID())                          // the NOE's MsgId
	r := runMatch(t, lines(append(ms, cx)...))
	key := tr.Key()
	expectAccepted(t, r, cx)
	if got := r.CLSIDs(key); len(got) != 1 {
		t.Errorf("CLS %v: an NPR CANCEL must not take the NOE out of force", got)
	}
	if n := len(r.StatusRounds(key)); n != 1 {
		t.Errorf("status rounds:\n%s", statusSummary(r, key))
	}
}

// §3: a REPLACE with other key fields is a message of another trade whose
// RelatedMsgId matches nothing there: the original trade stays matched.
func TestLifecycle_ReplaceWithOtherKeyFields_IsAnotherTrade(t *testing.T) {
	tr := stdTrade("RKF-1")
	ms := tr.All()
	rp := Replace(ms[0], "RKF-1-NOE-R", tr.Base.Add(time.Hour), "TradeRef", "RKF-1-NEW")
	r := runMatch(t, lines(append(ms, rp)...))
	key := tr.Key()
	expectAccepted(t, r, rp)
	if got := r.CLSIDs(key); len(got) != 1 {
		t.Errorf("CLS %v, want the original trade untouched", got)
	}
	other := tradeKey("RKF-1-NEW", tr.TDate, tr.ISIN, tr.Side, tr.Broker, tr.InvMgr)
	expectNoOutputsFor(t, r, other)
	if r.num("cls") != 1 {
		t.Errorf("summary %s", r.Stdout)
	}
}

// §5 retention default is 72 h: a trade 72 h + 1 ms behind expires, one
// exactly 72 h behind does not.
func TestRetention_Default72h(t *testing.T) {
	a := stdTrade("R72-1")
	b := stdTrade("R72-2")
	b.Base = a.Base.Add(72 * time.Hour)
	c := stdTrade("R72-3")
	c.Base = a.Base.Add(72*time.Hour + time.Millisecond)
	r := runMatch(t, lines(a.NOE(), b.NOE()))
	expectNoOutputsFor(t, r, a.Key())
	r2 := runMatch(t, lines(a.NOE(), c.NOE()))
	expectStatusRound(t, r2, a.Key(), 1, "EXPIRED", BRK, INV)
}

// §5: a trade with only a CANCEL (for a message never seen) has no message in
// force and is purged silently.
func TestRetention_CancelOnlyTradePurgedSilently(t *testing.T) {
	a := stdTrade("RCO-1")
	cx := Cancel(a.NOE(), "RCO-1-CX", a.Base)
	late := stdTrade("RCO-2")
	late.Base = a.Base.Add(5 * time.Hour)
	r := runMatch(t, lines(cx, late.NOE()), withRetention("1h"))
	expectNoOutputsFor(t, r, a.Key())
}

// §5 "Only accepted, non-duplicate messages advance this clock": a rejected
// CONFLICTING_DUPLICATE or BAD_AMOUNT message with a much later Created does
// not purge anything; an exact duplicate neither.
func TestRetention_RejectedConflictingDuplicateDoesNotAdvanceClock(t *testing.T) {
	a := stdTrade("RCD-1")
	b := stdTrade("RCD-2")
	bNOE := b.NOE()
	conf := bNOE.Clone().Set("Created", ts(a.Base.Add(5*time.Hour)))
	badAmt := stdTrade("RCD-3").NOE().Set("Created", ts(a.Base.Add(6*time.Hour))).Set("Quantity", "0")
	r := runMatch(t, lines(a.NOE(), bNOE, conf, badAmt, bNOE), withRetention("1h"))
	if r.Reason(3) != "CONFLICTING_DUPLICATE" || r.Reason(4) != "BAD_AMOUNT" {
		t.Fatalf("codes %q %q", r.Reason(3), r.Reason(4))
	}
	expectNoOutputsFor(t, r, a.Key())
	expectNoOutputsFor(t, r, b.Key())
}

// docs/spec/cli.md: `cls` is the number of trades matched at the end. A matched trade
// purged by retention is purged *silently* (§5): its CLS stays in force (no
// CLS CANCEL), its last status is MATCHED, so it still counts.
// [interpretation: "matched at the end" = CLS in force at the end]
func TestSummary_PurgedMatchedTradeStillCountsInCLS(t *testing.T) {
	m := stdTrade("SPM-1")
	late := stdTrade("SPM-2")
	late.Base = m.Base.Add(5 * time.Hour)
	r := runMatch(t, lines(append(m.All(), late.NOE())...), withRetention("1h"))
	if got := r.CLSIDs(m.Key()); len(got) != 1 {
		t.Fatalf("CLS %v", got)
	}
	if r.num("cls") != 1 {
		t.Errorf("summary %s: cls = %d, want 1 (the matched trade's CLS stands; its purge is silent)", r.Stdout, r.num("cls"))
	}
}

// §5: k is the largest AllocCount among the ALCs in force: a REPLACE raising
// ALC1's AllocCount to 3 makes a matched trade incomplete → CLS CANCEL and
// STATUS UNMATCHED.
func TestLifecycle_ReplaceRaisesAllocCount_Unmatched(t *testing.T) {
	tr := stdTrade("RAK-1")
	ms := tr.All()
	rp := Replace(ms[1], "RAK-1-ALC1-R", tr.Base.Add(time.Hour), "AllocCount", "3")
	r := runMatch(t, lines(append(ms, rp)...))
	key := tr.Key()
	want := []string{"CLS-" + key + "-1", "CLS-" + key + "-1-CANCEL"}
	if got := r.CLSIDs(key); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("CLS %v, want %v", got, want)
	}
	expectStatusRound(t, r, key, 2, "UNMATCHED", allParties...)
}

// §5: a trade that becomes mismatched again (after being incomplete) gets a
// new STATUS MISMATCHED even with the same failing criteria.
func TestLifecycle_MismatchedAgainAfterUnmatched(t *testing.T) {
	tr := stdTrade("MAU-1")
	ms := tr.All()
	ms[6].Set("PSET", CSD2)
	t1 := tr.Base.Add(time.Hour)
	cx := Cancel(ms[3], "MAU-1-NPR1-CX", t1)
	npr1b := tr.NPR(0).Set("MsgId", "MAU-1-NPR1-B").Set("Created", ts(t1.Add(time.Minute)))
	r := runMatch(t, lines(append(ms, cx, npr1b)...))
	key := tr.Key()
	expectStatusRound(t, r, key, 1, "MISMATCHED", allParties...)
	expectStatusRound(t, r, key, 2, "UNMATCHED", allParties...)
	s3 := expectStatusRound(t, r, key, 3, "MISMATCHED", allParties...)
	for _, o := range s3 {
		if d, want := discrepancies(o), discFor(o.H("Receiver"), map[int][]*Msg{17: {ms[2], ms[6]}}, ms); d != want {
			t.Errorf("round 3: %s, want %s", d, want)
		}
	}
	if r.num("mismatched") != 1 {
		t.Errorf("summary %s", r.Stdout)
	}
}
