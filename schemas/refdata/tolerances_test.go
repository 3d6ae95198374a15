package refdata

import (
	"strings"
	"testing"

	"github.com/ste-utility/ste/schemas/decimal"
)

func withTolerances(csv string) map[string]string {
	f := validFiles()
	f["tolerances.csv"] = csv
	return f
}

func tol(s *Set, c int, ccy string) string { return s.Tolerance(c, ccy).String() }

// The file is optional: without it every tolerance is 0.
func TestTolerancesOptional(t *testing.T) {
	s, err := Load(mapFS(validFiles()))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tolerances()) != 0 || tol(s, 15, "SGD") != "0" || tol(s, 7, "SGD") != "0" {
		t.Fatalf("tolerances without a file: %v", s.Tolerances())
	}
}

// "*" rows, a currency's own row, the minor-units rule of criterion 15 and a
// later row replacing an earlier one.
func TestTolerancesLookup(t *testing.T) {
	s, err := Load(mapFS(withTolerances("criterion,currency,max_difference\n" +
		"15,*,0.01\n" +
		"7,SGD,0.005\n" +
		"7,SGD,0.001\n" + // replaces the row above
		"15,JPY,2.5\n" + // not whole yen: JPY gets none
		"7,*,0\n")))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		crit int
		ccy  string
		want string
	}{
		{15, "SGD", "0.01"}, // the * row
		{15, "JPY", "0"},    // 2.5 is not whole yen, and 0.01 would not be either
		{7, "SGD", "0.001"}, // the later row
		{7, "JPY", "0"},     // the * row says 0
		{15, "USD", "0"},    // unknown to currencies: no minor units, no tolerance
	} {
		if got := tol(s, c.crit, c.ccy); got != c.want {
			t.Errorf("Tolerance(%d, %s) = %s, want %s", c.crit, c.ccy, got, c.want)
		}
	}
	s2, _ := Load(mapFS(withTolerances("criterion,currency,max_difference\n15,*,0.01\n15,JPY,3\n")))
	if tol(s2, 15, "JPY") != "3" || tol(s2, 15, "SGD") != "0.01" {
		t.Errorf("own row over *: JPY %s SGD %s", tol(s2, 15, "JPY"), tol(s2, 15, "SGD"))
	}
	// Records carry the rows and Apply reads them back; a later record replaces.
	back := NewSet()
	for _, r := range s.Records() {
		if err := back.Apply(r.Key, r.Value); err != nil {
			t.Fatal(err)
		}
	}
	assertEqualSets(t, s, back)
	if err := back.Apply([]byte("tolerance:7:SGD"), []byte(`{"criterion":7,"currency":"SGD","max_difference":"0"}`)); err != nil {
		t.Fatal(err)
	}
	if tol(back, 7, "SGD") != "0" {
		t.Errorf("after a 0 row: %s", tol(back, 7, "SGD"))
	}
	if got := back.Tolerances(); len(got) != 4 || got[0].Criterion != 7 || got[0].Currency != "*" {
		t.Errorf("rows %v", got)
	}
}

// A row with another criterion, a negative or malformed value or an unknown
// currency is refused at load, naming the row.
func TestTolerancesRefusedRows(t *testing.T) {
	for _, c := range []struct{ row, want string }{
		{"12,SGD,1", `tolerances.csv:2: column "criterion"`},
		{"7.0,SGD,1", `tolerances.csv:2: column "criterion"`},
		{"15,SGD,-0.01", `tolerances.csv:2: column "max_difference": "-0.01" is negative`},
		{"15,SGD,0.0.1", `tolerances.csv:2: column "max_difference"`},
		{"15,SGD,1e-2", `tolerances.csv:2: column "max_difference"`},
		{"15,SGD,", `tolerances.csv:2: column "max_difference": empty`},
		{"15,EUR,0.01", `tolerances.csv:2: column "currency": unknown currency "EUR"`},
		{"15,sgd,0.01", `tolerances.csv:2: column "currency"`},
		{"15,**,0.01", `tolerances.csv:2: column "currency"`},
	} {
		_, err := Load(mapFS(withTolerances("criterion,currency,max_difference\n" + c.row + "\n")))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.row, err, c.want)
		}
	}
	// The same checks on the topic: a bad record leaves the set unchanged.
	// (A currency not yet read is not refused there: compaction does not keep
	// the order of kinds; the lookup gives such a currency no tolerance.)
	s, _ := Load(mapFS(validFiles()))
	for _, v := range []string{
		`{"criterion":8,"currency":"SGD","max_difference":"1"}`,
		`{"criterion":15,"currency":"SGD","max_difference":"-1"}`,
	} {
		var key string
		switch {
		case strings.Contains(v, `"criterion":8`):
			key = "tolerance:8:SGD"
		default:
			key = "tolerance:15:SGD"
		}
		if err := s.Apply([]byte(key), []byte(v)); err == nil {
			t.Errorf("%s accepted", v)
		}
	}
	if len(s.Tolerances()) != 0 {
		t.Errorf("bad records changed the set: %v", s.Tolerances())
	}
	if err := s.Apply([]byte("tolerance:15:JPY"), []byte(`{"criterion":15,"currency":"SGD","max_difference":"1"}`)); err == nil {
		t.Error("a record whose value is for another key was accepted")
	}
}

func TestToleranceNeverAllocates(t *testing.T) {
	s, _ := Load(mapFS(withTolerances("criterion,currency,max_difference\n15,*,0.01\n")))
	var d decimal.Dec
	if n := testing.AllocsPerRun(100, func() { d = s.Tolerance(15, "SGD") }); n != 0 {
		t.Errorf("%v allocations", n)
	}
	_ = d
}
