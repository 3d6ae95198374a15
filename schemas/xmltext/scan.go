package xmltext

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// parser is the state of one Parse. It lives on the stack; everything that
// must survive (results and reusable scratch) is in the Document.
type parser struct {
	src  []byte
	d    *Document
	root bool // the root element has been seen
}

func (p *parser) fail(off int, kind errKind, format string, args ...any) error {
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	return &SyntaxError{Offset: off, Msg: msg, kind: kind}
}

// quoteName shortens names for error messages: the offending input is
// attacker-controlled and can be 64 KiB long.
func quoteName(b []byte) string {
	if len(b) <= 64 {
		return string(b)
	}
	n := 64
	for n > 0 && !utf8.RuneStart(b[n]) {
		n-- // never cut a character in two: details end up in JSON and XML
	}
	return string(b[:n]) + "..."
}

// document is the top-level loop: prolog, root element, epilog.
func (p *parser) document() error {
	src := p.src
	n := len(src)
	i := 0
	if n >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		i = 3
	}
	declPos := i
	d := p.d
	var err error
	for {
		if len(d.stack) == 0 {
			for i < n && isSpace(src[i]) {
				i++
			}
			if i >= n {
				if !p.root {
					return p.fail(i, errNoRoot, "no root element")
				}
				return nil
			}
			if src[i] != '<' {
				if p.root {
					return p.fail(i, errRootText, "character data after the root element")
				}
				return p.fail(i, errRootText, "character data before the root element")
			}
		} else {
			if i < n && src[i] != '<' { // most tags follow each other directly
				if i, err = p.text(i); err != nil {
					return err
				}
			}
			if i >= n {
				top := d.stack[len(d.stack)-1].elem
				return p.fail(n, errEOF, "unexpected end of input: element <%s> not closed", quoteName(d.Elements[top].Name))
			}
		}
		// src[i] == '<'
		if i+1 >= n {
			return p.fail(n, errEOF, "unexpected end of input after '<'")
		}
		switch src[i+1] {
		case '/':
			i, err = p.endTag(i)
		case '?':
			i, err = p.pi(i, declPos)
		case '!':
			i, err = p.bang(i)
		default:
			if len(d.stack) == 0 && p.root && p.nameEnd(i+1) > i+1 {
				return p.fail(i, errMultipleRoots, "more than one root element")
			}
			i, err = p.startTag(i)
		}
		if err != nil {
			return err
		}
	}
}

// text scans character data inside an element up to the next '<' or the end
// of input, validating it and recording it as one segment.
func (p *parser) text(i int) (int, error) {
	src := p.src
	n := len(src)
	start := i
	kind := uint8(segRaw)
	for {
		for i < n && class[src[i]]&cText == 0 {
			i++
		}
		if i >= n {
			break
		}
		c := src[i]
		if c == '<' {
			break
		}
		switch {
		case c == '&':
			j, err := p.ref(i)
			if err != nil {
				return i, err
			}
			i = j
			kind = segDecode
		case c == '\r':
			i++
			kind = segDecode
		case c == ']':
			if i+2 < n && src[i+1] == ']' && src[i+2] == '>' {
				return i, p.fail(i, errCDATAEnd, "']]>' not allowed in character data")
			}
			i++
		case c < utf8.RuneSelf:
			return i, p.fail(i, errChar, "invalid character %U in character data", rune(c))
		default:
			w, err := p.char(i, errUTF8, errChar)
			if err != nil {
				return i, err
			}
			i += w
		}
	}
	if i > start {
		p.d.segs = append(p.d.segs, seg{off: int32(start), end: int32(i), kind: kind})
	}
	return i, nil
}

// char validates the non-ASCII character at src[i] and returns its width.
func (p *parser) char(i int, utf8Kind, charKind errKind) (int, error) {
	r, w := utf8.DecodeRune(p.src[i:])
	if r == utf8.RuneError && w == 1 {
		return 0, p.fail(i, utf8Kind, "invalid UTF-8")
	}
	if r == 0xFFFE || r == 0xFFFF { // the only non-ASCII non-Chars DecodeRune lets through
		return 0, p.fail(i, charKind, "invalid character %U", r)
	}
	return w, nil
}

