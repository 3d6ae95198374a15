package conformance

import (
	"fmt"
	"math/rand"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// §5/§6: a standard trade (1 NOE + 2 ALC + 2 NPR + 2 SET) matches: one CLS NEW
// version 1 and a STATUS MATCHED to Broker, InvMgr and each Custodian.
func TestMatch_StandardTrade_CLSAndStatusMatched(t *testing.T) {
	tr := stdTrade("STD-1")
	ms := tr.All()
	r := runMatch(t, lines(ms...))
	key := tr.Key()
	expectAccepted(t, r, ms...)
	if r.num("cls") != 1 || r.num("mismatched") != 0 || r.num("exceptions") != 0 {
		t.Errorf("summary %s, want cls 1 mismatched 0 exceptions 0", r.Stdout)
	}
	cls := r.CLSFor(key)
	if len(cls) != 1 {
		t.Fatalf("want exactly one CLS for %s, got %v\n%s", key, r.CLSIDs(key), r.dump())
	}
	c := cls[0]
	checkCLSNew(t, c, tr, 1)
	expectStatusRound(t, r, key, 1, "MATCHED", BRK, INV, CUSA, CUSB)
	if rounds := r.StatusRounds(key); len(rounds) != 1 {
		t.Errorf("want one status round, got:\n%s", statusSummary(r, key))
	}
	for _, o := range r.Statuses(key) {
		if o.B("TradeRef") != tr.Ref {
			t.Errorf("STATUS %s: TradeRef %q", o.ID(), o.B("TradeRef"))
		}
		if len(o.Body.KidsNamed("Discrepancy")) != 0 {
			t.Errorf("STATUS MATCHED with Discrepancy: %s", o.RawBody)
		}
	}
}

// checkCLSNew checks a CLS NEW against the standard trade's expected content.
func checkCLSNew(t *testing.T, c *OutMsg, tr *Trade, version int) {
	t.Helper()
	checkCLSNewAt(t, c, tr, version, tr.LatestCreated())
}

func checkCLSNewAt(t *testing.T, c *OutMsg, tr *Trade, version int, matchedAt string) {
	t.Helper()
	key := tr.Key()
	wantID := fmt.Sprintf("CLS-%s-%d", key, version)
	if c.ID() != wantID {
		t.Errorf("CLS MsgId %q, want %q", c.ID(), wantID)
	}
	if c.H("MsgType") != "CLS" || c.H("Function") != "NEW" || c.H("Receiver") != utilityBIC {
		t.Errorf("CLS header MsgType=%q Function=%q Receiver=%q, want CLS NEW %s", c.H("MsgType"), c.H("Function"), c.H("Receiver"), utilityBIC)
	}
	want := map[string]string{
		"TradeRef": tr.Ref, "TradeDate": tr.TDate, "ISIN": tr.ISIN, "Side": tr.Side, "Broker": tr.Broker,
		"InvMgr": tr.InvMgr, "TradeKey": key, "Version": fmt.Sprint(version),
		"Quantity": fmt.Sprint(tr.BlockQty()), "Price": canonPrice(tr.Price), "TradeCcy": tr.Ccy,
		"SettleDate": tr.Settle, "MatchedAt": matchedAt,
	}
	for k, v := range want {
		if c.Body.Kid(k) == nil {
			t.Errorf("CLS %s: body lacks %s", c.ID(), k)
		} else if got := c.B(k); got != v {
			t.Errorf("CLS %s: %s = %q, want %q", c.ID(), k, got, v)
		}
	}
	legs := c.Body.KidsNamed("Leg")
	if len(legs) != len(tr.Allocs) {
		t.Fatalf("CLS %s: %d legs, want %d", c.ID(), len(legs), len(tr.Allocs))
	}
	idx := make([]int, len(tr.Allocs))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return tr.Allocs[idx[a]].Acct < tr.Allocs[idx[b]].Acct })
	for li, i := range idx {
		a := tr.Allocs[i]
		leg := legs[li]
		lw := map[string]string{"Account": a.Acct, "Quantity": fmt.Sprint(a.Qty), "NetAmount": tr.Net(i),
			"SettleCcy": tr.Ccy, "Custodian": a.Cust, "PSET": a.PSET,
			"SafekeepingAccount": "SK-" + a.Acct, "CashAccount": "CA-" + a.Acct}
		for k, v := range lw {
			if leg.Kid(k) == nil {
				t.Errorf("CLS %s leg %d: lacks %s", c.ID(), li+1, k)
			} else if got := leg.T(k); got != v {
				t.Errorf("CLS %s leg %d: %s = %q, want %q", c.ID(), li+1, k, got, v)
			}
		}
	}
}

