// Package journal is the adapters' journal (docs/spec/adapters.md §1): a
// compacted, versioned topic (<ns>.adapters.v1.journal, one partition read
// whole) holding, for every message an adapter translated, what it was made
// from and what STE answered, plus each adapter's own notes (the sese.028s
// made from an ALG, the Confirmations sent for a CNF, …). It is the only
// state the adapters share: any instance answers for any other.
//
// Read-your-writes: a writer waits for the brokers' acknowledgement before
// it produces the STE record the entry describes; a reader calls Sync —
// read to the end offsets fetched at that moment — before it classifies an
// output or looks an input up. So no output is skipped and no input refused
// because of a stale view, whichever instance wrote the entry.
package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/ste-utility/ste/adapters/msgid"
)

// Adapters, as the ste-adapter header names them (§2).
const (
	FIX44    = "fix44"
	ISO20022 = "iso20022"
)

// Kinds of entries.
const (
	KindTranslation = "translation"
	KindAnswer      = "answer"
	KindNote        = "note"
)

// KeyFields are the six key fields of a trade (messages.md §3).
type KeyFields struct {
	TradeRef  string `json:"trade_ref"`
	TradeDate string `json:"trade_date"`
	ISIN      string `json:"isin"`
	Side      string `json:"side"`
	Broker    string `json:"broker"`
	InvMgr    string `json:"invmgr"`
}

// Translation is one STE record an adapter produced from a standard message.
type Translation struct {
	Adapter     string `json:"adapter"`
	Participant string `json:"participant"` // the Sender: the authenticated BIC
	MsgId       string `json:"msg_id"`
	MsgType     string `json:"msg_type"`
	Function    string `json:"function"`
	// RelatedMsgId of a CANCEL or REPLACE.
	RelatedMsgId string `json:"related_msg_id,omitempty"`
	// Created is the record's Header Created (a sese.020's CANCEL takes it).
	Created string `json:"created"`
	// OriginalIDs are the standard identifiers the MsgId was made from (§3.2),
	// in the order of its parts: they map a hash form back.
	OriginalIDs []string  `json:"original_ids"`
	TradeKey    string    `json:"trade_key"`
	Key         KeyFields `json:"key"`
	Accounts    []string  `json:"accounts,omitempty"`
	// Fields are other body values the adapter needs again (a SET's
	// Custodian for its CANCEL, …), by STE field name.
	Fields map[string]string `json:"fields,omitempty"`
	// SignedSHA256 is the lower-case hex SHA-256 of the signed range
	// (<Header>…</Body>); RecordSHA256 of the whole record, whose first 16
	// hex digits a NACK's MsgId carries (messages.md §6).
	SignedSHA256 string `json:"signed_sha256"`
	RecordSHA256 string `json:"record_sha256"`
	// OriginSHA256 is the ste-origin-sha256 of the standard message (§2).
	OriginSHA256 string `json:"origin_sha256"`
	// Group ties the translations of one standard message (a FIX J's ALCs):
	// its origin digest and position, for whoever collects their answers.
	Index int `json:"index,omitempty"`
}

// Answer is STE's answer to a translated message, as an adapter saw it.
type Answer struct {
	Participant string `json:"participant"`
	MsgId       string `json:"msg_id"`
	Verdict     string `json:"verdict"` // ACK or NACK
	Code        string `json:"code,omitempty"`
	Detail      string `json:"detail,omitempty"`
	// RecordHash is a NACK's h: the first 16 hex digits of the SHA-256 of
	// the rejected record, which names the translation among several.
	RecordHash string `json:"record_hash,omitempty"`
	// OutputMsgId is the ACK's or NACK's own MsgId.
	OutputMsgId string `json:"output_msg_id"`
}

// Note is an adapter's own fact, keyed by its adapter, kind and id; a later
// note of the same key replaces it.
type Note struct {
	Adapter string          `json:"adapter"`
	Kind    string          `json:"note"`
	ID      string          `json:"id"`
	Data    json.RawMessage `json:"data"`
}

// Entry is one journal record: exactly one of its parts is set.
type Entry struct {
	Translation *Translation
	Answer      *Answer
	Note        *Note
}

type wire struct {
	V           int          `json:"v"`
	Kind        string       `json:"kind"`
	Translation *Translation `json:"translation,omitempty"`
	Answer      *Answer      `json:"answer,omitempty"`
	Note        *Note        `json:"note,omitempty"`
}

const wireVersion = 1

