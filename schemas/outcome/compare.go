package outcome

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/ledger"
)

// Options configure Compare.
type Options struct {
	// Expiries also compares trades whose final status is EXPIRED. Off by
	// default: retention runs on event time, which depends on what was seen
	// before (docs/spec/messages.md §5) — per partition on Kafka, over the whole file
	// in `ste match` — so which trades expire may differ between two correct
	// runs of one message set.
	Expiries bool
	// Standing also compares the standing outputs of docs/spec/messages.md
	// §6 ("Standing outputs", version 3) of every trade, settled or not:
	// what each receiver was last sent — a CNF NEW, a BLK but
	// BLOCK_INCOMPLETE, an ALG NEW (a CANCEL, BLOCK_INCOMPLETE or nothing
	// are alike: none stands) — and, when the last STATUS carries a
	// version 3 value, its Body to each of its receivers; an unsettled
	// trade's status is compared only as such a value (UNMATCHED and none
	// are alike). Allegements stand once the allegement delay has passed.
	Standing bool
	// A and B name the two sides in the human summary ("ste match",
	// "kafka"); default "A" and "B".
	A, B string
}

// Kind is a kind of difference in one trade. A differing trade has one
// kind, the first that applies in the order of Kinds: a changed status
// explains changed criteria and CLS content.
type Kind string

const (
	OnlyInA         Kind = "only_in_a" // compared in A, not in B
	OnlyInB         Kind = "only_in_b"
	StatusChanged   Kind = "status"   // final status differs
	CriteriaChanged Kind = "criteria" // same status, failing criteria differ
	// ToleranceChanged: both MATCHED, the criteria held only within
	// tolerance differ.
	ToleranceChanged Kind = "tolerance"
	CLSChanged       Kind = "cls" // same status and criteria, standing CLS content differs (or stands on one side only)
	// StandingChanged: the rest the same, a standing CNF, BLK, ALG or
	// version 3 STATUS differs (Options.Standing).
	StandingChanged Kind = "standing"
)

// Kinds in the order they are decided and reported (StandingChanged only
// with Options.Standing).
var Kinds = []Kind{OnlyInA, OnlyInB, StatusChanged, CriteriaChanged, ToleranceChanged, CLSChanged, StandingChanged}

// Trade is one side's final outcome of a trade.
type Trade struct {
	Status   string `json:"status"`
	Criteria []int  `json:"criteria,omitempty"` // failing criteria of a MISMATCHED status
	// Tolerances are the criteria a MATCHED status held only within tolerance.
	Tolerances []int  `json:"tolerances,omitempty"`
	CLS        string `json:"cls,omitempty"` // standing CLS NEW content without its Version; "" when none stands
	// Parties received the last status; not compared (they follow from the
	// messages), used to count flips per participant.
	Parties []string `json:"parties,omitempty"`
	// Standing are the standing outputs by "TYPE receiver" (the Body of a
	// CNF NEW, a BLK, an ALG NEW, a version 3 STATUS), with
	// Options.Standing.
	Standing map[string]string `json:"standing,omitempty"`
}

// TradeDiff is one trade that differs, with both sides.
type TradeDiff struct {
	TradeKey string `json:"trade_key"`
	Kind     Kind   `json:"kind"`
	A        *Trade `json:"a"` // nil when only in B
	B        *Trade `json:"b"` // nil when only in A
}

// RejectionCount is a rejection with how many more times one side has it.
type RejectionCount struct {
	Rejection
	Count int `json:"count"`
}

// Delta lists what B lacks (Missing: in A only) and what it adds (Extra: in
// B only), sorted.
type Delta[T any] struct {
	Missing []T `json:"missing,omitempty"`
	Extra   []T `json:"extra,omitempty"`
}

// Conflicts are the MsgIds seen with two contents on each side: the
// contract forbids them (docs/spec/messages.md §6), so any is a difference.
type Conflicts struct {
	A []string `json:"a,omitempty"`
	B []string `json:"b,omitempty"`
}

// Diff is the comparison of B with A: a summary with counts, and every
// difference in detail. It marshals to JSON as is.
type Diff struct {
	Summary    Summary               `json:"summary"`
	Conflicts  Conflicts             `json:"conflicts"`
	Trades     []TradeDiff           `json:"trades,omitempty"` // by trade key
	ACKs       Delta[string]         `json:"acks"`
	NACKs      Delta[RejectionCount] `json:"nacks"`
	Exceptions Delta[RejectionCount] `json:"exceptions"`
	// Flips count, per participant, the trades MISMATCHED on one side and
	// MATCHED on the other (flips.go).
	Flips []ParticipantFlips `json:"flips,omitempty"`
	names [2]string
}

