package refdata

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/ste-utility/ste/schemas/decimal"
)

// Tolerances (contract section 8, tolerances.csv) let criteria 7 (price) and
// 15 (net amount) hold when values differ by at most a currency's
// max_difference. The file is optional: without a row the tolerance is 0 and
// values must be equal, as in version 1 of the contract.

// The two criteria a tolerance may be set for.
const (
	CriterionPrice     = 7
	CriterionNetAmount = 15
)

// AnyCurrency is the currency of a row that applies to every currency
// without its own row for that criterion.
const AnyCurrency = "*"

// ToleranceKey is what a tolerance row is keyed by: a later row with the same
// key replaces an earlier one, and rows are never deleted (0 restores exact
// matching).
type ToleranceKey struct {
	Criterion int
	Currency  string // a currency code or AnyCurrency
}

// Tolerance is one row of tolerances.csv.
type Tolerance struct {
	ToleranceKey
	MaxDifference decimal.Dec
}

// PutTolerance upserts a row (see PutCurrency for the rules on Puts).
func (s *Set) PutTolerance(t Tolerance) { s.tolerances[t.ToleranceKey] = t.MaxDifference }

// Tolerances lists the rows sorted by criterion, then currency ("*" first).
func (s *Set) Tolerances() []Tolerance {
	out := make([]Tolerance, 0, len(s.tolerances))
	for k, d := range s.tolerances {
		out = append(out, Tolerance{k, d})
	}
	slices.SortFunc(out, func(a, b Tolerance) int {
		return cmp.Or(cmp.Compare(a.Criterion, b.Criterion), strings.Compare(a.Currency, b.Currency))
	})
	return out
}

// Tolerance is the largest difference criterion allows between values in
// ccy: the currency's own row, else the "*" row, else 0. For criterion 15 a
// value that is not a whole number of ccy's minor units does not apply to ccy
// (its tolerance is 0), so that "15,*,0.01" gives JPY none. Matching calls it
// only where values differ, so an exact trade costs no lookup; it is two map
// reads and never allocates.
func (s *Set) Tolerance(criterion int, ccy string) decimal.Dec {
	d, ok := s.tolerances[ToleranceKey{criterion, ccy}]
	if !ok {
		if d, ok = s.tolerances[ToleranceKey{criterion, AnyCurrency}]; !ok {
			return decimal.Dec{}
		}
	}
	if criterion == CriterionNetAmount {
		c, known := s.currencies[ccy]
		if !known || !d.FitsUnits(c.MinorUnits) {
			return decimal.Dec{}
		}
	}
	return d
}

var toleranceTable = &table{
	kind: "tolerance", file: "tolerances.csv",
	cols: []string{"criterion", "currency", "max_difference"}, numeric: "criterion",
	optional: true, lastWins: true,
	rows: func(s *Set) [][]string {
		var out [][]string
		for _, t := range s.Tolerances() {
			out = append(out, []string{strconv.Itoa(t.Criterion), t.Currency, t.MaxDifference.String()})
		}
		return out
	},
	parse: func(get getter) (string, func(*Set), error) {
		var t Tolerance
		c, err := field(get, "criterion")
		if err != nil {
			return "", nil, err
		}
		switch c {
		case "7":
			t.Criterion = CriterionPrice
		case "15":
			t.Criterion = CriterionNetAmount
		default:
			return "", nil, bad("criterion", "criterion %q has no tolerance (want 7, price, or 15, net amount)", c)
		}
		if t.Currency, err = field(get, "currency"); err != nil {
			return "", nil, err
		}
		if t.Currency != AnyCurrency && !ValidCurrencyCode(t.Currency) {
			return "", nil, bad("currency", "%q is not 3 letters A-Z or *", t.Currency)
		}
		v, err := field(get, "max_difference")
		if err != nil {
			return "", nil, err
		}
		d, _, perr := decimal.Parse(v)
		if perr != nil {
			return "", nil, bad("max_difference", "%q is not a decimal number", v)
		}
		if d.Sign() < 0 {
			return "", nil, bad("max_difference", "%q is negative (0 means values must be equal)", v)
		}
		t.MaxDifference = d
		return strconv.Itoa(t.Criterion) + ":" + t.Currency, func(s *Set) { s.PutTolerance(t) }, nil
	},
	refs: func(s *Set, get getter) error {
		ccy, _ := get("currency")
		if _, ok := s.currencies[ccy]; ccy != AnyCurrency && !ok {
			return bad("currency", "unknown currency %q (not in currencies.csv)", ccy)
		}
		return nil
	},
}

// toleranceUnits is the generated net-amount tolerance of each market
// currency in its minor units: a few, the rounding a custodian's and a
// broker's systems disagree by (commission and fees rounded per leg or per
// block). Yen have no minor unit, so a few yen.
var toleranceUnits = map[string]int64{"JPY": 5}

// genTolerances writes the realistic default: a net-amount tolerance of a few
// minor units for every market currency, and "*" rows of 0 for both criteria
// — price tolerance off, and every other currency exact — so that an operator
// sees both settings in the file.
func genTolerances(s *Set) {
	s.PutTolerance(Tolerance{ToleranceKey{CriterionPrice, AnyCurrency}, decimal.Dec{}})
	s.PutTolerance(Tolerance{ToleranceKey{CriterionNetAmount, AnyCurrency}, decimal.Dec{}})
	for _, m := range markets {
		c, ok := s.currencies[m.Currency]
		if !ok {
			continue
		}
		units := int64(2)
		if u, ok := toleranceUnits[m.Currency]; ok {
			units = u
		}
		s.PutTolerance(Tolerance{ToleranceKey{CriterionNetAmount, m.Currency}, decimal.New(units, c.MinorUnits)})
	}
}
