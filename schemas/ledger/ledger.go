// Package ledger folds a stream of output messages into what a participant
// ends up believing about each trade: the CLS that stands, the last status,
// and the exceptions. Outputs may repeat (at-least-once); the ledger dedupes
// by MsgId and reports a MsgId seen with two contents, which the contract
// forbids. schemas/outcome builds on it to compare two runs.
package ledger

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ste-utility/ste/schemas"
)

// Trade is the final view of one trade.
type Trade struct {
	TradeKey string
	CLS      []byte // content of the standing CLS NEW with its Version element removed; nil if none stands
	Version  int    // version of the standing CLS
	StatusN  int    // highest status number seen
	Status   string // status of that number
	Criteria []int  // its failing criteria
	// Tolerances are a MATCHED's criteria held only within tolerance.
	Tolerances []int
	// Parties are the receivers of the last status (the trade's Broker,
	// InvMgr and Custodians then), sorted.
	Parties []string
	// Standing is what each receiver was last sent of the trade, by
	// Standing key ("CNF BIC", "BLK BIC", "ALG BIC", and "STATUS BIC" for
	// the receivers of the last status): docs/spec/messages.md §6,
	// "Standing outputs".
	Standing map[string]Last
}

// Last is the last record of one kind a receiver was sent about a trade:
// its count (n, or a CNF's c) and Function, and the Body of a NEW.
type Last struct {
	N        int
	Function string
	Body     []byte
}

// Ledger accumulates outputs.
type Ledger struct {
	seen      map[string][]byte // MsgId -> content
	clsNew    map[string]map[int][]byte
	cancelled map[string]map[int]bool
	status    map[string]*Trade
	last      map[lastKey]Last // STATUS, CNF, BLK, ALG by trade, type and receiver
	Conflicts []string         // MsgIds seen with two contents
	Dups      int              // repeated outputs (same MsgId and content)
	Count     map[string]int
	Reasons   map[string]int // exceptions (or NACKs) by reason
}

// New returns an empty ledger.
func New() *Ledger {
	return &Ledger{seen: map[string][]byte{}, clsNew: map[string]map[int][]byte{}, last: map[lastKey]Last{},
		cancelled: map[string]map[int]bool{}, status: map[string]*Trade{}, Count: map[string]int{}, Reasons: map[string]int{}}
}

// Add folds one output message (a cls or outbound record).
func (l *Ledger) Add(raw []byte) error {
	r, err := schemas.ParseOutput(raw)
	if err != nil {
		return err
	}
	l.Fold(r)
	return nil
}

// Fold folds one parsed output message and reports whether its MsgId was
// new; a repeat changes nothing but Dups (and Conflicts when its content
// differs). Callers that read more of the message than the ledger keeps
// parse it once and fold it here.
func (l *Ledger) Fold(r *schemas.Received) (fresh bool) {
	if prev, ok := l.seen[r.MsgId]; ok {
		if !bytes.Equal(prev, r.Body) {
			l.Conflicts = append(l.Conflicts, r.MsgId)
		}
		l.Dups++
		return false
	}
	l.seen[r.MsgId] = append([]byte(nil), r.Body...)
	l.Count[r.MsgType+" "+r.Function]++
	switch {
	case r.MsgType == "CLS" && r.Function == "NEW":
		m := l.clsNew[r.TradeKey]
		if m == nil {
			m = map[int][]byte{}
			l.clsNew[r.TradeKey] = m
		}
		m[r.Version] = withoutVersion(r.Body)
	case r.MsgType == "CLS" && r.Function == "CANCEL":
		m := l.cancelled[r.TradeKey]
		if m == nil {
			m = map[int]bool{}
			l.cancelled[r.TradeKey] = m
		}
		m[r.Version] = true
	case r.MsgType == "STATUS":
		// ST:<key>:<n>:<receiver>
		parts := strings.Split(r.MsgId, ":")
		var n int
		if len(parts) == 4 {
			fmt.Sscan(parts[2], &n)
		}
		t := l.trade(r.TradeKey)
		if n > t.StatusN {
			t.StatusN, t.Status, t.Criteria, t.Tolerances = n, r.Status, r.Criteria, r.Tolerances
			t.Parties = t.Parties[:0]
		}
		if n == t.StatusN && r.Receiver != "" && !slices.Contains(t.Parties, r.Receiver) {
			t.Parties = append(t.Parties, r.Receiver)
			slices.Sort(t.Parties)
		}
	}
	switch r.MsgType {
	case "STATUS", "CNF", "BLK", "ALG":
		l.fold(r)
	}
	return true
}

