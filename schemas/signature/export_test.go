package signature

// Suspect tells tests whether b verifies sender's signatures apart.
func Suspect(b *Batcher, sender string) bool { return b.isSuspect(sender) }