// canonPrice strips trailing zeros (and a trailing dot) of a decimal string.
func canonPrice(p string) string {
	if strings.Contains(p, ".") {
		p = strings.TrimRight(p, "0")
		p = strings.TrimSuffix(p, ".")
	}
	return p
}

// §5: complete by count with k = max AllocCount — AllocCount 1.
func TestMatch_AllocCount1(t *testing.T) {
	tr := oneAllocTrade("AC1-1")
	r := runMatch(t, lines(tr.All()...))
	if len(r.CLSFor(tr.Key())) != 1 {
		t.Fatalf("AllocCount 1 trade not matched\n%s", r.dump())
	}
	checkCLSNew(t, r.CLSFor(tr.Key())[0], tr, 1)
	expectStatusRound(t, r, tr.Key(), 1, "MATCHED", BRK, INV, CUSA)
}

// §5: AllocCount 3 (three custodians; CUSC has roles BROKER;CUSTODIAN).
func TestMatch_AllocCount3(t *testing.T) {
	tr := stdTrade("AC3-1")
	tr.Allocs = append(tr.Allocs, Alloc{Acct: "ACCC003", Qty: 250, Cust: CUSC, PSET: CSD2, Comm: "2.50", Fees: "0.25"})
	ms := tr.All()
	// incomplete with only two of each: no output
	partial := []*Msg{ms[0], ms[1], ms[2], ms[4], ms[5], ms[7], ms[8]}
	r0 := runMatch(t, lines(partial...))
	expectNoOutputsFor(t, r0, tr.Key())
	if r0.num("cls") != 0 || r0.num("mismatched") != 0 {
		t.Errorf("incomplete AllocCount 3 trade: summary %s", r0.Stdout)
	}
	r := runMatch(t, lines(ms...))
	if len(r.CLSFor(tr.Key())) != 1 {
		t.Fatalf("AllocCount 3 trade not matched\n%s", r.dump())
	}
	checkCLSNew(t, r.CLSFor(tr.Key())[0], tr, 1)
	expectStatusRound(t, r, tr.Key(), 1, "MATCHED", BRK, INV, CUSA, CUSB, CUSC)
}

// §5: an incomplete trade emits nothing but ACKs; summary counts neither.
func TestMatch_IncompleteTrade_NoOutput(t *testing.T) {
	tr := stdTrade("INC-1")
	ms := tr.All()
	for drop := range ms {
		var in []*Msg
		for i, m := range ms {
			if i != drop {
				in = append(in, m)
			}
		}
		r := runMatch(t, lines(in...))
		expectNoOutputsFor(t, r, tr.Key())
		if r.num("cls") != 0 || r.num("mismatched") != 0 {
			t.Errorf("without %s: summary %s, want cls 0 mismatched 0", ms[drop].ID(), r.Stdout)
		}
		if len(r.Out) != len(in) {
			t.Errorf("without %s: %d outbound records, want %d ACKs", ms[drop].ID(), len(r.Out), len(in))
		}
	}
}

// §5: the trade key is FNV-1a 64 of the six trimmed key fields joined by '|',
// 16 lower-case hex; a message whose key fields differ is another trade.
func TestMatch_KeyFieldDiffers_IsAnotherTrade(t *testing.T) {
	tr := stdTrade("KEY-1")
	ms := tr.All()
	other := *tr
	other.Side = "SELL"
	alc2 := other.ALC(1) // same MsgId scheme, different trade (Side SELL)
	ms[2] = alc2
	r := runMatch(t, lines(ms...))
	expectNoOutputsFor(t, r, tr.Key())
	expectNoOutputsFor(t, r, other.Key())
	if r.num("cls") != 0 || r.num("mismatched") != 0 {
		t.Errorf("summary %s, want cls 0 mismatched 0", r.Stdout)
	}
	if tr.Key() == other.Key() {
		t.Fatal("suite error: keys equal")
	}
}

