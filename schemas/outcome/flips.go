package outcome

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/ste-utility/ste/schemas"
)

// A backtest of a tolerance asks which trades it would have matched: the
// trades MISMATCHED in A and MATCHED in B (a CLS stands), and the reverse,
// counted for each participant that received the trade's last status (its
// Broker, InvMgr and Custodians), by the criteria the mismatched side failed.

// ParticipantFlips counts one participant's flipped trades. ByCriterion
// counts a trade under each criterion its mismatched side failed, so its
// counts may add up to more than the trades.
type ParticipantFlips struct {
	Participant  string           `json:"participant"`
	ToMatched    int              `json:"to_matched"`    // MISMATCHED in A, MATCHED in B
	ToMismatched int              `json:"to_mismatched"` // MATCHED in A, MISMATCHED in B
	ByCriterion  []CriterionFlips `json:"by_criterion"`
	byN          map[int]*CriterionFlips
}

// CriterionFlips counts the flips of one criterion.
type CriterionFlips struct {
	Criterion    int `json:"criterion"`
	ToMatched    int `json:"to_matched"`
	ToMismatched int `json:"to_mismatched"`
}

func matchedSide(t *Trade) bool { return t != nil && t.CLS != "" }
func mismatchedSide(t *Trade) bool {
	return t != nil && t.CLS == "" && t.Status == schemas.Mismatched.String()
}

// flips counts the differing trades that flip, sorted by participant.
func flips(ts []TradeDiff) []ParticipantFlips {
	by := map[string]*ParticipantFlips{}
	for _, td := range ts {
		var toMatched bool
		var failed *Trade
		switch {
		case mismatchedSide(td.A) && matchedSide(td.B):
			toMatched, failed = true, td.A
		case matchedSide(td.A) && mismatchedSide(td.B):
			failed = td.B
		default:
			continue
		}
		parties := slices.Clone(td.A.Parties)
		for _, p := range td.B.Parties {
			if !slices.Contains(parties, p) {
				parties = append(parties, p)
			}
		}
		for _, p := range parties {
			f := by[p]
			if f == nil {
				f = &ParticipantFlips{Participant: p, byN: map[int]*CriterionFlips{}}
				by[p] = f
			}
			if toMatched {
				f.ToMatched++
			} else {
				f.ToMismatched++
			}
			for _, n := range failed.Criteria {
				c := f.byN[n]
				if c == nil {
					c = &CriterionFlips{Criterion: n}
					f.byN[n] = c
				}
				if toMatched {
					c.ToMatched++
				} else {
					c.ToMismatched++
				}
			}
		}
	}
	out := make([]ParticipantFlips, 0, len(by))
	for _, f := range by {
		for _, c := range f.byN {
			f.ByCriterion = append(f.ByCriterion, *c)
		}
		slices.SortFunc(f.ByCriterion, func(a, b CriterionFlips) int { return a.Criterion - b.Criterion })
		f.byN = nil
		out = append(out, *f)
	}
	slices.SortFunc(out, func(a, b ParticipantFlips) int { return strings.Compare(a.Participant, b.Participant) })
	return out
}

// FlipsTable writes the flips, one participant a row: how many of its trades
// went from MISMATCHED (in A) to MATCHED (in B) and back, and by which
// criteria ("15: 12→M" is twelve trades mismatched on 15 in A and matched in
// B; "7: 1→X" one matched in A, mismatched on 7 in B). Nothing is written
// when no trade flips.
func (d *Diff) FlipsTable(w io.Writer) error {
	if len(d.Flips) == 0 {
		return nil
	}
	fmt.Fprintf(w, "trades flipping between MISMATCHED and MATCHED, per participant (→M: mismatched in %s, matched in %s; →X: the reverse):\n", d.names[0], d.names[1])
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  participant\t→M\t→X\tby criterion")
	for _, f := range d.Flips {
		var cs []string
		for _, c := range f.ByCriterion {
			var parts []string
			if c.ToMatched > 0 {
				parts = append(parts, fmt.Sprintf("%d→M", c.ToMatched))
			}
			if c.ToMismatched > 0 {
				parts = append(parts, fmt.Sprintf("%d→X", c.ToMismatched))
			}
			cs = append(cs, fmt.Sprintf("%d: %s", c.Criterion, strings.Join(parts, " ")))
		}
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%s\n", f.Participant, f.ToMatched, f.ToMismatched, strings.Join(cs, ", "))
	}
	return tw.Flush()
}
