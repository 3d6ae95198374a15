package stexml

import (
	"errors"
	"math/big"
	"strings"
	"time"
)

// The values of docs/spec/adapters.md §3.3.

var errForm = errors.New("not representable")

// FIXDate is a FIX LocalMktDate YYYYMMDD as YYYY-MM-DD; an impossible date
// is written as it is (STE NACKs it SCHEMA), a value that is not 8 digits
// cannot be represented.
func FIXDate(s string) (string, error) {
	if len(s) != 8 || !digits(s) {
		return "", errForm
	}
	return s[:4] + "-" + s[4:6] + "-" + s[6:], nil
}

// ISODate checks the form YYYY-MM-DD (digits and dashes only; the date
// itself is STE's to judge) and returns it.
func ISODate(s string) (string, bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' || !digits(s[:4]+s[5:7]+s[8:]) {
		return "", false
	}
	return s, true
}

// ISODateTime reads the form YYYY-MM-DDThh:mm:ss, an optional fraction,
// an optional Z or ±hh:mm (adapters.md §5.3 P2) and returns it as STE writes
// every timestamp: UTC, exactly three fraction digits (extra ones
// truncated), Z. A value with no offset is taken as UTC. An impossible date
// is kept as written, with no conversion (STE NACKs it).
func ISODateTime(s string) (string, bool) {
	if len(s) < 19 || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return "", false
	}
	date, ok := ISODate(s[:10])
	if !ok || !digits(s[11:13]+s[14:16]+s[17:19]) {
		return "", false
	}
	rest := s[19:]
	frac := ""
	if strings.HasPrefix(rest, ".") {
		i := 1
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 1 {
			return "", false
		}
		frac, rest = rest[1:i], rest[i:]
	}
	frac = (frac + "000")[:3]
	offset := 0
	switch {
	case rest == "" || rest == "Z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':' && digits(rest[1:3]+rest[4:6]):
		offset = (int(rest[1]-'0')*10+int(rest[2]-'0'))*60 + int(rest[4]-'0')*10 + int(rest[5]-'0')
		if rest[0] == '-' {
			offset = -offset
		}
	default:
		return "", false
	}
	local := date + "T" + s[11:19] + "." + frac
	if offset == 0 {
		return local + "Z", true
	}
	t, err := time.Parse("2006-01-02T15:04:05.000", local)
	if err != nil {
		// An impossible date or time: written as given, without its offset;
		// STE judges it.
		return local + "Z", true
	}
	return t.Add(-time.Duration(offset)*time.Minute).Format("2006-01-02T15:04:05.000") + "Z", true
}

// FIXTimestamp reads a FIX UTCTimestamp YYYYMMDD-HH:MM:SS[.fff[fff[fff]]]
// as STE's timestamp (three fraction digits, truncated, Z).
func FIXTimestamp(s string) (string, error) {
	if len(s) < 17 || s[8] != '-' || s[11] != ':' || s[14] != ':' || !digits(s[:8]+s[9:11]+s[12:14]+s[15:17]) {
		return "", errForm
	}
	frac := ""
	if rest := s[17:]; rest != "" {
		if rest[0] != '.' || (len(rest) != 4 && len(rest) != 7 && len(rest) != 10) || !digits(rest[1:]) {
			return "", errForm
		}
		frac = rest[1:]
	}
	return s[:4] + "-" + s[4:6] + "-" + s[6:8] + "T" + s[9:17] + "." + (frac + "000")[:3] + "Z", nil
}

// Decimal is a decimal number in canonical form (§3.3): no '+', no
// exponent, no leading zeros but the one before '.', no trailing fraction
// zeros or '.', -0 as 0. false when s is not a decimal number (optional
// sign, digits with at most one '.', at least one digit).
func Decimal(s string) (string, bool) {
	neg := false
	switch {
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	case strings.HasPrefix(s, "-"):
		neg, s = true, s[1:]
	}
	ip, fp, hasDot := strings.Cut(s, ".")
	if ip == "" && fp == "" || !digits(ip) || !digits(fp) || hasDot && strings.Contains(fp, ".") {
		return "", false
	}
	ip = strings.TrimLeft(ip, "0")
	fp = strings.TrimRight(fp, "0")
	if ip == "" {
		ip = "0"
	}
	out := ip
	if fp != "" {
		out += "." + fp
	}
	if neg && out != "0" {
		out = "-" + out
	}
	return out, true
}

// Sum adds decimal numbers exactly and writes the sum in canonical form.
func Sum(vals ...string) (string, bool) {
	total := new(big.Rat)
	scale := 0
	for _, v := range vals {
		c, ok := Decimal(v)
		if !ok {
			return "", false
		}
		if _, fp, ok := strings.Cut(c, "."); ok {
			scale = max(scale, len(fp))
		}
		r, ok := new(big.Rat).SetString(c)
		if !ok {
			return "", false
		}
		total.Add(total, r)
	}
	out, _ := Decimal(total.FloatString(scale))
	return out, true
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
