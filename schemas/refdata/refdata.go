// Package refdata is the reference data the utility validates against:
// currencies, countries, securities, participants and market holidays
// (contract section 8). It loads and writes the five CSV files, turns a set
// into records for the compacted <ns>.refdata topic and back, and generates a
// deterministic realistic set for demos, tests and benchmarks.
//
// Validation looks reference data up for every inbound message, so a Set is a
// handful of plain maps: lookups are one map access and never allocate.
//
// Concurrency: a Set has no lock, because readers vastly outnumber writers and
// a lock on the hot path would cost more than the lookups themselves. Many
// goroutines may read a Set at once, but any Put or Apply must not run
// concurrently with reads of the same Set. The intended pattern is
// copy-on-write: the single writer calls Clone, applies upserts to the copy,
// then publishes it (for example with an atomic.Pointer[Set]) while readers
// keep using the Set they loaded. A published Set is never modified again.
package refdata

import (
	"cmp"
	"crypto/ed25519"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/decimal"
)

// Status tells whether an entity may be used. Entities are never deleted
// (a load only upserts), so SUSPENDED and INACTIVE are how they leave use.
type Status string

const (
	Active    Status = "ACTIVE"
	Suspended Status = "SUSPENDED"
	Inactive  Status = "INACTIVE"
)

// Valid reports whether s is one of the three statuses of the contract.
func (s Status) Valid() bool { return s == Active || s == Suspended || s == Inactive }

// Role is a bit set because one institution may act in several capacities
// (a universal bank is broker and custodian), and validation asks "does it
// have this role" once per party of every message.
type Role uint8

const (
	RoleBroker Role = 1 << iota
	RoleInvMgr
	RoleCustodian
	RoleCSD
	RoleUtility
	// RoleSigner (version 3) is a delegated signer: it signs for the
	// participants whose signers list it, and is the Sender of nothing.
	RoleSigner

	roleAll = RoleBroker | RoleInvMgr | RoleCustodian | RoleCSD | RoleUtility | RoleSigner
)

// roleNames is in the contract's order, which is also the written order, so
// that the same role set always serialises to the same bytes.
var roleNames = [...]struct {
	r    Role
	name string
}{
	{RoleBroker, "BROKER"},
	{RoleInvMgr, "INVMGR"},
	{RoleCustodian, "CUSTODIAN"},
	{RoleCSD, "CSD"},
	{RoleUtility, "UTILITY"},
	{RoleSigner, "SIGNER"},
}

// Has reports whether every role of x is in r.
func (r Role) Has(x Role) bool { return x != 0 && r&x == x }

// String writes the roles as the contract's ";"-list in a fixed order.
func (r Role) String() string {
	var b strings.Builder
	for _, n := range roleNames {
		if r&n.r != 0 {
			if b.Len() > 0 {
				b.WriteByte(';')
			}
			b.WriteString(n.name)
		}
	}
	return b.String()
}

// ParseRoles reads a ";"-list such as "BROKER;CUSTODIAN". Items are trimmed;
// an empty list, an empty item or an unknown name is an error, because a
// participant without a usable role is almost certainly a data mistake.
func ParseRoles(s string) (Role, error) {
	if strings.TrimSpace(s) == "" {
		return 0, errors.New("no role")
	}
	var r Role
	for item := range strings.SplitSeq(s, ";") {
		item = strings.TrimSpace(item)
		found := false
		for _, n := range roleNames {
			if item == n.name {
				r |= n.r
				found = true
				break
			}
		}
		if !found {
			if item == "" {
				return 0, fmt.Errorf("empty role in %q", s)
			}
			return 0, fmt.Errorf("unknown role %q (want BROKER, INVMGR, CUSTODIAN, CSD, UTILITY or SIGNER)", item)
		}
	}
	return r, nil
}

// Currency carries the minor units because amounts must be whole numbers of
// them (section 3).
type Currency struct {
	Code       string
	MinorUnits int
}

// Country is an ISO 3166-1 alpha-2 code and its English short name.
type Country struct {
	Code, Name string
}

// Security is one ISIN. Country selects the holiday calendar used to check
// settlement dates, so it is the market of settlement, not the issuer's
// domicile.
type Security struct {
	ISIN, Name, Currency, Country string
	Status                        Status
}

