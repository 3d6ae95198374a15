// Package exceptions is the operators' workflow over a namespace's rejected
// records (docs/spec/messages.md §7): the exceptions on <ns>.exceptions read and
// filtered, each one's state on <ns>.exception-states (open, retried,
// resolved, archived, with who and when), the operator retry — the
// original bytes published again to <ns>.inbound with the ste-retry-of
// header — and archiving. `ste exceptions` and the console both use it, so
// they filter, refuse and record alike.
//
// States: an exception is open until an operator retries or archives it. A
// retry makes it retried (by whom, when, where the retry record went); once
// the retry's journey ends in an ACK it is resolved. A retry rejected again
// leaves it retried and gives a new, open exception whose retry_of names
// it: that one is the next to fix. A second retry, or a retry of an archived
// or resolved exception, needs force.
package exceptions

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/trust"
)

// State of an exception.
type State string

const (
	Open     State = "open"
	Retried  State = "retried"
	Resolved State = "resolved"
	Archived State = "archived"
)

// States lists them in workflow order.
var States = []State{Open, Retried, Resolved, Archived}

// ParseState reads a state name.
func ParseState(s string) (State, bool) {
	for _, st := range States {
		if string(st) == strings.ToLower(strings.TrimSpace(s)) {
			return st, true
		}
	}
	return "", false
}

// Record is one exception's state as kept on <ns>.exception-states, keyed
// by the exception id (compacted: the latest record wins). It carries the
// whole history an operator needs — every retry — so the latest alone says
// everything.
type Record struct {
	ID    string    `json:"id"`
	State State     `json:"state"`
	By    string    `json:"by"`             // the operator of the latest change
	Role  string    `json:"role,omitempty"` // and the role they acted in (a console token's)
	At    time.Time `json:"at"`
	Note  string    `json:"note,omitempty"`
	// Retries, oldest first.
	Retries []Retry `json:"retries,omitempty"`
	// ACK is the MsgId of the ACK that resolved it.
	ACK string `json:"ack,omitempty"`
}

// Retry is one operator retry: the record it published to <ns>.inbound.
type Retry struct {
	By        string    `json:"by"`
	Role      string    `json:"role,omitempty"`
	At        time.Time `json:"at"`
	Forced    bool      `json:"forced,omitempty"`
	Partition int32     `json:"partition"`
	Offset    int64     `json:"offset"`
}

// LastRetry is the latest retry, if any.
func (r Record) LastRetry() (Retry, bool) {
	if len(r.Retries) == 0 {
		return Retry{}, false
	}
	return r.Retries[len(r.Retries)-1], true
}

// Exception is one exception record with where it sits on <ns>.exceptions
// and its state.
type Exception struct {
	schemas.Exception
	// Partition, Offset and Time locate the exception record itself.
	Partition int32     `json:"exception_partition"`
	Offset    int64     `json:"exception_offset"`
	Time      time.Time `json:"exception_time"`
	State     Record    `json:"state"`
	// RetriedAs are the exceptions that retries of this one gave (their
	// retry_of names it).
	RetriedAs []string `json:"retried_as,omitempty"`
	// PayloadDropped: the book keeps payloads up to MaxKeptPayload; a larger
	// one is read back from the topic when needed (Workflow.Payload).
	PayloadDropped bool `json:"payload_dropped,omitempty"`
}

// Received is when the utility rejected the record (received_at), or the
// exception record's time when that does not parse.
func (e *Exception) Received() time.Time {
	if t, err := time.Parse(time.RFC3339Nano, e.ReceivedAt); err == nil {
		return t
	}
	return e.Time
}

// MaxKeptPayload is the largest payload a Book keeps in memory: messages
// are a few KiB, and TOO_LARGE ones (64 KiB kept) are read back on demand.
const MaxKeptPayload = 8 << 10

// Filter selects exceptions. Zero fields select everything.
type Filter struct {
	Since, Until time.Time // received_at in [Since, Until)
	Sender       string    // exact, case-insensitive
	Reason       string    // exact, case-insensitive
	MsgId        string    // substring
	States       []State
	IDs          []string
}

// Match reports whether e is selected.
func (f Filter) Match(e *Exception) bool {
	at := e.Received()
	switch {
	case !f.Since.IsZero() && at.Before(f.Since):
		return false
	case !f.Until.IsZero() && !at.Before(f.Until):
		return false
	case f.Sender != "" && !strings.EqualFold(f.Sender, e.Sender):
		return false
	case f.Reason != "" && !strings.EqualFold(f.Reason, e.Reason):
		return false
	case f.MsgId != "" && !strings.Contains(e.MsgId, f.MsgId):
		return false
	case len(f.States) > 0 && !slices.Contains(f.States, e.State.State):
		return false
	case len(f.IDs) > 0 && !slices.Contains(f.IDs, e.ID):
		return false
	}
	return true
}

// Empty reports whether the filter selects everything.
func (f Filter) Empty() bool {
	return f.Since.IsZero() && f.Until.IsZero() && f.Sender == "" && f.Reason == "" && f.MsgId == "" &&
		len(f.States) == 0 && len(f.IDs) == 0
}

// Book holds a namespace's exceptions and their states, as read from the
// two topics. It is safe for concurrent use.
type Book struct {
	secret    *trust.Secret
	mu        sync.RWMutex
	byID      map[string]*Exception
	order     []*Exception // as read
	states    map[string]Record
	retriedAs map[string][]string
	caughtUp  bool
	unproven  int
}

