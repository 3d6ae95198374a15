package matching

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ste-utility/ste/schemas"
)

// Tests of version 3: the party rule (section 5, attached SETs), KEY_COLLISION
// (trade_test.go), the lifecycle after the match (section 5a) and its outputs
// (section 6: STATUS v3 elements, CNF, BLK, ALG, the utility's AFF). The
// permutation suite and the model-based property test are in
// permutation_test.go and model_test.go.

const rogue = "CUSTZZSGXXX" // a custodian no ALC names

// single is a one-allocation trade: NOE 600, ALC (A1, cust1), NPR, SET.
func single(ref string) []*schemas.Draft {
	ms := standard(ref)
	ms[0].Set("Quantity", "600")
	ms[1].Set("AllocCount", "1")
	return []*schemas.Draft{ms[0], ms[1], ms[3], ms[5]}
}

func bodyOf(t *testing.T, out []schemas.Output, id string) string {
	t.Helper()
	for _, o := range out {
		if o.MsgId == id {
			return string(o.Body)
		}
	}
	t.Fatalf("no output %s in %s", id, allIDs(out))
	return ""
}

func receivers(out []schemas.Output, typ schemas.MsgType) []string {
	var rs []string
	for _, o := range only(out, typ) {
		rs = append(rs, o.Receiver)
	}
	return rs
}

// ---- The party rule (section 5 "Attached SETs") ----

// A SET whose Custodian no ALC in force names for its Account is ACKed,
// parked and has no effect at all: a matched trade stays matched (version 2
// made it MISMATCHED on 11 and cancelled the CLS), its Custodian is no
// party (no STATUS, CNF), the Broker and InvMgr see it held.
func TestRogueSETIsParked(t *testing.T) {
	f := newFixture(t)
	ms := standard("T1")
	f.sendAll(ms)
	r := set("T1", 9, "A1", "600", "6306.29", rogue)
	out := f.send(r)
	if allIDs(out) != "ACK:"+rogue+":T1-SET9" {
		t.Fatalf("a rogue SET changed something: %s", allIDs(out))
	}
	// Another account, and a REPLACE of a real SET naming another custodian:
	// parked too; the REPLACE takes nothing out of force.
	f.send(set("T1", 8, "A9", "600", "6306.29", rogue))
	out = f.send(replaceOf(ms[5], "T1-SET1-R", 30, func(d *schemas.Draft) { d.Set("Account", "A9") }))
	if allIDs(out) != "ACK:"+cust1+":T1-SET1-R" {
		t.Fatalf("an unattached SET REPLACE changed something: %s", allIDs(out))
	}
	v := f.book.Trade(tradeKey("T1")).View()
	if v.State != "matched" || v.IsParty(rogue) || len(v.Held) != 3 || v.Held[2].Sender != rogue || v.Held[0].MsgId != "T1-SET1-R" {
		t.Fatalf("view: state %s, rogue party %v, held %+v", v.State, v.IsParty(rogue), v.Held)
	}
	if _, ok := v.For(rogue); ok {
		t.Fatal("a rogue custodian reads the trade")
	}
	for _, m := range v.Messages {
		if m.MsgId == "T1-SET1" && !m.InForce || m.MsgId == "T1-SET1-R" && (m.InForce || !m.Held) {
			t.Fatalf("message %+v", m)
		}
	}
}

// A SET processed before its ALC is parked, and takes effect when the ALC
// arrives; it is parked again when the ALC is replaced to name another
// custodian, whose SET then takes its place.
func TestSETBeforeItsALC(t *testing.T) {
	f := newFixture(t)
	ms := single("T1")
	out := f.sendAll([]*schemas.Draft{ms[3], ms[0], ms[2]})
	if v := f.book.Trade(tradeKey("T1")).View(); len(v.Held) != 1 || v.IsParty(cust1) || len(only(out, schemas.STATUS)) != 0 {
		t.Fatalf("before the ALC: held %+v, outputs %s", v.Held, allIDs(out))
	}
	out = f.send(ms[1])
	k := tradeKey("T1").String()
	if ids(out) != "ACK:INVMSGSGXXX:T1-ALC1 CLS-"+k+"-1 ST:"+k+":1:BRKASGSGXXX ST:"+k+":1:INVMSGSGXXX ST:"+k+":1:"+cust1 {
		t.Fatalf("the ALC attaches the SET: %s", ids(out))
	}
	// The InvMgr names another custodian: SET1 is parked, cust1 is no party
	// any more; the CNF is cancelled to it, the UNMATCHED goes to the new
	// parties.
	out = f.send(replaceOf(ms[1], "T1-ALC1-R", 30, func(d *schemas.Draft) { d.Set("Custodian", rogue) }))
	if !slices.Equal(receivers(out, schemas.STATUS), []string{broker, invMgr, rogue}) ||
		!strings.Contains(bodyOf(t, out, "ST:"+k+":2:"+broker), "UNMATCHED") ||
		!slices.Contains(receivers(out, schemas.CNF), cust1) {
		t.Fatalf("ALC replaced: %s", allIDs(out))
	}
	// The new custodian's SET matches again.
	out = f.send(set("T1", 2, "A1", "600", "6306.29", rogue))
	if len(only(out, schemas.CLS)) != 1 || !slices.Equal(receivers(out, schemas.STATUS), []string{broker, invMgr, rogue}) {
		t.Fatalf("rogue custodian named: %s", allIDs(out))
	}
}

