package schemas

import (
	"github.com/ste-utility/ste/schemas/date"
	"strconv"
	"time"
	"unicode/utf8"
)

// AuditEvent is the project's event on <ns>.audit: the journey of one
// inbound record through the stages (one step per stage it reached), or a
// retention purge. One event per message rather than one per step; the
// pipeline writes a stage's events in batches (AppendAuditBatch), so the
// audit topic costs a fraction of a record per message; analytics stores
// one row per step.
type AuditEvent struct {
	TradeKey  string      `json:"trade_key,omitempty"`
	Sender    string      `json:"sender,omitempty"`
	MsgId     string      `json:"msg_id,omitempty"`
	Type      string      `json:"type,omitempty"`
	Function  string      `json:"function,omitempty"`
	Partition int32       `json:"partition"` // inbound partition, -1 for a purge
	Offset    int64       `json:"offset"`
	InboundAt string      `json:"inbound_at,omitempty"` // inbound record timestamp
	Outcome   string      `json:"outcome"`              // accepted, duplicate, rejected, expired
	Reason    string      `json:"reason,omitempty"`
	Steps     []AuditStep `json:"steps"`
	Outputs   []string    `json:"outputs,omitempty"` // MsgIds emitted
	// RetryOf and RetriedBy are set on the journey of an operator's retry:
	// the exception retried and the operator (docs/spec/messages.md §7).
	RetryOf   string `json:"retry_of,omitempty"`
	RetriedBy string `json:"retried_by,omitempty"`
	// Market and Cutoff are set by the match stage on a message applied to
	// its trade: the trade's market then (its NOE's Market, "-" without one
	// or for a market markets.csv does not list) and its cutoff
	// (docs/timeliness.md), for the timeliness scorecards.
	Market string `json:"market,omitempty"`
	Cutoff string `json:"cutoff,omitempty"`
}

// AuditStep is one stage's handling, with a microsecond timestamp.
type AuditStep struct {
	Stage string `json:"stage"`
	Event string `json:"event"`
	At    string `json:"at"`
}

// MicroTime formats Unix microseconds as RFC 3339 with microseconds
// (ParseMicroTime reads it back).
func MicroTime(us int64) string {
	var b [32]byte // on the stack: the string is the one allocation
	return string(AppendMicroTime(b[:0], us))
}

// AppendMicroTime appends MicroTime(us) to b.
func AppendMicroTime(b []byte, us int64) []byte {
	// Written by hand: four per audit record, and time.Format cost a
	// microsecond of the match stage's time per message.
	return appendInstant(b, us, 1e6, 1, 6, microLayout)
}

// appendInstant appends the instant v units after the Unix epoch (perSec
// units a second) as layout writes it: its fraction, v's part of a second
// ÷ drop, in digits decimals.
func appendInstant(b []byte, v, perSec, drop int64, digits int, layout string) []byte {
	secs := v / perSec
	if v%perSec < 0 {
		secs--
	}
	rem := v - secs*perSec
	if out, ok := appendUTC(b, secs, rem/drop, digits); ok {
		return out
	}
	return time.Unix(secs, rem*(1e9/perSec)).UTC().AppendFormat(b, layout)
}

// appendUTC appends the UTC time secs seconds after the Unix epoch as
// 2006-01-02T15:04:05, then frac (0 ≤ frac < 10^digits) as digits
// decimals, then Z: what time.Format writes for such a layout. ok is false,
// and b unchanged, for a year outside 0000–9999 (the caller formats with
// package time).
func appendUTC(b []byte, secs, frac int64, digits int) (_ []byte, ok bool) {
	days := secs / 86400
	if secs%86400 < 0 {
		days--
	}
	if days != int64(int32(days)) {
		return b, false
	}
	y, mo, d := date.Date(days).Civil()
	if y < 0 || y > 9999 {
		return b, false
	}
	sod := secs - days*86400
	n := len(b)
	b = append(b, "0000-00-00T00:00:00.000000000"[:20+digits]...)
	b = append(b, 'Z')
	put := func(at, width int, v int64) {
		for i := n + at + width - 1; i >= n+at; i-- {
			b[i] = byte('0' + v%10)
			v /= 10
		}
	}
	put(0, 4, int64(y))
	put(5, 2, int64(mo))
	put(8, 2, int64(d))
	put(11, 2, sod/3600)
	put(14, 2, sod/60%60)
	put(17, 2, sod%60)
	put(20, digits, frac)
	return b, true
}

// Marshal is the JSON form. Written by hand: one audit event per message
// is on the hot path, and encoding/json's reflection cost five times as much.
func (a *AuditEvent) Marshal() []byte {
	return a.AppendJSON(make([]byte, 0, 512))
}

// AppendJSON appends the JSON form (Marshal's) to b.
func (a *AuditEvent) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	sep := false
	field := func(name, v string, omitEmpty bool) {
		if omitEmpty && v == "" {
			return
		}
		if sep {
			b = append(b, ',')
		}
		sep = true
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, `":`...)
		b = appendJSONString(b, v)
	}
	field("trade_key", a.TradeKey, true)
	field("sender", a.Sender, true)
	field("msg_id", a.MsgId, true)
	field("type", a.Type, true)
	field("function", a.Function, true)
	if sep {
		b = append(b, ',')
	}
	b = append(b, `"partition":`...)
	b = strconv.AppendInt(b, int64(a.Partition), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, a.Offset, 10)
	sep = true
	field("inbound_at", a.InboundAt, true)
	field("outcome", a.Outcome, false)
	field("reason", a.Reason, true)
	b = append(b, `,"steps":`...)
	if a.Steps == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, st := range a.Steps {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"stage":`...)
			b = appendJSONString(b, st.Stage)
			b = append(b, `,"event":`...)
			b = appendJSONString(b, st.Event)
			b = append(b, `,"at":`...)
			b = appendJSONString(b, st.At)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(a.Outputs) > 0 {
		b = append(b, `,"outputs":[`...)
		for i, o := range a.Outputs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, o)
		}
		b = append(b, ']')
	}
	field("retry_of", a.RetryOf, true)
	field("retried_by", a.RetriedBy, true)
	field("market", a.Market, true)
	field("cutoff", a.Cutoff, true)
	return append(b, '}')
}

// appendJSONString writes s as a JSON string; invalid UTF-8 is replaced, as
// encoding/json does.
func appendJSONString(b []byte, s string) []byte {
	const hexdig = "0123456789abcdef"
	b = append(b, '"')
	start := 0 // the run of bytes copied as they are (appended whole, as escape does)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			if c < 0x20 {
				b = append(b, '\\', 'u', '0', '0', hexdig[c>>4], hexdig[c&0xf])
			} else {
				b = append(b, '\\', c)
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			start = i + size
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexdig[r&0xf])
			start = i + size
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
