package offline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/ledger"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/workload"
)

// generate builds a message set in memory with its per-trade plans.
func generate(t *testing.T, trades int, mix workload.Mix, seed uint64) ([][]byte, *workload.Manifest, []workload.TradePlan) {
	t.Helper()
	return generateWith(t, trades, mix, seed, nil)
}

// generateWith is generate from the reference data ref (nil: the default).
func generateWith(t *testing.T, trades int, mix workload.Mix, seed uint64, ref *refdata.Set) ([][]byte, *workload.Manifest, []workload.TradePlan) {
	t.Helper()
	var recs [][]byte
	var plans []workload.TradePlan
	man, err := workload.Generate(workload.Options{Trades: trades, Mix: mix, Seed: seed, Ref: ref},
		func(b []byte) error { recs = append(recs, b); return nil },
		func(p workload.TradePlan) { plans = append(plans, p) })
	if err != nil {
		t.Fatal(err)
	}
	return recs, man, plans
}

type result struct {
	sum  Summary
	book *matching.Book
	led  *ledger.Ledger
	cls  [][]byte
	out  [][]byte
	excs [][]byte
}

// run matches recs in the given order and folds the outputs into a ledger.
func run(t *testing.T, recs [][]byte) *result {
	t.Helper()
	return runWith(t, recs, nil)
}

// runWith is run with a book (nil: Run's own).
func runWith(t *testing.T, recs [][]byte, book *matching.Book) *result {
	t.Helper()
	return runWithRef(t, recs, book, refdata.Default())
}

// runWithRef runs recs against the reference data ref.
func runWithRef(t *testing.T, recs [][]byte, book *matching.Book, ref *refdata.Set) *result {
	t.Helper()
	src, err := msgset.NewReader(bytes.NewReader(append(bytes.Join(recs, []byte("\n")), '\n')), "set.xml")
	if err != nil {
		t.Fatal(err)
	}
	r := &result{led: ledger.New()}
	keep := func(dst *[][]byte) func([]byte) error {
		return func(b []byte) error { *dst = append(*dst, append([]byte(nil), b...)); return nil }
	}
	signer := &schemas.Signer{BIC: "STEUTLSGXXX", Key: refdata.DemoPrivateKey("STEUTLSGXXX")}
	r.sum, r.book, err = Run(context.Background(), src,
		Sinks{CLS: keep(&r.cls), Outbound: keep(&r.out), Exceptions: keep(&r.excs)},
		Options{Validator: validation.New(ref), Signer: signer, Book: book})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range slices.Concat(r.cls, r.out) {
		if err := r.led.Add(b); err != nil {
			t.Fatalf("output does not parse: %v: %s", err, b)
		}
	}
	for _, b := range r.excs {
		if err := r.led.AddException(b); err != nil {
			t.Fatal(err)
		}
	}
	if len(r.led.Conflicts) > 0 {
		t.Fatalf("MsgIds with two contents: %v", r.led.Conflicts[:min(5, len(r.led.Conflicts))])
	}
	return r
}