// A trade whose messages in force were only unattached SETs is purged
// silently (version 2 sent EXPIRED to the SET's custodian).
func TestOnlyParkedSETsPurgedSilently(t *testing.T) {
	f := newFixture(t, WithRetention(time.Hour))
	f.send(set("T1", 1, "A1", "600", "6306.29", cust1))
	late := standard("T9")[0]
	late.Created = at(200)
	if out := f.send(late); allIDs(out) != "ACK:BRKASGSGXXX:T9-NOE" || f.book.Trade(tradeKey("T1")) != nil {
		t.Fatalf("want a silent purge: %s", allIDs(out))
	}
}

// A Custodian's STATUS lists only its accounts' tokens; an element whose
// list becomes empty is still written.
func TestCustodianStatusBodies(t *testing.T) {
	f := newFixture(t)
	ms := standard("T1")
	ms[5].Set("NetAmount", "6306.30") // 15 fails on A1 (cust1's)
	out := f.sendAll(ms)
	k := tradeKey("T1").String()
	want := `<Discrepancy criterion="15">BRKASGSGXXX:T1-NPR1 CUSTSGSGXXX:T1-SET1</Discrepancy>`
	if b := bodyOf(t, out, "ST:"+k+":1:"+broker); !strings.HasSuffix(b, want) {
		t.Fatalf("broker %s", b)
	}
	if b := bodyOf(t, out, "ST:"+k+":1:"+cust1); !strings.HasSuffix(b, want) {
		t.Fatalf("cust1 %s", b)
	}
	if b := bodyOf(t, out, "ST:"+k+":1:"+cust2); !strings.HasSuffix(b, `<Discrepancy criterion="15"></Discrepancy>`) {
		t.Fatalf("cust2 %s", b)
	}
	// A duplicate of a matched trade's message repeats each receiver's body:
	// checked through every MsgId carrying one content (anyOrder), here by
	// hand for the mismatched one under ReemitHistory.
	dup := f.book.Trade(tradeKey("T1")).Reemit(&f.book.Trade(tradeKey("T1")).Entries[0], &Config{ReemitHistory: true})
	if b := bodyOf(t, dup, "ST:"+k+":1:"+cust2); !strings.HasSuffix(b, `<Discrepancy criterion="15"></Discrepancy>`) {
		t.Fatalf("re-emitted cust2 %s", b)
	}
}

// ---- CNF ----

