package refdata

import (
	"slices"
	"strings"
)

// Affirmation modes (contract version 3, section 8, affirmation.csv): for an
// investment manager in AUTO mode the utility sends an AFF on its behalf
// when its trade first matches (messages.md §5a step 4); MANUAL, the default
// for an InvMgr without a row, affirms only by the InvMgr's own AFFs. The
// file is optional: without a row every InvMgr is MANUAL and a version 2 set
// behaves as in version 2.

// AffirmationFile is the optional file of affirmation modes.
const AffirmationFile = "affirmation.csv"

// AffirmMode is an investment manager's affirmation mode.
type AffirmMode uint8

const (
	AffirmManual AffirmMode = iota // the zero value: an InvMgr without a row
	AffirmAuto
)

func (m AffirmMode) String() string {
	if m == AffirmAuto {
		return "AUTO"
	}
	return "MANUAL"
}

// ParseAffirmMode accepts AUTO and MANUAL.
func ParseAffirmMode(s string) (AffirmMode, bool) {
	switch s {
	case "AUTO":
		return AffirmAuto, true
	case "MANUAL":
		return AffirmManual, true
	}
	return 0, false
}

// Affirmation is one row of affirmation.csv.
type Affirmation struct {
	InvMgr string
	Mode   AffirmMode
}

// PutAffirmation upserts a row (see PutCurrency for the rules on Puts):
// keyed by InvMgr, a later row replaces an earlier one, none is deleted.
func (s *Set) PutAffirmation(a Affirmation) { s.affirmations[a.InvMgr] = a.Mode }

// Affirmations lists the rows sorted by InvMgr.
func (s *Set) Affirmations() []Affirmation {
	out := make([]Affirmation, 0, len(s.affirmations))
	for k, m := range s.affirmations {
		out = append(out, Affirmation{k, m})
	}
	slices.SortFunc(out, func(a, b Affirmation) int { return strings.Compare(a.InvMgr, b.InvMgr) })
	return out
}

// AffirmationMode is the mode of the investment manager invmgr: its row's,
// else MANUAL. One map read; it never allocates.
func (s *Set) AffirmationMode(invmgr string) AffirmMode {
	if s == nil {
		return AffirmManual
	}
	return s.affirmations[invmgr]
}

// AutoAffirms reports whether invmgr's mode is AUTO: the utility affirms its
// trades when they first match (messages.md §5a step 4; the matching
// engine's AffirmationModes).
func (s *Set) AutoAffirms(invmgr string) bool { return s.AffirmationMode(invmgr) == AffirmAuto }

var affirmationTable = &table{
	kind: "affirmation", file: AffirmationFile,
	cols:     []string{"invmgr", "mode"},
	optional: true, lastWins: true, writeEmpty: true,
	rows: func(s *Set) [][]string {
		var out [][]string
		for _, a := range s.Affirmations() {
			out = append(out, []string{a.InvMgr, a.Mode.String()})
		}
		return out
	},
	parse: func(get getter) (string, func(*Set), error) {
		bic, err := codeField(get, "invmgr", "a BIC (8 or 11 of A-Z 0-9)", ValidBIC)
		if err != nil {
			return "", nil, err
		}
		v, err := field(get, "mode")
		if err != nil {
			return "", nil, err
		}
		mode, ok := ParseAffirmMode(v)
		if !ok {
			return "", nil, bad("mode", "bad mode %q (want AUTO or MANUAL)", v)
		}
		a := Affirmation{bic, mode}
		return bic, func(s *Set) { s.PutAffirmation(a) }, nil
	},
	// The InvMgr must be a participant with role INVMGR of the files loaded
	// with it (participants.csv is read first); on the topic, where kinds
	// arrive in any order, it is not checked (see Apply).
	refs: func(s *Set, get getter) error {
		bic, _ := get("invmgr")
		p, ok := s.participants[bic]
		switch {
		case !ok:
			return bad("invmgr", "%s is not a participant (not in participants.csv)", bic)
		case !p.Roles.Has(RoleInvMgr):
			return bad("invmgr", "%s does not have the role INVMGR (its roles: %s)", bic, p.Roles)
		}
		return nil
	},
}
