// Package when reads the times and durations an operator types — on the
// command line (--since, --until, --retention, …) and in the console's
// forms — so that both accept the same: "3d" works everywhere.
package when

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// layouts are the absolute forms, read in UTC.
var layouts = []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02 15:04",
	"2006-01-02T15:04", time.DateOnly}

// ErrTime says what a time may be.
var ErrTime = errors.New(`want RFC 3339, "2006-01-02 15:04:05" (UTC), a date, or a duration before now such as 30m or 3d`)

// Time reads a time: RFC 3339, "2006-01-02 15:04[:05]" or a date (UTC), or
// a duration before now ("30m", "3d"). "" is the zero time (no bound).
func Time(s string) (time.Time, error) { return TimeAt(s, time.Now()) }

// TimeAt is Time with durations counted back from now.
func TimeAt(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range layouts {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t.UTC(), nil
		}
	}
	if d, err := Duration(s); err == nil {
		return now.Add(-d).UTC(), nil
	}
	return time.Time{}, ErrTime
}

// Duration reads a non-negative duration: Go's form ("90s", "72h") or whole
// days ("3d").
func Duration(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days < 0 {
			return 0, fmt.Errorf("bad duration %q", s)
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("bad duration %q (use e.g. 72h or 3d)", s)
	}
	return d, nil
}

// Human writes a duration as people read it: 350ms, 42s, 12m05s, 3h04m,
// and from a day on in days and hours (33d 23h), never 815h58m.
func Human(d time.Duration) string {
	if d < 0 {
		return "-" + Human(-d)
	}
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	case d < time.Hour:
		d = d.Round(time.Second)
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 24*time.Hour:
		d = d.Round(time.Minute)
		if d >= 24*time.Hour {
			return "1d 0h"
		}
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	d = d.Round(time.Hour)
	return fmt.Sprintf("%dd %dh", int(d.Hours())/24, int(d.Hours())%24)
}
