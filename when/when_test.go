package when_test

import (
	"errors"
	"testing"
	"time"

	"github.com/ste-utility/ste/when"
)

func TestTime(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"":                          {},
		"2026-03-01":                time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC),
		"2026-03-01 09:30":          time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC),
		"2026-03-01T09:30":          time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC),
		"2026-03-01 09:30:15":       time.Date(2026, 3, 1, 9, 30, 15, 0, time.UTC),
		"2026-03-01T09:30:15+01:00": time.Date(2026, 3, 1, 8, 30, 15, 0, time.UTC),
		"30m":                       now.Add(-30 * time.Minute),
		" 3d ":                      now.Add(-72 * time.Hour),
	} {
		got, err := when.TimeAt(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"yesterday", "-5m", "3x", "2026-13-01"} {
		if _, err := when.TimeAt(in, now); !errors.Is(err, when.ErrTime) {
			t.Errorf("%q: %v, want ErrTime", in, err)
		}
	}
}

func TestDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{"0": 0, "90s": 90 * time.Second, "72h": 72 * time.Hour, "3d": 72 * time.Hour, "0d": 0} {
		if got, err := when.Duration(in); err != nil || got != want {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1h", "-2d", "1.5d", "d", "soon"} {
		if _, err := when.Duration(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

// TestHuman: durations as people read them, days from a day on (issue 51:
// "past by 815h58m").
func TestHuman(t *testing.T) {
	for d, want := range map[time.Duration]string{
		350 * time.Millisecond:                         "350ms",
		4200 * time.Millisecond:                        "4.2s",
		12*time.Minute + 5*time.Second:                 "12m05s",
		3*time.Hour + 4*time.Minute:                    "3h04m",
		23*time.Hour + 59*time.Minute + 50*time.Second: "1d 0h",
		815*time.Hour + 58*time.Minute:                 "34d 0h",
		49 * time.Hour:                                 "2d 1h",
		-(26 * time.Hour):                              "-1d 2h",
	} {
		if got := when.Human(d); got != want {
			t.Errorf("Human(%v) = %q, want %q", d, got, want)
		}
	}
}
