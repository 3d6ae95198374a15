package matching

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/decimal"
	"github.com/ste-utility/ste/schemas/refdata"
)

// tolerances is real reference data: SGD net amounts within 0.02, SGD prices
// within 0.005, USD exact (no row), as a tolerances.csv would load.
func tolerances() *refdata.Set {
	s := refdata.NewSet()
	s.PutCurrency(refdata.Currency{Code: "SGD", MinorUnits: 2})
	s.PutCurrency(refdata.Currency{Code: "USD", MinorUnits: 2})
	s.PutTolerance(refdata.Tolerance{ToleranceKey: refdata.ToleranceKey{Criterion: 15, Currency: "SGD"}, MaxDifference: decimal.MustParse("0.02")})
	s.PutTolerance(refdata.Tolerance{ToleranceKey: refdata.ToleranceKey{Criterion: 7, Currency: "SGD"}, MaxDifference: decimal.MustParse("0.005")})
	return s
}

func tolFixture(t testing.TB) *fixture {
	return newFixture(t, WithConfig(Config{Tolerances: tolerances()}))
}

func statusBody(out []schemas.Output) string {
	st := only(out, schemas.STATUS)
	if len(st) == 0 {
		return ""
	}
	return string(st[0].Body)
}

// A custodian's net amount a cent off the broker's matches within the SGD
// amount tolerance: the CLS carries the NPR's amount, the STATUS MATCHED names
// criterion 15 with the NPR and SET of that account only.
func TestNetAmountWithinTolerance(t *testing.T) {
	f := tolFixture(t)
	msgs := standard("T1")
	msgs[5].Set("NetAmount", "6306.31") // NPR1 says 6306.29: 0.02 apart
	out := f.sendAll(msgs)
	k := tradeKey("T1").String()
	cls := only(out, schemas.CLS)
	if len(cls) != 1 || !bytes.Contains(cls[0].Body, []byte("<Account>A1</Account><Quantity>600</Quantity><NetAmount>6306.29</NetAmount>")) {
		t.Fatalf("CLS %s", ids(out))
	}
	want := "<TradeKey>" + k + "</TradeKey><TradeRef>T1</TradeRef><Status>MATCHED</Status>" +
		`<Tolerance criterion="15">BRKASGSGXXX:T1-NPR1 CUSTSGSGXXX:T1-SET1</Tolerance>`
	if got := statusBody(out); got != want {
		t.Fatalf("status\n got %s\nwant %s", got, want)
	}
	// Without tolerances the same messages are mismatched on 15.
	g := newFixture(t)
	if got := statusBody(g.sendAll(msgs)); !strings.Contains(got, `<Status>MISMATCHED</Status><Discrepancy criterion="15">`) {
		t.Fatalf("without tolerances: %s", got)
	}
}

// Just beyond the tolerance stays MISMATCHED naming the criterion.
func TestNetAmountJustBeyondTolerance(t *testing.T) {
	f := tolFixture(t)
	msgs := standard("T1")
	msgs[5].Set("NetAmount", "6306.26") // 0.03 below NPR1
	out := f.sendAll(msgs)
	want := `<Status>MISMATCHED</Status><Discrepancy criterion="15">BRKASGSGXXX:T1-NPR1 CUSTSGSGXXX:T1-SET1</Discrepancy>`
	if got := statusBody(out); len(only(out, schemas.CLS)) != 0 || !strings.HasSuffix(got, want) {
		t.Fatalf("got %s %s", ids(out), got)
	}
}

