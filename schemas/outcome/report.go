package outcome

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// label is a kind's name in the human summary.
func (d *Diff) label(k Kind) string {
	switch k {
	case OnlyInA:
		return "only in " + d.names[0]
	case OnlyInB:
		return "only in " + d.names[1]
	case StatusChanged:
		return "status changed"
	case CriteriaChanged:
		return "criteria changed"
	case ToleranceChanged:
		return "tolerance criteria changed"
	case CLSChanged:
		return "CLS content changed"
	case StandingChanged:
		return "standing outputs changed"
	}
	return string(k)
}

// String is the one-line human summary: the counts of each side, and for
// each kind of output that differs, how.
func (d *Diff) String() string {
	s := d.Summary
	var parts []string
	t := s.Trades
	if t.Differ() == 0 {
		parts = append(parts, fmt.Sprintf("%d trades (%d matched, %d mismatched)", t.A.Trades, t.A.Matched, t.A.Mismatched))
	} else {
		var kinds []string
		if t.Same > 0 {
			kinds = append(kinds, fmt.Sprintf("%d same", t.Same))
		}
		for _, k := range Kinds {
			if n := t.Changed[k]; n > 0 {
				kinds = append(kinds, fmt.Sprintf("%d %s", n, d.label(k)))
			}
		}
		parts = append(parts, fmt.Sprintf("trades %d vs %d (%s)", t.A.Trades, t.B.Trades, strings.Join(kinds, ", ")))
	}
	for _, x := range []struct {
		name string
		t    Tally
	}{{"ACKs", s.ACKs}, {"NACKs", s.NACKs}, {"exceptions", s.Exceptions}} {
		if x.t.Missing+x.t.Extra == 0 {
			parts = append(parts, fmt.Sprintf("%d %s", x.t.A, x.name))
			continue
		}
		var how []string
		if x.t.Missing > 0 {
			how = append(how, fmt.Sprintf("%d missing from %s", x.t.Missing, d.names[1]))
		}
		if x.t.Extra > 0 {
			how = append(how, fmt.Sprintf("%d extra in %s", x.t.Extra, d.names[1]))
		}
		parts = append(parts, fmt.Sprintf("%s %d vs %d (%s)", x.name, x.t.A, x.t.B, strings.Join(how, ", ")))
	}
	if c := s.Conflicts; c.A+c.B > 0 {
		parts = append(parts, fmt.Sprintf("MsgIds with two contents: %d in %s, %d in %s", c.A, d.names[0], c.B, d.names[1]))
	}
	head := "outcomes differ: "
	if d.Equal() {
		head = "same outcome: "
	}
	return head + strings.Join(parts, "; ")
}

// Lines describe every difference, one line each: MsgIds with two
// contents, then trades, ACKs, NACKs and exceptions, each sorted.
func (d *Diff) Lines() []string {
	a, b := d.names[0], d.names[1]
	var out []string
	for i, ids := range [][]string{d.Conflicts.A, d.Conflicts.B} {
		for _, id := range ids {
			out = append(out, fmt.Sprintf("MsgId %s has two contents in %s", id, d.names[i]))
		}
	}
	for _, t := range d.Trades {
		var line string
		switch t.Kind {
		case OnlyInA:
			line = fmt.Sprintf("only in %s: %s", a, t.A)
		case OnlyInB:
			line = fmt.Sprintf("only in %s: %s", b, t.B)
		case StatusChanged, CriteriaChanged, ToleranceChanged:
			line = fmt.Sprintf("%s: %s %s, %s %s", d.label(t.Kind), a, t.A, b, t.B)
		case CLSChanged:
			ea, eb := excerpts(t.A.CLS, t.B.CLS)
			line = fmt.Sprintf("CLS content changed: %s %s, %s %s", a, ea, b, eb)
		case StandingChanged:
			line = "standing outputs changed: " + standingDiff(t.A.Standing, t.B.Standing, a, b)
		}
		out = append(out, "trade "+t.TradeKey+": "+line)
	}
	sides := func(what string, missing, extra []string) {
		for _, m := range missing {
			out = append(out, fmt.Sprintf("%s %s missing from %s", what, m, b))
		}
		for _, e := range extra {
			out = append(out, fmt.Sprintf("%s %s extra in %s", what, e, b))
		}
	}
	sides("ACK", d.ACKs.Missing, d.ACKs.Extra)
	sides("NACK", strs(d.NACKs.Missing), strs(d.NACKs.Extra))
	sides("exception", strs(d.Exceptions.Missing), strs(d.Exceptions.Extra))
	return out
}

// Report is the summary and the first n differences.
func (d *Diff) Report(n int) string {
	lines := d.Lines()
	var sb strings.Builder
	sb.WriteString(d.String())
	for i, l := range lines {
		if i == n {
			fmt.Fprintf(&sb, "\n  … and %d more", len(lines)-n)
			break
		}
		sb.WriteString("\n  " + l)
	}
	return sb.String()
}

func strs[T fmt.Stringer](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = x.String()
	}
	return out
}

func (t *Trade) String() string {
	s := t.Status
	if len(t.Criteria) > 0 {
		s += fmt.Sprint(t.Criteria)
	}
	if len(t.Tolerances) > 0 {
		s += fmt.Sprintf(" within tolerance%v", t.Tolerances)
	}
	if t.CLS != "" {
		s += " with CLS"
	}
	if len(t.Standing) > 0 {
		keys := slices.Sorted(maps.Keys(t.Standing))
		s = strings.TrimSpace(s + " standing " + strings.Join(keys, ", "))
	}
	return s
}

func (e RejectionCount) String() string {
	s := fmt.Sprintf("(%s, %s, %s)", quoteEmpty(e.Sender), quoteEmpty(e.MsgId), e.Reason)
	if e.Count > 1 {
		s += fmt.Sprintf(" ×%d", e.Count)
	}
	return s
}

func quoteEmpty(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// excerpts show two texts around their first difference.
func excerpts(a, b string) (string, string) {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	cut := func(s string) string {
		from, to := max(0, i-40), min(len(s), i+40)
		out := s[from:to]
		if from > 0 {
			out = "…" + out
		}
		if to < len(s) {
			out += "…"
		}
		if s == "" {
			return "(none)"
		}
		return out
	}
	return cut(a), cut(b)
}

// standingDiff names the standing outputs that differ, the first one's
// bodies in excerpt.
func standingDiff(x, y map[string]string, a, b string) string {
	var keys []string
	for k := range x {
		if x[k] != y[k] {
			keys = append(keys, k)
		}
	}
	for k := range y {
		if _, ok := x[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	if len(keys) == 0 {
		return ""
	}
	ea, eb := excerpts(x[keys[0]], y[keys[0]])
	return fmt.Sprintf("%s (%s %s, %s %s)", strings.Join(keys, ", "), a, ea, b, eb)
}
