package report

import (
	"testing"
	"time"
)

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

func TestStep(t *testing.T) {
	for in, want := range map[string]time.Duration{"": 0, "second": time.Second, "1s": time.Second, "m": time.Minute, "minute": time.Minute} {
		if got, err := Step(in); err != nil || got != want {
			t.Errorf("Step(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := Step("hour"); err == nil || err.Error() != `"hour": second or minute` {
		t.Errorf("Step(hour): %v", err)
	}
}
