// Package date is the calendar date of the wire contract: YYYY-MM-DD, no time
// zone, no time of day. A Date is a day count so that comparisons, weekdays and
// map keys are integer operations on the hot path.
package date

import (
	"errors"
	"time"
)

// Date counts days since 1970-01-01 (the Unix epoch day 0).
type Date int32

// ErrFormat is returned by Parse for anything that is not a real YYYY-MM-DD date.
var ErrFormat = errors.New("not a YYYY-MM-DD date")

// Parse reads exactly YYYY-MM-DD and rejects impossible days (2026-02-30).
func Parse(s string) (Date, error) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, ErrFormat
	}
	y, ok1 := digits(s[0:4])
	m, ok2 := digits(s[5:7])
	d, ok3 := digits(s[8:10])
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, ErrFormat
	}
	return Of(y, m, d), nil
}

// MustParse is Parse for literals in tests and tables; it panics on bad input.
func MustParse(s string) Date {
	d, err := Parse(s)
	if err != nil {
		panic(s + ": " + err.Error())
	}
	return d
}

// Of builds a Date from a proleptic Gregorian year, month (1–12) and day.
func Of(y, m, d int) Date {
	// Days-from-civil, after Howard Hinnant's algorithm: exact and branch-light.
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return Date(era*146097 + doe - 719468)
}

// FromTime is the UTC calendar day of t.
func FromTime(t time.Time) Date {
	y, m, d := t.UTC().Date()
	return Of(y, int(m), d)
}

// Civil returns year, month (1–12) and day of d.
func (d Date) Civil() (y, m, day int) {
	z := int(d) + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era = (z - 146096) / 146097
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	day = doy - (153*mp+2)/5 + 1
	if mp < 10 {
		m = mp + 3
	} else {
		m = mp - 9
	}
	if m <= 2 {
		y++
	}
	return y, m, day
}

// Weekday of d; 1970-01-01 was a Thursday.
func (d Date) Weekday() time.Weekday {
	w := (int(d) + 4) % 7
	if w < 0 {
		w += 7
	}
	return time.Weekday(w)
}

// IsWeekend reports Saturday or Sunday.
func (d Date) IsWeekend() bool {
	w := d.Weekday()
	return w == time.Saturday || w == time.Sunday
}

// AddDays moves d by n calendar days.
func (d Date) AddDays(n int) Date { return d + Date(n) }

// Time is midnight UTC of d.
func (d Date) Time() time.Time { return time.Unix(int64(d)*86400, 0).UTC() }

// String writes YYYY-MM-DD.
func (d Date) String() string { return string(d.Append(make([]byte, 0, 10))) }

// Append writes YYYY-MM-DD to b.
func (d Date) Append(b []byte) []byte {
	y, m, day := d.Civil()
	return append(b,
		byte('0'+y/1000%10), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-',
		byte('0'+m/10), byte('0'+m%10), '-',
		byte('0'+day/10), byte('0'+day%10))
}

func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