type lastKey struct{ trade, kind, receiver string }

// fold keeps the record if it is the receiver's latest of its kind about
// its trade: the highest count of its MsgId (<TYPE>:<key>:<n>:<receiver>),
// and of a CNF NEW and its CANCEL, which share c, the CANCEL.
func (l *Ledger) fold(r *schemas.Received) {
	parts := strings.Split(r.MsgId, ":")
	if len(parts) < 4 || r.TradeKey == "" {
		return
	}
	n, err := strconv.Atoi(parts[2])
	if err != nil {
		return
	}
	k := lastKey{r.TradeKey, r.MsgType, parts[3]}
	prev, ok := l.last[k]
	if ok && (n < prev.N || n == prev.N && (prev.Function == "CANCEL" || r.Function != "CANCEL")) {
		return
	}
	l.last[k] = Last{N: n, Function: r.Function, Body: slices.Clone(r.Body)}
	l.trade(r.TradeKey)
}

// AddException folds one exception JSON record (counted by reason).
func (l *Ledger) AddException(raw []byte) error {
	var e struct {
		Reason string `json:"reason"`
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return err
	}
	l.Reasons[e.Reason]++
	return nil
}

func (l *Ledger) trade(key string) *Trade {
	t := l.status[key]
	if t == nil {
		t = &Trade{TradeKey: key}
		l.status[key] = t
	}
	return t
}

// Trades returns the final view of every trade that had a CLS or a status,
// sorted by trade key.
func (l *Ledger) Trades() []Trade {
	for key, vs := range l.clsNew {
		t := l.trade(key)
		t.CLS, t.Version = nil, 0
		for v, body := range vs {
			if !l.cancelled[key][v] && v > t.Version {
				t.CLS, t.Version = body, v
			}
		}
	}
	for _, t := range l.status {
		t.Standing = nil
	}
	for k, v := range l.last {
		t := l.trade(k.trade)
		if k.kind == "STATUS" && (v.N != t.StatusN || !slices.Contains(t.Parties, k.receiver)) {
			continue // not the last status: what its receiver kept as it stopped being a party
		}
		if t.Standing == nil {
			t.Standing = map[string]Last{}
		}
		t.Standing[k.kind+" "+k.receiver] = v
	}
	out := make([]Trade, 0, len(l.status))
	for _, t := range l.status {
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].TradeKey < out[j].TradeKey })
	return out
}

// Settled reports whether the trade ended matched or mismatched, or with a
// version 3 status value (messages.md §5a: affirmed, rejected, a change or
// a cancellation pending, or cancelled by both principals — final, and a
// function of the set like a match). A trade that ends UNMATCHED is, like
// one never complete, none of these: whether it passed through a status on
// the way depends on arrival order.
func (t Trade) Settled() bool {
	switch t.Status {
	case "MATCHED", "MISMATCHED", "AFFIRMED", "AFFIRM_REJECTED", "CHANGE_PENDING", "CANCEL_PENDING", "CANCELLED":
		return true
	}
	return t.CLS != nil
}

// Outcome is the order-independent final outcome of a settled trade: matched
// or not, the standing CLS content without its version, the final status and
// its criteria, and those held only within tolerance (status numbers may
// depend on order).
func (t Trade) Outcome() string {
	tol := ""
	if len(t.Tolerances) > 0 {
		tol = fmt.Sprintf(" tolerance=%v", t.Tolerances)
	}
	return fmt.Sprintf("%s matched=%v status=%s criteria=%v%s cls=%s", t.TradeKey, t.CLS != nil, t.Status, t.Criteria, tol, t.CLS)
}

// Outcomes are the outcomes of the settled trades, sorted by trade key.
func (l *Ledger) Outcomes() []string {
	var out []string
	for _, t := range l.Trades() {
		if t.Settled() {
			out = append(out, t.Outcome())
		}
	}
	return out
}

// withoutVersion removes the <Version> element, the one part of a CLS body
// that may depend on processing order.
func withoutVersion(body []byte) []byte {
	i := bytes.Index(body, []byte("<Version>"))
	j := bytes.Index(body, []byte("</Version>"))
	if i < 0 || j < i {
		return slices.Clone(body)
	}
	return slices.Concat(body[:i], body[j+len("</Version>"):])
}
