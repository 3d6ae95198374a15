package matching

import (
	"cmp"
	"reflect"
	"slices"
	"strings"

	"github.com/ste-utility/ste/schemas"
)

// QueueFacts is what a participant's work queue (gateway.md v2 §4c) shows
// of a trade and filters it by, computed as the trade's view computes it
// (View, View.For) without building the view: the queue index of
// processors/query summarises every trade the match table takes, and the
// view of every message of a trade cost twice the evaluation. A test holds
// the two to each other (TestQueueFactsAgreeWithTheView).
type QueueFacts struct {
	Key       schemas.Key
	State     string // View.State: incomplete, matched, mismatched
	Lifecycle string // View.Lifecycle
	Locked    bool
	Cancelled bool
	// CLSVersion is the standing CLS version, 0 when none stands.
	CLSVersion int
	// Failing are the failing criteria's numbers (View.Failing).
	Failing []int
	// Market is View.Market: the NOE in force's.
	Market string
	// Parties are the trade's parties (View.Parties, the principals
	// first), each with what it sees.
	Parties []PartyFacts
}

// PartyFacts is what one party sees of a trade in its queue.
type PartyFacts struct {
	BIC string
	// Missing is the number of items of missing it sees (View.For: a
	// Custodian, those of its accounts).
	Missing int
	// Owes are the items it is alleged (messages.md §5a "Allegements"):
	// those of missing whose sender is it, when a message of another
	// sender is in force.
	Owes []Owed
}

// QueueFacts computes the trade's queue facts, evaluated with tol: from the
// assessment the last Apply settled the trade with when it was made with
// tol (the match stage's trade handed to the work queue), else from a new
// one.
func (t *Trade) QueueFacts(tol Tolerances) QueueFacts {
	var f QueueFacts
	if len(t.Keys) > 0 {
		f.Key = t.Keys[0]
	}
	a := t.assessed
	if a == nil || !sameTolerances(a.tol, tol) {
		a = assess(t, tol)
	}
	f.Locked, f.Cancelled = a.locked, a.cancelled
	f.State, f.Lifecycle = "incomplete", "NONE"
	if m := a.match; m != nil {
		f.State = [...]string{incomplete: "incomplete", matched: "matched", mismatched: "mismatched"}[m.ev.state]
		for _, d := range m.ev.failing {
			f.Failing = append(f.Failing, d.Criterion)
		}
	}
	if a.value.IsV3() {
		f.Lifecycle = a.value.String()
	}
	if t.TombCancelled {
		f.Lifecycle = "CANCELLED"
	}
	if t.Live {
		f.CLSVersion = t.Version
	}
	var noe *Entry
	for _, e := range a.inForce {
		if e.Type == schemas.NOE && (noe == nil || cmp.Or(strings.Compare(e.Sender, noe.Sender), strings.Compare(e.MsgId, noe.MsgId)) < 0) {
			noe = e
		}
	}
	if noe != nil {
		f.Market = noe.Market
	}
	var owed []Owed
	if len(t.Keys) > 0 && !a.locked && !a.cancelled {
		owed = missing(a.key, newView(a.inForce, nil))
	}
	for _, p := range a.parties {
		pf := PartyFacts{BIC: p, Missing: len(owed)}
		if p != a.key.Broker && p != a.key.InvMgr {
			pf.Missing = 0
			for _, o := range owed {
				if (o.MsgType == "NPR" || o.MsgType == "SET") && a.holds(p, o.Account) {
					pf.Missing++
				}
			}
		}
		if slices.ContainsFunc(a.inForce, func(e *Entry) bool { return e.Sender != p }) {
			for _, o := range owed {
				if o.From == p {
					pf.Owes = append(pf.Owes, o)
				}
			}
		}
		f.Parties = append(f.Parties, pf)
	}
	return f
}

// QueueFactsOf reads a match table value's queue facts (its strings
// interned by it, which must not be nil): ok is false for a tombstone (a
// purged trade is in no queue) or a trade without key fields.
func QueueFactsOf(value []byte, tol Tolerances, it Interner) (_ QueueFacts, ok bool, _ error) {
	if tomb, _, hok := Header(value); hok && tomb {
		return QueueFacts{}, false, nil
	}
	t, err := UnmarshalTrade(value, it)
	if err != nil {
		return QueueFacts{}, false, err
	}
	if len(t.Keys) == 0 {
		return QueueFacts{}, false, nil
	}
	return t.QueueFacts(tol), true, nil
}

// sameTolerances says whether x and y are the same tolerances (a
// refdata.Current, one for the process): an assessment made with x holds
// for y. Tolerances of a type that cannot be compared are never the same.
func sameTolerances(x, y Tolerances) bool {
	if x == nil || y == nil {
		return x == nil && y == nil
	}
	tx := reflect.TypeOf(x)
	return tx == reflect.TypeOf(y) && tx.Comparable() && x == y
}
