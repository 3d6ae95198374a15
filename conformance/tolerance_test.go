package conformance

// Tolerances (docs/spec/messages.md §5, §6 <Tolerance>, §8 tolerances.csv), from the
// contract alone: a suite reference data directory with a tolerances.csv,
// trades within tolerance, just beyond it and moved in and out of it by
// REPLACEs, through `ste match` and through `ste broker` + `ste process`.

import (
	"context"
	"encoding/base64"
	"fmt"
	"math/big"

	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tolRefDir is the suite's reference data plus a tolerances.csv: SGD net
// amounts within 0.02, SGD prices within 0.005, and "15,*,0.01", which gives
// JPY (no minor units) no tolerance at all.
func tolRefDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ref")
	if err := writeRefdata(dir, stdRefdata()); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "tolerances.csv"), []byte("criterion,currency,max_difference\n"+
		"15,*,0.01\n15,SGD,0.05\n15,SGD,0.02\n7,SGD,0.005\n")) // the later SGD row replaces the earlier
	return dir
}

// addAmount adds d (a decimal string) to an amount of minor units.
func addAmount(amount, d string, minor int) string {
	s := new(big.Rat).Add(rat(amount), rat(d))
	return s.FloatString(minor)
}

// tolSet is the trades of the tolerance tests, their messages in file order,
// and the final outcome each must reach ("status tolerance=[..]" or
// "MISMATCHED discrepancy=[..]").
type tolCase struct {
	tr   *Trade
	msgs []*Msg
	want string
}

func tolCases() []tolCase {
	var cs []tolCase
	// Within the amount tolerance: 0.02 apart.
	in := stdTrade("TOL-IN")
	ms := in.All()
	ms[5].Set("NetAmount", addAmount(in.Net(0), "0.02", 2)) // SET of ACCA001
	cs = append(cs, tolCase{in, ms, "MATCHED tolerance=15:[" + strings.Join(sorted(tok(ms[3]), tok(ms[5])), " ") + "]"})
	// Just beyond it: 0.03 apart.
	out := stdTrade("TOL-OUT")
	ms = out.All()
	ms[6].Set("NetAmount", addAmount(out.Net(1), "-0.03", 2))
	cs = append(cs, tolCase{out, ms, "MISMATCHED discrepancy=15:[" + strings.Join(sorted(tok(ms[4]), tok(ms[6])), " ") + "]"})
	// Within the price tolerance: an ALC 0.004 above the NOE.
	pr := stdTrade("TOL-PRICE")
	ms = pr.All()
	ms[1].Set("Price", "12.349")
	var all []string
	for _, m := range ms[:5] { // NOE, ALCs, NPRs
		all = append(all, tok(m))
	}
	cs = append(cs, tolCase{pr, ms, "MATCHED tolerance=7:[" + strings.Join(sorted(all...), " ") + "]"})
	// JPY: "15,*,0.01" is not whole yen, so a yen apart is a mismatch.
	jp := stdTrade("TOL-JPY")
	jp.ISIN, jp.Ccy, jp.Minor, jp.Price = isinJP, "JPY", 0, "1234"
	for i := range jp.Allocs {
		jp.Allocs[i].Comm, jp.Allocs[i].Fees = "10", "2"
	}
	ms = jp.All()
	ms[5].Set("NetAmount", addAmount(jp.Net(0), "1", 0))
	cs = append(cs, tolCase{jp, ms, "MISMATCHED discrepancy=15:[" + strings.Join(sorted(tok(ms[3]), tok(ms[5])), " ") + "]"})
	// Into tolerance by a REPLACE of the SET that was beyond it.
	rp := stdTrade("TOL-REPL")
	ms = rp.All()
	ms[5].Set("NetAmount", addAmount(rp.Net(0), "0.10", 2))
	r := Replace(ms[5], "TOL-REPL-SET1-R", rp.Base.Add(30*time.Minute), "NetAmount", addAmount(rp.Net(0), "-0.01", 2))
	ms = append(ms, r)
	cs = append(cs, tolCase{rp, ms, "MATCHED tolerance=15:[" + strings.Join(sorted(tok(ms[3]), tok(r)), " ") + "]"})
	return cs
}

func sorted(ss ...string) []string { sort.Strings(ss); return ss }

