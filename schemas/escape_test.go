package schemas

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// The escapers append clean runs whole; they must write what escaping one
// byte (or rune) at a time writes, the plain definitions kept here.
func TestEscapersMatchOneAtATime(t *testing.T) {
	oneXML := func(s string) string {
		var b []byte
		for i := 0; i < len(s); i++ {
			switch c := s[i]; c {
			case '&':
				b = append(b, "&amp;"...)
			case '<':
				b = append(b, "&lt;"...)
			case '>':
				b = append(b, "&gt;"...)
			case '"':
				b = append(b, "&quot;"...)
			case '\n':
				b = append(b, "&#10;"...)
			case '\r':
				b = append(b, "&#13;"...)
			case '\t':
				b = append(b, "&#9;"...)
			default:
				b = append(b, c)
			}
		}
		return string(b)
	}
	oneJSON := func(s string) string {
		const hexdig = "0123456789abcdef"
		b := []byte{'"'}
		for i := 0; i < len(s); {
			c := s[i]
			if c < utf8.RuneSelf {
				switch {
				case c == '"' || c == '\\':
					b = append(b, '\\', c)
				case c < 0x20:
					b = append(b, '\\', 'u', '0', '0', hexdig[c>>4], hexdig[c&0xf])
				default:
					b = append(b, c)
				}
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				b = append(b, `\ufffd`...)
			case r == '\u2028' || r == '\u2029':
				b = append(b, '\\', 'u', '2', '0', '2', hexdig[r&0xf])
			default:
				b = append(b, s[i:i+size]...)
			}
			i += size
		}
		return string(append(b, '"'))
	}
	alphabet := []string{"a", "Z", "9", " ", "&", "<", ">", "\"", "'", "\\", "\n", "\r", "\t", "\x00", "\x1f", "é", "€",
		"\u2028", "\u2029", "\xff", "\xe2\x80", "𝄞"}
	rnd := rand.New(rand.NewPCG(7, 8))
	cases := []string{"", "plain", "&", "a&b<c>d\"e", "\xff", "\u2028end", "tail\\"}
	for range 20000 {
		var s string
		for n := rnd.IntN(12); n > 0; n-- {
			s += alphabet[rnd.IntN(len(alphabet))]
		}
		cases = append(cases, s)
	}
	for _, s := range cases {
		if got, want := string(escape([]byte("<"), s)), "<"+oneXML(s); got != want {
			t.Fatalf("escape(%q) = %q, want %q", s, got, want)
		}
		if got, want := string(appendJSONString([]byte("x"), s)), "x"+oneJSON(s); got != want {
			t.Fatalf("appendJSONString(%q) = %q, want %q", s, got, want)
		}
	}
}