// checkChars validates a region whose content is taken verbatim (comment, PI,
// CDATA) and reports whether it contains a CR.
func (p *parser) checkChars(start, end int, utf8Kind, charKind errKind) (hasCR bool, err error) {
	src := p.src
	for i := start; i < end; {
		c := src[i]
		if c >= 0x20 && c < utf8.RuneSelf {
			i++
			continue
		}
		switch {
		case c == '\n' || c == '\t':
			i++
		case c == '\r':
			hasCR = true
			i++
		case c < 0x20:
			return false, p.fail(i, charKind, "invalid character %U", rune(c))
		default:
			w, err := p.char(i, utf8Kind, charKind)
			if err != nil {
				return false, err
			}
			i += w
		}
	}
	return hasCR, nil
}

// ref validates the reference starting at src[i] == '&' and returns the
// offset just past its ';'.
func (p *parser) ref(i int) (int, error) {
	src := p.src
	n := len(src)
	j := i + 1
	if j < n && src[j] == '#' {
		j++
		hex := j < n && src[j] == 'x'
		if hex {
			j++
		}
		ds := j
		v := 0
		for ; j < n; j++ {
			c := src[j]
			var dv int
			switch {
			case '0' <= c && c <= '9':
				dv = int(c - '0')
			case hex && 'a' <= c && c <= 'f':
				dv = int(c-'a') + 10
			case hex && 'A' <= c && c <= 'F':
				dv = int(c-'A') + 10
			default:
				goto done
			}
			if v <= utf8.MaxRune {
				if hex {
					v = v<<4 | dv
				} else {
					v = v*10 + dv
				}
			}
		}
	done:
		if j == ds || j >= n || src[j] != ';' {
			if j >= n {
				return i, p.fail(i, errEOF, "unterminated character reference")
			}
			return i, p.fail(i, errRef, "malformed character reference")
		}
		if 0xD800 <= v && v <= 0xDFFF {
			return i, p.fail(i, errSurrogateRef, "character reference to surrogate %U", rune(v))
		}
		if v > utf8.MaxRune || !isChar(rune(v)) {
			return i, p.fail(i, errRef, "character reference to a non-XML character")
		}
		return j + 1, nil
	}
	rest := src[j:]
	switch {
	case bytes.HasPrefix(rest, []byte("lt;")), bytes.HasPrefix(rest, []byte("gt;")):
		return j + 3, nil
	case bytes.HasPrefix(rest, []byte("amp;")):
		return j + 4, nil
	case bytes.HasPrefix(rest, []byte("apos;")), bytes.HasPrefix(rest, []byte("quot;")):
		return j + 5, nil
	}
	k := p.nameEnd(j)
	if k == j {
		if j >= n {
			return i, p.fail(i, errEOF, "unterminated reference")
		}
		return i, p.fail(i, errRef, "'&' does not start a reference")
	}
	if k >= n {
		return i, p.fail(i, errEOF, "unterminated reference")
	}
	if src[k] != ';' {
		return i, p.fail(i, errRef, "reference &%s has no ';'", quoteName(src[j:k]))
	}
	return i, p.fail(i, errRef, "unknown entity &%s;", quoteName(src[j:k]))
}

// nameEnd returns the end of the Name starting at src[i], or i if no Name
// starts there.
func (p *parser) nameEnd(i int) int {
	src := p.src
	if i >= len(src) {
		return i
	}
	c := src[i]
	if c < utf8.RuneSelf {
		if class[c]&cNameStart == 0 {
			return i
		}
		return p.nameRest(i + 1)
	}
	r, w := utf8.DecodeRune(src[i:])
	if w == 1 || !isNameStartRune(r) { // w == 1: invalid UTF-8 (U+FFFD itself is a name char)
		return i
	}
	return p.nameRest(i + w)
}

// nameRest returns the end of the run of NameChars starting at src[i].
func (p *parser) nameRest(i int) int {
	src := p.src
	n := len(src)
	for i < n {
		c := src[i]
		if c < utf8.RuneSelf {
			if class[c]&cNameChar == 0 {
				return i
			}
			i++
			continue
		}
		r, w := utf8.DecodeRune(src[i:])
		if w == 1 || !isNameRune(r) { // w == 1: invalid UTF-8
			return i
		}
		i += w
	}
	return i
}

