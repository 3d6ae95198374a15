package schemas

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// ParseAuditEvent reads an audit record: the inverse of Marshal, for every
// consumer of the audit topic (analytics, tests). Marshal's output is read
// in one pass without reflection; anything else it does not fully
// understand goes through encoding/json, with its exact semantics and
// errors.
func ParseAuditEvent(b []byte) (AuditEvent, error) {
	if ev, ok := decodeAuditFast(b); ok {
		return ev, nil
	}
	var ev AuditEvent
	if err := json.Unmarshal(b, &ev); err != nil {
		return AuditEvent{}, fmt.Errorf("audit JSON: %w", err)
	}
	return ev, nil
}

// An audit record is one event's JSON, or a batch: events' JSON objects
// separated by newlines (JSON Lines; a JSON string never holds a raw
// newline, so the separator is unambiguous). The pipeline writes a stage's
// events in batches — one record per message was a seventh of every record
// it produced (docs/benchmarks.md) — and a record of one event is the batch
// of one every earlier release wrote, so every reader reads both.

// AuditBatchSep separates the events of an audit record.
const AuditBatchSep = '\n'

// AppendAuditBatch appends event a to batch, a record's value being built.
func AppendAuditBatch(batch []byte, a *AuditEvent) []byte {
	if len(batch) > 0 {
		batch = append(batch, AuditBatchSep)
	}
	return a.AppendJSON(batch)
}

// EachAuditEvent calls fn with each event of an audit record, in order; it
// stops at the first event that does not parse (its error, naming the
// event's index in the record) or that fn returns an error for. An empty
// record is an error: the pipeline never writes one.
func EachAuditEvent(b []byte, fn func(AuditEvent) error) error {
	if len(b) == 0 {
		return errors.New("audit record is empty")
	}
	for i := 0; ; i++ {
		line, rest, more := bytes.Cut(b, []byte{AuditBatchSep})
		ev, err := ParseAuditEvent(line)
		if err != nil {
			if more || i > 0 {
				return fmt.Errorf("audit event %d of the record: %w", i, err)
			}
			return err
		}
		if err := fn(ev); err != nil {
			return err
		}
		if !more || len(rest) == 0 { // a trailing newline ends the record
			return nil
		}
		b = rest
	}
}

// CountAuditEvents is the number of events in an audit record without
// reading them (the monitor counts ended journeys with it).
func CountAuditEvents(b []byte) int {
	b = bytes.TrimRight(b, string(AuditBatchSep))
	if len(b) == 0 {
		return 0
	}
	return bytes.Count(b, []byte{AuditBatchSep}) + 1
}

// AuditEvents reads every event of an audit record (EachAuditEvent).
func AuditEvents(b []byte) ([]AuditEvent, error) {
	var evs []AuditEvent
	err := EachAuditEvent(b, func(ev AuditEvent) error {
		evs = append(evs, ev)
		return nil
	})
	return evs, err
}