// A CNF NEW goes to each party with every CLS NEW, and whenever the
// standing digest changes (a REPLACE with the same body: no CLS change);
// a Custodian's holds only its legs and no Messages; an exact duplicate
// re-emits the standing CNF.
func TestCNF(t *testing.T) {
	f := newFixture(t)
	ms := standard("T1")
	out := f.sendAll(ms)
	k := tradeKey("T1").String()
	b := bodyOf(t, out, "CNF:"+k+":1:"+broker)
	toks, digest := setOf(t, ms...)
	if !strings.Contains(b, "<TradeKey>"+k+"</TradeKey><MatchDigest>"+digest+"</MatchDigest><Quantity>1000</Quantity>") ||
		!strings.HasSuffix(b, "<Messages>"+strings.Join(toks, " ")+"</Messages>") || strings.Count(b, "<Leg>") != 2 {
		t.Fatalf("broker CNF %s", b)
	}
	c := bodyOf(t, out, "CNF:"+k+":1:"+cust2)
	if strings.Count(c, "<Leg>") != 1 || !strings.Contains(c, "<Account>A2</Account>") || strings.Contains(c, "Messages") {
		t.Fatalf("custodian CNF %s", c)
	}
	// Same CLS content, another set: CNF CANCEL 1 then CNF NEW 2, no CLS.
	out = f.send(replaceOf(ms[0], "T1-NOE-R", 1, func(d *schemas.Draft) { d.Set("ExecTime", at(-9)) }))
	if allIDs(only(out, schemas.CLS)) != "" || len(only(out, schemas.CNF)) != 8 ||
		bodyOf(t, out, "CNF:"+k+":1:"+cust1+":CANCEL") != "<TradeKey>"+k+"</TradeKey><MatchDigest>"+digest+"</MatchDigest>" {
		t.Fatalf("same content, other set: %s", allIDs(out))
	}
	if o := only(out, schemas.CNF)[0]; o.Function != schemas.CANCEL || o.RelatedMsgId != "CNF:"+k+":1:"+broker {
		t.Fatalf("CNF CANCEL %+v", o)
	}
	dup := f.send(ms[2])
	if got := allIDs(only(dup, schemas.CNF)); got != "CNF:"+k+":2:"+broker+" CNF:"+k+":2:"+invMgr+" CNF:"+k+":2:"+cust2+" CNF:"+k+":2:"+cust1 {
		t.Fatalf("duplicate re-emits %s", got)
	}
}

// ---- Affirmation, lock, amendments ----

// An AFF of the set in force locks the trade: STATUS AFFIRMED with the
// agreement's digest, no CLS change. A change from one side is then held
// pending (CHANGE_PENDING, its proposal), the CLS and CNF stand; an AFF of
// the proposal from one principal changes nothing; from both, the amendment
// takes effect: CLS CANCEL and NEW, CNF CANCEL and NEW, AFFIRMED.
func TestAffirmLockAmend(t *testing.T) {
	f := newFixture(t)
	ms := standard("T1")
	f.sendAll(ms)
	tr := f.book.Trade(tradeKey("T1"))
	k := tr.Key.String()
	_, d1 := setOf(t, ms...)
	out := f.send(affirm("T1-AFF1", invMgr, 40, tr, ""))
	if ids(out) != "ACK:INVMSGSGXXX:T1-AFF1 ST:"+k+":2:BRKASGSGXXX ST:"+k+":2:INVMSGSGXXX ST:"+k+":2:CUSTHKHHXXX ST:"+k+":2:CUSTSGSGXXX" ||
		bodyOf(t, out, "ST:"+k+":2:"+broker) != "<TradeKey>"+k+"</TradeKey><TradeRef>T1</TradeRef><Status>AFFIRMED</Status><MatchDigest>"+d1+"</MatchDigest>" {
		t.Fatalf("affirmed: %s", allIDs(out))
	}
	if !tr.Locked || tr.View().Agreement.By != "INVMGR" {
		t.Fatal("not locked")
	}
	// A one-sided change: pending.
	r := replaceOf(ms[5], "T1-SET1-R", 41, func(d *schemas.Draft) { d.Set("CashAccount", "CA-NEW") })
	out = f.send(r)
	amended := append(slices.Clone(ms), r)
	amended = slices.DeleteFunc(amended, func(d *schemas.Draft) bool { return d.MsgId == "T1-SET1" })
	toks2, d2 := setOf(t, amended...)
	want := "<Status>CHANGE_PENDING</Status><MatchDigest>" + d1 + "</MatchDigest><Pending>CUSTSGSGXXX:T1-SET1-R</Pending>" +
		`<Proposal digest="` + d2 + `">` + strings.Join(toks2, " ") + "</Proposal>"
	if len(only(out, schemas.CLS)) != 0 || len(only(out, schemas.CNF)) != 0 || !strings.HasSuffix(bodyOf(t, out, "ST:"+k+":3:"+broker), want) {
		t.Fatalf("pending: %s\n%s", allIDs(out), bodyOf(t, out, "ST:"+k+":3:"+broker))
	}
	// The InvMgr's AFF of the proposal alone: nothing moves (a body change?
	// no: the status is the same).
	out = f.send(aff("T1", "T1-AFF2", invMgr, 42, "AFFIRM", toks2, d2, d1))
	if allIDs(out) != "ACK:INVMSGSGXXX:T1-AFF2" {
		t.Fatalf("one side: %s", allIDs(out))
	}
	out = f.send(aff("T1", "T1-AFF3", broker, 43, "AFFIRM", toks2, d2, d1))
	if ids(out) != "ACK:BRKASGSGXXX:T1-AFF3 CLS-"+k+"-1-CANCEL CLS-"+k+"-2 ST:"+k+":4:BRKASGSGXXX ST:"+k+":4:INVMSGSGXXX ST:"+k+":4:CUSTHKHHXXX ST:"+k+":4:CUSTSGSGXXX" ||
		!strings.HasSuffix(bodyOf(t, out, "ST:"+k+":4:"+broker), "<Status>AFFIRMED</Status><MatchDigest>"+d2+"</MatchDigest>") ||
		len(only(out, schemas.CNF)) != 8 {
		t.Fatalf("amended: %s", allIDs(out))
	}
	if v := f.book.Trade(tradeKey("T1")).View(); v.Agreement.Amendments != 1 || v.Agreement.MatchDigest != d2 || len(v.Pending) != 0 {
		t.Fatalf("agreement %+v", v.Agreement)
	}
}