// badName reports a missing or invalid name at src[i]. A non-ASCII byte there
// means a character that is not a valid name character (errName); anything
// else is a malformed construct (the given kind).
func (p *parser) badName(i int, kind errKind, what string) error {
	if i >= len(p.src) {
		return p.fail(i, errEOF, "unexpected end of input, expected %s", what)
	}
	if p.src[i] >= utf8.RuneSelf {
		r, w := utf8.DecodeRune(p.src[i:])
		if r == utf8.RuneError && w == 1 {
			return p.fail(i, errName, "invalid UTF-8 where %s expected", what)
		}
		return p.fail(i, errName, "character %U not allowed in %s", r, what)
	}
	return p.fail(i, kind, "expected %s, found %q", what, p.src[i])
}

// startTag scans a start tag or empty-element tag at src[i] == '<'.
func (p *parser) startTag(i int) (int, error) {
	src := p.src
	n := len(src)
	d := p.d
	start := i
	ne := p.nameEnd(i + 1)
	if ne == i+1 {
		return i, p.badName(i+1, errName, "element name")
	}
	if len(d.stack) >= MaxDepth {
		return i, p.fail(i, errDepth, "elements nested deeper than %d", MaxDepth)
	}
	parent := int32(-1)
	if len(d.stack) > 0 {
		parent = d.stack[len(d.stack)-1].elem
		d.Elements[parent].Children++
	}
	idx := int32(len(d.Elements))
	d.Elements = append(d.Elements, Element{Name: src[i+1 : ne : ne], Parent: parent, Start: int32(start)})
	d.skip = append(d.skip, 0)
	p.root = true
	attrStart := len(d.attrs)
	i = ne
	for {
		ws := i
		for i < n && isSpace(src[i]) {
			i++
		}
		if i >= n {
			return i, p.fail(n, errEOF, "unexpected end of input in start tag")
		}
		c := src[i]
		if c == '>' {
			i++
			d.stack = append(d.stack, frame{elem: idx, seg: int32(len(d.segs))})
			break
		}
		if c == '/' {
			if i+1 >= n {
				return i, p.fail(n, errEOF, "unexpected end of input in start tag")
			}
			if src[i+1] != '>' {
				return i, p.fail(i, errTag, "expected '/>'")
			}
			i += 2
			d.Elements[idx].End = int32(i)
			d.skip[idx] = idx + 1
			break
		}
		if ws == i {
			if p.nameEnd(i) > i { // only possible right after an attribute value
				return i, p.fail(i, errAttrSpace, "missing whitespace before attribute")
			}
			if c >= utf8.RuneSelf {
				return i, p.badName(i, errName, "name")
			}
			return i, p.fail(i, errTag, "unexpected %q in start tag", c)
		}
		var err error
		if i, err = p.attr(i, attrStart); err != nil {
			return i, err
		}
	}
	if len(d.attrs) > attrStart {
		d.Elements[idx].Attrs = d.attrs[attrStart:len(d.attrs):len(d.attrs)]
	}
	return i, nil
}

