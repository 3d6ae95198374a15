// Package termsafe makes text from outside the utility safe to write to a
// terminal. A rejected message, an exception record or a registry entry
// can carry bytes a terminal acts on instead of showing: ESC sequences
// (retitle the window, clear the screen, rewrite what was printed), a
// carriage return that overprints a line, C1 controls such as U+009B (CSI
// on its own) and bidirectional overrides (U+202E shows "gpj.exe" as
// "exe.jpg"). Every command that prints such text writes it through
// Escape, so what an operator reads is what the record holds.
package termsafe

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Escape returns s with each character a terminal would act on written as
// \uXXXX (\xNN for a byte that is not UTF-8): C0 controls other than
// newline and tab, DEL, C1 controls, and the bidirectional and line
// separator formatting characters. The \u form keeps JSON output valid
// JSON meaning the same text; anything else passes unchanged.
func Escape(s string) string {
	i := strings.IndexFunc(s, unsafe)
	if i < 0 && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case unsafe(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
	return b.String()
}

func unsafe(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
		return true // bidi marks, embeddings, overrides and isolates
	case r == 0x2028 || r == 0x2029 || r == utf8.RuneError:
		return true
	}
	return false
}

// Writer writes everything through Escape. Each Write is escaped on its
// own: a character split across two writes is shown as its bytes.
func Writer(w io.Writer) io.Writer { return writer{w} }

type writer struct{ w io.Writer }

func (w writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.w, Escape(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