// §6 STATUS body: when mismatched, one Discrepancy per failing criterion, by N,
// tokens Sender:MsgId in byte order; trade-wide criteria list all compared
// messages, per-account ones those of the failing accounts. Version 3: a
// Custodian's body lists only its accounts' messages (discFor), and a SET
// no ALC in force names for its Account and Custodian is parked (§5,
// attached SETs): the two cases that failed 11 and 16 through a SET alone
// leave the trade incomplete, with no STATUS (crit nil).
func TestMatch_EachCriterionFailingAlone(t *testing.T) {
	// message positions in tr.All(): 0 NOE, 1-2 ALC, 3-4 NPR, 5-6 SET
	cases := []struct {
		name string
		mut  func(tr *Trade, ms []*Msg) ([]*Msg, map[int][]*Msg, []string)
	}{
		{"07_Price_ALC2", func(tr *Trade, ms []*Msg) ([]*Msg, map[int][]*Msg, []string) {
			ms[2].Set("Price", "12.346")
			return ms, map[int][]*Msg{7: {ms[0], ms[1], ms[2], ms[3], ms[4]}}, []string{CUSA, CUSB}
		}},
		{"08_TradeCcy_ALC2", func(tr *Trade, ms []*Msg) ([]*Msg, map[int][]*Msg, []string) {
			ms[2].Set("TradeCcy", "USD")
			return ms, map[int][]*Msg{8: {ms[0], ms[1], ms[2], ms[3], ms[4]}}, []string{CUSA, CUSB}
		}},
		{"09_BlockQuantity_NOE", func(tr *Trade, ms []*Msg) ([]*Msg, map[int][]*Msg, []string) {
			ms[0].Set("Quantity", "1600")
			return ms, map[int][]*Msg{9: {ms[0], ms[1], ms[2]}}, []string{CUSA, CUSB}
		}},
		{"10_AllocCount_ALC2", func(tr *Trade, ms []*Msg) ([]*Msg, map[int][]*Msg, []string) {
			ms[2].Set("AllocCount", "1")
			return ms, map[int][]*Msg{10: {ms[0], ms[1], ms[2]}}, []string{CUSA, CUSB}
		}},
		{"10_TwoNOEs", func(tr *Trade, ms []*Msg) ([]*Msg, map[int][]*Msg, []string) {
			noe2 := ms[0].Clone().Set("MsgId", tr.Ref+"-NOE-BIS")
			ms = append([]*Msg{noe2}, ms...) // first, so that round 1 is already the final set
			return ms, map[int][]*Msg{10: {ms[0], ms[1], ms[2], ms[3]}}, []string{CUSA, CUSB}
		}},
		{"11_Account_NPR2NamesOtherAccount", func(tr *Trade, ms []*Msg) ([]*Msg, map[int][]*Msg, []string) {
			ms[4].Set("Account", "ACCX009")
			return ms, map[int][]*Msg{11: {ms[2], ms[4], ms[6]}}, []string{CUSA, CUSB}
		}},
		{"11_Account_SET2NamesOtherAccount", func(tr *Trade, ms []*Msg) ([]*Msg, map[int][]*Msg, []string) {
			ms[6].Set("Account", "ACCX009") // no ALC of ACCX009: parked (v3)
			return ms, nil, nil
		}},
		{"12_AllocQuantity_SET2", func(tr *Trade, ms []*Msg) ([]*Msg, map[int][]*Msg, []string) {
			ms[6].Set("Quantity", "501")
			return ms, map[int][]*Msg{12: {ms[2], ms[4], ms[6]}}, []string{CUSA, CUSB}
		}},
		{"13_SettleDate_SET2", func(tr *Trade, ms []*Msg) ([]*Msg, map[int][]*Msg, []string) {
			ms[6].Set("SettleDate", dFri)
			return ms, map[int][]*Msg{13: {ms[0], ms[3], ms[4], ms[5], ms[6]}}, []string{CUSA, CUSB}
		}},
		{"14_SettleCcy_SET2", func(tr *Trade, ms []*Msg) ([]*Msg, map[int][]*Msg, []string) {
			ms[6].Set("SettleCcy", "USD")
			return ms, map[int][]*Msg{14: {ms[4], ms[6]}}, []string{CUSA, CUSB}
		}},
		{"15_NetAmount_SET2", func(tr *Trade, ms []*Msg) ([]*Msg, map[int][]*Msg, []string) {
			ms[6].Set("NetAmount", "6178.26")
			return ms, map[int][]*Msg{15: {ms[4], ms[6]}}, []string{CUSA, CUSB}
		}},
		{"16_Custodian_SET2", func(tr *Trade, ms []*Msg) ([]*Msg, map[int][]*Msg, []string) {
			// SET2 sent and named by CUSA while ALC2 names CUSB: parked (v3)
			ms[6].Set("Custodian", CUSA).Set("Sender", CUSA)
			return ms, nil, nil
		}},
		{"17_PSET_SET2", func(tr *Trade, ms []*Msg) ([]*Msg, map[int][]*Msg, []string) {
			ms[6].Set("PSET", CSD2)
			return ms, map[int][]*Msg{17: {ms[2], ms[6]}}, []string{CUSA, CUSB}
		}},
	}
	var in []*Msg
	type exp struct {
		key     string
		crit    map[int][]*Msg
		ms      []*Msg
		parties []string
	}
	var exps []exp
	mismatched := 0
	for i, c := range cases {
		tr := stdTrade(fmt.Sprintf("CRIT-%02d", i))
		ms, crit, custs := c.mut(tr, tr.All())
		in = append(in, ms...)
		exps = append(exps, exp{tr.Key(), crit, ms, append([]string{BRK, INV}, custs...)})
		if crit != nil {
			mismatched++
		}
	}
	r := runMatch(t, lines(in...))
	if r.num("exceptions") != 0 {
		t.Fatalf("suite messages rejected:\n%s", r.ExcRaw)
	}
	if r.num("mismatched") != mismatched || r.num("cls") != 0 {
		t.Errorf("summary %s, want mismatched %d cls 0", r.Stdout, mismatched)
	}
	for i, c := range cases {
		e := exps[i]
		t.Run(c.name, func(t *testing.T) {
			if e.crit == nil {
				expectNoOutputsFor(t, r, e.key)
				return
			}
			got := expectStatusRound(t, r, e.key, 1, "MISMATCHED", e.parties...)
			if len(r.StatusRounds(e.key)) != 1 {
				t.Errorf("want exactly one status round:\n%s", statusSummary(r, e.key))
			}
			if len(r.CLSFor(e.key)) != 0 {
				t.Errorf("mismatched trade has CLS %v", r.CLSIDs(e.key))
			}
			for _, o := range got {
				if d, want := discrepancies(o), discFor(o.H("Receiver"), e.crit, e.ms); d != want {
					t.Errorf("STATUS %s discrepancies:\n   got  %s\n   want %s", o.ID(), d, want)
				}
				checkDiscrepancyFormat(t, o)
			}
		})
	}
}

