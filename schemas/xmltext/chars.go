package xmltext

import "unicode/utf8"

// Byte classes. The scanner's inner loops index one of these tables per byte
// so that the common case (ASCII that needs no attention) costs one load and
// one compare; everything that needs a closer look is flagged non-zero.
const (
	cNameStart = 1 << iota // ASCII NameStartChar
	cNameChar              // ASCII NameChar (includes every NameStartChar)
	cSpace                 // XML S: space, \t, \r, \n
	cText                  // byte needs attention inside character data
	cAttr                  // byte needs attention inside an attribute value
)

var class = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		switch {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', b == '_', b == ':':
			t[c] |= cNameStart | cNameChar
		case '0' <= b && b <= '9', b == '-', b == '.':
			t[c] |= cNameChar
		}
		switch b {
		case ' ', '\t', '\r', '\n':
			t[c] |= cSpace
		}
		// Character data: stop at markup, references, CR (needs
		// normalisation), ']' (possible "]]>"), control characters and
		// non-ASCII (needs UTF-8 and Char validation).
		if b < 0x20 && b != '\t' && b != '\n' || b == '\r' || b == '<' || b == '&' || b == ']' || b >= 0x80 {
			t[c] |= cText
		}
		// Attribute values: additionally stop at both quote characters
		// and at \t and \n, which attribute-value normalisation rewrites.
		if b < 0x20 || b == '<' || b == '&' || b == '"' || b == '\'' || b >= 0x80 {
			t[c] |= cAttr
		}
	}
	return t
}()

func isSpace(c byte) bool { return class[c]&cSpace != 0 }

// isChar reports whether r is an XML 1.0 Char.
func isChar(r rune) bool {
	switch {
	case r < 0x20:
		return r == 0x9 || r == 0xA || r == 0xD
	case r <= 0xD7FF:
		return true
	case r < 0xE000:
		return false
	case r <= 0xFFFD:
		return true
	default:
		return r >= 0x10000 && r <= 0x10FFFF
	}
}

// isNameStartRune implements NameStartChar of XML 1.0 fifth edition. The
// fifth edition replaced the old Unicode-2.0 Appendix B tables with plain
// ranges; they are a superset of the old tables, so documents valid under any
// edition are accepted.
func isNameStartRune(r rune) bool {
	if r < utf8.RuneSelf {
		return class[r]&cNameStart != 0
	}
	switch {
	case r < 0xC0:
		return false
	case r <= 0xD6:
		return true
	case r == 0xD7:
		return false
	case r <= 0xF6:
		return true
	case r == 0xF7:
		return false
	case r <= 0x2FF:
		return true
	case r < 0x370:
		return false
	case r <= 0x37D:
		return true
	case r == 0x37E:
		return false
	case r <= 0x1FFF:
		return true
	case r < 0x200C:
		return false
	case r <= 0x200D:
		return true
	case r < 0x2070:
		return false
	case r <= 0x218F:
		return true
	case r < 0x2C00:
		return false
	case r <= 0x2FEF:
		return true
	case r < 0x3001:
		return false
	case r <= 0xD7FF:
		return true
	case r < 0xF900:
		return false
	case r <= 0xFDCF:
		return true
	case r < 0xFDF0:
		return false
	case r <= 0xFFFD:
		return true
	case r < 0x10000:
		return false
	default:
		return r <= 0xEFFFF
	}
}

// isNameRune implements NameChar of XML 1.0 fifth edition.
func isNameRune(r rune) bool {
	if r < utf8.RuneSelf {
		return class[r]&cNameChar != 0
	}
	return isNameStartRune(r) || r == 0xB7 || 0x300 <= r && r <= 0x36F || r == 0x203F || r == 0x2040
}

// IsName reports whether b matches the XML 1.0 (fifth edition) Name
// production. It is exported so that callers that build XML, and tests, use
// exactly the rule the scanner enforces.
func IsName(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	r, n := utf8.DecodeRune(b)
	if r == utf8.RuneError && n == 1 || !isNameStartRune(r) {
		return false
	}
	for b = b[n:]; len(b) > 0; b = b[n:] {
		r, n = utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 || !isNameRune(r) {
			return false
		}
	}
	return true
}