// Summary counts both sides and their differences.
type Summary struct {
	Trades     TradeSummary `json:"trades"`
	ACKs       Tally        `json:"acks"`
	NACKs      Tally        `json:"nacks"`      // with multiplicity
	Exceptions Tally        `json:"exceptions"` // with multiplicity
	Conflicts  Pair         `json:"conflicts"`
}

// TradeSummary counts the trades compared on each side, those the same on
// both, and those that differ by kind (every kind present, zeros included,
// so that a table of them has fixed rows).
type TradeSummary struct {
	A       Outcomes     `json:"a"`
	B       Outcomes     `json:"b"`
	Same    int          `json:"same"`
	Changed map[Kind]int `json:"changed"`
}

// Outcomes count one side's compared trades by final outcome.
type Outcomes struct {
	Trades     int `json:"trades"`
	Matched    int `json:"matched"`    // a CLS stands
	Mismatched int `json:"mismatched"` // no CLS stands, final status MISMATCHED
	Expired    int `json:"expired"`    // no CLS stands, final status EXPIRED (with Options.Expiries)
}

// Tally counts one kind of output on each side and B's differences from A.
type Tally struct {
	A       int `json:"a"`
	B       int `json:"b"`
	Missing int `json:"missing"`
	Extra   int `json:"extra"`
}

// Pair is a count on each side.
type Pair struct {
	A int `json:"a"`
	B int `json:"b"`
}

// Differ is the number of trades that differ.
func (t TradeSummary) Differ() int {
	n := 0
	for _, c := range t.Changed {
		n += c
	}
	return n
}

// Equal reports whether the two outcomes are the same.
func (d *Diff) Equal() bool {
	return len(d.Conflicts.A)+len(d.Conflicts.B)+len(d.Trades)+
		len(d.ACKs.Missing)+len(d.ACKs.Extra)+len(d.NACKs.Missing)+len(d.NACKs.Extra)+
		len(d.Exceptions.Missing)+len(d.Exceptions.Extra) == 0
}

// Compare compares b with a.
func Compare(a, b *Set, o Options) *Diff {
	d := &Diff{names: [2]string{cmp.Or(o.A, "A"), cmp.Or(o.B, "B")}}
	d.Conflicts = Conflicts{A: a.conflicts(), B: b.conflicts()}
	d.Summary.Conflicts = Pair{len(d.Conflicts.A), len(d.Conflicts.B)}
	d.compareTrades(a.trades(o), b.trades(o), o.Standing)
	d.Flips = flips(d.Trades)

	d.ACKs = Delta[string]{Missing: without(a.acks, b.acks), Extra: without(b.acks, a.acks)}
	d.Summary.ACKs = Tally{len(a.acks), len(b.acks), len(d.ACKs.Missing), len(d.ACKs.Extra)}

	nacks := func(s *Set) map[Rejection]int {
		m := map[Rejection]int{}
		for _, r := range s.nacks {
			m[r]++
		}
		return m
	}
	d.NACKs, d.Summary.NACKs = multisetDelta(nacks(a), nacks(b))
	d.Exceptions, d.Summary.Exceptions = multisetDelta(a.excs, b.excs)
	return d
}

// trades are the trades compared, by key: those that ended settled
// (ledger.Trade.Settled), and with Options.Expiries those that expired.
func (s *Set) trades(o Options) map[string]Trade {
	out := map[string]Trade{}
	for _, t := range s.led.Trades() {
		expired := t.Status == schemas.Expired.String()
		if t.Settled() || (o.Expiries && expired) {
			out[t.TradeKey] = Trade{Status: t.Status, Criteria: t.Criteria, Tolerances: t.Tolerances,
				Parties: slices.Clone(t.Parties), CLS: string(t.CLS)}
		}
		if !o.Standing || expired && !o.Expiries {
			continue
		}
		v3 := isV3(t.Status)
		std := standing(t, v3)
		if _, ok := out[t.TradeKey]; !ok && (v3 || len(std) > 0) {
			status := ""
			if v3 {
				status = t.Status
			}
			out[t.TradeKey] = Trade{Status: status, Parties: slices.Clone(t.Parties), CLS: string(t.CLS)}
		}
		if tr, ok := out[t.TradeKey]; ok {
			tr.Standing = std
			out[t.TradeKey] = tr
		}
	}
	return out
}