// checkDiscrepancyFormat: ordered by N, tokens in byte order, single spaces.
func checkDiscrepancyFormat(t *testing.T, o *OutMsg) {
	t.Helper()
	prev := 0
	for _, d := range o.Body.KidsNamed("Discrepancy") {
		var n int
		fmt.Sscan(d.Attr["criterion"], &n)
		if n <= prev {
			t.Errorf("STATUS %s: Discrepancy criteria not ordered by N", o.ID())
		}
		prev = n
		toks := strings.Fields(d.Text)
		if !sort.StringsAreSorted(toks) {
			t.Errorf("STATUS %s: criterion %d tokens not in byte order: %v", o.ID(), n, toks)
		}
		if strings.Join(toks, " ") != strings.TrimSpace(d.Text) {
			t.Errorf("STATUS %s: criterion %d tokens not separated by single spaces: %q", o.ID(), n, d.Text)
		}
	}
}

// §5/§6: complete by count with an extra NPR for an account no ALC names:
// criterion 11 fails for that account only.
func TestMatch_ExtraNPRForUnknownAccount_Criterion11(t *testing.T) {
	tr := stdTrade("XNPR-1")
	ms := tr.All()
	extra := tr.NPR(1).Set("MsgId", "XNPR-1-NPR3").Set("Account", "ACCZ999")
	ms = append([]*Msg{extra}, ms...)
	r := runMatch(t, lines(ms...))
	got := expectStatusRound(t, r, tr.Key(), 1, "MISMATCHED", BRK, INV, CUSA, CUSB)
	for _, o := range got {
		// A custodian's list is empty (NPR3 is of no account of theirs), and written.
		if d, want := discrepancies(o), discFor(o.H("Receiver"), map[int][]*Msg{11: {extra}}, ms); d != want {
			t.Errorf("STATUS %s discrepancies:\n   got  %s\n   want %s", o.ID(), d, want)
		}
	}
	if r.num("mismatched") != 1 {
		t.Errorf("summary %s", r.Stdout)
	}
}