// Participant is a BIC with its roles and the Ed25519 public keys that verify
// its messages: one, or two while it rotates (a message verifies under
// either). Every key has passed KeyProblem. Keys and Signers are shared
// between copies and must not be modified.
type Participant struct {
	BIC, Name string
	Roles     Role
	Country   string
	Status    Status
	Keys      []ed25519.PublicKey
	// Signers (version 3, the signers column) are the BICs of the
	// delegated signers that may sign this participant's messages, as
	// listed (well-formed BICs, none twice; whether each is an ACTIVE
	// SIGNER is validation's question, message by message).
	Signers []string
	// KeepSigners marks a row read without the signers column: upserted
	// into a Set, it keeps the participant's stored Signers (a participant
	// new to the Set has none). A Set's participant has it only while no
	// row with the column was put for it; its records then leave the
	// column out, so a topic consumer keeps what it stored too.
	KeepSigners bool
}

// HasSigner reports whether bic is among p's Signers.
func (p *Participant) HasSigner(bic string) bool {
	for _, s := range p.Signers {
		if s == bic {
			return true
		}
	}
	return false
}

// SignerOnly reports whether SIGNER is p's only role: such a participant
// signs for others and may send nothing as itself (messages.md §4,
// NOT_AUTHORISED).
func (p *Participant) SignerOnly() bool { return p.Roles == RoleSigner }

// Holiday is a day on which a market neither trades nor settles.
type Holiday struct {
	Country string
	Date    date.Date
}

type holidayKey struct {
	country string
	date    date.Date
}

// Set is one version of the reference data. See the package comment for the
// concurrency rules.
type Set struct {
	currencies   map[string]Currency
	countries    map[string]Country
	securities   map[string]Security
	participants map[string]Participant
	holidays     map[holidayKey]struct{}
	tolerances   map[ToleranceKey]decimal.Dec // tolerances.go
	cutoffs      map[string]Cutoff            // markets.csv, by MIC
	affirmations map[string]AffirmMode        // affirmation.csv, by InvMgr (affirmation.go)
}

// NewSet returns an empty Set ready for upserts.
func NewSet() *Set {
	return &Set{
		currencies:   map[string]Currency{},
		countries:    map[string]Country{},
		securities:   map[string]Security{},
		participants: map[string]Participant{},
		holidays:     map[holidayKey]struct{}{},
		tolerances:   map[ToleranceKey]decimal.Dec{},
		cutoffs:      map[string]Cutoff{},
		affirmations: map[string]AffirmMode{},
	}
}

// Clone copies the Set so that a writer can upsert into the copy while
// readers keep the original (copy-on-write). Public keys are shared, since
// they are never modified.
func (s *Set) Clone() *Set {
	return &Set{
		currencies:   maps.Clone(s.currencies),
		countries:    maps.Clone(s.countries),
		securities:   maps.Clone(s.securities),
		participants: maps.Clone(s.participants),
		holidays:     maps.Clone(s.holidays),
		tolerances:   maps.Clone(s.tolerances),
		cutoffs:      maps.Clone(s.cutoffs),
		affirmations: maps.Clone(s.affirmations),
	}
}

// Currency, Country, Security and Participant are single map reads: they are
// on the validation hot path and must not allocate.
func (s *Set) Currency(code string) (Currency, bool) {
	c, ok := s.currencies[code]
	return c, ok
}

// Country finds an ISO 3166 code.
func (s *Set) Country(code string) (Country, bool) {
	c, ok := s.countries[code]
	return c, ok
}

// Security finds an ISIN whatever its status or check digit: the caller
// decides what a SUSPENDED security or a bad check digit means.
func (s *Set) Security(isin string) (Security, bool) {
	x, ok := s.securities[isin]
	return x, ok
}

// Participant finds a BIC whatever its status: a non-ACTIVE sender is still
// known, and the contract NACKs known senders of any status.
func (s *Set) Participant(bic string) (Participant, bool) {
	p, ok := s.participants[bic]
	return p, ok
}

// IsHoliday reports a listed holiday only; weekends are not listed.
func (s *Set) IsHoliday(country string, d date.Date) bool {
	_, ok := s.holidays[holidayKey{country, d}]
	return ok
}

// IsBusinessDay is the settlement-date rule of section 4: neither a Saturday,
// a Sunday nor a holiday of the country.
func (s *Set) IsBusinessDay(country string, d date.Date) bool {
	return !d.IsWeekend() && !s.IsHoliday(country, d)
}

// PutCurrency and the other Put methods upsert without validating: Load and
// Apply validate rows before they put them, and the generator builds valid
// rows. A Put must not run concurrently with readers (see the package
// comment).
func (s *Set) PutCurrency(c Currency) { s.currencies[c.Code] = c }

// PutCountry upserts a country.
func (s *Set) PutCountry(c Country) { s.countries[c.Code] = c }

