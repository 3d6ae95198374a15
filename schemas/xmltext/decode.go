package xmltext

import "unicode/utf8"

// The functions here run only on input the scanner has already validated, so
// they decode without re-checking: a second validation would double the cost
// of the rare values that need decoding for no gain.

// appendText appends character data with references decoded and line ends
// normalised (\r\n and lone \r become \n, XML 1.0 §2.11).
func appendText(dst, raw []byte) []byte {
	last := 0
	for i := 0; i < len(raw); {
		switch raw[i] {
		case '&':
			dst = append(dst, raw[last:i]...)
			var w int
			dst, w = appendRef(dst, raw[i:])
			i += w
			last = i
		case '\r':
			dst = append(dst, raw[last:i]...)
			dst = append(dst, '\n')
			i++
			if i < len(raw) && raw[i] == '\n' {
				i++
			}
			last = i
		default:
			i++
		}
	}
	return append(dst, raw[last:]...)
}

// appendCR appends CDATA content, which is verbatim except for line ends.
func appendCR(dst, raw []byte) []byte {
	last := 0
	for i := 0; i < len(raw); {
		if raw[i] != '\r' {
			i++
			continue
		}
		dst = append(dst, raw[last:i]...)
		dst = append(dst, '\n')
		i++
		if i < len(raw) && raw[i] == '\n' {
			i++
		}
		last = i
	}
	return append(dst, raw[last:]...)
}

// appendAttrValue appends an attribute value normalised per XML 1.0 §3.3.3
// for CDATA-typed attributes (without a DTD every attribute is CDATA): line
// ends are normalised first, then each literal \t \n becomes a space, while
// characters produced by references are kept as they are.
func appendAttrValue(dst, raw []byte) []byte {
	last := 0
	for i := 0; i < len(raw); {
		switch raw[i] {
		case '&':
			dst = append(dst, raw[last:i]...)
			var w int
			dst, w = appendRef(dst, raw[i:])
			i += w
			last = i
		case '\r':
			dst = append(dst, raw[last:i]...)
			dst = append(dst, ' ')
			i++
			if i < len(raw) && raw[i] == '\n' {
				i++
			}
			last = i
		case '\t', '\n':
			dst = append(dst, raw[last:i]...)
			dst = append(dst, ' ')
			i++
			last = i
		default:
			i++
		}
	}
	return append(dst, raw[last:]...)
}

// appendRef decodes the valid reference at the start of raw (raw[0] == '&')
// and returns the extended dst and the reference's length.
func appendRef(dst, raw []byte) ([]byte, int) {
	if raw[1] != '#' {
		switch raw[1] {
		case 'l':
			return append(dst, '<'), 4 // &lt;
		case 'g':
			return append(dst, '>'), 4 // &gt;
		case 'q':
			return append(dst, '"'), 6 // &quot;
		}
		if raw[2] == 'm' {
			return append(dst, '&'), 5 // &amp;
		}
		return append(dst, '\''), 6 // &apos;
	}
	i := 2
	var r rune
	if raw[i] == 'x' {
		for i++; raw[i] != ';'; i++ {
			c := raw[i]
			switch {
			case c <= '9':
				c -= '0'
			case c <= 'F':
				c -= 'A' - 10
			default:
				c -= 'a' - 10
			}
			r = r<<4 | rune(c)
		}
	} else {
		for ; raw[i] != ';'; i++ {
			r = r*10 + rune(raw[i]-'0')
		}
	}
	return utf8.AppendRune(dst, r), i + 1
}