// Key is the entry's record key: one per fact, so that compaction keeps
// every translation, every distinct answer and the latest of each note.
func (e Entry) Key() string {
	switch {
	case e.Translation != nil:
		t := e.Translation
		return "t|" + t.Participant + "|" + t.MsgId + "|" + t.SignedSHA256
	case e.Answer != nil:
		a := e.Answer
		return "a|" + a.Participant + "|" + a.MsgId + "|" + a.OutputMsgId
	case e.Note != nil:
		n := e.Note
		return "n|" + n.Adapter + "|" + n.Kind + "|" + n.ID
	}
	panic("journal: empty entry")
}

// Encode is the entry's record value.
func (e Entry) Encode() []byte {
	w := wire{V: wireVersion, Translation: e.Translation, Answer: e.Answer, Note: e.Note}
	switch {
	case e.Translation != nil:
		w.Kind = KindTranslation
	case e.Answer != nil:
		w.Kind = KindAnswer
	default:
		w.Kind = KindNote
	}
	b, err := json.Marshal(w)
	if err != nil {
		panic(err)
	}
	return b
}

// Decode reads a record value; an entry of a later version or an unknown
// kind is an error (the reader logs and skips it).
func Decode(v []byte) (Entry, error) {
	var w wire
	if err := json.Unmarshal(v, &w); err != nil {
		return Entry{}, err
	}
	if w.V != wireVersion {
		return Entry{}, fmt.Errorf("journal entry of version %d", w.V)
	}
	e := Entry{Translation: w.Translation, Answer: w.Answer, Note: w.Note}
	n := 0
	for _, set := range []bool{e.Translation != nil, e.Answer != nil, e.Note != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return Entry{}, errors.New("journal entry with no part or several")
	}
	return e, nil
}

// Index is the journal as read so far: every entry applied in offset
// order. It is safe for concurrent use.
type Index struct {
	mu      sync.RWMutex
	seq     int64
	byMsg   map[string][]*held // participant|MsgId
	byTrade map[string][]*held // participant|trade key
	byOrig  map[string][]*held // adapter|participant|first original ID
	byRel   map[string][]*held // participant|RelatedMsgId
	answers map[string][]heldAnswer
	notes   map[string]Note
	seen    map[string]bool // entry keys applied (a replayed record applies once)
}

type held struct {
	t   *Translation
	seq int64
}

type heldAnswer struct {
	a   *Answer
	seq int64
}

// NewIndex is an empty index.
func NewIndex() *Index {
	return &Index{byMsg: map[string][]*held{}, byTrade: map[string][]*held{}, byOrig: map[string][]*held{}, byRel: map[string][]*held{}, answers: map[string][]heldAnswer{},
		notes: map[string]Note{}, seen: map[string]bool{}}
}

// Apply adds an entry read from the journal (in offset order). An entry
// already applied (the same key and kind) changes nothing but a note,
// whose latest value stands.
func (x *Index) Apply(e Entry) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.seq++
	k := e.Key()
	switch {
	case e.Note != nil:
		x.notes[k] = *e.Note
		return
	case x.seen[k]:
		return
	}
	x.seen[k] = true
	switch {
	case e.Translation != nil:
		t := e.Translation
		h := &held{t: t, seq: x.seq}
		x.byMsg[t.Participant+"|"+t.MsgId] = append(x.byMsg[t.Participant+"|"+t.MsgId], h)
		x.byTrade[t.Participant+"|"+t.TradeKey] = append(x.byTrade[t.Participant+"|"+t.TradeKey], h)
		if len(t.OriginalIDs) > 0 {
			k := t.Adapter + "|" + t.Participant + "|" + t.OriginalIDs[0]
			x.byOrig[k] = append(x.byOrig[k], h)
		}
		if t.RelatedMsgId != "" {
			k := t.Participant + "|" + t.RelatedMsgId
			x.byRel[k] = append(x.byRel[k], h)
		}
	case e.Answer != nil:
		a := e.Answer
		x.answers[a.Participant+"|"+a.MsgId] = append(x.answers[a.Participant+"|"+a.MsgId], heldAnswer{a: a, seq: x.seq})
	}
}

// Translations are the translations of (participant, MsgId), oldest first.
func (x *Index) Translations(participant, msgID string) []*Translation {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var out []*Translation
	for _, h := range x.byMsg[participant+"|"+msgID] {
		out = append(out, h.t)
	}
	return out
}