// An affirmation of another set than the one in force (a stale CNF) moves
// the messages in force to that set, and the change is held pending.
func TestStaleAffirmationMovesTheLock(t *testing.T) {
	f := newFixture(t)
	ms := standard("T1")
	toks, d1 := setOf(t, ms...)
	f.sendAll(ms)
	r := replaceOf(ms[5], "T1-SET1-R", 30, func(d *schemas.Draft) { d.Set("CashAccount", "CA-NEW") })
	f.send(r) // CLS v2 on the new set
	k := tradeKey("T1").String()
	out := f.send(aff("T1", "T1-AFF1", invMgr, 31, "AFFIRM", toks, d1, ""))
	if ids(only(out, schemas.CLS)) != "CLS-"+k+"-2-CANCEL CLS-"+k+"-3" ||
		!strings.Contains(bodyOf(t, out, "ST:"+k+":3:"+broker), "<Status>CHANGE_PENDING</Status><MatchDigest>"+d1+"</MatchDigest><Pending>CUSTSGSGXXX:T1-SET1-R</Pending>") {
		t.Fatalf("stale affirmation: %s", allIDs(out))
	}
	if cls := only(out, schemas.CLS)[1]; !strings.Contains(string(cls.Body), "CA-A1") {
		t.Fatal("the CLS is not the affirmed set's")
	}
}

// A REJECT naming exactly the messages in force: AFFIRM_REJECTED with its
// reasons and the standing digest; an AFFIRM outweighs it whatever its
// Created.
func TestRejectThenAffirm(t *testing.T) {
	f := newFixture(t)
	ms := single("T1")
	f.sendAll(ms)
	tr := f.book.Trade(tradeKey("T1"))
	k := tr.Key.String()
	toks, d := setOf(t, ms...)
	out := f.send(aff("T1", "T1-REJ", invMgr, 40, "REJECT", toks, d, "", "SSI", "PRICE"))
	if b := bodyOf(t, out, "ST:"+k+":2:"+broker); !strings.HasSuffix(b, "<Status>AFFIRM_REJECTED</Status><MatchDigest>"+d+"</MatchDigest><RejectReason>PRICE</RejectReason><RejectReason>SSI</RejectReason>") {
		t.Fatalf("rejected %s", b)
	}
	out = f.send(aff("T1", "T1-AFF", invMgr, 39, "AFFIRM", toks, d, ""))
	if !strings.HasSuffix(bodyOf(t, out, "ST:"+k+":3:"+broker), "<Status>AFFIRMED</Status><MatchDigest>"+d+"</MatchDigest>") {
		t.Fatalf("affirmed %s", allIDs(out))
	}
	// A VOID AFF (wrong digest) and a DORMANT one (a message not held) count
	// for nothing.
	f.send(aff("T1", "T1-VOID", invMgr, 41, "AFFIRM", toks, strings.Repeat("0", 64), ""))
	f.send(aff("T1", "T1-DORM", invMgr, 42, "AFFIRM", append(slices.Clone(toks), "BRKASGSGXXX:NOPE"), d, ""))
	states := map[string]string{}
	for _, a := range f.book.Trade(tradeKey("T1")).View().Affirmations {
		states[a.MsgId] = a.State
	}
	if states["T1-VOID"] != "VOID" || states["T1-DORM"] != "DORMANT" || states["T1-AFF"] != "COUNTED" || states["T1-REJ"] != "COUNTED" {
		t.Fatalf("states %v", states)
	}
}

