package console

import (
	"crypto/subtle"
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ste-utility/ste/analytics/report"
	"github.com/ste-utility/ste/when"
)

func sameSecret(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// funcs format numbers, times and sparklines for the templates.
var funcs = template.FuncMap{
	"num":        num,
	"rate":       func(v float64) string { return rateText(v) },
	"dur":        durText,
	"pct":        func(v float64) string { return strconv.FormatFloat(100*v, 'f', 0, 64) + "%" },
	"when":       func(t time.Time) string { return whenText(t) },
	"ago":        agoText,
	"spark":      spark,
	"since":      func(a, b time.Time) string { return b.Sub(a).Round(time.Microsecond).String() },
	"ms":         func(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 3, 64) + " ms" },
	"join":       strings.Join,
	"lower":      strings.ToLower,
	"total":      func(j report.Journey) time.Duration { return j.Total() },
	"clock":      func(t time.Time) string { return t.UTC().Format("15:04:05.000") },
	"add":        func(a, b int) int { return a + b },
	"parts":      parts,
	"left":       leftText,
	"human":      when.Human,
	"atRiskRead": func() int { return atRiskRead },
	// short is a MatchDigest's first 16 hex digits (the full one in a title).
	"short": func(d string) string {
		if len(d) > 16 {
			return d[:16] + "…"
		}
		return d
	},
}

// parts writes partition numbers as ranges: 0-3,6.
func parts(ps []int32) string {
	if len(ps) == 0 {
		return "none"
	}
	var b strings.Builder
	for i := 0; i < len(ps); {
		j := i
		for j+1 < len(ps) && ps[j+1] == ps[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if j > i {
			fmt.Fprintf(&b, "%d-%d", ps[i], ps[j])
		} else {
			fmt.Fprintf(&b, "%d", ps[i])
		}
		i = j + 1
	}
	return b.String()
}

// num writes a count with thousands separators.
func num(x any) string {
	var v float64
	switch n := x.(type) {
	case float64:
		v = n
	case int:
		v = float64(n)
	case int64:
		v = float64(n)
	case uint64:
		v = float64(n)
	default:
		return fmt.Sprint(x)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	neg := v < 0
	s := strconv.FormatFloat(math.Abs(math.Round(v)), 'f', 0, 64)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func rateText(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v < 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return num(v)
}

// durText writes seconds as µs, ms or s; nil is "—" (nothing observed).
func durText(v *float64) string {
	if v == nil {
		return "—"
	}
	switch s := *v; {
	case s < 1e-3:
		return strconv.FormatFloat(s*1e6, 'f', 0, 64) + " µs"
	case s < 1:
		return strconv.FormatFloat(s*1e3, 'f', 1, 64) + " ms"
	default:
		return strconv.FormatFloat(s, 'f', 2, 64) + " s"
	}
}

func whenText(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05")
}

func agoText(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	d := time.Since(t)
	switch {
	case d < 2*time.Second:
		return "just now"
	case d < time.Minute:
		return fmt.Sprintf("%.0fs ago", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%.0fm ago", d.Minutes())
	}
	return when.Human(d) + " ago"
}

// spark draws a series as a small inline SVG line, scaled to its maximum.
func spark(vs []float64) template.HTML {
	const w, h = 120.0, 24.0
	if len(vs) < 2 {
		return template.HTML(fmt.Sprintf(`<svg class="spark" width="%g" height="%g" aria-hidden="true"></svg>`, w, h))
	}
	hi := 0.0
	for _, v := range vs {
		hi = math.Max(hi, v)
	}
	var pts strings.Builder
	for i, v := range vs {
		y := h - 2
		if hi > 0 {
			y = h - 2 - (h-4)*v/hi
		}
		fmt.Fprintf(&pts, "%.1f,%.1f ", w*float64(i)/float64(len(vs)-1), y)
	}
	return template.HTML(fmt.Sprintf(`<svg class="spark" width="%g" height="%g" viewBox="0 0 %g %g" aria-hidden="true">`+
		`<polyline points="%s"/></svg>`, w, h, w, h, strings.TrimSpace(pts.String())))
}