// attr scans one attribute at src[i] and appends it to d.attrs.
func (p *parser) attr(i, first int) (int, error) {
	src := p.src
	n := len(src)
	d := p.d
	ns := i
	ne := p.nameEnd(i)
	if ne == i {
		return i, p.badName(i, errTag, "attribute name")
	}
	name := src[ns:ne:ne]
	i = ne
	for i < n && isSpace(src[i]) {
		i++
	}
	if i >= n {
		return i, p.fail(n, errEOF, "unexpected end of input in start tag")
	}
	if src[i] != '=' {
		if src[i] >= utf8.RuneSelf && i == ne {
			return i, p.badName(i, errName, "attribute name")
		}
		return i, p.fail(i, errTag, "expected '=' after attribute name %s", quoteName(name))
	}
	i++
	for i < n && isSpace(src[i]) {
		i++
	}
	if i >= n {
		return i, p.fail(n, errEOF, "unexpected end of input in start tag")
	}
	q := src[i]
	if q != '"' && q != '\'' {
		return i, p.fail(i, errTag, "attribute value must be quoted")
	}
	i++
	vs := i
	decode := false
	for {
		for i < n && class[src[i]]&cAttr == 0 {
			i++
		}
		if i >= n {
			return i, p.fail(n, errEOF, "unexpected end of input in attribute value")
		}
		c := src[i]
		if c == q {
			break
		}
		switch {
		case c == '"' || c == '\'':
			i++
		case c == '<':
			return i, p.fail(i, errAttrLT, "'<' not allowed in attribute value")
		case c == '&':
			j, err := p.ref(i)
			if err != nil {
				return i, err
			}
			i = j
			decode = true
		case c == '\t' || c == '\n' || c == '\r':
			i++
			decode = true
		case c < utf8.RuneSelf:
			return i, p.fail(i, errChar, "invalid character %U in attribute value", rune(c))
		default:
			w, err := p.char(i, errUTF8, errChar)
			if err != nil {
				return i, err
			}
			i += w
		}
	}
	value := src[vs:i:i]
	i++
	if decode {
		b := p.scratch()
		s := len(b)
		b = appendAttrValue(b, value)
		d.buf = b
		value = b[s:len(b):len(b)]
	}
	if p.dupAttr(first, name) {
		return ns, p.fail(ns, errDupAttr, "duplicate attribute %s", quoteName(name))
	}
	d.attrs = append(d.attrs, Attr{Name: name, Value: value})
	return i, nil
}

// linearAttrs is how many attributes an element may have before duplicate
// detection switches from a linear scan to a hash table; the table keeps
// hostile inputs with thousands of attributes linear-time.
const linearAttrs = 16

// dupAttr reports whether name is already among d.attrs[first:], and, when
// the hash table is in use, records name (which the caller then appends).
func (p *parser) dupAttr(first int, name []byte) bool {
	d := p.d
	attrs := d.attrs[first:]
	if len(attrs) < linearAttrs {
		for k := range attrs {
			if bytes.Equal(attrs[k].Name, name) {
				return true
			}
		}
		return false
	}
	if len(attrs) == linearAttrs || 2*(len(attrs)+1) > len(d.hash) {
		size := 64
		for size < 4*(len(attrs)+1) {
			size <<= 1
		}
		if cap(d.hash) < size {
			d.hash = make([]int32, size)
		}
		d.hash = d.hash[:size]
		clear(d.hash)
		for k := range attrs {
			d.hashInsert(attrs[k].Name, int32(k))
		}
	}
	mask := uint32(len(d.hash) - 1)
	for h := hashName(name) & mask; ; h = (h + 1) & mask {
		e := d.hash[h]
		if e == 0 {
			d.hash[h] = int32(len(attrs)) + 1
			return false
		}
		if bytes.Equal(attrs[e-1].Name, name) {
			return true
		}
	}
}

func (d *Document) hashInsert(name []byte, k int32) {
	mask := uint32(len(d.hash) - 1)
	h := hashName(name) & mask
	for d.hash[h] != 0 {
		h = (h + 1) & mask
	}
	d.hash[h] = k + 1
}

// hashName is FNV-1a; any decent hash would do, this one is short.
func hashName(b []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range b {
		h ^= uint32(c)
		h *= 16777619
	}
	return h
}

// endTag scans an end tag at src[i:] == "</" and closes the open element.
func (p *parser) endTag(i int) (int, error) {
	src := p.src
	n := len(src)
	d := p.d
	if len(d.stack) == 0 {
		return i, p.fail(i, errTag, "end tag without a matching start tag")
	}
	fr := d.stack[len(d.stack)-1]
	open := d.Elements[fr.elem].Name
	j := i + 2
	// Fast path: the name must equal the open element's name, which is
	// already validated, so a prefix compare plus an end-of-name check does.
	if !bytes.HasPrefix(src[j:], open) || p.nameRest(j+len(open)) != j+len(open) {
		ne := p.nameEnd(j)
		if ne == j {
			return i, p.badName(j, errName, "element name")
		}
		return i, p.fail(i, errEndTag, "end tag </%s> does not match <%s>", quoteName(src[j:ne]), quoteName(open))
	}
	j += len(open)
	for j < n && isSpace(src[j]) {
		j++
	}
	if j >= n {
		return i, p.fail(n, errEOF, "unexpected end of input in end tag")
	}
	if src[j] != '>' {
		if src[j] >= utf8.RuneSelf && j == i+2+len(open) {
			return i, p.badName(j, errName, "element name")
		}
		return i, p.fail(j, errTag, "unexpected %q in end tag", src[j])
	}
	j++
	e := &d.Elements[fr.elem]
	e.End = int32(j)
	d.skip[fr.elem] = int32(len(d.Elements))
	e.Text = p.collectText(fr)
	d.segs = d.segs[:fr.seg]
	d.stack = d.stack[:len(d.stack)-1]
	return j, nil
}