// ---- Cancellation ----

// A CXL shows on an unlocked MATCHED STATUS as a request; a CXJ rejects it;
// a CXA of another CXL cancels the trade: CLS CANCEL, CNF CANCEL, STATUS
// CANCELLED with CancelledBy, BLK BLOCK_INCOMPLETE; afterwards a message
// is ACKed and never in force.
func TestBilateralCancellation(t *testing.T) {
	f := newFixture(t)
	ms := single("T1")
	f.sendAll(ms)
	k := tradeKey("T1").String()
	out := f.send(cxl("T1-CXL1", broker, 40, "ERROR"))
	if b := bodyOf(t, out, "ST:"+k+":2:"+broker); !strings.HasSuffix(b, `<Status>MATCHED</Status><CancelRequest state="PENDING">BRKASGSGXXX:T1-CXL1</CancelRequest>`) {
		t.Fatalf("request %s", b)
	}
	out = f.send(cxj("T1-CXJ1", invMgr, 41, "T1-CXL1", "OTHER"))
	if b := bodyOf(t, out, "ST:"+k+":3:"+cust1); !strings.HasSuffix(b, `<Status>MATCHED</Status><CancelRequest state="REJECTED">BRKASGSGXXX:T1-CXL1</CancelRequest>`) {
		t.Fatalf("rejected %s", b)
	}
	// A CXA of the InvMgr's own CXL by the InvMgr: no effect (it answers the
	// other principal's CXL).
	f.send(cxl("T1-CXL2", invMgr, 42, "CLIENT_REQUEST"))
	if out := f.send(cxa("T1-CXA0", invMgr, 43, "T1-CXL2")); len(only(out, schemas.CLS)) != 0 {
		t.Fatalf("a CXA of one's own CXL: %s", allIDs(out))
	}
	out = f.send(cxa("T1-CXA2", broker, 44, "T1-CXL2"))
	if ids(only(out, schemas.CLS)) != "CLS-"+k+"-1-CANCEL" || len(only(out, schemas.CNF)) != 3 ||
		!slices.Equal(receivers(out, schemas.BLK), []string{broker, invMgr}) {
		t.Fatalf("cancelled: %s", allIDs(out))
	}
	if b := bodyOf(t, out, "ST:"+k+":5:"+cust1); !strings.HasSuffix(b, "<Status>CANCELLED</Status><CancelledBy>BRKASGSGXXX:T1-CXA2 INVMSGSGXXX:T1-CXL2</CancelledBy>") {
		t.Fatalf("cancelled body %s", b)
	}
	if b := bodyOf(t, out, "BLK:"+k+":2:"+broker); !strings.HasSuffix(b, "<Status>BLOCK_INCOMPLETE</Status>") {
		t.Fatal(b)
	}
	// Final: a new NOE REPLACE changes nothing; a CXJ never undoes a CXA.
	if out := f.send(replaceOf(ms[0], "T1-NOE-R", 45, nil)); allIDs(out) != "ACK:BRKASGSGXXX:T1-NOE-R" {
		t.Fatalf("after cancellation: %s", allIDs(out))
	}
	if out := f.send(cxj("T1-CXJ2", broker, 46, "T1-CXL2", "OTHER")); allIDs(out) != "ACK:BRKASGSGXXX:T1-CXJ2" {
		t.Fatalf("CXJ after CXA: %s", allIDs(out))
	}
	if tr := f.book.Trade(tradeKey("T1")); !tr.Cancelled || tr.Locked || len(tr.Missing()) != 0 || tr.StandingAllegements() != nil {
		t.Fatal("not cancelled")
	}
}

// A CXL on a locked trade: CANCEL_PENDING, the lock, CLS and CNF stand; a
// CXJ returns it to AFFIRMED showing the request as rejected.
func TestCancelUnderLock(t *testing.T) {
	f := newFixture(t)
	ms := single("T1")
	f.sendAll(ms)
	tr := f.book.Trade(tradeKey("T1"))
	k := tr.Key.String()
	f.send(affirm("T1-AFF1", invMgr, 40, tr, ""))
	out := f.send(cxl("T1-CXL1", invMgr, 41, "DUPLICATE"))
	if len(only(out, schemas.CLS))+len(only(out, schemas.CNF)) != 0 ||
		!strings.Contains(bodyOf(t, out, "ST:"+k+":3:"+cust1), `<Status>CANCEL_PENDING</Status><MatchDigest>`) {
		t.Fatalf("cancel pending: %s", allIDs(out))
	}
	out = f.send(cxj("T1-CXJ1", broker, 42, "T1-CXL1", "OTHER"))
	if !strings.HasSuffix(bodyOf(t, out, "ST:"+k+":4:"+broker), `</MatchDigest><CancelRequest state="REJECTED">INVMSGSGXXX:T1-CXL1</CancelRequest>`) ||
		!strings.Contains(bodyOf(t, out, "ST:"+k+":4:"+broker), "<Status>AFFIRMED</Status>") {
		t.Fatalf("rejected: %s", allIDs(out))
	}
}