// A price within the price tolerance matches with the NOE's price; the
// Tolerance element lists every NOE, ALC and NPR, as a Discrepancy on 7 would.
func TestPriceWithinTolerance(t *testing.T) {
	f := tolFixture(t)
	msgs := standard("T1")
	msgs[1].Set("Price", "10.505") // ALC1; the NOE says 10.50
	msgs[4].Set("Price", "10.496") // NPR2: largest minus smallest 0.009, beyond 0.005
	out := f.sendAll(msgs)
	if got := statusBody(out); !strings.Contains(got, `<Discrepancy criterion="7">`) {
		t.Fatalf("0.009 apart: %s", got)
	}
	f = tolFixture(t)
	msgs[4].Set("Price", "10.5")
	out = f.sendAll(msgs)
	cls := only(out, schemas.CLS)
	if len(cls) != 1 || !bytes.Contains(cls[0].Body, []byte("<Price>10.5</Price>")) {
		t.Fatalf("CLS %s", ids(out))
	}
	want := `<Status>MATCHED</Status><Tolerance criterion="7">BRKASGSGXXX:T1-NOE BRKASGSGXXX:T1-NPR1 BRKASGSGXXX:T1-NPR2 ` +
		`INVMSGSGXXX:T1-ALC1 INVMSGSGXXX:T1-ALC2</Tolerance>`
	if got := statusBody(out); !strings.HasSuffix(got, want) {
		t.Fatalf("status %s", got)
	}
	// Both within tolerance: two elements, ordered by criterion.
	f = tolFixture(t)
	msgs[6].Set("NetAmount", "4204.60")
	got := statusBody(f.sendAll(msgs))
	if i, j := strings.Index(got, `<Tolerance criterion="7">`), strings.Index(got, `<Tolerance criterion="15">BRKASGSGXXX:T1-NPR2 CUSTHKHHXXX:T1-SET2</Tolerance>`); i < 0 || j < i {
		t.Fatalf("status %s", got)
	}
}

// Where the currencies compared differ the tolerance is 0: a SET in USD with
// an amount a cent off fails 14 and 15, and a price a fraction off with an ALC
// in another TradeCcy fails 7 as well as 8.
func TestToleranceZeroWhereCurrenciesDiffer(t *testing.T) {
	f := tolFixture(t)
	msgs := standard("T1")
	msgs[5].Set("SettleCcy", "USD")
	msgs[5].Set("NetAmount", "6306.30")
	out := f.sendAll(msgs)
	if got := statusBody(out); !strings.Contains(got, `<Discrepancy criterion="14">`) || !strings.Contains(got, `<Discrepancy criterion="15">`) {
		t.Fatalf("settle ccy differs: %s", got)
	}
	f = tolFixture(t)
	msgs = standard("T1")
	msgs[1].Set("Price", "10.501")
	msgs[1].Set("TradeCcy", "USD")
	out = f.sendAll(msgs)
	if got := statusBody(out); !strings.Contains(got, `<Discrepancy criterion="7">`) || !strings.Contains(got, `<Discrepancy criterion="8">`) {
		t.Fatalf("trade ccy differs: %s", got)
	}
}

// A REPLACE that changes only which criteria hold within tolerance gets a
// new STATUS MATCHED without a CLS; one that changes nothing of it, nothing.
func TestToleranceSetChangeEmitsStatusOnly(t *testing.T) {
	f := tolFixture(t)
	msgs := standard("T1")
	f.sendAll(msgs)
	k := tradeKey("T1").String()
	// SET1's Created stays at minute 21: MatchedAt (the newest Created) is unchanged.
	r1 := replaceOf(msgs[5], "T1-SET1-R", 21, func(d *schemas.Draft) { d.Set("NetAmount", "6306.28") })
	out := f.send(r1)
	want := "ACK:CUSTSGSGXXX:T1-SET1-R ST:" + k + ":2:BRKASGSGXXX ST:" + k + ":2:INVMSGSGXXX ST:" + k +
		":2:CUSTHKHHXXX ST:" + k + ":2:CUSTSGSGXXX"
	if ids(out) != want {
		t.Fatalf("into tolerance\n got %s\nwant %s", ids(out), want)
	}
	if got := statusBody(out); !strings.HasSuffix(got, `<Tolerance criterion="15">BRKASGSGXXX:T1-NPR1 CUSTSGSGXXX:T1-SET1-R</Tolerance>`) {
		t.Fatalf("status %s", got)
	}
	// Another amount inside the tolerance: the set of criteria is still {15}.
	r2 := replaceOf(r1, "T1-SET1-R2", 21, func(d *schemas.Draft) { d.Set("NetAmount", "6306.30") })
	if out := f.send(r2); ids(out) != "ACK:CUSTSGSGXXX:T1-SET1-R2" {
		t.Fatalf("same set: %s", ids(out))
	}
	// A duplicate repeats the last STATUS with its content.
	dup := f.send(r1)
	if st := only(dup, schemas.STATUS); len(st) != 4 || st[0].MsgId != "ST:"+k+":2:BRKASGSGXXX" ||
		!strings.Contains(string(st[0].Body), "T1-SET1-R</Tolerance>") {
		t.Fatalf("duplicate %s %s", ids(dup), statusBody(dup))
	}
	// Back to exact: a STATUS MATCHED without Tolerance, still no CLS.
	r3 := replaceOf(r2, "T1-SET1-R3", 21, func(d *schemas.Draft) { d.Set("NetAmount", "6306.29") })
	out = f.send(r3)
	if len(only(out, schemas.CLS)) != 0 || statusBody(out) != "<TradeKey>"+k+"</TradeKey><TradeRef>T1</TradeRef><Status>MATCHED</Status>" {
		t.Fatalf("back to exact: %s %s", ids(out), statusBody(out))
	}
	if tr := f.book.Trade(tradeKey("T1")); tr.Version != 1 || tr.StatusN != 3 {
		t.Fatalf("version %d, statuses %d", tr.Version, tr.StatusN)
	}
}

