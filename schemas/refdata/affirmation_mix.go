package refdata

import (
	"fmt"
	"hash/fnv"
)

// Generated affirmation modes. Contract version 3 (messages.md §8) has the
// generated and default sets hold affirmation.csv with its header and no
// row, so that a generated version 2 set behaves as in version 2: that stays
// the default (AffirmationNone). A demo of the lifecycle wants both kinds of
// investment manager, as a central matching service has them, so the
// generator offers an opt-in mix (AffirmationMixed): `ste refdata gen
// --affirmation mixed`, and ste demo and `ste bench --mix realistic` load
// the committed set with MixAffirmation applied (AMBIGUITIES.md, "The
// lifecycle reaches people").

// AffirmationChoice selects the rows of a generated affirmation.csv.
type AffirmationChoice string

const (
	// AffirmationNone writes the header and no row: every InvMgr MANUAL.
	AffirmationNone AffirmationChoice = "none"
	// AffirmationMixed writes a row for every investment manager: about
	// two in three AUTO (the utility affirms their trades when they first
	// match), the others MANUAL (written out, not left to the default).
	AffirmationMixed AffirmationChoice = "mixed"
)

// ParseAffirmationChoice accepts none and mixed ("" is none).
func ParseAffirmationChoice(s string) (AffirmationChoice, error) {
	switch AffirmationChoice(s) {
	case "", AffirmationNone:
		return AffirmationNone, nil
	case AffirmationMixed:
		return AffirmationMixed, nil
	}
	return "", fmt.Errorf("unknown affirmation choice %q (want none or mixed)", s)
}

// MixedMode is the mode AffirmationMixed gives the investment manager bic:
// a function of the BIC alone (FNV-1a, one in three MANUAL), so the same
// InvMgr has the same mode in every set that holds it, generated or the
// committed one with MixAffirmation applied.
func MixedMode(bic string) AffirmMode {
	h := fnv.New32a()
	h.Write([]byte(bic))
	if h.Sum32()%3 == 0 {
		return AffirmManual
	}
	return AffirmAuto
}

// MixAffirmation puts a row of MixedMode for every participant of s with
// the role INVMGR, whatever its status, and returns s.
func MixAffirmation(s *Set) *Set {
	for _, active := range []bool{true, false} {
		for _, p := range s.ParticipantsWithRole(RoleInvMgr, active) {
			s.PutAffirmation(Affirmation{InvMgr: p.BIC, Mode: MixedMode(p.BIC)})
		}
	}
	return s
}

// WithAffirmation is a copy of s with the choice's rows (s itself for
// AffirmationNone): AffirmationMixed on the committed default set is what
// ste demo and the realistic benches load.
func WithAffirmation(s *Set, c AffirmationChoice) *Set {
	if c != AffirmationMixed {
		return s
	}
	return MixAffirmation(s.Clone())
}
