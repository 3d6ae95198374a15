package outcome_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/outcome"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/workload"
)

// outputs are the records of one run, as `ste match` writes them.
type outputs struct{ cls, outbound, excs [][]byte }

var signer = &schemas.Signer{BIC: "STEUTLSGXXX", Key: refdata.DemoPrivateKey("STEUTLSGXXX")}

// match runs the offline engine over recs with the default reference data.
func match(t *testing.T, recs [][]byte) outputs { return matchWith(t, recs, refdata.Default()) }

// realistic is one realistic message set, matched in file order and in a
// shuffled order: two real runs that must end the same (docs/spec/messages.md §5).
var realistic = sync.OnceValues(func() ([][]byte, [][]byte) {
	var recs [][]byte
	_, err := workload.Generate(workload.Options{Trades: 400, Mix: workload.Realistic, Seed: 21},
		func(b []byte) error { recs = append(recs, b); return nil }, nil)
	if err != nil {
		panic(err)
	}
	shuffled := slices.Clone(recs)
	rand.New(rand.NewPCG(4, 4)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	return recs, shuffled
})

var runs struct {
	sync.Once
	inOrder, shuffled outputs
}

func pair(t *testing.T) (outputs, outputs) {
	runs.Do(func() {
		recs, shuffled := realistic()
		runs.inOrder, runs.shuffled = match(t, recs), match(t, shuffled)
	})
	return runs.inOrder, runs.shuffled
}

func build(t *testing.T, o outputs) *outcome.Set {
	t.Helper()
	s := outcome.New()
	for _, b := range slices.Concat(o.cls, o.outbound) {
		if err := s.AddOutput(b); err != nil {
			t.Fatal(err)
		}
	}
	for _, b := range o.excs {
		if err := s.AddException(b); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// kinds names every kind of difference a Diff holds, from its detail and
// from its summary: the two must agree.
func kinds(t *testing.T, d *outcome.Diff) []string {
	t.Helper()
	var got []string
	add := func(name string, detail, summary int) {
		if detail > 0 {
			got = append(got, name)
		}
		if (detail > 0) != (summary > 0) {
			t.Errorf("%s: %d in the detail, summary says %d", name, detail, summary)
		}
	}
	s := d.Summary
	add("conflicts", len(d.Conflicts.A)+len(d.Conflicts.B), s.Conflicts.A+s.Conflicts.B)
	byKind := map[outcome.Kind]int{}
	for _, td := range d.Trades {
		byKind[td.Kind]++
	}
	for _, k := range outcome.Kinds {
		add("trades "+string(k), byKind[k], s.Trades.Changed[k])
	}
	add("acks missing", len(d.ACKs.Missing), s.ACKs.Missing)
	add("acks extra", len(d.ACKs.Extra), s.ACKs.Extra)
	add("nacks missing", len(d.NACKs.Missing), s.NACKs.Missing)
	add("nacks extra", len(d.NACKs.Extra), s.NACKs.Extra)
	add("exceptions missing", len(d.Exceptions.Missing), s.Exceptions.Missing)
	add("exceptions extra", len(d.Exceptions.Extra), s.Exceptions.Extra)
	if d.Equal() != (len(got) == 0) {
		t.Errorf("Equal() = %v with differences %v", d.Equal(), got)
	}
	return got
}

// TestTwoRunsOfOneSetAreEqual: the set in file order and shuffled. Both
// runs accept the first of two different messages with one identity, so
// they reject different copies (NACK digests and exception payloads differ):
// that is no difference.
func TestTwoRunsOfOneSetAreEqual(t *testing.T) {
	inOrder, shuffled := pair(t)
	a, b := build(t, inOrder), build(t, shuffled)
	d := outcome.Compare(a, b, outcome.Options{})
	if got := kinds(t, d); len(got) > 0 {
		t.Fatalf("two orders of one set differ: %v\n%s", got, d.Report(5))
	}
	// The comparison is not vacuous: the set has every kind of output.
	s, c := d.Summary, a.Counts()
	if s.Trades.A.Matched == 0 || s.Trades.A.Mismatched == 0 || s.ACKs.A == 0 || s.NACKs.A == 0 ||
		s.Exceptions.A == 0 || s.Trades.Same != s.Trades.A.Trades || c.Settled != s.Trades.A.Trades {
		t.Fatalf("too little to compare: %+v, counts %+v", s, c)
	}
	if !strings.HasPrefix(d.String(), "same outcome: ") {
		t.Fatalf("summary %q", d.String())
	}
}

// TestEachChangeIsReported: one change to an otherwise equal pair is
// reported, as its own kind and nothing else.
func TestEachChangeIsReported(t *testing.T) {
	base, _ := pair(t)
	a := build(t, base)
	parsed := func(raw []byte) *schemas.Received {
		r, err := schemas.ParseOutput(raw)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	t.Run("one ACK dropped", func(t *testing.T) {
		o := base
		i := slices.IndexFunc(o.outbound, func(b []byte) bool { return parsed(b).MsgType == "ACK" })
		dropped := parsed(o.outbound[i]).MsgId
		o.outbound = slices.Delete(slices.Clone(o.outbound), i, i+1)
		d := outcome.Compare(a, build(t, o), outcome.Options{})
		if got := kinds(t, d); !slices.Equal(got, []string{"acks missing"}) || !slices.Equal(d.ACKs.Missing, []string{dropped}) {
			t.Fatalf("dropped %s: %v %+v", dropped, got, d.ACKs)
		}
		if !strings.Contains(d.Report(5), "ACK "+dropped+" missing from B") {
			t.Fatalf("report:\n%s", d.Report(5))
		}
	})

	t.Run("one CLS leg's NetAmount changed", func(t *testing.T) {
		o := base
		// A CLS that stands: the only CLS record of its trade.
		perTrade := map[string]int{}
		for _, b := range o.cls {
			perTrade[parsed(b).TradeKey]++
		}
		i := slices.IndexFunc(o.cls, func(b []byte) bool { return perTrade[parsed(b).TradeKey] == 1 })
		key := parsed(o.cls[i]).TradeKey
		o.cls = slices.Clone(o.cls)
		o.cls[i] = bytes.Replace(o.cls[i], []byte("<NetAmount>"), []byte("<NetAmount>9"), 1)
		if bytes.Equal(o.cls[i], base.cls[i]) {
			t.Fatal("the CLS has no NetAmount")
		}
		d := outcome.Compare(a, build(t, o), outcome.Options{})
		if got := kinds(t, d); !slices.Equal(got, []string{"trades cls"}) || d.Trades[0].TradeKey != key {
			t.Fatalf("changed %s: %v\n%s", key, got, d.Report(5))
		}
		if td := d.Trades[0]; td.A == nil || td.B == nil || td.A.CLS == td.B.CLS || !strings.Contains(td.B.CLS, "<NetAmount>9") {
			t.Fatalf("both sides must be shown: %+v", td)
		}
	})

	t.Run("one exception added", func(t *testing.T) {
		o := base
		var e schemas.Exception
		if err := json.Unmarshal(o.excs[0], &e); err != nil {
			t.Fatal(err)
		}
		e.ID = "line-999999" // the same rejection once more, from another record
		o.excs = append(slices.Clone(o.excs), e.Marshal())
		d := outcome.Compare(a, build(t, o), outcome.Options{})
		want := outcome.RejectionCount{Rejection: outcome.Rejection{Sender: e.Sender, MsgId: e.MsgId, Reason: e.Reason}, Count: 1}
		if got := kinds(t, d); !slices.Equal(got, []string{"exceptions extra"}) || !slices.Equal(d.Exceptions.Extra, []outcome.RejectionCount{want}) {
			t.Fatalf("%v %+v", got, d.Exceptions)
		}
		if s := d.Summary.Exceptions; s.B != s.A+1 {
			t.Fatalf("exceptions %+v", s)
		}
	})

	t.Run("a MsgId with two contents", func(t *testing.T) {
		o := base
		other := bytes.Replace(o.outbound[0], []byte("</Body>"), []byte("<Extra/></Body>"), 1)
		id := parsed(other).MsgId
		o.outbound = append(slices.Clone(o.outbound), other)
		d := outcome.Compare(a, build(t, o), outcome.Options{})
		if got := kinds(t, d); !slices.Equal(got, []string{"conflicts"}) || !slices.Equal(d.Conflicts.B, []string{id}) {
			t.Fatalf("%v %+v", got, d.Conflicts)
		}
	})

	t.Run("repeated outputs and exceptions are no difference", func(t *testing.T) {
		o := base
		o.cls = slices.Concat(o.cls, o.cls)
		o.outbound = slices.Concat(o.outbound, o.outbound)
		o.excs = slices.Concat(o.excs, o.excs) // a replay repeats the ids
		b := build(t, o)
		d := outcome.Compare(a, b, outcome.Options{})
		if got := kinds(t, d); len(got) > 0 {
			t.Fatalf("%v\n%s", got, d.Report(5))
		}
		ca, cb := a.Counts(), b.Counts()
		if cb.Repeats != ca.Repeats+len(base.cls)+len(base.outbound) || cb.Exceptions != ca.Exceptions || cb.Outputs != ca.Outputs {
			t.Fatalf("counts %+v, once %+v", cb, ca)
		}
	})
}

// TestExpiriesAreAnOption: a trade that expired on one side only is a
// difference only when expiries are compared.
func TestExpiriesAreAnOption(t *testing.T) {
	base, _ := pair(t)
	a := build(t, base)
	tk := schemas.TradeKey(0x0123456789abcdef)
	expired := signer.Encode(&schemas.Output{Type: schemas.STATUS, MsgId: schemas.StatusId(tk, 1, "BRKASGSGXXX"),
		Receiver: "BRKASGSGXXX", Key: "BRKASGSGXXX", Body: schemas.StatusBody(tk, "REF1", schemas.Expired, nil)})
	b := build(t, outputs{base.cls, append(slices.Clone(base.outbound), expired), base.excs})
	if d := outcome.Compare(a, b, outcome.Options{}); !d.Equal() {
		t.Fatalf("expiries compared by default:\n%s", d.Report(5))
	}
	d := outcome.Compare(a, b, outcome.Options{Expiries: true})
	if got := kinds(t, d); !slices.Equal(got, []string{"trades only_in_b"}) || d.Trades[0].TradeKey != tk.String() || d.Trades[0].B.Status != "EXPIRED" {
		t.Fatalf("%v %+v", got, d.Trades)
	}
	if b.Counts().Expired != a.Counts().Expired+1 {
		t.Fatalf("counts %+v vs %+v", b.Counts(), a.Counts())
	}
}

// TestFromMatchDir reads the files as `ste match` writes them.
func TestFromMatchDir(t *testing.T) {
	base, _ := pair(t)
	dir := t.TempDir()
	for name, recs := range map[string][][]byte{outcome.MatchCLS: base.cls, outcome.MatchOutbound: base.outbound, outcome.MatchExceptions: base.excs} {
		w, err := msgset.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			w.Write(r)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	s, err := outcome.FromMatchDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d := outcome.Compare(build(t, base), s, outcome.Options{}); !d.Equal() {
		t.Fatal(d.Report(5))
	}
	if c, want := s.Counts(), build(t, base).Counts(); c != want || c.Exceptions != len(base.excs) {
		t.Fatalf("counts %+v, want %+v", c, want)
	}
	// A broken line names its file and line.
	w, _ := msgset.Create(filepath.Join(dir, outcome.MatchOutbound))
	w.Write(base.outbound[0])
	w.Write([]byte("<Msg>"))
	w.Close()
	if _, err := outcome.FromMatchDir(dir); err == nil || !strings.Contains(err.Error(), "outbound.xml line 2") {
		t.Fatalf("error %v", err)
	}
}

// TestDiffIsDeterministicJSON: the detail marshals, the same every time,
// with both sides of a differing trade.
func TestDiffIsDeterministicJSON(t *testing.T) {
	base, _ := pair(t)
	o := base
	o.cls = nil // every matched trade loses its CLS
	a, b := build(t, base), build(t, o)
	first, err := json.Marshal(outcome.Compare(a, b, outcome.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		again, _ := json.Marshal(outcome.Compare(build(t, base), build(t, o), outcome.Options{}))
		if !bytes.Equal(again, first) {
			t.Fatal("two comparisons of the same sets marshal differently")
		}
	}
	var back struct {
		Summary outcome.Summary     `json:"summary"`
		Trades  []outcome.TradeDiff `json:"trades"`
	}
	if err := json.Unmarshal(first, &back); err != nil {
		t.Fatal(err)
	}
	matched := outcome.Compare(a, a, outcome.Options{}).Summary.Trades.A.Matched
	if n := back.Summary.Trades.Changed[outcome.CLSChanged]; n != matched || len(back.Trades) != matched ||
		back.Trades[0].A.CLS == "" || back.Trades[0].B.CLS != "" {
		t.Fatalf("%d CLS changes for %d matched trades: %s", n, matched, first[:min(len(first), 600)])
	}
	if !slices.IsSortedFunc(back.Trades, func(x, y outcome.TradeDiff) int { return strings.Compare(x.TradeKey, y.TradeKey) }) {
		t.Fatal("trades not sorted by key")
	}
}

// TestTableShowsEveryRow: the summary table has a row per outcome and per
// kind of change, zeros included, with both sides' names.
func TestTableShowsEveryRow(t *testing.T) {
	d := outcome.Compare(outcome.New(), outcome.New(), outcome.Options{A: "bt1", B: "bt2"})
	var b strings.Builder
	if err := d.Table(&b, true); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"bt1", "bt2", "trades compared", "matched", "mismatched", "expired", "trades the same",
		"only in bt1", "only in bt2", "status changed", "criteria changed", "CLS content changed", "ACKs", "NACKs", "exceptions", "two contents"} {
		if !strings.Contains(b.String(), want) {
			t.Fatalf("no %q in\n%s", want, b.String())
		}
	}
}

// TestStandingOutputs: with Options.Standing two orders of one set agree on
// what stands of every trade (CNF, BLK, ALG: ste match alleges once after
// its last line); the last record a receiver got being dropped is a
// difference there, and only there.
func TestStandingOutputs(t *testing.T) {
	inOrder, shuffled := pair(t)
	a := build(t, inOrder)
	d := outcome.Compare(a, build(t, shuffled), outcome.Options{Standing: true})
	if got := kinds(t, d); len(got) > 0 {
		t.Fatalf("two orders of one set differ: %v\n%s", got, d.Report(5))
	}
	parsed := func(raw []byte) *schemas.Received {
		r, err := schemas.ParseOutput(raw)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// The comparison is not vacuous: every kind stands somewhere.
	seen := map[string]bool{}
	for _, b := range inOrder.outbound {
		r := parsed(b)
		seen[r.MsgType+" "+r.Function] = true
	}
	for _, k := range []string{"CNF NEW", "BLK NEW", "ALG NEW"} {
		if !seen[k] {
			t.Fatalf("no %s in the set's outputs", k)
		}
	}
	for _, kind := range []string{"ALG", "CNF", "BLK"} {
		t.Run("last "+kind+" dropped", func(t *testing.T) {
			o := inOrder
			// The last record of its kind in the file: the last its receiver got.
			i := -1
			for j, b := range o.outbound {
				if r := parsed(b); r.MsgType == kind && r.Function == "NEW" && !strings.Contains(string(r.Body), "BLOCK_INCOMPLETE") {
					i = j
				}
			}
			r := parsed(o.outbound[i])
			o.outbound = slices.Delete(slices.Clone(o.outbound), i, i+1)
			d := outcome.Compare(a, build(t, o), outcome.Options{Standing: true})
			// A trade of which nothing else stands is only in A.
			got := kinds(t, d)
			if len(got) != 1 || got[0] != "trades standing" && got[0] != "trades only_in_a" || d.Trades[0].TradeKey != r.TradeKey {
				t.Fatalf("dropped %s: %v\n%s", r.MsgId, got, d.Report(5))
			}
			if got[0] == "trades standing" && !strings.Contains(d.Report(5), kind+" "+r.Receiver) {
				t.Fatalf("report:\n%s", d.Report(5))
			}
			if got := kinds(t, outcome.Compare(a, build(t, o), outcome.Options{})); len(got) > 0 {
				t.Fatalf("without Standing: %v", got)
			}
		})
	}
}
