package matching

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/ste-utility/ste/schemas"
)

// The utility's AFF stays pending until the trade holds it, and is rebuilt
// byte for byte from the value (a redelivered message produces it again):
// also after the messages in force moved on, and after a round trip of the
// codec.
func TestPendingAutoAffirmationIsRebuilt(t *testing.T) {
	cfg := Config{Affirmation: autoModes{invMgr: true}, ReemitHistory: true}
	g := newFixture(t, WithConfig(cfg))
	ms := single("T1")
	for _, d := range ms {
		g.book.Accept(inboundOf(t, g, d))
	}
	autos := g.book.AutoAffirmations()
	if len(autos) != 1 {
		t.Fatalf("%d AFFs", len(autos))
	}
	want := autos[0].AppendSigned(nil, nil)
	tr := g.book.Trade(tradeKey("T1"))
	// Another message changes the set in force before the AFF comes back.
	g.book.Accept(inboundOf(t, g, replaceOf(ms[3], "T1-SET1-R", 40, func(d *schemas.Draft) { d.Set("CashAccount", "X") })))
	b, _ := tr.MarshalBinary()
	back, err := UnmarshalTrade(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The new set matched too, unlocked: the utility affirms it as well.
	got := back.PendingAutoAffirmations(&cfg)
	next := g.book.AutoAffirmations()
	if len(got) != 2 || len(next) != 1 || !bytes.Equal(got[0].AppendSigned(nil, nil), want) ||
		!bytes.Equal(got[1].AppendSigned(nil, nil), next[0].AppendSigned(nil, nil)) {
		t.Fatalf("rebuilt %d AFFs, not the bytes sent", len(got))
	}
	// Held: no longer pending.
	back.Apply(inboundOf(t, g, autos[0]), &cfg, Interner{})
	back.Apply(inboundOf(t, g, next[0]), &cfg, Interner{})
	if p := back.PendingAutoAffirmations(&cfg); len(p) != 0 || back.AutoPending != nil {
		t.Fatalf("still pending after it was applied: %d", len(p))
	}
}

// A purged trade's tombstone remembers its messages: while it lives, a copy
// of one is a duplicate (its ACK) or a conflict, never a message of a new
// trade; the prints carry over to the next trade of the key and its
// tombstone.
func TestTombstoneRemembersIdentities(t *testing.T) {
	cfg := Config{ReemitHistory: true}
	f := newFixture(t)
	ms := standard("T1")
	f.sendAll(ms[:3])
	tr := f.book.Trade(tradeKey("T1"))
	_, ts := tr.Expire(tr.Newest)
	ts, err := UnmarshalTombstone(MarshalTombstone(tr.Key, ts))
	if err != nil || len(ts.Purged) != 3 {
		t.Fatalf("tombstone prints %d, %v", len(ts.Purged), err)
	}
	next := NewTrade(tr.Key, &ts)
	out, res := next.Apply(inboundOf(t, f, ms[1]), &cfg, Interner{})
	if res != Duplicate || allIDs(out) != "ACK:INVMSGSGXXX:T1-ALC1" || len(next.Entries) != 0 {
		t.Fatalf("copy of a purged message: %v %s", res, allIDs(out))
	}
	other := ms[1].Clone()
	other.Set("Quantity", "601")
	if _, res := next.Apply(inboundOf(t, f, other), &cfg, Interner{}); res != Conflict {
		t.Fatalf("other bytes under a purged identity: %v", res)
	}
	if _, res := next.Apply(inboundOf(t, f, ms[3]), &cfg, Interner{}); res != Applied {
		t.Fatalf("a new message: %v", res)
	}
	b, _ := next.MarshalBinary()
	back, err := UnmarshalTrade(b, nil)
	if err != nil || len(back.Purged) != 3 {
		t.Fatalf("trade prints %d, %v", len(back.Purged), err)
	}
	if _, ts2 := back.Expire(back.Newest); len(ts2.Purged) != 4 {
		t.Fatalf("the next tombstone remembers %d", len(ts2.Purged))
	}
	// Without the prints (what a tombstone of the release before held) the
	// copy would start the trade again: the rule is what holds it.
	ts.Purged = nil
	if _, res := NewTrade(tr.Key, &ts).Apply(inboundOf(t, f, ms[1]), &cfg, Interner{}); res != Applied {
		t.Fatalf("%v", res)
	}
}

// A custodian that stops being a party of a confirmed trade was sent the
// CANCEL of its CNF; the next CNF goes to the others. A duplicate re-sends
// that CANCEL (ReemitHistory), so a crash between the trade's write and its
// outputs leaves no stale CNF with it; and a trade no longer matched
// re-sends its CANCELs.
func TestReemitCNFCancelsOfReceiversGone(t *testing.T) {
	f := newFixture(t, WithConfig(Config{ReemitHistory: true}))
	ms := standard("T1")
	f.sendAll(ms)
	k := tradeKey("T1").String()
	// ALC2 and SET2 move to custodian 1: custodian 2 is no party any more.
	f.send(replaceOf(ms[2], "T1-ALC2-R", 30, func(d *schemas.Draft) { d.Set("Custodian", cust1) }))
	out := f.send(replaceOf(ms[6], "T1-SET2-R", 31, func(d *schemas.Draft) { d.Set("Custodian", cust1); d.Sender = cust1 }))
	gone := "CNF:" + k + ":1:" + cust2 + ":CANCEL"
	if !strings.Contains(allIDs(out), "CNF:"+k+":2:"+cust1) {
		t.Fatalf("no second confirmation: %s", allIDs(out))
	}
	tr := f.book.Trade(tradeKey("T1"))
	if len(tr.CNF.Gone) != 1 || tr.CNF.Gone[0].Receiver != cust2 {
		t.Fatalf("gone %+v", tr.CNF.Gone)
	}
	orig := map[string][]byte{}
	for _, o := range f.outs {
		orig[o.MsgId] = o.Body
	}
	re := f.send(ms[0])
	if !slices.ContainsFunc(re, func(o schemas.Output) bool { return o.MsgId == gone }) {
		t.Fatalf("duplicate did not re-send %s: %s", gone, allIDs(re))
	}
	for _, o := range re {
		if b, ok := orig[o.MsgId]; !ok || !bytes.Equal(b, o.Body) {
			t.Fatalf("%s re-sent with other content (or never sent)", o.MsgId)
		}
	}
	roundTrip(t, tr)
	// Unmatched: the standing CNF's CANCEL is re-sent too.
	f.send(cancelOf(ms[3], "T1-NPR1-C", 40))
	re = f.send(ms[0])
	for _, r := range []string{broker, invMgr, cust1} {
		if !strings.Contains(allIDs(re), "CNF:"+k+":2:"+r+":CANCEL") {
			t.Fatalf("no CANCEL of CNF 2 to %s: %s", r, allIDs(re))
		}
	}
}

// The allegement timer lives in the tail, read without decoding; MayAllege
// is false once nothing an allegement step could send is left.
func TestAllegeAtInTheTail(t *testing.T) {
	f := newFixture(t)
	ms := standard("T1")
	f.sendAll(ms[:4])
	tr := f.book.Trade(tradeKey("T1"))
	if !tr.MayAllege() {
		t.Fatal("an incomplete trade may owe")
	}
	tr.AllegeAt = 1_800_000_000_000_000
	roundTrip(t, tr)
	b, _ := tr.MarshalBinary()
	if at, ok := ReadAllegeAt(b); !ok || at != tr.AllegeAt {
		t.Fatalf("ReadAllegeAt %d %v", at, ok)
	}
	if r, ok := ReadRisk(b); !ok || !r.Open {
		t.Fatalf("ReadRisk with a timer: %+v %v", r, ok)
	}
	tr.AllegeAt = 0
	f.allege()
	f.sendAll(ms[4:])
	if !tr.MayAllege() {
		t.Fatal("matched, with an ALG NEW standing: its CANCEL is due")
	}
	f.allege()
	if tr.MayAllege() {
		t.Fatal("matched, nothing standing")
	}
}

// A value of layout v2 written before the redelivery section and the
// timer (the section cut out) reads as a trade without them.
func TestLayoutV2WithoutTheRedeliverySection(t *testing.T) {
	f := newFixture(t, WithConfig(Config{Affirmation: autoModes{invMgr: true}}))
	for _, d := range single("T1") {
		f.book.Accept(inboundOf(t, f, d))
	}
	tr := f.book.Trade(tradeKey("T1"))
	if len(tr.AutoPending) != 1 {
		t.Fatal("fixture: no pending AFF")
	}
	b, _ := tr.MarshalBinary()
	tail := len(appendRisk(nil, tr))
	sec := appendRedelivery(nil, tr)
	old := slices.Concat(b[:len(b)-tail-len(sec)], b[len(b)-tail:])
	back, err := UnmarshalTrade(old, nil)
	if err != nil || back.AutoPending != nil || len(back.Entries) != len(tr.Entries) {
		t.Fatalf("%v %+v", err, back.AutoPending)
	}
}

// The table's timers read every value written: without an allocation.
func TestReadAllegeAtAllocatesNothing(t *testing.T) {
	f := newFixture(t)
	f.sendAll(standard("T1")[:3])
	tr := f.book.Trade(tradeKey("T1"))
	tr.AllegeAt = 42
	b, _ := tr.MarshalBinary()
	if n := testing.AllocsPerRun(100, func() { ReadAllegeAt(b) }); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}
