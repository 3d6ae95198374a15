package date

import (
	"testing"
	"time"
)

func TestParseAgainstTime(t *testing.T) {
	// Every day of 1900–2100 round-trips and agrees with the time package.
	start := time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)
	for tm := start; tm.Year() <= 2100; tm = tm.AddDate(0, 0, 1) {
		s := tm.Format("2006-01-02")
		d, err := Parse(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if got := d.String(); got != s {
			t.Fatalf("round trip %s -> %s", s, got)
		}
		if d.Weekday() != tm.Weekday() {
			t.Fatalf("%s weekday %v, want %v", s, d.Weekday(), tm.Weekday())
		}
		if !d.Time().Equal(tm) || FromTime(tm) != d {
			t.Fatalf("%s time mismatch", s)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, s := range []string{"", "2026-1-01", "2026-02-30", "2025-02-29", "2026-13-01",
		"2026-00-10", "2026-01-00", "20260101", "2026/01/01", "2026-01-01T", " 2026-01-01", "+026-01-01"} {
		if _, err := Parse(s); err == nil {
			t.Errorf("Parse(%q) accepted", s)
		}
	}
	if _, err := Parse("2024-02-29"); err != nil {
		t.Errorf("leap day rejected: %v", err)
	}
}
