package outcome_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ste-utility/ste/processors/offline"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/outcome"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/workload"
)

// matchWith runs the offline engine over recs with reference data ref.
func matchWith(t *testing.T, recs [][]byte, ref *refdata.Set) outputs {
	t.Helper()
	src, err := msgset.NewReader(bytes.NewReader(append(bytes.Join(recs, []byte("\n")), '\n')), "set.xml")
	if err != nil {
		t.Fatal(err)
	}
	var o outputs
	keep := func(dst *[][]byte) func([]byte) error {
		return func(b []byte) error { *dst = append(*dst, slices.Clone(b)); return nil }
	}
	_, _, err = offline.Run(context.Background(), src,
		offline.Sinks{CLS: keep(&o.cls), Outbound: keep(&o.outbound), Exceptions: keep(&o.excs)},
		offline.Options{Validator: validation.New(ref), Signer: signer})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// The backtest of a tolerance: one realistic set matched exactly (A) and
// with the generated tolerances (B). Exactly the trades built to match only
// within tolerance flip to MATCHED, on criterion 15, and each is counted for
// every party that received its status.
func TestFlipsPerParticipant(t *testing.T) {
	var recs [][]byte
	var plans []workload.TradePlan
	_, err := workload.Generate(workload.Options{Trades: 400, Mix: workload.Realistic, Seed: 23},
		func(b []byte) error { recs = append(recs, b); return nil },
		func(p workload.TradePlan) { plans = append(plans, p) })
	if err != nil {
		t.Fatal(err)
	}
	exact := refdata.Default().Clone()
	for _, tl := range exact.Tolerances() {
		exact.PutTolerance(refdata.Tolerance{ToleranceKey: tl.ToleranceKey}) // 0: exact
	}
	a, b := build(t, matchWith(t, recs, exact)), build(t, matchWith(t, recs, refdata.Default()))
	d := outcome.Compare(a, b, outcome.Options{A: "exact", B: "tolerant"})
	within := map[string]bool{}
	for _, p := range plans {
		if len(p.Tolerance) > 0 {
			within[p.TradeKey] = true
		}
	}
	if len(within) == 0 {
		t.Fatal("no trade built within tolerance")
	}
	flipped := map[string]bool{}
	parties := map[string]int{}
	for _, td := range d.Trades {
		if td.Kind != outcome.StatusChanged || td.A.Status != "MISMATCHED" || td.B.CLS == "" {
			t.Errorf("%s: %s, want only flips to MATCHED", td.TradeKey, td.Kind)
			continue
		}
		flipped[td.TradeKey] = true
		for _, p := range td.B.Parties {
			parties[p]++
		}
	}
	if len(flipped) != len(within) {
		t.Errorf("%d trades flipped, %d built within tolerance", len(flipped), len(within))
	}
	for k := range within {
		if !flipped[k] {
			t.Errorf("%s built within tolerance did not flip", k)
		}
	}
	if len(d.Flips) != len(parties) {
		t.Errorf("%d participants in the flips, %d received a flipped trade's status", len(d.Flips), len(parties))
	}
	for _, f := range d.Flips {
		if f.ToMatched != parties[f.Participant] || f.ToMismatched != 0 || len(f.ByCriterion) != 1 ||
			f.ByCriterion[0].Criterion != 15 || f.ByCriterion[0].ToMatched != f.ToMatched {
			t.Errorf("%+v, want %d to MATCHED on 15", f, parties[f.Participant])
		}
	}
	var sb strings.Builder
	if err := d.FlipsTable(&sb); err != nil {
		t.Fatal(err)
	}
	if f := d.Flips[0]; !strings.Contains(sb.String(), f.Participant) || !strings.Contains(sb.String(), "15: ") {
		t.Errorf("table:\n%s", sb.String())
	}
	// The reverse comparison flips the other way.
	back := outcome.Compare(b, a, outcome.Options{})
	if len(back.Flips) != len(d.Flips) || back.Flips[0].ToMismatched != d.Flips[0].ToMatched || back.Flips[0].ToMatched != 0 {
		t.Errorf("reverse: %+v", back.Flips[0])
	}
}
