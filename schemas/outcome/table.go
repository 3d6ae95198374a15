package outcome

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Table writes the summary as a table: each side's trades by outcome, the
// trades that are the same and those that changed, by kind, then the
// ACKs, NACKs and exceptions of each side with what B lacks and adds.
func (d *Diff) Table(w io.Writer, expiries bool) error {
	s := d.Summary
	t := s.Trades
	// Labels are padded to one width, so that the right-aligned table
	// leaves them flush left.
	var rows [][]any
	row := func(label string, cells ...any) { rows = append(rows, append([]any{label}, cells...)) }
	row("", d.names[0], d.names[1], "")
	row("trades compared", t.A.Trades, t.B.Trades, "")
	row("  matched (a CLS stands)", t.A.Matched, t.B.Matched, "")
	row("  mismatched", t.A.Mismatched, t.B.Mismatched, "")
	if expiries {
		row("  expired", t.A.Expired, t.B.Expired, "")
	}
	row("trades the same", t.Same, "", "")
	row("trades changed", t.Differ(), "", "")
	for _, k := range Kinds {
		if n, ok := t.Changed[k]; ok {
			row("  "+d.label(k), n, "", "")
		}
	}
	delta := func(x Tally) string {
		if x.Missing+x.Extra == 0 {
			return ""
		}
		return fmt.Sprintf("%d missing from %s, %d extra", x.Missing, d.names[1], x.Extra)
	}
	row("ACKs", s.ACKs.A, s.ACKs.B, delta(s.ACKs))
	row("NACKs", s.NACKs.A, s.NACKs.B, delta(s.NACKs))
	row("exceptions", s.Exceptions.A, s.Exceptions.B, delta(s.Exceptions))
	row("MsgIds with two contents", s.Conflicts.A, s.Conflicts.B, "")
	width := 0
	for _, r := range rows {
		width = max(width, len(r[0].(string)))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, r := range rows {
		// The last cell is trailing text: left as it is, not aligned.
		fmt.Fprintf(tw, "%-*s\t%v\t%v\t %v\n", width, r[0], r[1], r[2], r[3])
	}
	return tw.Flush()
}
