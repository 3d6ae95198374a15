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
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(label string, cells ...any) {
		fmt.Fprint(tw, label)
		for _, c := range cells {
			fmt.Fprintf(tw, "\t%v", c)
		}
		fmt.Fprint(tw, "\t\n")
	}
	left := func(label string) string { return fmt.Sprintf("%-26s", label) }
	row(left(""), d.names[0], d.names[1], "")
	row(left("trades compared"), t.A.Trades, t.B.Trades, "")
	row(left("  matched (a CLS stands)"), t.A.Matched, t.B.Matched, "")
	row(left("  mismatched"), t.A.Mismatched, t.B.Mismatched, "")
	if expiries {
		row(left("  expired"), t.A.Expired, t.B.Expired, "")
	}
	row(left("trades the same"), t.Same, "", "")
	row(left("trades changed"), t.Differ(), "", "")
	for _, k := range Kinds {
		row(left("  "+d.label(k)), t.Changed[k], "", "")
	}
	delta := func(x Tally) string {
		if x.Missing+x.Extra == 0 {
			return ""
		}
		return fmt.Sprintf("%d missing from %s, %d extra", x.Missing, d.names[1], x.Extra)
	}
	row(left("ACKs"), s.ACKs.A, s.ACKs.B, delta(s.ACKs))
	row(left("NACKs"), s.NACKs.A, s.NACKs.B, delta(s.NACKs))
	row(left("exceptions"), s.Exceptions.A, s.Exceptions.B, delta(s.Exceptions))
	row(left("MsgIds with two contents"), s.Conflicts.A, s.Conflicts.B, "")
	return tw.Flush()
}
