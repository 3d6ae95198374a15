package query

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// A work queue page passes through the gateway as JSON: each instance
// writes its trades with NewQueueEncoder, the gateway reads from
// each entry only its position (trade_date, trade_key) and copies the kept
// entries' bytes into its page unchanged — decoding up to 200 trades and
// encoding 100 again was over half of the gateway's CPU for a page
// (docs/benchmarks.md, the work queue). QueueTrade is the one type
// describing an entry; its JSON is the encoding/json one without HTML
// escaping (what the gateway's answers use).

// QueueEntry is one trade of a work queue as its JSON, with its position,
// read from it once.
type QueueEntry struct {
	Pos  QueuePos
	JSON json.RawMessage
}

// NewQueueEncoder is the encoder of the JSON that holds queue trades: no
// HTML escaping, so that the bytes an instance writes are those the
// gateway's answers are made of.
func NewQueueEncoder(b *bytes.Buffer) *json.Encoder {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	return enc
}

// Entry is t encoded, with its position.
func (t QueueTrade) Entry() (QueueEntry, error) {
	var b bytes.Buffer
	if err := NewQueueEncoder(&b).Encode(t); err != nil {
		return QueueEntry{}, err
	}
	pos, ok := t.Pos()
	if !ok {
		return QueueEntry{}, fmt.Errorf("queue trade %q: no position", t.TradeKey)
	}
	return QueueEntry{Pos: pos, JSON: bytes.TrimSuffix(b.Bytes(), []byte("\n"))}, nil
}

// QueueEntries is ts encoded, each with its position.
func QueueEntries(ts []QueueTrade) ([]QueueEntry, error) {
	out := make([]QueueEntry, 0, len(ts))
	for _, t := range ts {
		e, err := t.Entry()
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// Trade decodes the entry (for callers that want the fields, not the page).
func (e QueueEntry) Trade() (QueueTrade, error) {
	var t QueueTrade
	err := json.Unmarshal(e.JSON, &t)
	return t, err
}

// AppendQueuePage appends the page of a work queue (gateway.md v2 §4c),
// {"trades":[…],"next":"…"} and a newline, the entries' JSON copied
// unchanged: the bytes encoding/json wrote from the decoded trades without
// HTML escaping (lookup.TestQueuePageAsDecoded). next is a cursor
// (base64url: nothing in it to escape).
func AppendQueuePage(b []byte, trades []QueueEntry, next string) []byte {
	n := len(`{"trades":[],"next":""}`+"\n") + len(next)
	for _, t := range trades {
		n += len(t.JSON) + 1
	}
	b = slices.Grow(b, n)
	b = append(b, `{"trades":[`...)
	for i, t := range trades {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, t.JSON...)
	}
	b = append(b, `],"next":`...)
	b = strconv.AppendQuote(b, next)
	return append(b, "}\n"...)
}
