package xmltext

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// Byte-level fuzzing rarely assembles deep, valid structure with entities,
// non-ASCII names and CDATA all at once. This generator builds such
// documents from XML fragments, lightly mutates some of them, and runs every
// result through the same differential oracle as FuzzParseDifferential.

type gen struct{ r *rand.Rand }

func (g *gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g *gen) name() string {
	return g.pick("a", "b", "Msg", "x.y-z", "_u", "p:q", ":c", "a:b:c", "é", "中文", "\U00010000", "a\u0300", "n\u00B7m", "\u2070x")
}

func (g *gen) space() string { return g.pick("", " ", "\n", "\t", "\r\n", "  ") }

func (g *gen) chars() string {
	var b strings.Builder
	for range g.r.IntN(4) {
		b.WriteString(g.pick("t", "100.5", " ", "&lt;", "&gt;", "&amp;", "&apos;", "&quot;", "&#65;", "&#x20AC;",
			"&#x1F600;", "\r\n", "\r", "\t", "\n", "é", "]", "]]", "'", `"`, ">", "&#9;", "&#13;", "\uFEFF",
			"&#xD800;", "]]>", "&nope;", "\x01", "\uFFFE", "\xff"))
	}
	return b.String()
}

func (g *gen) misc() string {
	switch g.r.IntN(6) {
	case 0:
		return "<!--" + g.pick("", " c ", "-x-", "\x01", "é") + "-->"
	case 1:
		return "<?" + g.pick("pi", "xml-s", "XmL", "t") + g.pick("", " d", "?", "  x?y ", " \x01", " \xff") + "?>"
	default:
		return g.space()
	}
}

func (g *gen) element(depth int) string {
	n := g.name()
	var b strings.Builder
	b.WriteString("<" + n)
	for i := range g.r.IntN(3) {
		an := g.name()
		if i > 0 && g.r.IntN(8) == 0 {
			an = n // sometimes a duplicate of something
		}
		q := g.pick(`"`, `'`)
		v := strings.ReplaceAll(g.chars(), q, "")
		v = strings.ReplaceAll(v, "<", "")
		b.WriteString(g.pick(" ", "\n", "\t ") + an + g.pick("=", " = ") + q + v + q)
	}
	b.WriteString(g.space())
	if depth > 3 || g.r.IntN(4) == 0 {
		b.WriteString("/>")
		return b.String()
	}
	b.WriteString(">")
	for range g.r.IntN(4) {
		switch g.r.IntN(5) {
		case 0:
			b.WriteString(g.element(depth + 1))
		case 1:
			b.WriteString("<![CDATA[" + g.pick("", "x", "<&>", "]", "\r\n", "]]]") + "]]>")
		case 2:
			b.WriteString(g.misc())
		default:
			b.WriteString(strings.ReplaceAll(g.chars(), "<", ""))
		}
	}
	b.WriteString("</" + n + g.space() + ">")
	return b.String()
}

func (g *gen) document() string {
	var b strings.Builder
	if g.r.IntN(5) == 0 {
		b.WriteString("\uFEFF")
	}
	if g.r.IntN(3) == 0 {
		b.WriteString(g.pick(`<?xml version="1.0"?>`, `<?xml version='1.0' encoding="utf-8" standalone="no"?>`,
			`<?xml encoding="UTF-8"?>`, `<?xml version="1.0" encoding="latin1"?>`, `<?xml?>`, `<?xml version = "1.0" ?>`))
	}
	for range g.r.IntN(3) {
		b.WriteString(g.misc())
	}
	if g.r.IntN(10) == 0 {
		b.WriteString("<!DOCTYPE a>")
	}
	b.WriteString(g.element(0))
	for range g.r.IntN(3) {
		b.WriteString(g.misc())
	}
	if g.r.IntN(10) == 0 {
		b.WriteString(g.pick("x", "<b/>", "&amp;", "<![CDATA[]]>"))
	}
	return b.String()
}

func (g *gen) mutate(s string) string {
	if len(s) == 0 {
		return s
	}
	i := g.r.IntN(len(s))
	switch g.r.IntN(4) {
	case 0:
		return s[:i] + s[i+1:]
	case 1:
		return s[:i] + g.pick("<", ">", "&", ";", "/", "!", "?", "-", "[", "]", "'", `"`, " ", "=", "x", "é", ":") + s[i:]
	case 2:
		j := i + g.r.IntN(len(s)-i)
		return s[:j] + s[i:j] + s[j:]
	default:
		return s[:i]
	}
}

func TestDifferentialGenerated(t *testing.T) {
	n, seed := 30000, uint64(1)
	if testing.Short() {
		n = 3000
	}
	// XMLTEXT_GEN=count,seed runs a longer exploration.
	if v := os.Getenv("XMLTEXT_GEN"); v != "" {
		if _, err := fmt.Sscanf(v, "%d,%d", &n, &seed); err != nil {
			t.Fatal(err)
		}
	}
	g := gen{rand.New(rand.NewPCG(seed, 2))}
	var accepted int
	seen := map[string]int{}
	for range n {
		s := g.document()
		if g.r.IntN(3) == 0 {
			s = g.mutate(s)
		}
		var d Document
		if d.Parse([]byte(s)) == nil {
			accepted++
		}
		if why := diffCheck(t, []byte(s)); why != "" {
			seen[why]++
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("%d of %d generated documents well-formed; known differences hit: %v", accepted, n, seen)
}
