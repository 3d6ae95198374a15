package wire

import (
	"strings"
)

// The endpoint never parses SQL for meaning — chDB does that. It only needs a
// few structural facts about the statement text: whether it is the driver's
// hello query,
// where an INSERT's FORMAT clause is (to move the request body into a file),
// and the output format named in the query (for Content-Type). A small lexer
// that knows ClickHouse's quoting and comment rules is enough for that, and it
// keeps a keyword inside a string literal, a quoted identifier, a comment or
// parentheses from being mistaken for a clause.

type tokKind uint8

const (
	tokWord   tokKind = iota // bare identifier or keyword
	tokString                // '...'
	tokQuoted                // `...` or "..."
	tokNumber
	tokPunct
)

type token struct {
	kind       tokKind
	start, end int // byte offsets in the query
	depth      int // bracket depth at the token
}

func (t token) text(q string) string { return q[t.start:t.end] }

func (t token) is(q, word string) bool {
	return t.kind == tokWord && strings.EqualFold(t.text(q), word)
}

// lex splits q into tokens, skipping whitespace and comments. It never fails:
// an unterminated literal simply runs to the end of the text, which is what
// chDB will then report as a syntax error.
func lex(q string) []token {
	var toks []token
	depth := 0
	i := 0
	for i < len(q) {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '-' && i+1 < len(q) && q[i+1] == '-',
			c == '#' && (i+1 == len(q) || q[i+1] == ' ' || q[i+1] == '!'):
			for i < len(q) && q[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			// ClickHouse block comments nest.
			n := 0
			for i < len(q) {
				if q[i] == '/' && i+1 < len(q) && q[i+1] == '*' {
					n++
					i += 2
				} else if q[i] == '*' && i+1 < len(q) && q[i+1] == '/' {
					n--
					i += 2
					if n == 0 {
						break
					}
				} else {
					i++
				}
			}
		case c == '\'' || c == '`' || c == '"':
			start := i
			i = skipQuoted(q, i)
			kind := tokQuoted
			if c == '\'' {
				kind = tokString
			}
			toks = append(toks, token{kind, start, i, depth})
		case isIdentStart(c):
			start := i
			for i < len(q) && isIdentPart(q[i]) {
				i++
			}
			toks = append(toks, token{tokWord, start, i, depth})
		case c >= '0' && c <= '9':
			start := i
			for i < len(q) && (isIdentPart(q[i]) || q[i] == '.') {
				i++
			}
			toks = append(toks, token{tokNumber, start, i, depth})
		default:
			if c == '(' || c == '[' || c == '{' {
				toks = append(toks, token{tokPunct, i, i + 1, depth})
				depth++
			} else if c == ')' || c == ']' || c == '}' {
				if depth > 0 {
					depth--
				}
				toks = append(toks, token{tokPunct, i, i + 1, depth})
			} else {
				toks = append(toks, token{tokPunct, i, i + 1, depth})
			}
			i++
		}
	}
	return toks
}

