// Package outcome answers "did two runs end the same?". A Set folds one
// run's outputs — CLS and outbound records, exception records — into what
// a participant ends up with; Compare holds two Sets to each other and says
// what differs, by kind, with both sides of every difference. Sets come from
// `ste match` output directories (FromMatchDir) or from a namespace's topics
// (topics.ReadOutcome); the e2e suite compares the two, `ste diff` prints
// the comparison.
//
// What is compared is what the contract says depends only on the set of
// messages (docs/spec/messages.md §5): accepted and rejected identities, the final
// outcome of every settled trade, the rejections. What may depend on order
// or on the run — versions, status numbers, Created times, exception ids,
// partitions and offsets — is left out. See docs/ARCHITECTURE.md.
package outcome

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/ledger"
	"github.com/ste-utility/ste/schemas/msgset"
)

// Set is the outcome of one run. Outputs may arrive more than once and in
// any order (at-least-once delivery, several partitions): a repeated MsgId
// with the same content changes nothing, and an exception record repeated
// under its id counts once.
type Set struct {
	led     *ledger.Ledger
	outputs int                  // distinct output MsgIds
	acks    map[string]bool      // ACK MsgIds
	nacks   map[string]Rejection // by NACK MsgId
	excIDs  map[string]bool
	excs    map[Rejection]int
}

// Rejection is what two runs must agree on about a rejected record, told
// by a NACK or an exception: whose message (Sender, MsgId — empty, or "-"
// in a NACK, when unreadable) and why. Rejections are compared as a
// multiset: one identity may be rejected more than once, from different
// records. What names the record in one run is ignored — an exception's id,
// partition, offset and receive time — and so is what names which copy was
// rejected: of two different messages with one (Sender, MsgId) the first
// processed is accepted (docs/spec/messages.md §5), so the record digest in a NACK's
// MsgId and an exception's payload and detail depend on order, while the
// identity and the reason do not.
type Rejection struct {
	Sender string `json:"sender"`
	MsgId  string `json:"msg_id"`
	Reason string `json:"reason"`
}

// New returns an empty Set.
func New() *Set {
	return &Set{led: ledger.New(), acks: map[string]bool{}, nacks: map[string]Rejection{},
		excIDs: map[string]bool{}, excs: map[Rejection]int{}}
}

// AddOutput folds one output record: a CLS, ACK, NACK or STATUS message
// (docs/spec/messages.md §6).
func (s *Set) AddOutput(raw []byte) error {
	r, err := schemas.ParseOutput(raw)
	if err != nil {
		return fmt.Errorf("output record: %w", err)
	}
	s.AddReceived(r)
	return nil
}

// AddReceived folds one output already parsed (or rebuilt from stored
// columns, as analytics keeps them).
func (s *Set) AddReceived(r *schemas.Received) {
	if !s.led.Fold(r) {
		return
	}
	s.outputs++
	switch r.MsgType {
	case schemas.ACK.String():
		s.acks[r.MsgId] = true
	case schemas.NACK.String():
		s.nacks[r.MsgId] = nackRejection(r)
	}
}

// nackRejection reads the rejected identity from a NACK's MsgId,
// NACK:<Sender>:<MsgId>:<record digest> (docs/spec/messages.md §6), leaving out the
// digest.
func nackRejection(r *schemas.Received) Rejection {
	id := r.MsgId
	if rest, ok := strings.CutPrefix(id, "NACK:"+r.Receiver+":"); ok {
		if i := strings.LastIndexByte(rest, ':'); i >= 0 {
			id = rest[:i]
		}
	}
	return Rejection{Sender: r.Receiver, MsgId: id, Reason: r.Reason}
}

// AddException folds one exception record (docs/spec/messages.md §7). A record whose
// id was seen before is a replay of it and is skipped.
func (s *Set) AddException(raw []byte) error {
	// Only the fields compared: a payload that is not valid base64 is the
	// record's own business, not a reason to refuse it here.
	var e struct {
		ID     string `json:"id"`
		Reason string `json:"reason"`
		Sender string `json:"sender"`
		MsgId  string `json:"msg_id"`
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return fmt.Errorf("exception record: %w", err)
	}
	return s.AddRejection(e.ID, Rejection{Sender: e.Sender, MsgId: e.MsgId, Reason: e.Reason})
}

// AddRejection folds one exception by its id and what it rejected (the
// fields of an exception record that are compared).
func (s *Set) AddRejection(id string, r Rejection) error {
	if id == "" {
		// Without an id a replay cannot be told from a second rejection.
		return errors.New("exception record has no id")
	}
	if s.excIDs[id] {
		return nil
	}
	s.excIDs[id] = true
	s.excs[r]++
	return nil
}

// Counts say how far a Set has come; a test waiting for a run to finish
// polls them.
type Counts struct {
	Outputs    int `json:"outputs"`    // distinct output MsgIds
	Repeats    int `json:"repeats"`    // outputs folded again under a MsgId already seen
	ACKs       int `json:"acks"`       // distinct ACKs
	NACKs      int `json:"nacks"`      // distinct NACK MsgIds
	Exceptions int `json:"exceptions"` // distinct exception ids
	Settled    int `json:"settled"`    // trades that ended matched or mismatched
	Expired    int `json:"expired"`    // trades whose final status is EXPIRED (and not settled)
	Conflicts  int `json:"conflicts"`  // MsgIds seen with two contents
}

// Counts returns the Set's counts.
func (s *Set) Counts() Counts {
	c := Counts{Outputs: s.outputs, Repeats: s.led.Dups, ACKs: len(s.acks), NACKs: len(s.nacks),
		Exceptions: len(s.excIDs), Conflicts: len(s.conflicts())}
	for _, t := range s.led.Trades() {
		switch {
		case t.Settled():
			c.Settled++
		case t.Status == schemas.Expired.String():
			c.Expired++
		}
	}
	return c
}

// conflicts are the distinct MsgIds seen with two contents, sorted.
func (s *Set) conflicts() []string { return sortedSet(s.led.Conflicts) }

// The files `ste match --out DIR` writes (docs/spec/cli.md).
const (
	MatchCLS        = "cls.xml"
	MatchOutbound   = "outbound.xml"
	MatchExceptions = "exceptions.jsonl"
)

// FromMatchDir reads the outcome `ste match --out dir` wrote.
func FromMatchDir(dir string) (*Set, error) {
	s := New()
	for _, f := range []struct {
		name string
		add  func([]byte) error
	}{{MatchCLS, s.AddOutput}, {MatchOutbound, s.AddOutput}, {MatchExceptions, s.AddException}} {
		if err := readLines(filepath.Join(dir, f.name), f.add); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func readLines(path string, add func([]byte) error) error {
	r, err := msgset.Open(path)
	if err != nil {
		return err // names the file
	}
	defer r.Close()
	for {
		line, n, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := add(line); err != nil {
			return fmt.Errorf("%s line %d: %w", path, n, err)
		}
	}
}