// ---- The utility's AFF (section 5a step 4) ----

type autoModes map[string]bool

func (m autoModes) AutoAffirms(invMgr string) bool { return m[invMgr] }

// For an AUTO investment manager the utility's AFF is asked for when the
// trade matches, with the contract's MsgId, Created = MatchedAt and the
// messages in force; processed, it locks the trade (agreement by AUTO); it
// is asked for once, the same bytes whenever built.
func TestAutoAffirmation(t *testing.T) {
	f := newFixture(t, WithConfig(Config{Affirmation: autoModes{invMgr: true}}))
	ms := single("T1")
	toks, d := setOf(t, ms...)
	out := f.sendAll(ms)
	k := tradeKey("T1").String()
	if len(f.autos) != 1 {
		t.Fatalf("autos %d", len(f.autos))
	}
	a := f.autos[0]
	if a.MsgId != "AUTO:"+k+":"+d[:16] || a.Sender != utility || a.Created != "2026-11-02T01:21:00.000Z" ||
		a.Get("Affirms") != strings.Join(toks, " ") || a.Get("MatchDigest") != d || a.Get("Decision") != "AFFIRM" || a.Get("Amends") != "" {
		t.Fatalf("auto AFF %+v", a)
	}
	if want := AutoAFF(f.book.Trade(tradeKey("T1")).Keys[0], utility, a.MsgId, mustTime(a.Created), d, toks); string(want.AppendSigned(nil, nil)) != string(a.AppendSigned(nil, nil)) {
		t.Fatal("not the same bytes")
	}
	// The MATCHED STATUS with the CLS NEW, then the AFFIRMED the AFF caused.
	if st := only(out, schemas.STATUS); !strings.Contains(string(st[0].Body), "MATCHED") || !strings.Contains(string(st[len(st)-1].Body), "AFFIRMED") {
		t.Fatalf("%s", allIDs(out))
	}
	tr := f.book.Trade(tradeKey("T1"))
	if v := tr.View(); !tr.Locked || v.Agreement.By != "AUTO" {
		t.Fatalf("agreement %+v", v.Agreement)
	}
	// Not asked again: a change is pending, and a later match of another set
	// is affirmed only by the lock's rules.
	f.send(replaceOf(ms[3], "T1-SET1-R", 40, func(d *schemas.Draft) { d.Set("CashAccount", "X") }))
	if len(f.autos) != 1 {
		t.Fatalf("asked again: %d", len(f.autos))
	}
	// An AFF the caller did not process (rejected, lost) is not asked again.
	g := newFixture(t, WithConfig(Config{Affirmation: autoModes{invMgr: true}}))
	for _, d := range ms {
		g.book.Accept(inboundOf(t, g, d))
	}
	if n := len(g.book.AutoAffirmations()); n != 1 {
		t.Fatalf("asked %d", n)
	}
	g.send(cxl("T1-CXL", broker, 50, "OTHER")) // the next message: still matched, unlocked
	if n := len(g.book.AutoAffirmations()) + len(g.autos); n != 0 {
		t.Fatalf("asked again after a rejection: %d", n)
	}
}

func mustTime(s string) int64 {
	ns, err := schemas.ParseTimestamp(s)
	if err != nil {
		panic(err)
	}
	return ns
}

func inboundOf(t *testing.T, f *fixture, d *schemas.Draft) *Inbound {
	t.Helper()
	rec := d.AppendSigned(nil, nil)
	m, rej := decodeDraft(&f.dec, d, rec)
	if rej != nil {
		t.Fatal(rej)
	}
	return &Inbound{Msg: m, Digest: digestOfRecord(rec), NetUnits: 2}
}

// ---- BLK and ALG ----