// skipQuoted returns the offset just past the quoted token starting at i.
// Both backslash escapes and a doubled quote are accepted, as in ClickHouse.
func skipQuoted(q string, i int) int {
	quote := q[i]
	i++
	for i < len(q) {
		switch q[i] {
		case '\\':
			i += 2
			continue
		case quote:
			if i+1 < len(q) && q[i+1] == quote {
				i += 2
				continue
			}
			return i + 1
		}
		i++
	}
	return len(q)
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

func isIdentPart(c byte) bool {
	return isIdentStart(c) || (c >= '0' && c <= '9') || c == '$'
}

// topLevel returns the depth-0 tokens of q with a trailing semicolon dropped.
func topLevel(q string) []token {
	all := lex(q)
	out := all[:0:0]
	for _, t := range all {
		if t.depth == 0 {
			out = append(out, t)
		}
	}
	for len(out) > 0 && out[len(out)-1].kind == tokPunct && q[out[len(out)-1].start] == ';' {
		out = out[:len(out)-1]
	}
	return out
}

// helloNormalized is the driver's handshake query with every space removed
// and lower-cased; see IsHello.
const helloNormalized = "selectdisplayname(),version(),revision(),timezone()"

// HelloQuery is what the endpoint runs instead of the driver's hello query:
// the same columns, but revision() answered as 0. chDB writes Native blocks in
// the revision-0 layout (no BlockInfo, no per-column serialization flags) and
// no setting changes that; clickhouse-go decodes every later block with the
// revision the hello query returned, so it must be 0 for the bytes to match.
const HelloQuery = "SELECT displayName(), version(), toUInt32(0) AS `revision()`, timezone()"

// IsHello reports whether q is clickhouse-go's HTTP handshake query
// `SELECT displayName(), version(), revision(), timezone()`.
func IsHello(q string) bool {
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			continue
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return strings.TrimRight(b.String(), ";") == helloNormalized
}

// InsertData describes an INSERT statement whose data follows the statement
// (in the request body, or inline after FORMAT name).
type InsertData struct {
	Prefix   string // "INSERT INTO t (a, b)"
	Settings string // "SETTINGS x = 1" or ""
	Format   string // "Native", "Values", ...
	// DataOffset is where inline data begins in the analysed text, or -1 when
	// the statement ends at the format name (data comes from elsewhere).
	DataOffset int
}

// ParseInsertData recognises `INSERT ... [SETTINGS ...] FORMAT name [data]`
// and `INSERT ... [SETTINGS ...] VALUES` (data elsewhere). ok is false for any
// other statement, including INSERT ... SELECT and INSERT ... FROM INFILE,
// which carry no data of their own.
func ParseInsertData(q string) (InsertData, bool) {
	toks := lex(q)
	if len(toks) == 0 || !toks[0].is(q, "INSERT") {
		return InsertData{}, false
	}
	fmtIdx := -1
	settingsIdx := -1
	for i, t := range toks {
		if fmtIdx >= 0 {
			break // the rest is inline data
		}
		if t.depth != 0 || t.kind != tokWord {
			continue
		}
		switch {
		case t.is(q, "SELECT") || t.is(q, "WITH") || t.is(q, "INFILE"):
			if fmtIdx < 0 {
				return InsertData{}, false
			}
		case t.is(q, "SETTINGS") && fmtIdx < 0:
			settingsIdx = i
		case t.is(q, "FORMAT") && fmtIdx < 0 && i+1 < len(toks) && toks[i+1].kind == tokWord:
			fmtIdx = i
		case t.is(q, "VALUES") && fmtIdx < 0:
			// VALUES data is text; only "VALUES" at the very end (data in the
			// body) is ours to move, inline VALUES stay in the query.
			rest := toks[i+1:]
			if len(rest) == 0 || (len(rest) == 1 && q[rest[0].start] == ';') {
				d := InsertData{Format: "Values", DataOffset: -1}
				d.Prefix, d.Settings = splitSettings(q, toks, settingsIdx, t.start)
				return d, true
			}
			return InsertData{}, false
		}
	}
	if fmtIdx < 0 {
		return InsertData{}, false
	}
	name := toks[fmtIdx+1]
	d := InsertData{Format: name.text(q), DataOffset: -1}
	d.Prefix, d.Settings = splitSettings(q, toks, settingsIdx, toks[fmtIdx].start)
	// Inline data starts after the format name and one line break (or one
	// blank), the way ClickHouse reads `INSERT ... FORMAT CSV\n1,2`.
	off := name.end
	switch {
	case strings.HasPrefix(q[off:], "\r\n"):
		off += 2
	case off < len(q) && (q[off] == '\n' || q[off] == ' ' || q[off] == '\t'):
		off++
	}
	if strings.TrimSpace(strings.TrimRight(q[off:], "; \t\r\n")) != "" {
		d.DataOffset = off
	}
	return d, true
}

func splitSettings(q string, toks []token, settingsIdx, end int) (prefix, settings string) {
	if settingsIdx < 0 {
		return strings.TrimSpace(q[:end]), ""
	}
	s := toks[settingsIdx].start
	return strings.TrimSpace(q[:s]), strings.TrimSpace(q[s:end])
}

// FromInfile renders the statement that makes chDB read the data from path.
func (d InsertData) FromInfile(path string) string {
	var b strings.Builder
	b.WriteString(d.Prefix)
	b.WriteString(" FROM INFILE ")
	b.WriteString(QuoteString(path))
	if d.Settings != "" {
		b.WriteByte(' ')
		b.WriteString(d.Settings)
	}
	b.WriteString(" FORMAT ")
	b.WriteString(d.Format)
	return b.String()
}

// OutputFormat returns the format named by a trailing `FORMAT name` clause
// (optionally followed by SETTINGS ...), or "" if the query names none.
func OutputFormat(q string) string {
	toks := topLevel(q)
	for i := len(toks) - 2; i >= 0; i-- {
		if !toks[i].is(q, "FORMAT") || toks[i+1].kind != tokWord {
			continue
		}
		if i+2 == len(toks) || toks[i+2].is(q, "SETTINGS") {
			return toks[i+1].text(q)
		}
	}
	return ""
}

// QuoteString renders s as a ClickHouse string literal.
func QuoteString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\', '\'':
			b.WriteByte('\\')
			b.WriteByte(c)
		case 0:
			b.WriteString(`\0`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// QuoteIdent renders s as a back-quoted identifier.
func QuoteIdent(s string) string {
	return "`" + strings.NewReplacer("\\", "\\\\", "`", "\\`").Replace(s) + "`"
}

// IsName reports whether s is a plain name usable unquoted as a setting, query
// parameter or format name: [A-Za-z_][A-Za-z0-9_]*.
func IsName(s string) bool {
	if s == "" || !(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
}