// finalOutcome is a trade's last status as "STATUS tolerance=N:[..]" or
// "STATUS discrepancy=N:[..]", and the standing CLS's Price and legs'
// NetAmounts.
func finalOutcome(out, cls []*OutMsg, key string) string {
	last, lastN := (*OutMsg)(nil), 0
	for _, o := range out {
		p := strings.Split(o.ID(), ":")
		if len(p) != 4 || p[0] != "ST" || p[1] != key {
			continue
		}
		if n, _ := strconv.Atoi(p[2]); n > lastN {
			last, lastN = o, n
		}
	}
	if last == nil {
		return "none"
	}
	s := last.B("Status")
	for _, el := range []string{"Tolerance", "Discrepancy"} {
		for _, d := range last.Body.KidsNamed(el) {
			s += " " + strings.ToLower(el) + "=" + d.Attr["criterion"] + ":[" + strings.Join(strings.Fields(d.Text), " ") + "]"
		}
	}
	cancelled := map[string]bool{}
	for _, o := range cls {
		if o.H("Function") == "CANCEL" {
			cancelled[o.H("RelatedMsgId")] = true
		}
	}
	var standing *OutMsg
	for _, o := range cls {
		if o.H("Function") == "NEW" && o.B("TradeKey") == key && !cancelled[o.ID()] {
			standing = o
		}
	}
	if standing != nil {
		s += " cls price=" + standing.B("Price")
		for _, l := range standing.Body.KidsNamed("Leg") {
			s += " " + l.T("Account") + "=" + l.T("NetAmount")
		}
	}
	return s
}

func tolLines(cs []tolCase) []string {
	var ms []*Msg
	for _, c := range cs {
		ms = append(ms, c.msgs...)
	}
	return lines(ms...)
}

// wantOutcome adds to a case's status what its standing CLS must carry: the
// NOE's Price and each leg its NPR's NetAmount.
func (c tolCase) wantOutcome() string {
	if !strings.HasPrefix(c.want, "MATCHED") {
		return c.want
	}
	s := c.want + " cls price=" + canonPrice(c.tr.Price)
	idx := make([]int, len(c.tr.Allocs))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return c.tr.Allocs[idx[a]].Acct < c.tr.Allocs[idx[b]].Acct })
	for _, i := range idx {
		s += " " + c.tr.Allocs[i].Acct + "=" + c.tr.Net(i)
	}
	return s
}

func TestTolerance_Match(t *testing.T) {
	cs := tolCases()
	r := runMatch(t, tolLines(cs), withRefdata(tolRefDir(t)))
	if r.num("exceptions") != 0 {
		t.Fatalf("exceptions: %s", r.ExcRaw)
	}
	for _, c := range cs {
		if got, want := finalOutcome(r.Out, r.CLS, c.tr.Key()), c.wantOutcome(); got != want {
			t.Errorf("%s:\n got %s\nwant %s", c.tr.Ref, got, want)
		}
	}
	// Without tolerances.csv every one of them is mismatched.
	r = runMatch(t, tolLines(cs))
	if r.num("cls") != 0 || r.num("mismatched") != len(cs) {
		t.Errorf("without tolerances: %s", r.Stdout)
	}
}

// A change of which criteria hold only within tolerance, the CLS content
// unchanged, is a new STATUS MATCHED without a CLS.
func TestTolerance_Match_StatusWithoutCLS(t *testing.T) {
	tr := stdTrade("TOL-ST")
	ms := tr.All()
	// A REPLACE of SET1 as old as the newest message: MatchedAt is unchanged.
	r1 := Replace(ms[5], "TOL-ST-SET1-R", tr.Base.Add(21*time.Minute), "NetAmount", addAmount(tr.Net(0), "0.01", 2))
	r := runMatch(t, lines(append(ms, r1)...), withRefdata(tolRefDir(t)))
	key := tr.Key()
	if ids := r.CLSIDs(key); len(ids) != 1 {
		t.Fatalf("CLS %v, want one", ids)
	}
	expectStatusRound(t, r, key, 1, "MATCHED", BRK, INV, CUSA, CUSB)
	round2 := expectStatusRound(t, r, key, 2, "MATCHED", BRK, INV, CUSA, CUSB)
	for _, o := range round2 {
		tl := o.Body.KidsNamed("Tolerance")
		want := strings.Join(sorted(tok(ms[3]), tok(r1)), " ")
		if o.H("Receiver") == CUSB {
			want = "" // version 3: a Custodian's body lists its accounts' messages only (§6)
		}
		if len(tl) != 1 || tl[0].Attr["criterion"] != "15" || strings.Join(strings.Fields(tl[0].Text), " ") != want {
			t.Errorf("round 2: %s", o.RawBody)
		}
	}
}

