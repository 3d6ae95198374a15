package matching

// IsParty says whether bic is a party to the trade as messages.md §6 and
// gateway.md §4 define its parties: its Broker and InvMgr from the key
// fields (whether or not they have sent a message), and every Custodian
// named by an ALC or SET in force. A participant that is not a party is
// told nothing of the trade, not even that it exists.
func (v *View) IsParty(bic string) bool {
	if bic == "" {
		return false
	}
	for _, k := range v.Keys {
		if k.Broker == bic || k.InvMgr == bic {
			return true
		}
	}
	for _, m := range v.Messages {
		if m.InForce && (m.Type == "ALC" || m.Type == "SET") && m.Custodian == bic {
			return true
		}
	}
	return false
}