// Compensation: a REPLACE out of tolerance cancels the CLS; one back into it
// matches again with version 2; a change of the NPR's amount inside the
// tolerance changes the CLS content, so it is cancelled and re-sent.
func TestToleranceCompensation(t *testing.T) {
	f := tolFixture(t)
	msgs := standard("T1")
	msgs[5].Set("NetAmount", "6306.30")
	f.sendAll(msgs)
	k := tradeKey("T1").String()
	out := f.send(replaceOf(msgs[5], "T1-SET1-R", 21, func(d *schemas.Draft) { d.Set("NetAmount", "6306.32") }))
	if ids(only(out, schemas.CLS)) != "CLS-"+k+"-1-CANCEL" || !strings.Contains(statusBody(out), "<Status>MISMATCHED</Status><Discrepancy criterion=\"15\">") {
		t.Fatalf("out of tolerance: %s %s", ids(out), statusBody(out))
	}
	npr := replaceOf(msgs[3], "T1-NPR1-R", 11, func(d *schemas.Draft) { d.Set("Fees", "1.27"); d.Set("NetAmount", "6306.31") })
	out = f.send(npr)
	cls := only(out, schemas.CLS)
	if ids(cls) != "CLS-"+k+"-2" || !bytes.Contains(cls[0].Body, []byte("<NetAmount>6306.31</NetAmount>")) ||
		!strings.HasSuffix(statusBody(out), `<Tolerance criterion="15">BRKASGSGXXX:T1-NPR1-R CUSTSGSGXXX:T1-SET1-R</Tolerance>`) {
		t.Fatalf("back into tolerance: %s %s", ids(out), statusBody(out))
	}
	out = f.send(replaceOf(npr, "T1-NPR1-R2", 11, func(d *schemas.Draft) { d.Set("Fees", "1.28"); d.Set("NetAmount", "6306.32") }))
	if ids(only(out, schemas.CLS)) != "CLS-"+k+"-2-CANCEL CLS-"+k+"-3" || statusBody(out) != "<TradeKey>"+k+"</TradeKey><TradeRef>T1</TradeRef><Status>MATCHED</Status>" {
		t.Fatalf("the NPR's amount changes: %s %s", ids(out), statusBody(out))
	}
}