// A tolerances.csv row with another criterion, a negative or malformed value
// or an unknown currency is refused, naming the row, by ste match and by ste
// refdata load alike.
func TestTolerance_RefusedRows(t *testing.T) {
	for _, row := range []string{"8,SGD,0.01", "15,SGD,-0.01", "15,SGD,abc", "15,XXX,0.01"} {
		dir := filepath.Join(t.TempDir(), "ref")
		if err := writeRefdata(dir, stdRefdata()); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "tolerances.csv"), []byte("criterion,currency,max_difference\n15,*,0\n"+row+"\n"))
		in := writeFile(t, filepath.Join(t.TempDir(), "in.txt"), []byte(strings.Join(lines(stdTrade("X").All()...), "\n")+"\n"))
		res := execSte(t, "match", "--in", in, "--out", t.TempDir(), "--refdata", dir)
		if res.code == 0 || !strings.Contains(res.stderr, "tolerances.csv:3") {
			t.Errorf("%s: exit %d, stderr %q: want a refusal naming tolerances.csv:3", row, res.code, res.stderr)
		}
		res = execSte(t, "refdata", "load", "--dir", dir, "--brokers", "127.0.0.1:1", "--namespace", "tolref")
		if res.code == 0 || !strings.Contains(res.stderr, "tolerances.csv:3") {
			t.Errorf("refdata load %s: exit %d, stderr %q", row, res.code, res.stderr)
		}
	}
}

// Through Kafka: tolerances loaded on <ns>.refdata before the first message
// give the outcomes ste match gives, on an instance running every group and
// on one running the match group apart.
func TestTolerance_Kafka(t *testing.T) {
	if testing.Short() {
		t.Skip("starts ste broker and ste process")
	}
	cs := tolCases()
	in := writeFile(t, filepath.Join(t.TempDir(), "in.txt"), []byte(strings.Join(tolLines(cs), "\n")+"\n"))
	ref := tolRefDir(t)
	brokers := steBroker(t)
	ns := fmt.Sprintf("tol%d", time.Now().UnixNano()%1e9)
	run := func(args ...string) {
		t.Helper()
		r := execSteEnv(t, nil, time.Minute, append(args, "--brokers", brokers, "--namespace", ns)...)
		if r.code != 0 {
			t.Fatalf("ste %s: exit %d\n%s", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	run("topics", "create")
	run("refdata", "load", "--dir", ref)
	keyFile := writeFile(t, filepath.Join(t.TempDir(), "key"), []byte(base64.StdEncoding.EncodeToString(utilitySeed())))
	common := []string{"--brokers", brokers, "--namespace", ns, "--utility-key", keyFile}
	startSteProcess(t, append(common, "--groups", "validate")...).waitLog(t, "processors ready", time.Minute)
	startSteProcess(t, append(common, "--groups", "identity,match")...).waitLog(t, "processors ready", time.Minute)
	run("drive", "--in", in)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var last string
	for {
		outRecs, err := dumpTopic(ctx, brokers, ns+".outbound")
		if err != nil {
			t.Fatalf("%v; last outcomes:\n%s", err, last)
		}
		clsRecs, err := dumpTopic(ctx, brokers, ns+".cls")
		if err != nil {
			t.Fatal(err)
		}
		var out, cls []*OutMsg
		for _, r := range outRecs {
			if o, err := parseOut(string(r.Value)); err == nil {
				out = append(out, o)
			}
		}
		for _, r := range clsRecs {
			if o, err := parseOut(string(r.Value)); err == nil {
				cls = append(cls, o)
			}
		}
		var got, want []string
		for _, c := range cs {
			got = append(got, c.tr.Ref+" "+finalOutcome(out, cls, c.tr.Key()))
			want = append(want, c.tr.Ref+" "+c.wantOutcome())
		}
		last = strings.Join(got, "\n")
		if last == strings.Join(want, "\n") {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("through Kafka:\n%s\nwant\n%s", last, strings.Join(want, "\n"))
		case <-time.After(500 * time.Millisecond):
		}
	}
}