// §5: decimals compare by value (100.5 equals 100.50), across criteria 7 and 15.
func TestMatch_DecimalsCompareByValue(t *testing.T) {
	tr := stdTrade("DEC-1")
	ms := tr.All()
	ms[0].Set("Price", "12.3450")   // NOE
	ms[2].Set("Price", "12.345000") // ALC2
	ms[5].Set("NetAmount", "12356.5")
	r := runMatch(t, lines(ms...))
	if len(r.CLSFor(tr.Key())) != 1 {
		t.Fatalf("trade with equal-by-value decimals not matched:\n%s", r.dump())
	}
	c := r.CLSFor(tr.Key())[0]
	if c.B("Price") != "12.345" {
		t.Errorf("CLS Price %q, want 12.345 (no trailing zeros)", c.B("Price"))
	}
}

// §5: the status is re-sent only when the list of failing criteria (the
// numbers) changes; a change of the messages compared alone sends nothing.
func TestMatch_StatusResentOnlyWhenCriteriaChange(t *testing.T) {
	tr := stdTrade("RES-1")
	ms := tr.All()
	ms[2].Set("Price", "12.346") // criterion 7
	t1 := tr.Base.Add(time.Hour)
	r1 := Replace(ms[2], "RES-1-ALC2-R1", t1, "Price", "12.347")                    // still {7}
	r2 := Replace(ms[6], "RES-1-SET2-R1", t1.Add(time.Minute), "NetAmount", "1.00") // {7,15}
	r3 := Replace(r1, "RES-1-ALC2-R2", t1.Add(2*time.Minute), "Price", "12.345")    // {15}
	r4 := Replace(r2, "RES-1-SET2-R2", t1.Add(3*time.Minute), "NetAmount", tr.Net(1))
	in := append(ms, r1, r2, r3, r4)
	r := runMatch(t, lines(in...))
	key := tr.Key()
	all := []string{BRK, INV, CUSA, CUSB}
	s1 := expectStatusRound(t, r, key, 1, "MISMATCHED", all...)
	s2 := expectStatusRound(t, r, key, 2, "MISMATCHED", all...)
	s3 := expectStatusRound(t, r, key, 3, "MISMATCHED", all...)
	expectStatusRound(t, r, key, 4, "MATCHED", all...)
	if n := len(r.StatusRounds(key)); n != 4 {
		t.Errorf("want 4 status rounds (7 | 7,15 | 15 | MATCHED), got %d:\n%s", n, statusSummary(r, key))
	}
	critOf := func(os []*OutMsg) string {
		if len(os) == 0 {
			return ""
		}
		var c []string
		for _, d := range os[0].Body.KidsNamed("Discrepancy") {
			c = append(c, d.Attr["criterion"])
		}
		return strings.Join(c, ",")
	}
	if critOf(s1) != "7" || critOf(s2) != "7,15" || critOf(s3) != "15" {
		t.Errorf("criteria per round: %q %q %q, want 7 | 7,15 | 15", critOf(s1), critOf(s2), critOf(s3))
	}
	if len(r.CLSFor(key)) != 1 {
		t.Errorf("CLS: %v, want one CLS NEW v1", r.CLSIDs(key))
	} else {
		checkCLSNewAt(t, r.CLSFor(key)[0], tr, 1, ts(t1.Add(3*time.Minute)))
	}
	if r.num("cls") != 1 || r.num("mismatched") != 0 {
		t.Errorf("summary %s", r.Stdout)
	}
}

// §5: messages may arrive in any order: the CLS content is the same for a
// sample of the 5040 orders of a standard trade (every 10th permutation in
// generation order), and each order gives exactly one CLS and one
// MATCHED round.
func TestMatch_AnyOrder_SameCLS(t *testing.T) {
	perms := permutations(7)
	var in []string
	var trades []*Trade
	for pi := 0; pi < len(perms); pi += 10 {
		tr := stdTrade(fmt.Sprintf("ORD-%04d", pi))
		ms := tr.All()
		for _, j := range perms[pi] {
			in = append(in, ms[j].Line())
		}
		trades = append(trades, tr)
	}
	r := runMatch(t, in)
	if r.num("cls") != len(trades) {
		t.Errorf("summary %s, want cls %d", r.Stdout, len(trades))
	}
	var ref string
	bad := 0
	for _, tr := range trades {
		cls := r.CLSFor(tr.Key())
		rounds := r.StatusRounds(tr.Key())
		if len(cls) != 1 || len(rounds) != 1 || len(rounds[1]) != 4 {
			bad++
			if bad < 4 {
				t.Errorf("trade %s: CLS %v, status rounds %d", tr.Ref, r.CLSIDs(tr.Key()), len(rounds))
			}
			continue
		}
		body := strings.ReplaceAll(strings.ReplaceAll(cls[0].RawBody, tr.Ref, "REF"), tr.Key(), "KEY")
		if ref == "" {
			ref = body
		} else if body != ref && bad < 4 {
			bad++
			t.Errorf("trade %s: CLS body differs by order:\n %s\n %s", tr.Ref, body, ref)
		}
	}
}