// standing is what stands of a trade's outputs (Options.Standing).
func standing(t ledger.Trade, v3 bool) map[string]string {
	out := map[string]string{}
	for k, l := range t.Standing {
		kind, _, _ := strings.Cut(k, " ")
		switch {
		case l.Function == "CANCEL":
		case kind == "STATUS" && !v3:
		case kind == "BLK" && strings.Contains(string(l.Body), "<Status>"+schemas.BlockIncomplete.String()+"</Status>"):
		default:
			out[k] = string(l.Body)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func (d *Diff) compareTrades(a, b map[string]Trade, standing bool) {
	s := &d.Summary.Trades
	s.A, s.B = outcomes(a), outcomes(b)
	s.Changed = map[Kind]int{}
	for _, k := range Kinds {
		if k != StandingChanged || standing {
			s.Changed[k] = 0
		}
	}
	for _, key := range sortedKeys(a, b) {
		ta, inA := a[key]
		tb, inB := b[key]
		var k Kind
		switch {
		case !inB:
			k = OnlyInA
		case !inA:
			k = OnlyInB
		case ta.Status != tb.Status:
			k = StatusChanged
		case !slices.Equal(ta.Criteria, tb.Criteria):
			k = CriteriaChanged
		case !slices.Equal(ta.Tolerances, tb.Tolerances):
			k = ToleranceChanged
		case ta.CLS != tb.CLS:
			k = CLSChanged
		case !maps.Equal(ta.Standing, tb.Standing):
			k = StandingChanged
		default:
			s.Same++
			continue
		}
		s.Changed[k]++
		td := TradeDiff{TradeKey: key, Kind: k}
		if inA {
			td.A = &ta
		}
		if inB {
			td.B = &tb
		}
		d.Trades = append(d.Trades, td)
	}
}

func outcomes(ts map[string]Trade) Outcomes {
	o := Outcomes{Trades: len(ts)}
	for _, t := range ts {
		switch {
		case t.CLS != "":
			o.Matched++
		case t.Status == schemas.Mismatched.String():
			o.Mismatched++
		case t.Status == schemas.Expired.String():
			o.Expired++
		}
	}
	return o
}

// without lists the keys of x that y lacks, sorted.
func without(x, y map[string]bool) []string {
	var out []string
	for _, k := range sortedKeys(x) {
		if !y[k] {
			out = append(out, k)
		}
	}
	return out
}

// multisetDelta compares two multisets of rejections.
func multisetDelta(a, b map[Rejection]int) (Delta[RejectionCount], Tally) {
	var d Delta[RejectionCount]
	var t Tally
	for r, n := range a {
		t.A += n
		if m := b[r]; n > m {
			d.Missing = append(d.Missing, RejectionCount{r, n - m})
			t.Missing += n - m
		}
	}
	for r, m := range b {
		t.B += m
		if n := a[r]; m > n {
			d.Extra = append(d.Extra, RejectionCount{r, m - n})
			t.Extra += m - n
		}
	}
	byKey := func(x, y RejectionCount) int {
		return cmp.Or(cmp.Compare(x.Sender, y.Sender), cmp.Compare(x.MsgId, y.MsgId), cmp.Compare(x.Reason, y.Reason))
	}
	slices.SortFunc(d.Missing, byKey)
	slices.SortFunc(d.Extra, byKey)
	return d, t
}

// sortedKeys are the keys of the maps, deduplicated and sorted.
func sortedKeys[V any](ms ...map[string]V) []string {
	var keys []string
	for _, m := range ms {
		for k := range m {
			keys = append(keys, k)
		}
	}
	return sortedSet(keys)
}

func sortedSet(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
}

// isV3 says whether a STATUS value is one version 3 adds.
func isV3(status string) bool {
	for s := schemas.Affirmed; s <= schemas.Cancelled; s++ {
		if s.String() == status {
			return true
		}
	}
	return false
}

// StandingKinds counts the standing outputs of the set's trades
// (Options.Standing) by kind — "ALG", "CNF", "BLK", "STATUS" (version 3
// values) — one per trade and receiver: what a standing comparison holds.
func (s *Set) StandingKinds() map[string]int {
	n := map[string]int{}
	for _, t := range s.led.Trades() {
		if t.Status == schemas.Expired.String() {
			continue
		}
		for k := range standing(t, isV3(t.Status)) {
			kind, _, _ := strings.Cut(k, " ")
			n[kind]++
		}
	}
	return n
}