func shuffled(recs [][]byte, seed uint64) [][]byte {
	out := slices.Clone(recs)
	rand.New(rand.NewPCG(seed, seed)).Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// TestRealisticSummaryAgreesWithManifest: matched, mismatched, locked,
// cancelled and rejected by code as the generator built them, with the
// contract's default reference data (every investment manager MANUAL) and
// with mixed affirmation modes (two in three AUTO: the demo's).
func TestRealisticSummaryAgreesWithManifest(t *testing.T) {
	for _, c := range []struct {
		name string
		ref  *refdata.Set
	}{{"manual", refdata.Default()}, {"mixed", refdata.WithAffirmation(refdata.Default(), refdata.AffirmationMixed)}} {
		t.Run(c.name, func(t *testing.T) { realisticAgreesWithManifest(t, c.ref) })
	}
}

func realisticAgreesWithManifest(t *testing.T, ref *refdata.Set) {
	recs, man, plans := generateWith(t, 3000, workload.Realistic, 7, ref)
	r := runWithRef(t, recs, matching.NewBook(matching.WithConfig(EngineConfig("STEUTLSGXXX", ref))), ref)
	s := r.sum
	if s.Messages != man.Messages || s.CLS != man.Matched || s.Mismatched != man.Mismatched ||
		s.Exceptions != man.Exceptions || s.Duplicates != man.Duplicates || s.Locked != man.Locked || s.Cancelled != man.Cancelled {
		t.Fatalf("summary %+v\nmanifest %+v", s, man)
	}
	for code, n := range man.Rejected {
		if s.Rejected[code] != n {
			t.Errorf("%s: matched %d, manifest %d", code, s.Rejected[code], n)
		}
	}
	if len(s.Rejected) != len(man.Rejected) {
		t.Errorf("rejected %v, manifest %v", s.Rejected, man.Rejected)
	}
	// The utility affirmed every AUTO trade that ends locked, once; it may
	// also have affirmed an AUTO trade later cancelled, in orders where it
	// matched before its CXA arrived.
	autoCancelled := 0
	for _, p := range plans {
		if p.Mode == "AUTO" && p.Outcome == workload.OutcomeCancelled {
			autoCancelled++
		}
	}
	if s.Auto < man.Auto || s.Auto > man.Auto+autoCancelled {
		t.Errorf("the utility sent %d AFFs; %d AUTO trades end locked, %d are cancelled", s.Auto, man.Auto, autoCancelled)
	}
	// Per trade: the built outcome, lifecycle, standing digest and
	// cancellation request, and for mismatches the built criteria.
	final := map[string]ledger.Trade{}
	for _, tr := range r.led.Trades() {
		final[tr.TradeKey] = tr
	}
	last := lastStatusBodies(t, r.out)
	within := 0
	for _, p := range plans {
		tr := final[p.TradeKey]
		within += len(p.Tolerance)
		switch p.Outcome {
		case workload.OutcomeMatched:
			want := "MATCHED"
			if p.Lifecycle != "" {
				want = p.Lifecycle
			}
			if tr.CLS == nil || tr.Status != want || !slices.Equal(tr.Tolerances, p.Tolerance) {
				t.Errorf("%s (%s, %s): want matched %s, within tolerance %v, got %s", p.TradeRef, p.Scenario, p.Mode, want, p.Tolerance, tr.Outcome())
			}
			// A version 3 value carries the agreement's (or the standing)
			// MatchDigest: the one the generator computed from the set it built.
			if p.Lifecycle != "" && !strings.Contains(last[p.TradeKey], "<MatchDigest>"+p.MatchDigest+"</MatchDigest>") {
				t.Errorf("%s (%s, %s): STATUS %s, want the digest %s", p.TradeRef, p.Scenario, p.Mode, last[p.TradeKey], p.MatchDigest)
			}
		case workload.OutcomeMismatched:
			if tr.CLS != nil || tr.Status != "MISMATCHED" || !slices.Equal(tr.Criteria, p.Criteria) {
				t.Errorf("%s (%s): want mismatched %v, got %s", p.TradeRef, p.Scenario, p.Criteria, tr.Outcome())
			}
		case workload.OutcomeCancelled:
			if tr.CLS != nil || tr.Status != "CANCELLED" {
				t.Errorf("%s (%s, %s): want cancelled, got %s", p.TradeRef, p.Scenario, p.Mode, tr.Outcome())
			}
		case workload.OutcomeIncomplete:
			if tr.CLS != nil || (tr.Status != "" && tr.Status != "UNMATCHED") {
				t.Errorf("%s (%s): want incomplete, got %s", p.TradeRef, p.Scenario, tr.Outcome())
			}
		}
		switch p.CancelRequest {
		case "PENDING", "REJECTED":
			if !strings.Contains(last[p.TradeKey], `<CancelRequest state="`+p.CancelRequest+`">`) {
				t.Errorf("%s (%s): want a %s cancel request, STATUS %s", p.TradeRef, p.Scenario, p.CancelRequest, last[p.TradeKey])
			}
		case "ACCEPTED":
			if !strings.Contains(last[p.TradeKey], "<CancelledBy>") {
				t.Errorf("%s (%s): STATUS %s", p.TradeRef, p.Scenario, last[p.TradeKey])
			}
		}
	}
	if within == 0 {
		t.Error("no trade built to match only within tolerance: the default reference data has no amount tolerance?")
	}
	for _, v := range []string{"AFFIRMED", "AFFIRM_REJECTED", "CHANGE_PENDING", "CANCEL_PENDING", "CANCELLED"} {
		if man.Lifecycle[v] == 0 {
			t.Errorf("no trade built to end %s: %v", v, man.Lifecycle)
		}
	}
	if man.Amended == 0 || man.LifecycleMessages["CXJ"] == 0 {
		t.Errorf("manifest %+v: want amendments and rejected cancellations", man)
	}
	// Every record ends as an ACK'd message, a duplicate or an exception
	// (the utility's AFFs are ACKed to it, and not among the records).
	acks := r.led.Count["ACK NEW"]
	if acks != s.Accepted+s.Auto || s.Accepted+s.Duplicates+s.Exceptions != s.Messages {
		t.Errorf("ACKs %d, accepted %d (+%d AUTO), duplicates %d, exceptions %d, messages %d", acks, s.Accepted, s.Auto, s.Duplicates, s.Exceptions, s.Messages)
	}
}

// lastStatusBodies is each trade's last STATUS body (the highest n; the
// fullest receiver's: a principal's lists every token).
func lastStatusBodies(t *testing.T, out [][]byte) map[string]string {
	t.Helper()
	n := map[string]int{}
	body := map[string]string{}
	for _, b := range out {
		o, err := schemas.ParseOutput(b)
		if err != nil {
			t.Fatal(err)
		}
		if o.MsgType != "STATUS" {
			continue
		}
		var k int
		fmt.Sscan(strings.Split(o.MsgId, ":")[2], &k)
		if k > n[o.TradeKey] || k == n[o.TradeKey] && len(o.Body) > len(body[o.TradeKey]) {
			n[o.TradeKey], body[o.TradeKey] = k, string(o.Body)
		}
	}
	return body
}

// TestStandardOrderIndependent: a standard set in three orders gives
// identical CLS bodies, versions included.
func TestStandardOrderIndependent(t *testing.T) {
	recs, man, _ := generate(t, 500, workload.Standard, 3)
	var want map[string][]byte
	for i, order := range [][][]byte{recs, shuffled(recs, 1), shuffled(recs, 2)} {
		r := run(t, order)
		if r.sum.CLS != man.Trades || r.sum.Exceptions != 0 {
			t.Fatalf("order %d: %+v", i, r.sum)
		}
		got := map[string][]byte{}
		for _, b := range r.cls {
			o, _ := schemas.ParseOutput(b)
			got[o.MsgId] = o.Body
		}
		if want == nil {
			want = got
			continue
		}
		if len(got) != len(want) {
			t.Fatalf("order %d: %d CLS, want %d", i, len(got), len(want))
		}
		for id, body := range want {
			if !bytes.Equal(got[id], body) {
				t.Fatalf("order %d: %s differs:\n%s\n%s", i, id, got[id], body)
			}
		}
	}
}

// TestRealisticOrderIndependent: a realistic set in three orders gives the
// same final outcome per trade (its CLS, and its last STATUS's value and
// Body: the standing STATUS of messages.md §6, lifecycle elements included)
// and the same rejection codes — with every investment manager MANUAL, and
// with mixed modes (the utility's affirmation of an AUTO trade is the one
// order-dependent step of §5a; the generator builds AUTO trades so that
// every order ends the same).
func TestRealisticOrderIndependent(t *testing.T) {
	for _, c := range []struct {
		name string
		ref  *refdata.Set
	}{{"manual", refdata.Default()}, {"mixed", refdata.WithAffirmation(refdata.Default(), refdata.AffirmationMixed)}} {
		t.Run(c.name, func(t *testing.T) {
			recs, man, _ := generateWith(t, 1500, workload.Realistic, 11, c.ref)
			if man.Locked == 0 || man.Cancelled == 0 || man.Lifecycle["CHANGE_PENDING"] == 0 {
				t.Fatalf("manifest %+v: no lifecycle to hold", man)
			}
			orderIndependent(t, recs, c.ref)
		})
	}
}

func orderIndependent(t *testing.T, recs [][]byte, ref *refdata.Set) {
	var want []string
	var wantReasons map[string]int
	for i, order := range [][][]byte{recs, shuffled(recs, 1), shuffled(recs, 2)} {
		r := runWithRef(t, order, matching.NewBook(matching.WithConfig(EngineConfig("STEUTLSGXXX", ref))), ref)
		got := r.led.Outcomes()
		bodies := standingStatus(t, r.out)
		for j, o := range got {
			got[j] = o + " status-body=" + bodies[strings.SplitN(o, " ", 2)[0]]
		}
		if want == nil {
			want, wantReasons = got, r.led.Reasons
			continue
		}
		if !slices.Equal(got, want) {
			for j := range min(len(got), len(want)) {
				if got[j] != want[j] {
					t.Fatalf("order %d: first difference:\n%s\n%s", i, got[j], want[j])
				}
			}
			t.Fatalf("order %d: %d trades, want %d", i, len(got), len(want))
		}
		for code, n := range wantReasons {
			if r.led.Reasons[code] != n {
				t.Fatalf("order %d: %s %d, want %d", i, code, r.led.Reasons[code], n)
			}
		}
	}
}

// standingStatus is each trade's last STATUS Body when its value is one a
// set stands on (not UNMATCHED, whose sending depends on the order): the
// fullest receiver's (the principals' Bodies list every token, a
// Custodian's its accounts' only).
func standingStatus(t *testing.T, out [][]byte) map[string]string {
	t.Helper()
	n := map[string]int{}
	body := map[string]string{}
	for _, b := range out {
		o, err := schemas.ParseOutput(b)
		if err != nil {
			t.Fatal(err)
		}
		if o.MsgType != "STATUS" {
			continue
		}
		var k int
		fmt.Sscan(strings.Split(o.MsgId, ":")[2], &k)
		switch {
		case k > n[o.TradeKey]:
			n[o.TradeKey], body[o.TradeKey] = k, string(o.Body)
		case k == n[o.TradeKey] && len(o.Body) > len(body[o.TradeKey]):
			body[o.TradeKey] = string(o.Body)
		}
	}
	for k, b := range body {
		if strings.Contains(b, "<Status>UNMATCHED</Status>") {
			delete(body, k)
		}
	}
	return body
}

var _ = time.Second

// endless is n bytes of c, produced on demand.
type endless struct {
	c byte
	n int64
}

func (e *endless) Read(p []byte) (int, error) {
	if e.n <= 0 {
		return 0, io.EOF
	}
	k := int(min(int64(len(p)), e.n))
	for i := range p[:k] {
		p[i] = e.c
	}
	e.n -= int64(k)
	return k, nil
}

// A record of 256 MiB is TOO_LARGE with its real size, and costs the run its
// first 64 KiB, not 256 MiB (issue 15: huge files must not exhaust memory).
func TestHugeLineHeldToTheLimit(t *testing.T) {
	recs, _, _ := generate(t, 1, workload.Standard, 1)
	const huge = 256 << 20
	in := io.MultiReader(strings.NewReader("<Msg>"), &endless{'x', huge}, strings.NewReader("\n"+string(bytes.Join(recs, []byte("\n")))+"\n"))
	src, err := msgset.NewReader(in, "set.xml")
	if err != nil {
		t.Fatal(err)
	}
	var excs [][]byte
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	sum, _, err := Run(context.Background(), src,
		Sinks{CLS: func([]byte) error { return nil }, Outbound: func([]byte) error { return nil },
			Exceptions: func(b []byte) error { excs = append(excs, append([]byte(nil), b...)); return nil }},
		Options{Validator: validation.New(refdata.Default()), Signer: &schemas.Signer{BIC: "STEUTLSGXXX", Key: refdata.DemoPrivateKey("STEUTLSGXXX")}})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if sum.CLS != 1 || len(excs) != 1 || !bytes.Contains(excs[0], []byte(`"reason":"TOO_LARGE"`)) ||
		!bytes.Contains(excs[0], []byte(fmt.Sprintf("record is %d bytes", huge+len("<Msg>")))) {
		t.Fatalf("summary %+v, exceptions %.300s", sum, excs)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 128<<20 {
		t.Fatalf("allocated %d MiB to read a %d MiB line", alloc>>20, huge>>20)
	}
}

// TestForgedShareIsRejectedAndTheTradesStillMatch: a standard set with a
// tenth forged (ste bench --forged 0.1) holds that share, every forgery
// is a SIGNATURE exception from one of three senders, and every trade still
// matches.
func TestForgedShareIsRejectedAndTheTradesStillMatch(t *testing.T) {
	var recs [][]byte
	man, err := workload.Generate(workload.Options{Trades: 500, Seed: 3, Forged: 0.1},
		func(b []byte) error { recs = append(recs, b); return nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
	valid := 7 * 500
	if man.Messages != valid+man.Forged || man.Forged < valid/9-1 || man.Forged > valid/9+1 {
		t.Fatalf("%d forged of %d messages: want a tenth", man.Forged, man.Messages)
	}
	r := run(t, recs)
	s := r.sum
	if s.CLS != 500 || s.Exceptions != man.Forged || s.Rejected["SIGNATURE"] != man.Forged || len(s.Rejected) != 1 {
		t.Fatalf("summary %+v, forged %d", s, man.Forged)
	}
	senders := map[string]int{}
	for _, b := range r.excs {
		var e struct{ Sender string }
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatal(err)
		}
		senders[e.Sender]++
	}
	if len(senders) != 3 {
		t.Errorf("forgeries from %v: want three senders", senders)
	}
	if _, err := workload.Generate(workload.Options{Trades: 1, Forged: 0.5}, func([]byte) error { return nil }, nil); err == nil {
		t.Error("a forged share of one half was accepted")
	}
}