// collectText builds the Text of the element of frame fr from its segments:
// a subslice of src when one segment needs no decoding, else a decoded copy.
func (p *parser) collectText(fr frame) []byte {
	d := p.d
	segs := d.segs[fr.seg:]
	if len(segs) == 0 {
		return nil
	}
	src := p.src
	if len(segs) == 1 && (segs[0].kind == segRaw || segs[0].kind == segCDATA) {
		return src[segs[0].off:segs[0].end:segs[0].end]
	}
	b := p.scratch()
	s := len(b)
	for _, sg := range segs {
		raw := src[sg.off:sg.end]
		switch sg.kind {
		case segRaw, segCDATA:
			b = append(b, raw...)
		case segDecode:
			b = appendText(b, raw)
		case segCDATACR:
			b = appendCR(b, raw)
		}
	}
	d.buf = b
	return b[s:len(b):len(b)]
}

// scratch returns d.buf, first making sure it can hold every decoded value
// of this document without growing: decoding never lengthens input, and
// values never overlap, so len(src) bytes suffice. Growing would not corrupt
// earlier values (they keep the old array) but would allocate.
func (p *parser) scratch() []byte {
	if cap(p.d.buf) < len(p.src) {
		p.d.buf = make([]byte, 0, len(p.src))
	}
	return p.d.buf
}

// pi scans a processing instruction (or the XML declaration) at "<?".
func (p *parser) pi(i, declPos int) (int, error) {
	src := p.src
	n := len(src)
	t := i + 2
	te := p.nameEnd(t)
	if te == t {
		return i, p.badName(t, errTag, "processing instruction target")
	}
	target := src[t:te]
	if len(target) == 3 && (target[0]|0x20) == 'x' && (target[1]|0x20) == 'm' && (target[2]|0x20) == 'l' {
		if string(target) == "xml" {
			if i == declPos {
				return p.xmlDecl(i, te)
			}
			return i, p.fail(i, errXMLDeclPos, "XML declaration allowed only at the start of the document")
		}
		return i, p.fail(i, errXMLDeclPos, "processing instruction target %s is reserved", target)
	}
	if te+1 < n && src[te] == '?' && src[te+1] == '>' {
		return te + 2, nil
	}
	if te >= n {
		return i, p.fail(n, errEOF, "unterminated processing instruction")
	}
	if !isSpace(src[te]) {
		if src[te] >= utf8.RuneSelf {
			return i, p.badName(te, errName, "processing instruction target")
		}
		return i, p.fail(te, errPISpace, "processing instruction target must be followed by whitespace")
	}
	k := bytes.Index(src[te:], []byte("?>"))
	if k < 0 {
		return i, p.fail(n, errEOF, "unterminated processing instruction")
	}
	if _, err := p.checkChars(te, te+k, errPIChar, errPIChar); err != nil {
		return i, err
	}
	return te + k + 2, nil
}

