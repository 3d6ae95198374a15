package schemas

// Reason is a rejection code of section 4, in the order the rules are checked:
// the first failing rule gives the code, so the numeric order is the contract's.
type Reason uint8

const (
	TooLarge Reason = iota + 1
	Malformed
	Schema
	UnknownSender
	Signature
	NotAuthorised
	UnknownParty
	UnknownSecurity
	UnknownCurrency
	BadDate
	BadAmount
	ConflictingDuplicate
	// Internal is no rule: the utility could not process the record through
	// a fault of its own (docs/spec/messages.md §7). No NACK; operators retry it.
	Internal
	// KeyCollision (version 3, the last rule): the message's trade key is held
	// by a trade or tombstone with other key fields. Appended after Internal
	// so that stored values keep their numbers; the rule order is Reasons'.
	KeyCollision
)

var reasonNames = [...]string{"", "TOO_LARGE", "MALFORMED", "SCHEMA", "UNKNOWN_SENDER", "SIGNATURE",
	"NOT_AUTHORISED", "UNKNOWN_PARTY", "UNKNOWN_SECURITY", "UNKNOWN_CURRENCY", "BAD_DATE", "BAD_AMOUNT",
	"CONFLICTING_DUPLICATE", "INTERNAL", "KEY_COLLISION"}

// Reasons lists every rule's code in rule order (INTERNAL is not a rule).
var Reasons = []Reason{TooLarge, Malformed, Schema, UnknownSender, Signature, NotAuthorised,
	UnknownParty, UnknownSecurity, UnknownCurrency, BadDate, BadAmount, ConflictingDuplicate, KeyCollision}

func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return "UNKNOWN"
}

// ParseReason is the inverse of String.
func ParseReason(s string) (Reason, bool) {
	for i, n := range reasonNames {
		if i > 0 && n == s {
			return Reason(i), true
		}
	}
	return 0, false
}

// Nacked reports whether a rejection with this code is answered with a NACK
// when the sender is a known participant: the contract sends none for records
// whose sender cannot be trusted to be who it says, nor for an INTERNAL
// exception (the message is not known to be wrong).
func (r Reason) Nacked() bool {
	return r != TooLarge && r != Malformed && r != UnknownSender && r != Internal
}

// Rejection is why a record was refused, with a Detail a participant can act on.
type Rejection struct {
	Reason Reason
	Detail string
}

func (r *Rejection) Error() string { return r.Reason.String() + ": " + r.Detail }

func reject(r Reason, detail string) *Rejection { return &Rejection{Reason: r, Detail: detail} }
