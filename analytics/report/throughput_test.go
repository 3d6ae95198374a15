package report

import "testing"

func TestFmtRate(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {8, "8"}, {803, "803"}, {21857.4, "21857"}, // per-second counts
		{30.33, "30.3"}, {7.066, "7.07"}, {0.5, "0.50"}, // per-minute means
	} {
		if got := fmtRate(c.v); got != c.want {
			t.Errorf("fmtRate(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}
