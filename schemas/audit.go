package schemas

import (
	"encoding/json"
	"time"
)

// AuditEvent is the project's record on <ns>.audit: the journey of one
// inbound record through the stages (one step per stage it reached), or a
// retention purge. One record per message rather than one per step keeps the
// audit topic at one write per message; analytics stores one row per step.
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
}

// AuditStep is one stage's handling, with a microsecond timestamp.
type AuditStep struct {
	Stage string `json:"stage"`
	Event string `json:"event"`
	At    string `json:"at"`
}

// MicroTime formats Unix microseconds as RFC 3339 with microseconds.
func MicroTime(us int64) string {
	return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.000000Z")
}

// Marshal is the JSON form.
func (a *AuditEvent) Marshal() []byte {
	b, _ := json.Marshal(a) // strings and numbers only
	return b
}
