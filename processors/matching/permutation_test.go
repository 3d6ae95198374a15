package matching

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ste-utility/ste/internal/testing/orders"
	"github.com/ste-utility/ste/schemas"
)

// The permutation suite of the lifecycle (docs/matching.md): EVERY order of
// each small scenario gives one standing outcome (messages.md §6 "Standing
// outputs"): the standing STATUS (its value and Body; for version 2's MATCHED
// and MISMATCHED the value, the criteria and the cancel requests, whose
// token lists follow version 2's triggers), every party's last STATUS for a
// version 3 value, each receiver's last CNF, the last BLK to the Broker and
// the InvMgr, each participant's last ALG after the allegement step, the
// standing CLS content, locked and cancelled. What may depend on order is
// left out: the counts in MsgIds, intermediate records, whether an
// UNMATCHED, a BLOCK_INCOMPLETE or an ALG CANCEL was sent when nothing stood
// before. Every MsgId carries one content in every order.

type scenario struct {
	name string
	msgs []*schemas.Draft
	cfg  Config
	// want: what the standing outcome must say (substrings of it), so that
	// the suite is no mere consistency check.
	want []string
}

func lifecycleScenarios(t testing.TB) []scenario {
	base := single("P")
	n, a, p, s := base[0], base[1], base[2], base[3]
	la, da := setOf(t, n, a, p, s)
	sr := replaceOf(s, "P-SET1-R", 30, func(d *schemas.Draft) { d.Set("CashAccount", "CA-NEW") })
	lb, db := setOf(t, n, a, p, sr)
	affA := aff("P", "P-AFF-A", invMgr, 40, "AFFIRM", la, da, "")
	rogueSET := set("P", 9, "A1", "600", "6306.29", rogue)
	cx := cxl("P-CXL1", broker, 50, "ERROR")
	altCust := replaceOf(a, "P-ALC1-R", 31, func(d *schemas.Draft) { d.Set("Custodian", cust2) })
	s2 := set("P", 2, "A1", "600", "6306.29", cust2)
	return []scenario{
		{name: "match in any order", msgs: base,
			want: []string{"value=MATCHED", "cls=true", "locked=false"}},
		{name: "affirm before match", msgs: []*schemas.Draft{n, a, p, s, affA},
			want: []string{"value=AFFIRMED", "<MatchDigest>" + da, "locked=true"}},
		{name: "two affirmations, the earlier root wins", msgs: []*schemas.Draft{n, a, p, s, sr, affA,
			aff("P", "P-AFF-B", invMgr, 41, "AFFIRM", lb, db, "")},
			want: []string{"value=CHANGE_PENDING", "<MatchDigest>" + da, "<Pending>CUSTSGSGXXX:P-SET1-R</Pending>", `<Proposal digest="` + db}},
		{name: "a stale affirmation", msgs: []*schemas.Draft{n, a, p, s, sr, affA},
			want: []string{"value=CHANGE_PENDING", "<MatchDigest>" + da, "CA-A1"}},
		{name: "a cancel under lock", msgs: []*schemas.Draft{n, a, p, s, affA, cancelOf(s, "P-SET1-C", 45)},
			want: []string{"value=CHANGE_PENDING", "<Pending>CUSTSGSGXXX:P-SET1-C</Pending>", "locked=true"}},
		{name: "a replace then re-affirmation (amendment)", msgs: []*schemas.Draft{n, a, p, s, affA, sr,
			aff("P", "P-AFF-I2", invMgr, 42, "AFFIRM", lb, db, da), aff("P", "P-AFF-B2", broker, 43, "AFFIRM", lb, db, da)},
			want: []string{"value=AFFIRMED", "<MatchDigest>" + db, "CA-NEW"}},
		{name: "CXL without CXA", msgs: []*schemas.Draft{n, a, p, s, affA, cx},
			want: []string{"value=CANCEL_PENDING", `<CancelRequest state="PENDING">BRKASGSGXXX:P-CXL1</CancelRequest>`}},
		{name: "CXA before CXL", msgs: []*schemas.Draft{n, a, p, s, cxa("P-CXA1", invMgr, 40, "P-CXL1"), cx},
			want: []string{"value=CANCELLED", "<CancelledBy>BRKASGSGXXX:P-CXL1 INVMSGSGXXX:P-CXA1</CancelledBy>", "cancelled=true", "cls=false"}},
		{name: "CXJ then CXA", msgs: []*schemas.Draft{n, a, p, s, cx, cxj("P-CXJ1", invMgr, 51, "P-CXL1", "OTHER"),
			cxa("P-CXA1", invMgr, 52, "P-CXL1")},
			want: []string{"value=CANCELLED", "cancelled=true"}},
		{name: "CXJ alone", msgs: []*schemas.Draft{n, a, p, s, affA, cx, cxj("P-CXJ1", invMgr, 51, "P-CXL1", "OTHER")},
			want: []string{"value=AFFIRMED", `<CancelRequest state="REJECTED">`}},
		{name: "auto-affirm", msgs: base, cfg: Config{Affirmation: autoModes{invMgr: true}},
			want: []string{"value=AFFIRMED", "locked=true", "by=AUTO"}},
		{name: "a backdated affirmation takes over", msgs: []*schemas.Draft{n, a, p, s, sr, affA,
			aff("P", "P-AFF-B", invMgr, 5, "AFFIRM", lb, db, "")},
			want: []string{"value=AFFIRMED", "<MatchDigest>" + db}},
		{name: "a reject", msgs: []*schemas.Draft{n, a, p, s, aff("P", "P-REJ", invMgr, 40, "REJECT", la, da, "", "SSI")},
			want: []string{"value=AFFIRM_REJECTED", "<RejectReason>SSI</RejectReason>"}},
		{name: "a rogue SET", msgs: []*schemas.Draft{n, a, p, s, rogueSET},
			want: []string{"value=MATCHED", "held=1", "cls=true"}},
		{name: "a SET before its ALC, the ALC replaced", msgs: []*schemas.Draft{n, a, altCust, p, s, s2},
			want: []string{"value=MATCHED", "held=1", "CUSTHKHHXXX"}},
		{name: "incomplete: allegements", msgs: []*schemas.Draft{n, a, p},
			want: []string{"value=none", "alg CUSTSGSGXXX", `<Owed msgType="SET" account="A1" quantity="600"/>`}},
		{name: "duplicates", msgs: []*schemas.Draft{n, a, p, s, affA, n, affA},
			want: []string{"value=AFFIRMED", "locked=true"}},
	}
}

