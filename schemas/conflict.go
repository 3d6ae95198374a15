package schemas

// ConflictingDuplicateOf is the rejection of a message whose identity
// (Sender, MsgId) was already accepted with different content: decided by
// the identity stage, or by the trade when the identity stage has forgotten
// the identity — one text, whichever decides.
func ConflictingDuplicateOf(sender, msgID string) *Rejection {
	return &Rejection{Reason: ConflictingDuplicate,
		Detail: "MsgId " + msgID + " of " + sender + " was already accepted with different content; use a new MsgId"}
}

// KeyCollisionOf is the rejection of a message whose trade key is held by a
// trade (or its tombstone) of other key fields (messages.md §4,
// KEY_COLLISION): held are the key fields of the trade holding it, got the
// message's. The detail names the first field that differs.
func KeyCollisionOf(key TradeKey, held, got *Key) *Rejection {
	differs := "other key fields"
	for _, p := range [...][3]string{
		{"TradeRef", held.TradeRef, got.TradeRef}, {"TradeDate", held.TradeDate, got.TradeDate},
		{"ISIN", held.ISIN, got.ISIN}, {"Side", held.Side, got.Side},
		{"Broker", held.Broker, got.Broker}, {"InvMgr", held.InvMgr, got.InvMgr},
	} {
		if p[1] != p[2] {
			differs = p[0] + " " + quote(p[1]) + ", not " + quote(p[2])
			break
		}
	}
	return &Rejection{Reason: KeyCollision,
		Detail: "trade key " + key.String() + " is held by a trade with " + differs +
			" (two trades' key fields hash to one key); book the trade under another TradeRef"}
}