// PutSecurity upserts a security.
func (s *Set) PutSecurity(x Security) { s.securities[x.ISIN] = x }

// PutParticipant upserts a participant. A p with KeepSigners keeps the
// Signers the Set holds for it (the row had no signers column).
func (s *Set) PutParticipant(p Participant) {
	if p.KeepSigners {
		p.Signers = nil
		if old, ok := s.participants[p.BIC]; ok {
			p.Signers, p.KeepSigners = old.Signers, old.KeepSigners
		}
	}
	s.participants[p.BIC] = p
}

// PutHoliday adds a holiday; there is no removal, as a load never deletes.
func (s *Set) PutHoliday(country string, d date.Date) {
	s.holidays[holidayKey{country, d}] = struct{}{}
}

// Currencies and the other iterators return fresh slices sorted by key, so
// that files and records written from a Set are byte-for-byte reproducible.
func (s *Set) Currencies() []Currency {
	return sortedValues(s.currencies, func(a, b Currency) int { return strings.Compare(a.Code, b.Code) })
}

func (s *Set) Countries() []Country {
	return sortedValues(s.countries, func(a, b Country) int { return strings.Compare(a.Code, b.Code) })
}

func (s *Set) Securities() []Security {
	return sortedValues(s.securities, func(a, b Security) int { return strings.Compare(a.ISIN, b.ISIN) })
}

func (s *Set) Participants() []Participant {
	return sortedValues(s.participants, func(a, b Participant) int { return strings.Compare(a.BIC, b.BIC) })
}

func (s *Set) Holidays() []Holiday {
	out := make([]Holiday, 0, len(s.holidays))
	for k := range s.holidays {
		out = append(out, Holiday{k.country, k.date})
	}
	slices.SortFunc(out, func(a, b Holiday) int {
		return cmp.Or(strings.Compare(a.Country, b.Country), cmp.Compare(a.Date, b.Date))
	})
	return out
}

func sortedValues[V any](m map[string]V, cmpf func(a, b V) int) []V {
	out := make([]V, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	slices.SortFunc(out, cmpf)
	return out
}

// ParticipantsWithRole lists, sorted by BIC, the participants holding role r
// that are ACTIVE (active true) or that are not ACTIVE (active false). The
// second form exists for negative tests: a counterparty that is known but may
// not be used.
func (s *Set) ParticipantsWithRole(r Role, active bool) []Participant {
	var out []Participant
	for _, p := range s.participants {
		if p.Roles.Has(r) && (p.Status == Active) == active {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b Participant) int { return strings.Compare(a.BIC, b.BIC) })
	return out
}

// SecuritiesIn lists, sorted by ISIN, the securities of a country with a
// status. An empty country or status matches any.
func (s *Set) SecuritiesIn(country string, status Status) []Security {
	var out []Security
	for _, x := range s.securities {
		if (country == "" || x.Country == country) && (status == "" || x.Status == status) {
			out = append(out, x)
		}
	}
	slices.SortFunc(out, func(a, b Security) int { return strings.Compare(a.ISIN, b.ISIN) })
	return out
}

// AddBusinessDays moves d by n business days of the country (n < 0 goes
// back) and always lands on a business day, so that generated settlement
// dates pass validation: with n == 0 a non-business d rolls forward to the
// next business day; otherwise d itself is not counted (T+2 from a Friday is
// the next Tuesday when Monday is not a holiday).
func (s *Set) AddBusinessDays(country string, d date.Date, n int) date.Date {
	if n == 0 {
		for !s.IsBusinessDay(country, d) {
			d++
		}
		return d
	}
	step := date.Date(1)
	if n < 0 {
		step, n = -1, -n
	}
	for n > 0 {
		d += step
		if s.IsBusinessDay(country, d) {
			n--
		}
	}
	return d
}

// KeepStoredSigners completes a set read from files for publishing: each
// participant read without the signers column (KeepSigners) takes the
// signers stored holds for it (what <ns>.refdata holds), so that its record
// says them. Published without them, the record would keep them only until
// compaction removed the earlier record that said them. It returns the BICs
// completed; s must not be published yet (it is written to).
func (s *Set) KeepStoredSigners(stored *Set) []string {
	var done []string
	for bic, p := range s.participants {
		if !p.KeepSigners || stored == nil {
			continue
		}
		if old, ok := stored.participants[bic]; ok && !old.KeepSigners {
			p.Signers, p.KeepSigners = old.Signers, false
			s.participants[bic] = p
			done = append(done, bic)
		}
	}
	slices.Sort(done)
	return done
}