// Block status needs only the NOE and ALCs; a price break between broker
// and investment manager shows at once; a block that stops being complete
// gets BLOCK_INCOMPLETE.
func TestBlockStatus(t *testing.T) {
	f := newFixture(t)
	ms := standard("T1")
	ms[2].Set("Price", "10.6")
	out := f.sendAll(ms[:3])
	k := tradeKey("T1").String()
	if got := allIDs(only(out, schemas.BLK)); got != "BLK:"+k+":1:"+broker+" BLK:"+k+":1:"+invMgr {
		t.Fatalf("BLK %s", got)
	}
	if b := bodyOf(t, out, "BLK:"+k+":1:"+invMgr); !strings.HasSuffix(b, `<Status>BLOCK_MISMATCHED</Status><Discrepancy criterion="7">BRKASGSGXXX:T1-NOE INVMSGSGXXX:T1-ALC1 INVMSGSGXXX:T1-ALC2</Discrepancy>`) {
		t.Fatal(b)
	}
	if out := f.send(ms[3]); len(only(out, schemas.BLK)) != 0 {
		t.Fatal("an NPR changed the block")
	}
	out = f.send(replaceOf(ms[2], "T1-ALC2-R", 30, func(d *schemas.Draft) { d.Set("Price", "10.5") }))
	if b := bodyOf(t, out, "BLK:"+k+":2:"+broker); !strings.HasSuffix(b, "<Status>BLOCK_MATCHED</Status>") {
		t.Fatal(b)
	}
	out = f.send(cancelOf(ms[0], "T1-NOE-C", 31))
	if b := bodyOf(t, out, "BLK:"+k+":3:"+broker); !strings.HasSuffix(b, "<Status>BLOCK_INCOMPLETE</Status>") {
		t.Fatal(b)
	}
	if out := f.send(cancelOf(ms[1], "T1-ALC1-C", 32)); len(only(out, schemas.BLK)) != 0 {
		t.Fatal("BLOCK_INCOMPLETE twice")
	}
}

// Allegements: sent only by the allegement step, each receiver its full
// list of items in rule order; ALG CANCEL when it owes nothing any more;
// withdrawn when the trade is purged.
func TestAllegements(t *testing.T) {
	f := newFixture(t, WithRetention(time.Hour))
	ms := standard("T1")
	f.send(ms[0])
	k := tradeKey("T1").String()
	out := f.allege()
	if allIDs(out) != "ALG:"+k+":1:"+invMgr {
		t.Fatalf("NOE alone: %s", allIDs(out))
	}
	want := "<TradeRef>T1</TradeRef><TradeDate>2026-11-02</TradeDate><ISIN>SG1L01001701</ISIN><Side>BUY</Side>" +
		"<Broker>BRKASGSGXXX</Broker><InvMgr>INVMSGSGXXX</InvMgr><TradeKey>" + k + "</TradeKey><SettleDate>2026-11-04</SettleDate>" +
		`<Owed msgType="ALC"/>`
	if string(out[0].Body) != want {
		t.Fatalf("body %s", out[0].Body)
	}
	if out := f.allege(); len(out) != 0 {
		t.Fatalf("unchanged: %s", allIDs(out))
	}
	f.send(ms[1]) // one ALC of two
	out = f.allege()
	if allIDs(out) != "ALG:"+k+":1:"+broker+" ALG:"+k+":2:"+invMgr+" ALG:"+k+":1:"+cust1 {
		t.Fatalf("one ALC: %s", allIDs(out))
	}
	if b := bodyOf(t, out, "ALG:"+k+":2:"+invMgr); !strings.HasSuffix(b, `<Owed msgType="ALC" count="1"/>`) {
		t.Fatal(b)
	}
	if b := bodyOf(t, out, "ALG:"+k+":1:"+cust1); !strings.HasSuffix(b, `<Owed msgType="SET" account="A1" quantity="600"/>`) {
		t.Fatal(b)
	}
	f.sendAll(ms[2:5])
	out = f.allege()
	if allIDs(out) != "ALG:"+k+":2:"+broker+" ALG:"+k+":3:"+invMgr+" ALG:"+k+":1:"+cust2 { // cust1 still owes its SET: unchanged
		t.Fatalf("NPRs in: %s", allIDs(out))
	}
	if o := out[0]; o.Function != schemas.CANCEL || o.RelatedMsgId != "ALG:"+k+":1:"+broker || string(o.Body) != "<TradeKey>"+k+"</TradeKey><TradeRef>T1</TradeRef>" {
		t.Fatalf("ALG CANCEL %+v", o)
	}
	// Purged: every standing allegement withdrawn; the tombstone keeps the
	// counts.
	late := standard("T9")[0]
	late.Created = at(200)
	out = f.send(late)
	if got := allIDs(only(out, schemas.ALG)); got != "ALG:"+k+":2:"+cust2+" ALG:"+k+":2:"+cust1 {
		t.Fatalf("purge: %s", allIDs(out))
	}
	re := ms[0].Clone()
	re.MsgId, re.Created = "T1-NOE-2", at(201)
	f.send(re)
	if out := f.allege(); !strings.Contains(allIDs(out), "ALG:"+k+":4:"+invMgr) {
		t.Fatalf("counts continue: %s", allIDs(out))
	}
}