// ByOriginalID are the translations an adapter made for a participant from
// a standard identifier (the first part of their MsgIds: a FIX AllocID, all
// of its accounts' ALCs; an ISO TxId), oldest first — what a FIX
// replace or cancel of an AllocID looks up (§4.5.2).
func (x *Index) ByOriginalID(adapter, participant, id string) []*Translation {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var out []*Translation
	for _, h := range x.byOrig[adapter+"|"+participant+"|"+id] {
		out = append(out, h.t)
	}
	return out
}

// Related are the CANCELs and REPLACEs translated for a participant that
// name msgID as their RelatedMsgId, oldest first — what tells a FIX replace
// or cancel that its reference was already replaced or cancelled (§4.8).
func (x *Index) Related(participant, msgID string) []*Translation {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var out []*Translation
	for _, h := range x.byRel[participant+"|"+msgID] {
		out = append(out, h.t)
	}
	return out
}

// Answers are STE's answers to (participant, MsgId) seen so far, oldest
// first.
func (x *Index) Answers(participant, msgID string) []Answer {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var out []Answer
	for _, a := range x.answers[participant+"|"+msgID] {
		out = append(out, *a.a)
	}
	return out
}

// NACKed says whether STE NACKed t as far as the journal knows: a NACK
// names its record (its h), unless the MsgId has no other translation and
// an ACK came after that NACK (an operator retry that STE then accepted).
func (x *Index) NACKed(t *Translation) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.nackedLocked(t)
}

func (x *Index) nackedLocked(t *Translation) bool {
	k := t.Participant + "|" + t.MsgId
	var lastNack, lastAck int64 = -1, -1
	for _, a := range x.answers[k] {
		switch {
		case a.a.Verdict == "NACK" && (a.a.RecordHash == "" || strings.HasPrefix(t.RecordSHA256, a.a.RecordHash)):
			lastNack = a.seq
		case a.a.Verdict == "ACK":
			lastAck = a.seq
		}
	}
	if lastNack < 0 {
		return false
	}
	return !(lastAck > lastNack && len(x.byMsg[k]) == 1)
}

// Answered says whether STE has answered t (an ACK of its MsgId, or a NACK
// of t).
func (x *Index) Answered(t *Translation) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	for _, a := range x.answers[t.Participant+"|"+t.MsgId] {
		if a.a.Verdict == "ACK" || strings.HasPrefix(t.RecordSHA256, a.a.RecordHash) {
			return true
		}
	}
	return false
}

// Current are the participant's current messages of one adapter in a
// trade (§1), in MsgId byte order: translated by that adapter for that
// participant in that trade, not NACKed, and not the RelatedMsgId of a
// later CANCEL or REPLACE the same adapter translated for it that was not
// NACKed itself.
func (x *Index) Current(adapter, participant, tradeKey string) []*Translation {
	x.mu.RLock()
	defer x.mu.RUnlock()
	hs := x.byTrade[participant+"|"+tradeKey]
	superseded := map[string]bool{}
	for _, h := range hs {
		t := h.t
		if t.Adapter == adapter && (t.Function == "CANCEL" || t.Function == "REPLACE") && t.RelatedMsgId != "" && !x.nackedLocked(t) {
			superseded[t.RelatedMsgId] = true
		}
	}
	var out []*Translation
	seen := map[string]bool{}
	for _, h := range hs {
		t := h.t
		if t.Adapter != adapter || superseded[t.MsgId] || x.nackedLocked(t) || seen[t.MsgId] {
			continue
		}
		seen[t.MsgId] = true
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].MsgId < out[j].MsgId })
	return out
}

// OriginalIDs maps a MsgId of the participant back to the standard
// identifiers it was made from (§3.2): a direct form by parsing it, a hash
// form through the journal. false when neither can.
func (x *Index) OriginalIDs(participant, msgID string) ([]string, bool) {
	p, ok := msgid.Parse(msgID)
	if !ok {
		return nil, false
	}
	if !p.Hashed {
		return p.Parts, true
	}
	if ts := x.Translations(participant, msgID); len(ts) > 0 {
		return ts[0].OriginalIDs, true
	}
	return nil, false
}

// Note is the latest note of (adapter, kind, id).
func (x *Index) Note(adapter, kind, id string) (Note, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	n, ok := x.notes["n|"+adapter+"|"+kind+"|"+id]
	return n, ok
}

// NoteEntry makes a note entry of v (JSON).
func NoteEntry(adapter, kind, id string, v any) Entry {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return Entry{Note: &Note{Adapter: adapter, Kind: kind, ID: id, Data: b}}
}