// TestLifecycleEveryOrder runs every order of every scenario.
func TestLifecycleEveryOrder(t *testing.T) {
	for _, sc := range lifecycleScenarios(t) {
		t.Run(sc.name, func(t *testing.T) {
			var want string
			seen := 0
			orders.Each(len(sc.msgs), func(order []int) {
				f := newFixture(t, WithConfig(sc.cfg))
				for _, i := range order {
					f.send(sc.msgs[i])
				}
				f.allege()
				got := standingOutcome(t, f, "P")
				seen++
				if want == "" {
					want = got
					for _, w := range sc.want {
						if !strings.Contains(got, w) {
							t.Fatalf("order %v: the outcome lacks %q:\n%s", order, w, got)
						}
					}
					return
				}
				if got != want {
					t.Fatalf("order %v:\n%s\nfirst order:\n%s", order, got, want)
				}
			})
			t.Logf("%d orders, one outcome", seen)
		})
	}
}

var (
	criterionLists = regexp.MustCompile(`(<(?:Discrepancy|Tolerance) criterion="\d+">)[^<]*(</)`)
	statusValue    = regexp.MustCompile(`<Status>([A-Z_]+)</Status>`)
)

// standingOutcome reads the standing outcome of trade ref from the outputs
// (and the book's flags), checking that every MsgId carries one content.
func standingOutcome(t testing.TB, f *fixture, ref string) string {
	t.Helper()
	k := tradeKey(ref).String()
	seen := map[string][]byte{}
	type last struct {
		n    int
		body string
		fn   schemas.Function
	}
	status := map[string]last{} // by receiver: highest n
	top := last{}
	cnf := map[string]last{}
	blk := map[string]last{}
	alg := map[string]last{}
	var cls []schemas.Output
	for _, o := range f.outs {
		if prev, ok := seen[o.MsgId]; ok && !bytes.Equal(prev, o.Body) {
			t.Fatalf("%s carries two contents", o.MsgId)
		}
		seen[o.MsgId] = o.Body
		parts := strings.Split(o.MsgId, ":")
		if len(parts) < 4 || parts[1] != k {
			if o.Type == schemas.CLS && strings.HasPrefix(o.MsgId, "CLS-"+k+"-") {
				cls = append(cls, o)
			}
			continue
		}
		n, _ := strconv.Atoi(parts[2])
		l := last{n, string(o.Body), o.Function}
		switch o.Type {
		case schemas.STATUS:
			if n >= status[o.Receiver].n {
				status[o.Receiver] = l
			}
			if n >= top.n && o.Receiver == broker { // the full Body: the Broker receives every STATUS
				top = l
			}
		case schemas.CNF:
			if n >= cnf[o.Receiver].n { // a CANCEL carries its NEW's c and follows it
				cnf[o.Receiver] = l
			}
		case schemas.BLK:
			if n >= blk[o.Receiver].n {
				blk[o.Receiver] = l
			}
		case schemas.ALG:
			if n >= alg[o.Receiver].n {
				alg[o.Receiver] = l
			}
		}
	}
	var b strings.Builder
	tr := f.book.Trade(tradeKey(ref))
	value := "none"
	if m := statusValue.FindStringSubmatch(top.body); m != nil && m[1] != "UNMATCHED" && m[1] != "EXPIRED" {
		value = m[1]
	}
	fmt.Fprintf(&b, "value=%s\n", value)
	var v View
	if tr != nil {
		v = tr.View()
	}
	switch {
	case value == "none":
	case schemas.Status(statusOf(value)).IsV3():
		fmt.Fprintf(&b, "status %s\n", top.body)
		// Every current party holds it (a Custodian its own Body).
		for _, p := range v.Parties {
			want := top.body
			if v.Custodians[p] != nil {
				want = string(func() []byte { a := assess(tr, nil); b, _, _ := a.statusBody(a.value, p); return b }())
			}
			if status[p].body != want {
				t.Fatalf("party %s's last STATUS %q, want %q", p, status[p].body, want)
			}
		}
	default:
		fmt.Fprintf(&b, "status %s\n", criterionLists.ReplaceAllString(top.body, "$1…$2"))
	}
	for _, r := range sortedKeys(cnf) {
		if cnf[r].fn == schemas.NEW {
			fmt.Fprintf(&b, "cnf %s %s\n", r, cnf[r].body)
		}
	}
	for _, r := range sortedKeys(blk) {
		if !strings.Contains(blk[r].body, "BLOCK_INCOMPLETE") {
			fmt.Fprintf(&b, "blk %s %s\n", r, blk[r].body)
		}
	}
	for _, r := range sortedKeys(alg) {
		if alg[r].fn == schemas.NEW {
			fmt.Fprintf(&b, "alg %s %s\n", r, alg[r].body)
		}
	}
	// The standing CLS: the last NEW, unless cancelled.
	cancelled := map[string]bool{}
	var standing string
	for _, o := range cls {
		if o.Function == schemas.CANCEL {
			cancelled[o.RelatedMsgId] = true
		}
	}
	standingIDs := map[string]bool{}
	for _, o := range cls {
		if o.Function == schemas.NEW && !cancelled[o.MsgId] {
			standingIDs[o.MsgId] = true
			standing = regexp.MustCompile(`<Version>\d+</Version>`).ReplaceAllString(string(o.Body), "")
		}
	}
	if len(standingIDs) > 1 {
		t.Fatalf("two CLS NEW stand: %v", standingIDs)
	}
	fmt.Fprintf(&b, "cls=%v %s\n", standing != "", standing)
	if tr != nil {
		fmt.Fprintf(&b, "locked=%v cancelled=%v held=%d lifecycle=%s block=%s\n", tr.Locked, tr.Cancelled, len(v.Held), v.Lifecycle, v.BlockStatus)
		if v.Agreement != nil {
			fmt.Fprintf(&b, "agreement by=%s amendments=%d %s\n", v.Agreement.By, v.Agreement.Amendments, v.Agreement.MatchDigest)
		}
	}
	return b.String()
}