// ---- Retention ----

// A locked trade is purged silently (its CLS and CNF stand); a message for
// it starts a new, unlocked trade. A cancelled trade's tombstone keeps it
// cancelled: a message is ACKed and never in force.
func TestExpiryOfLockedAndCancelled(t *testing.T) {
	f := newFixture(t, WithRetention(time.Hour), WithTombstoneTTL(time.Minute))
	ms := single("T1")
	f.sendAll(ms)
	tr := f.book.Trade(tradeKey("T1"))
	f.send(affirm("T1-AFF1", invMgr, 40, tr, ""))
	c := single("T2")
	f.sendAll(c)
	f.send(cxl("T2-CXL", broker, 40, "ERROR"))
	f.send(cxa("T2-CXA", invMgr, 41, "T2-CXL"))
	late := standard("T9")[0]
	late.Created = at(200)
	if out := f.send(late); allIDs(out) != "ACK:BRKASGSGXXX:T9-NOE" {
		t.Fatalf("locked and cancelled trades purged silently: %s", allIDs(out))
	}
	// The tombstones live no shorter than the retention (TTL a minute here).
	late2 := standard("T8")[0]
	late2.Created = at(230)
	f.send(late2)
	re := c[0].Clone()
	re.MsgId, re.Created = "T2-NOE-2", at(231)
	out := f.sendAll(append([]*schemas.Draft{re}, relabel(c[1:], "-2", 231)...))
	if ids(out) != "ACK:BRKASGSGXXX:T2-NOE-2 ACK:INVMSGSGXXX:T2-ALC1-2 ACK:BRKASGSGXXX:T2-NPR1-2 ACK:CUSTSGSGXXX:T2-SET1-2" || len(out) != 4 {
		t.Fatalf("after a cancelled trade's purge: %s", allIDs(out))
	}
	if v := f.book.Trade(tradeKey("T2")).View(); v.Lifecycle != "CANCELLED" || v.State != "incomplete" {
		t.Fatalf("view %s %s", v.Lifecycle, v.State)
	}
	out = f.sendAll(relabel(ms, "-2", 232))
	if len(only(out, schemas.CLS)) != 1 || f.book.Trade(tradeKey("T1")).Locked {
		t.Fatalf("after a locked trade's purge: %s", allIDs(out))
	}
}

func relabel(ds []*schemas.Draft, suffix string, minutes int) []*schemas.Draft {
	var out []*schemas.Draft
	for _, d := range ds {
		c := d.Clone()
		c.MsgId += suffix
		c.Created = at(minutes)
		out = append(out, c)
	}
	return out
}

// Accepted identities are remembered while their trade's tombstone lives
// (messages.md §4): an exact copy of a purged trade's message is a duplicate
// (its ACK), not a message of the trade that continues the key; forgotten
// once the tombstone expires.
func TestIdentitiesOutliveTheTradeWhileItsTombstoneLives(t *testing.T) {
	f := newFixture(t, WithRetention(time.Hour), WithTombstoneTTL(2*time.Hour))
	ms := single("T1")
	f.sendAll(ms)
	late := standard("T9")[0]
	late.Created = at(100)
	f.send(late) // T1 purged
	id := schemas.Identity{Sender: broker, MsgId: "T1-NOE"}
	if _, ok := f.book.Known(id); !ok {
		t.Fatal("forgotten with the trade")
	}
	if out := f.book.Duplicate(id); allIDs(out) != "ACK:BRKASGSGXXX:T1-NOE" {
		t.Fatalf("duplicate of a purged trade's message: %s", allIDs(out))
	}
	later := standard("T8")[0]
	later.Created = at(300) // past the tombstone's two hours
	f.send(later)
	if _, ok := f.book.Known(id); ok {
		t.Fatal("remembered past the tombstone")
	}
}