// The audit topic carries one event per inbound message, so its decoding
// is analytics' ingest hot path: with encoding/json it took most of the ingest's
// CPU, which it shares with the processors. decodeAuditFast reads the JSON
// of AuditEvent in one pass without reflection. It accepts only what
// it fully understands — exact field names, integers, well-formed strings —
// and reports !ok for anything else (unknown-case keys, floats, invalid
// UTF-8, malformed input), so that the caller falls back to encoding/json
// and gets its exact semantics and error messages.
func decodeAuditFast(b []byte) (ev AuditEvent, ok bool) {
	s := jscan{b: b}
	if !s.object(func(key []byte) bool {
		switch string(key) {
		case "trade_key":
			ev.TradeKey, ok = s.str()
		case "sender":
			ev.Sender, ok = s.str()
		case "msg_id":
			ev.MsgId, ok = s.str()
		case "type":
			ev.Type, ok = s.str()
		case "function":
			ev.Function, ok = s.str()
		case "inbound_at":
			ev.InboundAt, ok = s.str()
		case "outcome":
			ev.Outcome, ok = s.str()
		case "retry_of":
			ev.RetryOf, ok = s.str()
		case "retried_by":
			ev.RetriedBy, ok = s.str()
		case "market":
			ev.Market, ok = s.str()
		case "cutoff":
			ev.Cutoff, ok = s.str()
		case "reason":
			ev.Reason, ok = s.str()
		case "partition":
			var n int64
			n, ok = s.int(32)
			ev.Partition = int32(n)
		case "offset":
			ev.Offset, ok = s.int(64)
		case "steps":
			if s.null() {
				ev.Steps, ok = nil, true
				break
			}
			ev.Steps = make([]AuditStep, 0, 4)
			ok = s.array(func() bool {
				var st AuditStep
				good := s.object(func(k []byte) bool {
					var ok bool
					switch string(k) {
					case "stage":
						st.Stage, ok = s.str()
					case "event":
						st.Event, ok = s.str()
					case "at":
						st.At, ok = s.str()
					default:
						ok = !knownFold(k, "stage", "event", "at") && s.skip()
					}
					return ok
				})
				ev.Steps = append(ev.Steps, st)
				return good
			})
		case "outputs":
			if s.null() {
				ev.Outputs, ok = nil, true
				break
			}
			ev.Outputs = make([]string, 0, 4)
			ok = s.array(func() bool {
				o, good := s.str()
				ev.Outputs = append(ev.Outputs, o)
				return good
			})
		default:
			ok = !knownFold(key, "trade_key", "sender", "msg_id", "type", "function", "inbound_at", "outcome",
				"reason", "partition", "offset", "steps", "outputs", "retry_of", "retried_by", "market", "cutoff") && s.skip()
		}
		return ok
	}) {
		return AuditEvent{}, false
	}
	s.ws()
	return ev, s.i == len(s.b)
}

// knownFold reports whether key matches a field name only case-insensitively
// (encoding/json would fill the field; we leave such input to it).
func knownFold(key []byte, names ...string) bool {
	for _, n := range names {
		if strings.EqualFold(string(key), n) {
			return true
		}
	}
	return false
}

// jscan is a minimal JSON scanner over a byte slice.
type jscan struct {
	b []byte
	i int
}

func (s *jscan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *jscan) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *jscan) eat(c byte) bool {
	if s.peek() == c {
		s.i++
		return true
	}
	return false
}

// object reads {"key": value, ...}, calling field for each key with the
// scanner at the value.
func (s *jscan) object(field func(key []byte) bool) bool {
	if !s.eat('{') {
		return false
	}
	if s.eat('}') {
		return true
	}
	for {
		key, ok := s.rawKey()
		if !ok || !s.eat(':') || !field(key) {
			return false
		}
		if s.eat('}') {
			return true
		}
		if !s.eat(',') {
			return false
		}
	}
}

// array reads [value, ...], calling elem with the scanner at each value.
func (s *jscan) array(elem func() bool) bool {
	if !s.eat('[') {
		return false
	}
	if s.eat(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if s.eat(']') {
			return true
		}
		if !s.eat(',') {
			return false
		}
	}
}