// The property of TestPermutationsWithDuplicates on trades that match only
// within tolerance, just beyond it, and move in and out of it by REPLACEs:
// the final outcome, CLS content and status criteria (tolerance included)
// depend only on the set of messages.
func TestTolerancePermutationsWithDuplicates(t *testing.T) {
	var msgs []*schemas.Draft
	refs := []string{"Q0", "Q1", "Q2", "Q3", "Q4", "Q5"}
	for i, ref := range refs {
		ms := standard(ref)
		switch i {
		case 0: // within tolerance on 15
			ms[6].Set("NetAmount", "4204.63")
		case 1: // just beyond on 15
			ms[6].Set("NetAmount", "4204.64")
		case 2: // within on 7 and 15
			ms[2].Set("Price", "10.504")
			ms[5].Set("NetAmount", "6306.27")
		case 3: // into tolerance by a REPLACE, then out by a second one of the same SET
			ms[5].Set("NetAmount", "6306.40")
			r := replaceOf(ms[5], ref+"-SET1-R", 30, func(d *schemas.Draft) { d.Set("NetAmount", "6306.30") })
			ms = append(ms, r, replaceOf(r, ref+"-SET1-R2", 31, func(d *schemas.Draft) { d.Set("NetAmount", "6306.25") }))
		case 4: // out of tolerance and back in: the NPR is cancelled and resent
			ms[5].Set("NetAmount", "6306.28")
			ms = append(ms, cancelOf(ms[3], ref+"-NPR1-C", 31))
			re := ms[3].Clone()
			re.MsgId = ref + "-NPR1-N"
			re.Set("Fees", "1.26")
			re.Set("NetAmount", "6306.30")
			ms = append(ms, re)
		case 5: // exact
		}
		msgs = append(msgs, ms...)
	}
	final := func(f *fixture) string {
		var lines []string
		for _, ref := range refs {
			tr := f.book.Trade(tradeKey(ref))
			body := ""
			if tr.Live {
				body = string(schemas.CLSBody(clsOf(tr, inForce(tr, nil))))
			}
			lines = append(lines, fmt.Sprintf("%s live=%v status=%v criteria=%v %s", ref, tr.Live, tr.Last.Status, tr.Last.Criteria, body))
		}
		return strings.Join(lines, "\n")
	}
	want := anyOrder(t, msgs, rand.New(rand.NewPCG(3, 4)), func(t testing.TB, _ ...BookOption) *fixture { return tolFixture(t) }, final)
	for _, w := range []string{"Q0 live=true status=MATCHED criteria=[15] ", "Q1 live=false status=MISMATCHED criteria=[15]",
		"Q2 live=true status=MATCHED criteria=[7 15] ", "Q3 live=false status=MISMATCHED criteria=[15]",
		"Q4 live=true status=MATCHED criteria=[15] ", "Q5 live=true status=MATCHED criteria=[] "} {
		if !strings.Contains(want, w) {
			t.Fatalf("unexpected outcomes (want %q):\n%s", w, want)
		}
	}
	if !strings.Contains(want, "<NetAmount>6306.30</NetAmount>") || !strings.Contains(want, "<Price>10.5</Price>") {
		t.Fatalf("CLS values not the NOE's and the NPR's:\n%s", want)
	}
}

// A trade's state written before tolerances (layout v1, a MATCHED with no
// criteria) reads as exact, and a later message within tolerance sends the
// new STATUS MATCHED: the layout did not change, only what a MATCHED's
// criteria may hold.
func TestMatchedStateWithoutToleranceCriteriaReads(t *testing.T) {
	f := newFixture(t) // no tolerances, as before this change
	msgs := standard("T1")
	f.sendAll(msgs)
	b, err := f.book.Trade(tradeKey("T1")).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := UnmarshalTrade(b, Interner{})
	if err != nil || tr.Last.Status != schemas.Matched || tr.Last.Criteria != nil || tr.Last.Body != nil {
		t.Fatalf("%v %+v", err, tr.Last)
	}
	r := replaceOf(msgs[6], "T1-SET2-R", 22, func(d *schemas.Draft) { d.Set("NetAmount", "4204.62") })
	g := tolFixture(t)
	rec := r.AppendSigned(nil, nil)
	m, rej := g.dec.Decode(rec)
	if rej != nil {
		t.Fatal(rej)
	}
	out, res := tr.Apply(&Inbound{Msg: m, NetUnits: 2}, &Config{Tolerances: tolerances()}, Interner{})
	if res != Applied || len(only(out, schemas.CLS)) != 0 || !strings.Contains(statusBody(out), `<Tolerance criterion="15">`) {
		t.Fatalf("%s %s", ids(out), statusBody(out))
	}
	b2, _ := tr.MarshalBinary()
	back, err := UnmarshalTrade(b2, Interner{})
	if err != nil || !slices.Equal(back.Last.Criteria, []uint8{15}) || !bytes.Contains(back.Last.Body, []byte("<Tolerance")) {
		t.Fatalf("%v %+v", err, back.Last)
	}
	if v := back.ViewWith(tolerances()); v.State != "matched" || len(v.Tolerance) != 1 || v.Tolerance[0].N != 15 {
		t.Fatalf("view %+v", v)
	}
}