// NewBook returns an empty book that believes only the records secret
// proves (trust.ProofHeader): the utility's own.
func NewBook(secret *trust.Secret) *Book {
	return &Book{secret: secret, byID: map[string]*Exception{}, states: map[string]Record{}, retriedAs: map[string][]string{}}
}

// addException adds one exception record. Two records of one id — a
// replayed one (at-least-once delivery), or a genuine one copied by
// someone who can write the topic — are one exception: the one earliest
// on the topic (lowest partition, then offset) wins, whatever order a
// reader sees them in, so every console and CLI shows the same.
func (b *Book) addException(e *Exception) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(e.Payload) > MaxKeptPayload {
		e.Payload, e.PayloadDropped = nil, true
	}
	if old, dup := b.byID[e.ID]; dup {
		if old.Partition < e.Partition || (old.Partition == e.Partition && old.Offset <= e.Offset) {
			return
		}
		*old = *e // in place: order holds the pointer
		return
	}
	b.byID[e.ID] = e
	b.order = append(b.order, e)
	if e.RetryOf != "" && !slices.Contains(b.retriedAs[e.RetryOf], e.ID) {
		b.retriedAs[e.RetryOf] = append(b.retriedAs[e.RetryOf], e.ID)
	}
}

// setState records an exception's latest state (a nil-state record, the
// topic's tombstone, reopens it). A state older than the one held is a
// record replayed onto the topic, not a change: it is ignored (after).
func (b *Book) setState(r Record) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if r.State == "" {
		delete(b.states, r.ID)
		return
	}
	if cur, ok := b.states[r.ID]; ok && !r.after(cur) {
		return
	}
	b.states[r.ID] = r
}

// after reports whether r comes after cur in an exception's workflow:
// every change adds a retry or moves on from retried (resolved, archived),
// so a record with fewer retries, or retried again at the same count, is an
// older one written again. At breaks what the workflow leaves equal.
func (r Record) after(cur Record) bool {
	rank := func(s State) int {
		switch s {
		case Retried:
			return 1
		case Resolved, Archived:
			return 2
		}
		return 0
	}
	switch {
	case len(r.Retries) != len(cur.Retries):
		return len(r.Retries) > len(cur.Retries)
	case rank(r.State) != rank(cur.State):
		return rank(r.State) > rank(cur.State)
	}
	return !r.At.Before(cur.At)
}

// Unproven is how many records of the two topics were skipped because
// they lack the utility's proof (forged, or written under another secret).
func (b *Book) Unproven() int {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.unproven
}

// view is e with its state and retries filled in; call with b.mu held.
func (b *Book) view(e *Exception) Exception {
	v := *e
	v.State = b.states[e.ID]
	if v.State.State == "" {
		v.State = Record{ID: e.ID, State: Open}
	}
	v.RetriedAs = slices.Clone(b.retriedAs[e.ID])
	return v
}

// Get returns one exception.
func (b *Book) Get(id string) (Exception, bool) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	e, ok := b.byID[id]
	if !ok {
		return Exception{}, false
	}
	return b.view(e), true
}

// List returns the exceptions f selects, newest first.
func (b *Book) List(f Filter) []Exception {
	b.mu.RLock()
	var out []Exception
	for _, e := range b.order {
		v := b.view(e)
		if f.Match(&v) {
			out = append(out, v)
		}
	}
	b.mu.RUnlock()
	slices.SortStableFunc(out, func(x, y Exception) int { return y.Received().Compare(x.Received()) })
	return out
}

// Len is the number of exceptions.
func (b *Book) Len() int {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return len(b.order)
}

// CaughtUp reports whether the book has read both topics to the end they
// had when it started reading.
func (b *Book) CaughtUp() bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.caughtUp
}

// Group is a count of exceptions sharing a reason or a sender.
type Group struct {
	Key   string         `json:"key"`
	Total int            `json:"total"`
	By    map[string]int `json:"by_state"` // by state name
	First time.Time      `json:"first"`
	Last  time.Time      `json:"last"`
}

// Groups counts a list of exceptions by reason and by sender, largest
// groups first.
func Groups(list []Exception) (byReason, bySender []Group) {
	group := func(key func(*Exception) string) []Group {
		m := map[string]*Group{}
		var keys []string
		for i := range list {
			e := &list[i]
			k := key(e)
			g, ok := m[k]
			if !ok {
				g = &Group{Key: k, By: map[string]int{}}
				m[k] = g
				keys = append(keys, k)
			}
			g.Total++
			g.By[string(e.State.State)]++
			at := e.Received()
			if g.First.IsZero() || at.Before(g.First) {
				g.First = at
			}
			if at.After(g.Last) {
				g.Last = at
			}
		}
		out := make([]Group, 0, len(keys))
		for _, k := range keys {
			out = append(out, *m[k])
		}
		slices.SortStableFunc(out, func(a, b Group) int {
			if a.Total != b.Total {
				return b.Total - a.Total
			}
			return strings.Compare(a.Key, b.Key)
		})
		return out
	}
	return group(func(e *Exception) string { return e.Reason }),
		group(func(e *Exception) string {
			if e.Sender == "" {
				return "(unknown)"
			}
			return e.Sender
		})
}
