package refdata

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ste-utility/ste/schemas/date"
)

// This file describes the tables once, so that the CSV loader, the CSV
// writer, the Kafka records and Apply share one definition of every column and
// one validation of every row: a row accepted from a file is exactly a row
// accepted from the topic.

// ValidBIC is the contract's format rule: 8 or 11 of [A-Z0-9].
func ValidBIC(s string) bool { return (len(s) == 8 || len(s) == 11) && alnumUpper(s) }

// ValidISIN checks the format only (12 of [A-Z0-9]); the check digit is a
// separate rule (ISINCheckDigitValid) because the contract gives the two
// different rejection codes.
func ValidISIN(s string) bool { return len(s) == 12 && alnumUpper(s) }

// ValidCurrencyCode is 3 of [A-Z].
func ValidCurrencyCode(s string) bool { return len(s) == 3 && upper(s) }

// ValidCountryCode is 2 of [A-Z].
func ValidCountryCode(s string) bool { return len(s) == 2 && upper(s) }

func upper(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

func alnumUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// MaxMinorUnits bounds minor_units. ISO 4217 uses at most 4 (CLF, UYW); a
// larger value is a typo, and the decimal code's scale must stay small.
const MaxMinorUnits = 9

// fieldError names the column at fault; the loader adds file and line, Apply
// adds the record key.
type fieldError struct {
	col    string
	reason string
}

func (e *fieldError) Error() string { return fmt.Sprintf("column %q: %s", e.col, e.reason) }

func bad(col, format string, args ...any) error {
	return &fieldError{col, fmt.Sprintf(format, args...)}
}

// getter returns a column's value, already trimmed, and whether the column
// was present at all.
type getter func(col string) (string, bool)

// field fetches a required, non-empty column.
func field(get getter, col string) (string, error) {
	v, ok := get(col)
	if !ok {
		return "", bad(col, "missing")
	}
	if v == "" {
		return "", bad(col, "empty")
	}
	return v, nil
}

func codeField(get getter, col, what string, valid func(string) bool) (string, error) {
	v, err := field(get, col)
	if err == nil && !valid(v) {
		err = bad(col, "%q is not %s", v, what)
	}
	return v, err
}

func statusField(get getter, col string, allowed ...Status) (Status, error) {
	v, err := field(get, col)
	if err != nil {
		return "", err
	}
	for _, a := range allowed {
		if Status(v) == a {
			return a, nil
		}
	}
	return "", bad(col, "bad status %q (want %s)", v, joinStatuses(allowed))
}

func joinStatuses(ss []Status) string {
	out := ""
	for i, s := range ss {
		switch {
		case i == 0:
		case i == len(ss)-1:
			out += " or "
		default:
			out += ", "
		}
		out += string(s)
	}
	return out
}

// table is one CSV file and one record kind.
type table struct {
	kind string // record key prefix
	file string
	// optional files may be absent from a directory (and are not written
	// when the set has no row of them).
	optional bool
	cols     []string // contract order, also the written order
	// optCols are optional columns, after cols: a file may leave them out
	// (the row then says nothing of them), and rows give Absent for a
	// value no row said (left out of its record, "" in a file).
	optCols []string
	// numeric is the column written as a JSON number in records.
	numeric string
	// rows returns the Set's rows sorted by id, each in cols order.
	rows func(s *Set) [][]string
	// parse validates one row and returns its id (the record key without the
	// kind) and how to put it; nothing is put until the caller decides to.
	parse func(get getter) (id string, put func(*Set), err error)
	// refs, if set, checks a parsed row against the rest of the files it is
	// loaded with (a tolerance's currency must be known); a row failing it is
	// refused. Records on the topic are not checked (see Apply).
	refs func(s *Set, get getter) error
	// lastWins tables take a later row of the same id in one file as
	// replacing the earlier one instead of refusing it (section 8 says so
	// for tolerances).
	lastWins bool
	// writeEmpty optional files are written, header only, even without a
	// row (affirmation.csv: the generated set holds one, every InvMgr
	// MANUAL).
	writeEmpty bool
}

// Absent is the value rows give for an optional column a row did not say.
const Absent = "\x00absent"

// allCols is cols then optCols, the columns of rows.
func (t *table) allCols() []string {
	if len(t.optCols) == 0 {
		return t.cols
	}
	return append(append([]string(nil), t.cols...), t.optCols...)
}

// rowID is the record id of a written row: the first column, or
// "country:date" for holidays.
func (t *table) rowID(row []string) string {
	if t.kind == "holiday" || t.kind == "tolerance" {
		return row[0] + ":" + row[1]
	}
	return row[0]
}

var tables = []*table{
	{
		kind: "currency", file: "currencies.csv",
		cols: []string{"code", "minor_units"}, numeric: "minor_units",
		rows: func(s *Set) [][]string {
			var out [][]string
			for _, c := range s.Currencies() {
				out = append(out, []string{c.Code, strconv.Itoa(c.MinorUnits)})
			}
			return out
		},
		parse: func(get getter) (string, func(*Set), error) {
			code, err := codeField(get, "code", "3 letters A-Z", ValidCurrencyCode)
			if err != nil {
				return "", nil, err
			}
			mu, err := field(get, "minor_units")
			if err != nil {
				return "", nil, err
			}
			n, convErr := strconv.Atoi(mu)
			if convErr != nil || !digitsOnly(mu) || n > MaxMinorUnits {
				return "", nil, bad("minor_units", "bad minor_units %q (want an integer from 0 to %d)", mu, MaxMinorUnits)
			}
			c := Currency{code, n}
			return code, func(s *Set) { s.PutCurrency(c) }, nil
		},
	},
	{
		kind: "country", file: "countries.csv",
		cols: []string{"code", "name"},
		rows: func(s *Set) [][]string {
			var out [][]string
			for _, c := range s.Countries() {
				out = append(out, []string{c.Code, c.Name})
			}
			return out
		},
		parse: func(get getter) (string, func(*Set), error) {
			code, err := codeField(get, "code", "2 letters A-Z", ValidCountryCode)
			if err != nil {
				return "", nil, err
			}
			name, err := field(get, "name")
			if err != nil {
				return "", nil, err
			}
			c := Country{code, name}
			return code, func(s *Set) { s.PutCountry(c) }, nil
		},
	},
	{
		kind: "security", file: "securities.csv",
		cols: []string{"isin", "name", "currency", "country", "status"},
		rows: func(s *Set) [][]string {
			var out [][]string
			for _, x := range s.Securities() {
				out = append(out, []string{x.ISIN, x.Name, x.Currency, x.Country, string(x.Status)})
			}
			return out
		},
		parse: func(get getter) (string, func(*Set), error) {
			var x Security
			var err error
			// A wrong check digit is loaded on purpose: validation rejects
			// such an ISIN as UNKNOWN_SECURITY, and negative tests need it.
			if x.ISIN, err = codeField(get, "isin", "12 of A-Z 0-9", ValidISIN); err != nil {
				return "", nil, err
			}
			if x.Name, err = field(get, "name"); err != nil {
				return "", nil, err
			}
			if x.Currency, err = codeField(get, "currency", "3 letters A-Z", ValidCurrencyCode); err != nil {
				return "", nil, err
			}
			if x.Country, err = codeField(get, "country", "2 letters A-Z", ValidCountryCode); err != nil {
				return "", nil, err
			}
			// The contract lists ACTIVE or SUSPENDED for securities; INACTIVE
			// is accepted too because section 8 lets any entity leave use by
			// either status and validation treats all non-ACTIVE alike.
			if x.Status, err = statusField(get, "status", Active, Suspended, Inactive); err != nil {
				return "", nil, err
			}
			return x.ISIN, func(s *Set) { s.PutSecurity(x) }, nil
		},
	},
	{
		kind: "participant", file: "participants.csv",
		cols:    []string{"bic", "name", "roles", "country", "status", "public_key"},
		optCols: []string{"signers"},
		rows: func(s *Set) [][]string {
			var out [][]string
			for _, p := range s.Participants() {
				signers := strings.Join(p.Signers, ";")
				if p.KeepSigners {
					signers = Absent
				}
				out = append(out, []string{p.BIC, p.Name, p.Roles.String(), p.Country, string(p.Status), formatKeys(p.Keys), signers})
			}
			return out
		},
		parse: func(get getter) (string, func(*Set), error) {
			var p Participant
			var err error
			if p.BIC, err = codeField(get, "bic", "8 or 11 of A-Z 0-9", ValidBIC); err != nil {
				return "", nil, err
			}
			if p.Name, err = field(get, "name"); err != nil {
				return "", nil, err
			}
			roles, err := field(get, "roles")
			if err != nil {
				return "", nil, err
			}
			if p.Roles, err = ParseRoles(roles); err != nil {
				return "", nil, bad("roles", "%s", err.Error())
			}
			if p.Country, err = codeField(get, "country", "2 letters A-Z", ValidCountryCode); err != nil {
				return "", nil, err
			}
			if p.Status, err = statusField(get, "status", Active, Suspended, Inactive); err != nil {
				return "", nil, err
			}
			if _, stripped := get(keysStripped); stripped {
				// Apply dropped every key of a topic record (KeyIgnoredError).
				if v, _ := get("public_key"); v != "" {
					p.Keys, err = parseKeys(v)
				}
			} else {
				var key string
				if key, err = field(get, "public_key"); err == nil {
					p.Keys, err = parseKeys(key)
				}
			}
			if err != nil {
				return "", nil, err
			}
			if v, ok := get("signers"); ok {
				if p.Signers, err = parseSigners(v); err != nil {
					return "", nil, err
				}
			} else {
				p.KeepSigners = true // no column: the stored signers stay
			}
			return p.BIC, func(s *Set) { s.PutParticipant(p) }, nil
		},
	},
	{
		kind: "holiday", file: "holidays.csv",
		cols: []string{"country", "date"},
		rows: func(s *Set) [][]string {
			var out [][]string
			for _, h := range s.Holidays() {
				out = append(out, []string{h.Country, h.Date.String()})
			}
			return out
		},
		parse: func(get getter) (string, func(*Set), error) {
			country, err := codeField(get, "country", "2 letters A-Z", ValidCountryCode)
			if err != nil {
				return "", nil, err
			}
			ds, err := field(get, "date")
			if err != nil {
				return "", nil, err
			}
			d, perr := date.Parse(ds)
			if perr != nil {
				return "", nil, bad("date", "bad date %q (want a real YYYY-MM-DD day)", ds)
			}
			return country + ":" + d.String(), func(s *Set) { s.PutHoliday(country, d) }, nil
		},
	},
	toleranceTable,
	affirmationTable,
}

// parseSigners reads a signers cell: a ";"-list of BICs, items trimmed;
// empty, no signer. An entry that is not a BIC is refused (an empty item
// included); one listed twice counts once.
func parseSigners(v string) ([]string, error) {
	if v == "" {
		return nil, nil
	}
	var out []string
	for item := range strings.SplitSeq(v, ";") {
		item = strings.TrimSpace(item)
		if !ValidBIC(item) {
			return nil, bad("signers", "entry %q is not a BIC (8 or 11 of A-Z 0-9)", item)
		}
		if !slices.Contains(out, item) {
			out = append(out, item)
		}
	}
	return out, nil
}

func digitsOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func tableByKind(kind string) *table {
	for _, t := range tables {
		if t.kind == kind {
			return t
		}
	}
	return nil
}
