package stages

import (
	"github.com/ste-utility/ste/processors/envelope"
	"github.com/ste-utility/ste/schemas"
)

// Result is what a stage decided for one input record: the records it
// decided on, the outputs to sign, and whether the record's journey ends
// there. The decisions do not write; the runtime's one writer writes a
// Result — emits the records, signs and emits the outputs, stamps the
// journey's last step and writes its audit event, and records the metrics
// — whichever way the decision returned (as watermill's handlers return
// their messages).
type Result struct {
	// Envelope is the envelope of the record: its inbound time feeds the
	// critical time, and when the journey ends here, the audit event is its
	// journey. Nil when the record was not an envelope.
	Envelope *envelope.Envelope
	Records  []Record         // written first, in order
	Outputs  []schemas.Output // then signed and written, counted by type
	// End, when set, ends the journey here: the step is stamped once the
	// records and outputs are handed over (the journey's end, as the
	// monitor and the sink see it), then the audit event is written with
	// Outcome and Reason, naming the outputs' MsgIds.
	End             envelope.Event
	Outcome, Reason string
	Rejected        schemas.Reason // counted as a rejection for this reason
	Matched         Matched        // counted by the match stage
	Expired         Expired        // counted by the match stage
	// Corrupt names what could not be read ("": nothing); Table names the
	// table when it was a table value.
	Corrupt, Table string
	// Market and Cutoff (µs) of the trade a message was applied to, for
	// the audit event (docs/timeliness.md); Cutoff 0: none.
	Market string
	Cutoff int64
	// Clock is the match partition's event-time clock, read as its trades
	// were swept (ClockRead): the runtime's gauge.
	Clock     int64
	ClockRead bool
	// ClockJumpedFrom, when not 0, is the clock before this message, which
	// moved it to Clock by more than the retention at once (Decider.sweep):
	// the runtime warns and counts the jump.
	ClockJumpedFrom int64

	// one holds Records when a stage forwards the record (forward): a
	// Result and its one record in one allocation.
	one [1]Record
}

// Record is one record a stage decided to write.
type Record struct {
	Topic, Key string
	Value      []byte
}

// Matched says how the match stage took a message.
type Matched uint8

const (
	MatchedNew Matched = iota + 1
	MatchedDuplicate
)

// Expired says how a trade was purged by retention.
type Expired uint8

const (
	ExpiredSilent     Expired = iota + 1 // a trade with nothing to tell
	ExpiredWithStatus                    // a STATUS EXPIRED
)
