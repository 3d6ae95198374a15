package decimal

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		written int
		err     error
	}{
		{"100", "100", 0, nil},
		{"100.50", "100.5", 2, nil},
		{"100.0", "100", 1, nil},
		{"-0.250", "-0.25", 3, nil},
		{"+7", "7", 0, nil},
		{"0.000", "0", 3, nil},
		{"007.10", "7.1", 2, nil},
		{"123456789012345678", "123456789012345678", 0, nil},
		{"1234567890123456789", "", 0, ErrRange},
		{"0.1234567890123456789", "", 19, ErrRange},
		{"", "", 0, ErrSyntax},
		{".5", "", 0, ErrSyntax},
		{"5.", "", 0, ErrSyntax},
		{"1e5", "", 0, ErrSyntax},
		{"1,5", "", 0, ErrSyntax},
		{" 1", "", 0, ErrSyntax},
		{"-", "", 0, ErrSyntax},
		{"1.2.3", "", 0, ErrSyntax},
	}
	for _, tt := range tests {
		d, w, err := Parse(tt.in)
		if err != tt.err {
			t.Errorf("Parse(%q) err %v, want %v", tt.in, err, tt.err)
			continue
		}
		if err != nil {
			continue
		}
		if d.String() != tt.want || w != tt.written {
			t.Errorf("Parse(%q) = %s (written %d), want %s (%d)", tt.in, d, w, tt.want, tt.written)
		}
	}
}

func TestEqualByValue(t *testing.T) {
	if MustParse("100.5") != MustParse("100.50") {
		t.Fatal("100.5 != 100.50")
	}
	if MustParse("1").Cmp(MustParse("0.999999")) != 1 || MustParse("-1").Cmp(MustParse("0")) != -1 {
		t.Fatal("Cmp")
	}
}

func TestFitsUnits(t *testing.T) {
	tests := []struct {
		in    string
		units int
		want  bool
	}{
		{"1234.5", 2, true}, {"100.0", 0, true}, {"100.5", 0, false},
		{"1.234", 2, false}, {"1.2340", 3, true}, {"0.001", 3, true},
	}
	for _, tt := range tests {
		if got := MustParse(tt.in).FitsUnits(tt.units); got != tt.want {
			t.Errorf("%s fits %d = %v", tt.in, tt.units, got)
		}
	}
}

func TestMulRound(t *testing.T) {
	tests := []struct {
		q     int64
		p     string
		units int
		want  string
	}{
		{100, "1.005", 2, "100.5"},
		{1, "1.005", 2, "1.01"},   // half away from zero
		{1, "1.004999", 2, "1"},   // below half
		{1, "-1.005", 2, "-1.01"}, // away from zero for negatives
		{3, "33.333333", 2, "100"},
		{7, "0.5", 0, "4"},
		{5, "0.5", 0, "3"},
		{1000000000, "999999.999999", 2, "999999999999000"},
	}
	for _, tt := range tests {
		got, ok := MulRound(tt.q, MustParse(tt.p), tt.units)
		if !ok || got != MustParse(tt.want) {
			t.Errorf("%d × %s → %v (%v), want %s", tt.q, tt.p, got, ok, tt.want)
		}
	}
	if _, ok := MulRound(1<<62, MustParse("1000"), 2); ok {
		t.Error("overflow not reported")
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		in    string
		units int
		want  string
	}{
		{"1234.5", 2, "1234.50"}, {"100", 0, "100"}, {"0.05", 2, "0.05"},
		{"-0.5", 3, "-0.500"}, {"12", 2, "12.00"}, {"0", 2, "0.00"},
	}
	for _, tt := range tests {
		if got := MustParse(tt.in).Fixed(tt.units); got != tt.want {
			t.Errorf("Fixed(%s,%d) = %s, want %s", tt.in, tt.units, got, tt.want)
		}
	}
	if got := MustParse("0.000100").String(); got != "0.0001" {
		t.Errorf("String = %s", got)
	}
}

// TestAgainstBig checks Add, Sub and Cmp against math/big rationals on random values.
func TestAgainstBig(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	rat := func(d Dec) *big.Rat {
		return new(big.Rat).SetFrac(big.NewInt(d.coef), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.scale)), nil))
	}
	for i := 0; i < 100000; i++ {
		a := New(r.Int64N(2e12)-1e12, r.IntN(7))
		b := New(r.Int64N(2e12)-1e12, r.IntN(7))
		if a.Cmp(b) != rat(a).Cmp(rat(b)) {
			t.Fatalf("Cmp(%s,%s)", a, b)
		}
		s, ok := Add(a, b)
		if !ok || rat(s).Cmp(new(big.Rat).Add(rat(a), rat(b))) != 0 {
			t.Fatalf("Add(%s,%s) = %s", a, b, s)
		}
		d, ok := Sub(a, b)
		if !ok || rat(d).Cmp(new(big.Rat).Sub(rat(a), rat(b))) != 0 {
			t.Fatalf("Sub(%s,%s) = %s", a, b, d)
		}
		back, _, err := Parse(a.String())
		if err != nil || back != a {
			t.Fatalf("round trip %s", a)
		}
	}
}
