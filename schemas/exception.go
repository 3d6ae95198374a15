package schemas

import (
	"encoding/json"
	"time"
)

// Exception is the JSON record of section 7, one per rejected inbound record.
type Exception struct {
	ID               string `json:"id"` // "<partition>-<offset>" on Kafka, "line-<n>" for a file
	Reason           string `json:"reason"`
	Detail           string `json:"detail"`
	Sender           string `json:"sender"`
	MsgId            string `json:"msg_id"`
	ReceivedAt       string `json:"received_at"`
	SourcePartition  int32  `json:"source_partition"`
	SourceOffset     int64  `json:"source_offset"`
	Payload          []byte `json:"payload"` // base64 in JSON
	PayloadTruncated bool   `json:"payload_truncated,omitempty"`
	NACK             string `json:"nack_msg_id,omitempty"` // MsgId of the NACK sent, if any
	// RetryOf names the exception an operator retried when this record was
	// rejected again (docs/spec/messages.md §7, the ste-retry-of header).
	RetryOf string `json:"retry_of,omitempty"`
}

// Headers of an operator's retry on <ns>.inbound (docs/spec/messages.md §7): the
// exception retried, and — the project's own — the operator who asked, so
// the record's audit event names both.
const (
	RetryOfHeader = "ste-retry-of"
	RetryByHeader = "ste-retry-by"
)

// MaxEcho is how many characters of a value taken from a rejected record the
// utility repeats (docs/spec/messages.md §6): an output never amplifies its input.
const MaxEcho = 128

// maxDetail bounds a whole detail: its values are cut to MaxEcho each, this
// only guards against a rule that forgets to.
const maxDetail = 1024

// Echo cuts a value taken from a record to MaxEcho characters (runes; a byte
// that is not UTF-8 counts as one).
func Echo(s string) string { return cut(s, MaxEcho) }

// EchoDetail bounds a rejection's detail for outputs.
func EchoDetail(s string) string { return cut(s, maxDetail) }

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// NewException builds the exception of a rejected record. Sender and MsgId are
// left empty where they could not be read, and like the detail cut to what
// docs/spec/messages.md §6 allows to be echoed; a TOO_LARGE payload keeps its first
// 64 KiB (the whole record stays findable at its source).
func NewException(id string, rec []byte, m *Message, rej *Rejection, partition int32, offset int64, received time.Time) *Exception {
	e := &Exception{
		ID: id, Reason: rej.Reason.String(), Detail: EchoDetail(rej.Detail),
		ReceivedAt:      received.UTC().Format(time.RFC3339Nano),
		SourcePartition: partition, SourceOffset: offset, Payload: rec,
	}
	if rec == nil {
		e.Payload = []byte{} // "payload":"" — a record with no value has empty bytes, not null
	}
	if m != nil {
		e.Sender, e.MsgId = Echo(m.Sender), Echo(m.MsgId)
	}
	if len(rec) > MaxRecord {
		e.Payload, e.PayloadTruncated = rec[:MaxRecord], true
	}
	return e
}

// Marshal is the one-line JSON form.
func (e *Exception) Marshal() []byte {
	b, _ := json.Marshal(e) // cannot fail: strings, numbers and bytes only
	return b
}