func statusOf(name string) uint8 {
	for s := schemas.Status(1); s <= schemas.Cancelled; s++ {
		if s.String() == name {
			return uint8(s)
		}
	}
	return 0
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// The expiry of a locked trade, after every order of its messages: purged
// silently, its CLS and CNF standing, the standing allegements withdrawn
// (none: it is complete), and a message for its key starts a new, unlocked
// trade whose counters continue.
func TestLockedTradeExpiresSilentlyInEveryOrder(t *testing.T) {
	base := single("P")
	la, da := setOf(t, base...)
	msgs := append(slices.Clone(base), aff("P", "P-AFF-A", invMgr, 40, "AFFIRM", la, da, ""))
	var want string
	orders.Each(len(msgs), func(order []int) {
		f := newFixture(t, WithRetention(time.Hour))
		for _, i := range order {
			f.send(msgs[i])
		}
		late := standard("Z")[0]
		late.Created = at(500)
		if out := f.send(late); allIDs(out) != "ACK:BRKASGSGXXX:Z-NOE" {
			t.Fatalf("order %v: purge of a locked trade: %s", order, allIDs(out))
		}
		got := standingOutcome(t, f, "P")
		if want == "" {
			want = got
			if !strings.Contains(got, "cls=true") || !strings.Contains(got, "cnf BRKASGSGXXX") {
				t.Fatalf("after the purge: %s", got)
			}
		} else if got != want {
			t.Fatalf("order %v:\n%s\nwant\n%s", order, got, want)
		}
		re := base[0].Clone()
		re.MsgId, re.Created = "P-NOE-LATE", at(501)
		f.send(re)
		if tr := f.book.Trade(tradeKey("P")); tr == nil || tr.Locked || tr.Version != 1 {
			t.Fatalf("order %v: the key after the purge: %+v", order, tr)
		}
	})
}