// §5: the statuses' criteria depend only on the set of messages: a
// mismatched trade (criterion 15) gives the same single MISMATCHED status in
// a random sample of orders.
func TestMatch_AnyOrder_SameMismatch(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var in []string
	var trades []*Trade
	var wants []string
	for i := 0; i < 60; i++ {
		tr := stdTrade(fmt.Sprintf("ORDM-%03d", i))
		ms := tr.All()
		ms[6].Set("NetAmount", "6178.26")
		wants = append(wants, discSpec(map[int][]*Msg{15: {ms[4], ms[6]}}))
		for _, j := range rng.Perm(7) {
			in = append(in, ms[j].Line())
		}
		trades = append(trades, tr)
	}
	r := runMatch(t, in)
	bad := 0
	for i, tr := range trades {
		rounds := r.StatusRounds(tr.Key())
		if len(rounds) != 1 || len(rounds[1]) != 4 {
			bad++
		} else if d := discrepancies(rounds[1][0]); d != wants[i] {
			bad++
			if bad < 4 {
				t.Errorf("trade %s: %s, want %s", tr.Ref, d, wants[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d orders deviate", bad, len(trades))
	}
}

func permutations(n int) [][]int {
	var out [][]int
	a := make([]int, n)
	for i := range a {
		a[i] = i
	}
	var rec func(k int)
	rec = func(k int) {
		if k == n {
			out = append(out, append([]int(nil), a...))
			return
		}
		for i := k; i < n; i++ {
			a[k], a[i] = a[i], a[k]
			rec(k + 1)
			a[k], a[i] = a[i], a[k]
		}
	}
	rec(0)
	return out
}

// §5/§6: several criteria failing at once are listed ordered by N as numbers
// (7 before 10 before 17), and tokens are in byte order (upper case before
// lower case, "NPR10" before "NPR9").
func TestMatch_DiscrepancyOrdering(t *testing.T) {
	tr := stdTrade("ORDR-1")
	tr.Allocs = append(tr.Allocs, Alloc{Acct: "ACCC003", Qty: 250, Cust: CUSC, PSET: CSD, Comm: "1.00", Fees: "0.10"})
	ms := tr.All() // 0 NOE, 1-3 ALC, 4-6 NPR, 7-9 SET
	ms[4].Set("MsgId", "ORDR-1-npr9")
	ms[5].Set("MsgId", "ORDR-1-NPR10")
	ms[6].Set("MsgId", "ORDR-1-Npr2")
	ms[2].Set("Price", "12.3")   // 7
	ms[3].Set("AllocCount", "2") // 10 (k stays 3)
	ms[7].Set("PSET", CSD2)      // 17 for ACCA001
	r := runMatch(t, lines(ms...))
	crit := map[int][]*Msg{
		7:  {ms[0], ms[1], ms[2], ms[3], ms[4], ms[5], ms[6]},
		10: {ms[0], ms[1], ms[2], ms[3]},
		17: {ms[1], ms[7]},
	}
	got := expectStatusRound(t, r, tr.Key(), 1, "MISMATCHED", BRK, INV, CUSA, CUSB, CUSC)
	for _, o := range got {
		if d, want := discrepancies(o), discFor(o.H("Receiver"), crit, ms); d != want {
			t.Errorf("STATUS %s discrepancies:\n   got  %s\n   want %s", o.ID(), d, want)
		}
		checkDiscrepancyFormat(t, o)
	}
}

// §5, §6 (version 3): a Custodian named by a SET alone is no party — its SET
// is parked (no ALC in force names it for the account), the trade is not
// complete by count, and nobody gets a STATUS (version 2 sent MISMATCHED on
// 16 to every custodian named in a SET). When the InvMgr's ALC names it, it
// becomes a party and the trade matches.
func TestMatch_SETOnlyCustodianIsNoParty(t *testing.T) {
	tr := stdTrade("PTY-1")
	ms := tr.All()
	ms[6].Set("Custodian", CUSC).Set("Sender", CUSC)
	r := runMatch(t, lines(ms...))
	expectNoOutputsFor(t, r, tr.Key())
	expectAccepted(t, r, ms...)
	for _, o := range r.All {
		if o.H("Receiver") == CUSC && o.H("MsgType") != "ACK" {
			t.Errorf("the SET-only custodian received %s", o.ID())
		}
	}
	// The ALC replaced to name CUSC: SET2 attached, matched, CUSC a party.
	rp := Replace(ms[2], "PTY-1-ALC2-R", tr.Base.Add(30*time.Minute), "Custodian", CUSC)
	r = runMatch(t, lines(append(ms, rp)...))
	expectStatusRound(t, r, tr.Key(), 1, "MATCHED", BRK, INV, CUSA, CUSC)
	if len(r.CLSFor(tr.Key())) != 1 {
		t.Errorf("CLS %v", r.CLSIDs(tr.Key()))
	}
}

// §5: final CLS content depends only on the set of messages, including
// CANCELs and REPLACEs that may arrive before their related messages.
func TestMatch_AnyOrder_WithCancelAndReplace(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	type built struct {
		tr *Trade
		ms []*Msg
	}
	var in []string
	var all []built
	for i := 0; i < 80; i++ {
		tr := stdTrade(fmt.Sprintf("OCR-%03d", i))
		ms := tr.All()
		alc2 := ms[2].Set("Price", "13")
		rp := Replace(alc2, tr.Ref+"-ALC2-R", tr.Base.Add(3*time.Minute), "Price", tr.Price)
		extra := tr.NPR(1).Set("MsgId", tr.Ref+"-NPR3").Set("Account", "ACCX")
		cx := Cancel(extra, tr.Ref+"-NPR3-CX", tr.Base.Add(4*time.Minute))
		set := append(ms, rp, extra, cx)
		for _, j := range rng.Perm(len(set)) {
			in = append(in, set[j].Line())
		}
		all = append(all, built{tr: tr, ms: set})
	}
	r := runMatch(t, in)
	if r.num("cls") != len(all) || r.num("mismatched") != 0 {
		t.Errorf("summary %s, want cls %d mismatched 0", r.Stdout, len(all))
	}
	var ref string
	bad := 0
	for _, b := range all {
		cls := r.CLSFor(b.tr.Key())
		if len(cls) == 0 {
			bad++
			continue
		}
		last := cls[len(cls)-1]
		if last.H("Function") != "NEW" {
			bad++
			if bad < 4 {
				t.Errorf("trade %s: last CLS is %s", b.tr.Ref, last.ID())
			}
			continue
		}
		body := strings.NewReplacer(b.tr.Ref, "REF", b.tr.Key(), "KEY").Replace(last.RawBody)
		body = regexp.MustCompile(`<Version>\d+</Version>`).ReplaceAllString(body, "")
		if ref == "" {
			ref = body
			checkCLSNewAt(t, last, b.tr, mustAtoi(last.B("Version")), b.tr.LatestCreated())
		} else if body != ref {
			bad++
			if bad < 4 {
				t.Errorf("trade %s: final CLS differs by order:\n %s\n %s", b.tr.Ref, body, ref)
			}
		}
		rounds := r.StatusRounds(b.tr.Key())
		if lr := rounds[len(rounds)]; len(lr) == 0 || lr[0].B("Status") != "MATCHED" {
			bad++
			if bad < 4 {
				t.Errorf("trade %s: final status not MATCHED:\n%s", b.tr.Ref, statusSummary(r, b.tr.Key()))
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d orders deviate", bad, len(all))
	}
}

func mustAtoi(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}

// §3/§5: CANCEL and REPLACE are commutative, also in chains: the messages in
// force (hence the final outcome and CLS content) depend only on the set.
//
//	S1: ALC2(bad) ← R1(bad) ← R2(good); CANCEL of R1  → R2 in force: matched
//	S2: ALC2 ← R1; CANCEL of R1                        → no ALC2 in force: not matched
//	S3: ALC2 ← R1 (acct B) and ALC2 ← R2 (acct C)      → both in force: matched (3 allocations)
//	S4: NOE; CANCEL of NOE; NOE2 (new MsgId)           → NOE2 in force: matched
func TestMatch_AnyOrder_CancelReplaceChains(t *testing.T) {
	rng := rand.New(rand.NewSource(21))
	type scen struct {
		name    string
		build   func(tr *Trade) []*Msg
		matched bool
		at      func(tr *Trade) string
	}
	scens := []scen{
		{"S1", func(tr *Trade) []*Msg {
			ms := tr.All()
			alc2 := ms[2].Set("Price", "13")
			r1 := Replace(alc2, tr.Ref+"-R1", tr.Base.Add(30*time.Minute), "Price", "14")
			r2 := Replace(r1, tr.Ref+"-R2", tr.Base.Add(40*time.Minute), "Price", tr.Price)
			cx := Cancel(r1, tr.Ref+"-CX", tr.Base.Add(35*time.Minute))
			return append(ms, r1, r2, cx)
		}, true, func(tr *Trade) string { return ts(tr.Base.Add(40 * time.Minute)) }},
		{"S2", func(tr *Trade) []*Msg {
			ms := tr.All()
			r1 := Replace(ms[2], tr.Ref+"-R1", tr.Base.Add(30*time.Minute))
			cx := Cancel(r1, tr.Ref+"-CX", tr.Base.Add(35*time.Minute))
			return append(ms, r1, cx)
		}, false, nil},
		{"S3", func(tr *Trade) []*Msg {
			tr.Allocs = []Alloc{
				{Acct: "ACCA001", Qty: 1000, Cust: CUSA, PSET: CSD, Comm: "10.00", Fees: "1.50"},
				{Acct: "ACCB002", Qty: 250, Cust: CUSB, PSET: CSD, Comm: "5.00", Fees: "0.75"},
				{Acct: "ACCC003", Qty: 250, Cust: CUSC, PSET: CSD, Comm: "5.00", Fees: "0.75"},
			}
			alc2 := tr.ALC(1).Set("Account", "ACCOLD")
			r1 := Replace(alc2, tr.Ref+"-R1", tr.Base.Add(5*time.Minute), "Account", "ACCB002")
			r2 := Replace(alc2, tr.Ref+"-R2", tr.Base.Add(6*time.Minute), "Account", "ACCC003", "Custodian", CUSC)
			return []*Msg{tr.NOE(), tr.ALC(0), alc2, r1, r2, tr.NPR(0), tr.NPR(1), tr.NPR(2), tr.SET(0), tr.SET(1), tr.SET(2)}
		}, true, func(tr *Trade) string { return tr.LatestCreated() }},
		{"S4", func(tr *Trade) []*Msg {
			ms := tr.All()
			noe2 := tr.NOE().Set("MsgId", tr.Ref+"-NOE2")
			cx := Cancel(ms[0], tr.Ref+"-CX", tr.Base.Add(time.Minute))
			return append(ms, noe2, cx)
		}, true, func(tr *Trade) string { return tr.LatestCreated() }},
	}
	const orders = 40
	var in []string
	type inst struct {
		s  scen
		tr *Trade
	}
	var insts []inst
	for si, s := range scens {
		for k := 0; k < orders; k++ {
			tr := stdTrade(fmt.Sprintf("CH%d-%02d", si+1, k))
			set := s.build(tr)
			for _, j := range rng.Perm(len(set)) {
				in = append(in, set[j].Line())
			}
			insts = append(insts, inst{s, tr})
		}
	}
	r := runMatch(t, in)
	if len(r.Exc) != 0 {
		t.Fatalf("exceptions:\n%s", r.ExcRaw)
	}
	bad := map[string]int{}
	for _, x := range insts {
		cls := r.CLSFor(x.tr.Key())
		endMatched := len(cls) > 0 && cls[len(cls)-1].H("Function") == "NEW"
		if endMatched != x.s.matched {
			bad[x.s.name]++
			if bad[x.s.name] < 3 {
				t.Errorf("%s %s: matched at the end = %v, want %v; CLS %v\n%s", x.s.name, x.tr.Ref, endMatched, x.s.matched, r.CLSIDs(x.tr.Key()), statusSummary(r, x.tr.Key()))
			}
			continue
		}
		if endMatched {
			last := cls[len(cls)-1]
			var v int
			fmt.Sscan(last.B("Version"), &v)
			checkCLSNewAt(t, last, x.tr, v, x.s.at(x.tr))
		}
	}
	for name, n := range bad {
		t.Errorf("scenario %s: %d of %d orders deviate", name, n, orders)
	}
	want := 0
	for _, s := range scens {
		if s.matched {
			want += orders
		}
	}
	if r.num("cls") != want {
		t.Errorf("summary cls %d, want %d", r.num("cls"), want)
	}
}
