package refdata

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // cutoffs name IANA zones; a host without /usr/share/zoneinfo must still load them

	"github.com/ste-utility/ste/schemas/date"
)

// MarketsFile is the optional reference data file of market cutoffs
// (docs/spec/messages.md §8): used for timeliness only, never for validation or
// matching.
const MarketsFile = "markets.csv"

// NoMarket is the market of a trade without a NOE in force or whose NOE names
// a market that markets.csv does not list: its cutoff is DefaultCutoff.
const NoMarket = "-"

// Cutoff is one row of markets.csv: the local time on a trade's TradeDate by
// which its market expects it matched.
type Cutoff struct {
	MIC      string
	Timezone string // IANA name, as written
	Hour     int
	Minute   int
	loc      *time.Location
}

// At is the cutoff of a trade of this market with TradeDate d.
func (c Cutoff) At(d date.Date) time.Time {
	y, m, day := d.Civil()
	loc := c.loc
	if loc == nil {
		loc = time.UTC
	}
	return time.Date(y, time.Month(m), day, c.Hour, c.Minute, 0, 0, loc)
}

// Clock is the cutoff as written, HH:MM.
func (c Cutoff) Clock() string { return fmt.Sprintf("%02d:%02d", c.Hour, c.Minute) }

// DefaultCutoff is the cutoff of a trade of market NoMarket: 23:59 UTC of its
// TradeDate.
func DefaultCutoff(d date.Date) time.Time {
	return d.Time().Add(23*time.Hour + 59*time.Minute)
}

// ValidMIC is the ISO 10383 shape the NOE's Market field has: 4 of A-Z 0-9.
func ValidMIC(s string) bool { return len(s) == 4 && alnumUpper(s) }

// Cutoff finds a market's row.
func (s *Set) Cutoff(mic string) (Cutoff, bool) {
	c, ok := s.cutoffs[mic]
	return c, ok
}

// CutoffOf is the cutoff of a trade of market mic (a NOE's Market, "" or
// NoMarket for a trade without one) with TradeDate tradeDate (YYYY-MM-DD): the
// market it counts under (NoMarket when the file does not list mic) and the
// instant. A TradeDate that does not parse (matching holds only validated
// messages, so it does not happen) counts as NoMarket at the zero time.
func (s *Set) CutoffOf(mic, tradeDate string) (market string, at time.Time) {
	d, err := date.Parse(tradeDate)
	if err != nil {
		return NoMarket, time.Time{}
	}
	if s != nil {
		if c, ok := s.cutoffs[mic]; ok {
			return mic, c.At(d)
		}
	}
	return NoMarket, DefaultCutoff(d)
}

// PutCutoff upserts a market's cutoff; c must come from ParseCutoff (its
// zone resolved) or the zone is taken as UTC.
func (s *Set) PutCutoff(c Cutoff) { s.cutoffs[c.MIC] = c }

// Cutoffs lists the markets sorted by MIC.
func (s *Set) Cutoffs() []Cutoff {
	return sortedValues(s.cutoffs, func(a, b Cutoff) int { return strings.Compare(a.MIC, b.MIC) })
}

// ParseCutoff validates one row of markets.csv.
func ParseCutoff(mic, timezone, clock string) (Cutoff, error) {
	if !ValidMIC(mic) {
		return Cutoff{}, bad("mic", "%q is not a MIC (4 of A-Z 0-9)", mic)
	}
	// time.LoadLocation also accepts "" and "Local", which name no zone.
	if timezone == "" || timezone == "Local" || strings.HasPrefix(timezone, "/") || strings.Contains(timezone, "..") {
		return Cutoff{}, bad("timezone", "%q is not an IANA time zone", timezone)
	}
	loc, err := time.LoadLocation(timezone)
	if err != nil {
		return Cutoff{}, bad("timezone", "%q is not an IANA time zone", timezone)
	}
	h, m, ok := parseClock(clock)
	if !ok {
		return Cutoff{}, bad("cutoff", "bad cutoff %q (want HH:MM, 00:00 to 23:59)", clock)
	}
	return Cutoff{MIC: mic, Timezone: timezone, Hour: h, Minute: m, loc: loc}, nil
}

func parseClock(s string) (h, m int, ok bool) {
	if len(s) != 5 || s[2] != ':' || !digitsOnly(s[:2]) || !digitsOnly(s[3:]) {
		return 0, 0, false
	}
	h, _ = strconv.Atoi(s[:2])
	m, _ = strconv.Atoi(s[3:])
	return h, m, h < 24 && m < 60
}

var marketsTable = &table{
	kind: "market", file: MarketsFile, optional: true,
	cols: []string{"mic", "timezone", "cutoff"},
	rows: func(s *Set) [][]string {
		var out [][]string
		for _, c := range s.Cutoffs() {
			out = append(out, []string{c.MIC, c.Timezone, c.Clock()})
		}
		return out
	},
	parse: func(get getter) (string, func(*Set), error) {
		var vals [3]string
		for i, col := range []string{"mic", "timezone", "cutoff"} {
			v, err := field(get, col)
			if err != nil {
				return "", nil, err
			}
			vals[i] = v
		}
		c, err := ParseCutoff(vals[0], vals[1], vals[2])
		if err != nil {
			return "", nil, err
		}
		return c.MIC, func(s *Set) { s.PutCutoff(c) }, nil
	},
}

func init() { tables = append(tables, marketsTable) }

// generatedCutoffs are the cutoffs `ste refdata gen` writes for the
// generator's markets (docs/timeliness.md says where each comes from):
//   - XNYS, XNAS: the US T+1 affirmation deadline, 21:00 New York time on
//     trade date (SEC rule 15c6-2, DTCC's affirmation cutoff since 28 May 2024);
//   - XLON, XETR, XPAR: 23:00 local on trade date, the allocation and
//     confirmation target the UK and EU T+1 programmes set for October 2027,
//     applied now as the operating target;
//   - XSES, XHKG, XTKS, XASX settle T+2 and have no trade-date deadline: the end
//     of the trade date, local (23:59), is the utility's choice.
var generatedCutoffs = [][3]string{
	{"XASX", "Australia/Sydney", "23:59"},
	{"XETR", "Europe/Berlin", "23:00"},
	{"XHKG", "Asia/Hong_Kong", "23:59"},
	{"XLON", "Europe/London", "23:00"},
	{"XNAS", "America/New_York", "21:00"},
	{"XNYS", "America/New_York", "21:00"},
	{"XPAR", "Europe/Paris", "23:00"},
	{"XSES", "Asia/Singapore", "23:59"},
	{"XTKS", "Asia/Tokyo", "23:59"},
}

func putGeneratedCutoffs(s *Set) {
	for _, r := range generatedCutoffs {
		c, err := ParseCutoff(r[0], r[1], r[2])
		if err != nil {
			panic("refdata: generated cutoff " + r[0] + ": " + err.Error())
		}
		s.PutCutoff(c)
	}
}
