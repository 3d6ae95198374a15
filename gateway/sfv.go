package gateway

import (
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
)

// Structured Field Values (RFC 8941), as far as RFC 9421 needs them:
// Signature-Input and Signature are Dictionaries, a signature's covered
// components an Inner List of Strings with parameters, Content-Digest a
// Dictionary of Byte Sequences. Parsing is strict (a header that is not a
// valid Dictionary is refused whole, as the RFC says); serialising follows
// the RFC's canonical form, which is what the signature base holds for
// "@signature-params".

// sfKind is the type of a bare item.
type sfKind uint8

const (
	sfInteger sfKind = iota + 1
	sfDecimal
	sfString
	sfToken
	sfBytes
	sfBoolean
)

// sfItem is a bare item with its parameters.
type sfItem struct {
	Kind   sfKind
	Int    int64
	Dec    string // a decimal as written (canonical form re-made on serialise)
	Str    string // String or Token
	Bytes  []byte
	Bool   bool
	Params []sfParam
}

type sfParam struct {
	Key   string
	Value sfItem // bare item, no parameters
}

// sfMember is a Dictionary member: an item, or an inner list (Inner set).
type sfMember struct {
	Key    string
	IsList bool
	Item   sfItem   // when !IsList
	Inner  []sfItem // when IsList
	Params []sfParam
}

var errSF = errors.New("not a structured field dictionary")

type sfParser struct {
	s string
	i int
}

// parseDictionary parses a Dictionary. Duplicate keys are refused (RFC 8941
// would keep the last; for signatures that hides a second signature).
func parseDictionary(s string) ([]sfMember, error) {
	p := &sfParser{s: s}
	p.sp()
	var out []sfMember
	seen := map[string]bool{}
	if p.i == len(p.s) {
		return nil, errSF
	}
	for p.i < len(p.s) {
		key, err := p.key()
		if err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, errSF
		}
		seen[key] = true
		m := sfMember{Key: key}
		if p.peek() == '=' {
			p.i++
			if p.peek() == '(' {
				m.IsList = true
				if m.Inner, err = p.innerList(); err != nil {
					return nil, err
				}
				if m.Params, err = p.params(); err != nil {
					return nil, err
				}
			} else {
				if m.Item, err = p.item(); err != nil {
					return nil, err
				}
			}
		} else {
			m.Item = sfItem{Kind: sfBoolean, Bool: true}
			if m.Item.Params, err = p.params(); err != nil {
				return nil, err
			}
		}
		out = append(out, m)
		p.ows()
		if p.i == len(p.s) {
			return out, nil
		}
		if p.s[p.i] != ',' {
			return nil, errSF
		}
		p.i++
		p.ows()
		if p.i == len(p.s) {
			return nil, errSF // trailing comma
		}
	}
	return out, nil
}

func (p *sfParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *sfParser) sp() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

