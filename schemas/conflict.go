package schemas

// ConflictingDuplicateOf is the rejection of a message whose identity
// (Sender, MsgId) was already accepted with different content: decided by
// the identity stage, or by the trade when the identity stage has forgotten
// the identity — one text, whichever decides.
func ConflictingDuplicateOf(sender, msgID string) *Rejection {
	return &Rejection{Reason: ConflictingDuplicate,
		Detail: "MsgId " + msgID + " of " + sender + " was already accepted with different content; use a new MsgId"}
}