// xmlDecl scans the XML declaration; src[i:j] is "<?xml". The grammar is
// fixed (version, then optional encoding, then optional standalone), so it is
// matched literally instead of as generic pseudo-attributes.
func (p *parser) xmlDecl(i, j int) (int, error) {
	// Like any PI the declaration ends at the first "?>"; everything up to
	// there must match the grammar.
	end := bytes.Index(p.src[j:], []byte("?>"))
	if end < 0 {
		return i, p.fail(len(p.src), errEOF, "unterminated XML declaration")
	}
	end += j
	src := p.src[:end+2]
	n := end
	bad := func(at int, what string) (int, error) {
		return i, p.fail(at, errXMLDecl, "malformed XML declaration: %s", what)
	}
	space := func(j int) int {
		for j < n && isSpace(src[j]) {
			j++
		}
		return j
	}
	// pseudo matches S name Eq quoted-value at j and returns the value and
	// the offset after the closing quote.
	pseudo := func(j int, name string) (val []byte, end int, ok bool) {
		k := space(j)
		if k == j || !bytes.HasPrefix(src[k:], []byte(name)) {
			return nil, j, false
		}
		k = space(k + len(name))
		if k >= n || src[k] != '=' {
			return nil, k, false
		}
		k = space(k + 1)
		if k >= n || src[k] != '"' && src[k] != '\'' {
			return nil, k, false
		}
		q := src[k]
		e := bytes.IndexByte(src[k+1:n], q)
		if e < 0 {
			return nil, k, false
		}
		return src[k+1 : k+1+e], k + 2 + e, true
	}
	v, j2, ok := pseudo(j, "version")
	if !ok {
		return bad(j2, "expected version")
	}
	if string(v) != "1.0" {
		return bad(j, "only version 1.0 is supported")
	}
	j = j2
	if v, j2, ok = pseudo(j, "encoding"); ok {
		if !bytes.EqualFold(v, []byte("UTF-8")) {
			return bad(j, "encoding must be UTF-8")
		}
		j = j2
	}
	if v, j2, ok = pseudo(j, "standalone"); ok {
		if string(v) != "yes" && string(v) != "no" {
			return bad(j, "standalone must be yes or no")
		}
		j = j2
	}
	if j = space(j); j != end {
		return bad(j, "expected '?>'")
	}
	return j + 2, nil
}

// bang scans markup starting "<!": a comment or CDATA section; anything else
// (DOCTYPE and the other markup declarations) is refused.
func (p *parser) bang(i int) (int, error) {
	src := p.src
	n := len(src)
	rest := src[i:]
	switch {
	case bytes.HasPrefix(rest, []byte("<!--")):
		return p.comment(i)
	case bytes.HasPrefix(rest, []byte("<![CDATA[")):
		if len(p.d.stack) == 0 {
			return i, p.fail(i, errRootText, "CDATA section outside the root element")
		}
		return p.cdata(i)
	case bytes.HasPrefix(rest, []byte("<!DOCTYPE")):
		return i, p.fail(i, errDirective, "DOCTYPE not allowed")
	case len(rest) > 2 && rest[2] != '-' && rest[2] != '[':
		return i, p.fail(i, errDirective, "markup declaration not allowed")
	case bytes.HasPrefix([]byte("<!--"), rest) || bytes.HasPrefix([]byte("<![CDATA["), rest):
		return i, p.fail(n, errEOF, "unexpected end of input in markup")
	}
	return i, p.fail(i, errTag, "malformed markup after '<!'")
}

// comment scans a comment at "<!--".
func (p *parser) comment(i int) (int, error) {
	src := p.src
	n := len(src)
	body := i + 4
	k := bytes.Index(src[body:], []byte("--"))
	if k < 0 {
		return i, p.fail(n, errEOF, "unterminated comment")
	}
	e := body + k
	if e+2 >= n {
		return i, p.fail(n, errEOF, "unterminated comment")
	}
	if src[e+2] != '>' {
		return i, p.fail(e, errComment, "'--' not allowed inside a comment")
	}
	if _, err := p.checkChars(body, e, errCommentChar, errCommentChar); err != nil {
		return i, err
	}
	return e + 3, nil
}

// cdata scans a CDATA section at "<![CDATA[" and records its content.
func (p *parser) cdata(i int) (int, error) {
	src := p.src
	body := i + 9
	k := bytes.Index(src[body:], []byte("]]>"))
	if k < 0 {
		return i, p.fail(len(src), errEOF, "unterminated CDATA section")
	}
	e := body + k
	hasCR, err := p.checkChars(body, e, errUTF8, errChar)
	if err != nil {
		return i, err
	}
	kind := uint8(segCDATA)
	if hasCR {
		kind = segCDATACR
	}
	p.d.segs = append(p.d.segs, seg{off: int32(body), end: int32(e), kind: kind})
	return e + 3, nil
}