func (p *sfParser) ows() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func isLcalpha(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool   { return c >= '0' && c <= '9' }
func isAlpha(c byte) bool   { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

func isTchar(c byte) bool {
	if isAlpha(c) || isDigit(c) {
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

func (p *sfParser) key() (string, error) {
	c := p.peek()
	if !isLcalpha(c) && c != '*' {
		return "", errSF
	}
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if isLcalpha(c) || isDigit(c) || c == '_' || c == '-' || c == '.' || c == '*' {
			p.i++
			continue
		}
		break
	}
	return p.s[start:p.i], nil
}

func (p *sfParser) innerList() ([]sfItem, error) {
	p.i++ // '('
	var items []sfItem
	for p.i < len(p.s) {
		p.sp()
		if p.peek() == ')' {
			p.i++
			return items, nil
		}
		it, err := p.item()
		if err != nil {
			return nil, err
		}
		items = append(items, it)
		c := p.peek()
		if c != ' ' && c != ')' {
			return nil, errSF
		}
	}
	return nil, errSF
}

func (p *sfParser) item() (sfItem, error) {
	it, err := p.bare()
	if err != nil {
		return it, err
	}
	it.Params, err = p.params()
	return it, err
}

func (p *sfParser) params() ([]sfParam, error) {
	var ps []sfParam
	for p.peek() == ';' {
		p.i++
		p.sp()
		k, err := p.key()
		if err != nil {
			return nil, err
		}
		v := sfItem{Kind: sfBoolean, Bool: true}
		if p.peek() == '=' {
			p.i++
			if v, err = p.bare(); err != nil {
				return nil, err
			}
		}
		replaced := false
		for j := range ps {
			if ps[j].Key == k {
				ps[j].Value, replaced = v, true
			}
		}
		if !replaced {
			ps = append(ps, sfParam{Key: k, Value: v})
		}
	}
	return ps, nil
}

func (p *sfParser) bare() (sfItem, error) {
	c := p.peek()
	switch {
	case c == '-' || isDigit(c):
		return p.number()
	case c == '"':
		return p.str()
	case c == ':':
		return p.bytes()
	case c == '?':
		if p.i+1 < len(p.s) && (p.s[p.i+1] == '0' || p.s[p.i+1] == '1') {
			b := p.s[p.i+1] == '1'
			p.i += 2
			return sfItem{Kind: sfBoolean, Bool: b}, nil
		}
		return sfItem{}, errSF
	case isAlpha(c) || c == '*':
		start := p.i
		p.i++
		for p.i < len(p.s) && (isTchar(p.s[p.i]) || p.s[p.i] == ':' || p.s[p.i] == '/') {
			p.i++
		}
		return sfItem{Kind: sfToken, Str: p.s[start:p.i]}, nil
	}
	return sfItem{}, errSF
}

func (p *sfParser) number() (sfItem, error) {
	start := p.i
	if p.peek() == '-' {
		p.i++
	}
	if !isDigit(p.peek()) {
		return sfItem{}, errSF
	}
	digits, dot := 0, -1
	for p.i < len(p.s) {
		c := p.s[p.i]
		if isDigit(c) {
			digits++
			p.i++
			continue
		}
		if c == '.' && dot < 0 {
			if digits > 12 {
				return sfItem{}, errSF
			}
			dot = p.i
			p.i++
			continue
		}
		break
	}
	text := p.s[start:p.i]
	if dot < 0 {
		if digits > 15 {
			return sfItem{}, errSF
		}
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return sfItem{}, errSF
		}
		return sfItem{Kind: sfInteger, Int: n}, nil
	}
	frac := p.i - dot - 1
	if frac < 1 || frac > 3 || digits > 15 {
		return sfItem{}, errSF
	}
	return sfItem{Kind: sfDecimal, Dec: text}, nil
}

func (p *sfParser) str() (sfItem, error) {
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '\\':
			if p.i >= len(p.s) {
				return sfItem{}, errSF
			}
			n := p.s[p.i]
			if n != '"' && n != '\\' {
				return sfItem{}, errSF
			}
			b.WriteByte(n)
			p.i++
		case c == '"':
			return sfItem{Kind: sfString, Str: b.String()}, nil
		case c < 0x20 || c > 0x7e:
			return sfItem{}, errSF
		default:
			b.WriteByte(c)
		}
	}
	return sfItem{}, errSF
}

func (p *sfParser) bytes() (sfItem, error) {
	p.i++
	end := strings.IndexByte(p.s[p.i:], ':')
	if end < 0 {
		return sfItem{}, errSF
	}
	enc := p.s[p.i : p.i+end]
	p.i += end + 1
	for j := 0; j < len(enc); j++ {
		c := enc[j]
		if !isAlpha(c) && !isDigit(c) && c != '+' && c != '/' && c != '=' {
			return sfItem{}, errSF
		}
	}
	// RFC 8941 §4.2.7: padding may be omitted by a lenient sender; accept both.
	raw, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		raw, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(enc, "="))
		if err != nil {
			return sfItem{}, errSF
		}
	}
	return sfItem{Kind: sfBytes, Bytes: raw}, nil
}

// serialisation (RFC 8941 §4.1)

func (it sfItem) appendBare(b []byte) []byte {
	switch it.Kind {
	case sfInteger:
		return strconv.AppendInt(b, it.Int, 10)
	case sfDecimal:
		f, _ := strconv.ParseFloat(it.Dec, 64)
		s := strconv.FormatFloat(f, 'f', 3, 64)
		s = strings.TrimRight(s, "0")
		if strings.HasSuffix(s, ".") {
			s += "0"
		}
		return append(b, s...)
	case sfString:
		b = append(b, '"')
		for i := 0; i < len(it.Str); i++ {
			if c := it.Str[i]; c == '"' || c == '\\' {
				b = append(b, '\\')
			}
			b = append(b, it.Str[i])
		}
		return append(b, '"')
	case sfToken:
		return append(b, it.Str...)
	case sfBytes:
		b = append(b, ':')
		b = base64.StdEncoding.AppendEncode(b, it.Bytes)
		return append(b, ':')
	case sfBoolean:
		if it.Bool {
			return append(b, "?1"...)
		}
		return append(b, "?0"...)
	}
	return b
}

func appendParams(b []byte, ps []sfParam) []byte {
	for _, p := range ps {
		b = append(b, ';')
		b = append(b, p.Key...)
		if p.Value.Kind == sfBoolean && p.Value.Bool {
			continue
		}
		b = append(b, '=')
		b = p.Value.appendBare(b)
	}
	return b
}

func (it sfItem) serialize() string {
	return string(appendParams(it.appendBare(nil), it.Params))
}

func serializeInnerList(items []sfItem, ps []sfParam) string {
	b := []byte{'('}
	for i, it := range items {
		if i > 0 {
			b = append(b, ' ')
		}
		b = appendParams(it.appendBare(b), it.Params)
	}
	b = append(b, ')')
	return string(appendParams(b, ps))
}
