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
}

// NewException builds the exception of a rejected record. Sender and MsgId are
// left empty where they could not be read; a TOO_LARGE payload keeps its first
// 64 KiB (the whole record stays findable at its source).
func NewException(id string, rec []byte, m *Message, rej *Rejection, partition int32, offset int64, received time.Time) *Exception {
	e := &Exception{
		ID: id, Reason: rej.Reason.String(), Detail: rej.Detail,
		ReceivedAt:      received.UTC().Format(time.RFC3339Nano),
		SourcePartition: partition, SourceOffset: offset, Payload: rec,
	}
	if m != nil {
		e.Sender, e.MsgId = m.Sender, m.MsgId
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