func (s *jscan) null() bool {
	if s.peek() == 'n' && s.i+4 <= len(s.b) && string(s.b[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

// rawKey reads a key without escapes (a key with one is left to
// encoding/json).
func (s *jscan) rawKey() ([]byte, bool) {
	if !s.eat('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], true
		case c == '\\' || c < 0x20 || c >= utf8.RuneSelf:
			return nil, false
		}
		s.i++
	}
	return nil, false
}

// str reads a string value, decoding escapes.
func (s *jscan) str() (string, bool) {
	if !s.eat('"') {
		return "", false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			v := s.b[start:s.i]
			s.i++
			return string(v), true
		case c == '\\':
			return s.escaped(start)
		case c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(s.b[s.i:])
			if r == utf8.RuneError && size == 1 {
				return "", false // encoding/json substitutes U+FFFD: leave it to it
			}
			s.i += size
			continue
		}
		s.i++
	}
	return "", false
}

// escaped finishes a string that has escapes, from start.
func (s *jscan) escaped(start int) (string, bool) {
	out := append([]byte(nil), s.b[start:s.i]...)
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return string(out), true
		case c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(s.b[s.i:])
			if r == utf8.RuneError && size == 1 {
				return "", false
			}
			out = append(out, s.b[s.i:s.i+size]...)
			s.i += size
			continue
		case c != '\\':
			out = append(out, c)
			s.i++
			continue
		}
		if s.i+1 >= len(s.b) {
			return "", false
		}
		e := s.b[s.i+1]
		s.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := s.hex4()
			if !ok {
				return "", false
			}
			if utf16.IsSurrogate(r) {
				if s.i+1 < len(s.b) && s.b[s.i] == '\\' && s.b[s.i+1] == 'u' {
					s.i += 2
					r2, ok := s.hex4()
					if !ok {
						return "", false
					}
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						out = utf8.AppendRune(out, d)
						continue
					}
				}
				return "", false // lone surrogate: encoding/json's rules apply
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", false
		}
	}
	return "", false
}

func (s *jscan) hex4() (rune, bool) {
	if s.i+4 > len(s.b) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(s.b[s.i:s.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	s.i += 4
	return rune(v), true
}

// int reads an integer that fits in bits.
func (s *jscan) int(bits int) (int64, bool) {
	s.ws()
	start := s.i
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	digits := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	if s.i == digits || (s.b[digits] == '0' && s.i-digits > 1) {
		return 0, false
	}
	if s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		return 0, false
	}
	n, err := strconv.ParseInt(string(s.b[start:s.i]), 10, bits)
	return n, err == nil
}

// skip passes over any one value.
func (s *jscan) skip() bool {
	switch s.peek() {
	case '"':
		_, ok := s.str()
		return ok
	case '{':
		return s.object(func([]byte) bool { return s.skip() })
	case '[':
		return s.array(s.skip)
	case 't':
		return s.word("true")
	case 'f':
		return s.word("false")
	case 'n':
		return s.null()
	default:
		return s.number()
	}
}

// number passes over a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *jscan) number() bool {
	digits := func() int {
		n := 0
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	if s.i < len(s.b) && s.b[s.i] == '0' {
		s.i++
	} else if digits() == 0 {
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if digits() == 0 {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return false
		}
	}
	return true
}

func (s *jscan) word(w string) bool {
	if s.i+len(w) <= len(s.b) && string(s.b[s.i:s.i+len(w)]) == w {
		s.i += len(w)
		return true
	}
	return false
}

// microLayout is how STE writes audit times (MicroTime).
const microLayout = "2006-01-02T15:04:05.000000Z"

// ParseMicroTime reads an audit time: MicroTime's fixed layout without
// time.Parse, anything else as ParseTimestamp reads the contract's times.
func ParseMicroTime(s string) (time.Time, error) {
	if len(s) != len(microLayout) || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' ||
		s[19] != '.' || s[26] != 'Z' {
		return parseTimestampUTC(s)
	}
	num := func(i, j int) (int, bool) {
		n := 0
		for k := i; k < j; k++ {
			c := s[k]
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	y, ok1 := num(0, 4)
	mo, ok2 := num(5, 7)
	d, ok3 := num(8, 10)
	h, ok4 := num(11, 13)
	mi, ok5 := num(14, 16)
	sec, ok6 := num(17, 19)
	us, ok7 := num(20, 26)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59 {
		return parseTimestampUTC(s)
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, us*1000, time.UTC)
	if t.Day() != d { // 31 February and the like
		return parseTimestampUTC(s)
	}
	return t, nil
}

func parseTimestampUTC(s string) (time.Time, error) {
	ns, err := ParseTimestamp(s)
	if err != nil {
		return time.Time{}, err
	}
	return time.Unix(0, ns).UTC(), nil
}
