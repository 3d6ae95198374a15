// Package xmltext is a strict, allocation-free XML 1.0 scanner for the small
// signed messages exchanged by the matching utility.
//
// It exists because the downstream decision between a MALFORMED rejection and
// every later rejection code hinges on well-formedness, so the scanner must be
// an exact tokenizer of XML 1.0 rather than a substring search, and because it
// sits on the hot path, where encoding/xml's token-at-a-time, string-copying
// design costs an order of magnitude more time and allocations than a single
// pass over a byte slice that is entirely in memory.
//
// The scanner checks well-formedness only (XML 1.0 fifth edition, no
// namespace processing, no DTDs): names are kept as written, DOCTYPE is
// refused because it could declare entities we would then silently not
// expand, and only the five predefined entities and character references are
// decoded. Offsets and lengths are int32, which bounds documents to 2 GiB; the
// messages it is designed for are at most 64 KiB.
package xmltext

import (
	"fmt"
	"math"
)

// MaxDepth is the deepest element nesting Parse accepts. Messages are a few
// levels deep; the bound keeps hostile input from driving callers that walk
// the tree recursively (and our own stack of open elements) arbitrarily deep.
const MaxDepth = 64

// Attr is one attribute; Value has entities and character references decoded
// and is normalised per XML 1.0 attribute-value normalisation (\t \n \r ->
// space; a literal \r\n pair becomes one space, as line-end handling comes
// first). Characters produced by character references are not normalised.
type Attr struct{ Name, Value []byte }

// Element is one element of the document, in document order (pre-order).
type Element struct {
	Name   []byte // qualified name as written (prefix:local kept verbatim)
	Parent int32  // index in Document.Elements of the parent, -1 for the root
	Start  int32  // byte offset of the '<' that opens the start tag
	End    int32  // byte offset one past the '>' closing the end tag (or the empty-element tag "/>")
	Attrs  []Attr
	// Text is the decoded character data directly inside this element: all
	// text and CDATA segments that are direct children, concatenated in
	// order; nil if there is none. Whitespace between child elements is
	// character data too and is included.
	Text     []byte
	Children int32 // number of direct child elements
}

// Attr returns the value of the attribute named name as written (prefix
// included), and whether it is present.
func (e *Element) Attr(name string) ([]byte, bool) {
	for i := range e.Attrs {
		if string(e.Attrs[i].Name) == name {
			return e.Attrs[i].Value, true
		}
	}
	return nil, false
}

// Document holds the result of the last Parse. Reuse one Document per
// goroutine: Parse reuses its slices, so results are valid only until the
// next Parse. Names, and texts and values that needed no decoding, alias the
// source buffer, so the caller must also keep that unchanged while using them.
type Document struct {
	Elements []Element

	// skip[i] is one past the index of the last descendant of element i;
	// it lets Child and Children hop from sibling to sibling.
	skip  []int32
	buf   []byte  // decoded text and attribute values
	attrs []Attr  // backing store for every Element.Attrs
	stack []frame // open elements
	segs  []seg   // pending text segments of the open elements
	hash  []int32 // duplicate-attribute table for elements with many attributes
}

// frame is one open element.
type frame struct {
	elem int32 // index in Elements
	seg  int32 // index in segs of this element's first text segment
}

// seg is one run of character data or one CDATA section, recorded while
// scanning so that decoding and concatenation happen once, when the element
// closes and we know whether a zero-copy subslice suffices.
type seg struct {
	off, end int32
	kind     uint8
}

const (
	segRaw     = iota // verbatim text; can alias src
	segDecode         // text with references or CR
	segCDATA          // CDATA content without CR; can alias src
	segCDATACR        // CDATA content with CR
)

// SyntaxError says where and why a document is not well-formed.
type SyntaxError struct {
	Offset int // byte offset in the source at which the problem was detected
	Msg    string

	kind errKind // coarse cause, used by tests to explain differences to encoding/xml
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("xml: byte %d: %s", e.Offset, e.Msg)
}

// errKind classifies syntax errors. It is unexported: callers only need to
// know that a document is malformed, and where; the classes exist so the
// differential fuzz test can tell deliberate strictness from bugs.
type errKind uint8

const (
	errOther         errKind = iota
	errEOF                   // input ends inside a construct
	errUTF8                  // invalid UTF-8 in text, attribute value or CDATA
	errChar                  // non-Char in text, attribute value or CDATA
	errCommentChar           // invalid UTF-8 or non-Char inside a comment
	errPIChar                // invalid UTF-8 or non-Char inside a PI
	errName                  // missing or invalid name
	errTag                   // malformed tag
	errEndTag                // end tag does not match
	errDirective             // <!DOCTYPE or another markup declaration
	errRootText              // character data or CDATA outside the root element
	errMultipleRoots         // second top-level element
	errNoRoot                // no element at all
	errDupAttr               // attribute repeated in a start tag
	errAttrSpace             // no whitespace before an attribute
	errAttrLT                // '<' in an attribute value
	errXMLDeclPos            // <?xml not at the start, or reserved target like <?XML
	errXMLDecl               // malformed XML declaration
	errPISpace               // PI target not followed by whitespace or ?>
	errRef                   // malformed or unknown reference
	errSurrogateRef          // character reference to a surrogate
	errCDATAEnd              // "]]>" in character data
	errComment               // "--" inside a comment
	errDepth                 // nesting deeper than MaxDepth
	errTooLarge              // offsets would not fit in int32
)

// Parse scans src as one complete XML document. It returns a *SyntaxError if
// src is not well-formed XML 1.0. On success d.Elements holds every element;
// on failure it is empty.
func (d *Document) Parse(src []byte) error {
	d.Elements = d.Elements[:0]
	d.skip = d.skip[:0]
	d.buf = d.buf[:0]
	d.attrs = d.attrs[:0]
	d.stack = d.stack[:0]
	d.segs = d.segs[:0]
	if len(src) >= math.MaxInt32 {
		return &SyntaxError{Offset: 0, Msg: "document too large", kind: errTooLarge}
	}
	p := parser{src: src, d: d}
	if err := p.document(); err != nil {
		d.Elements = d.Elements[:0]
		d.skip = d.skip[:0]
		return err
	}
	return nil
}

// Child returns the index of the first direct child of element parent named
// name, or -1. A parent of -1 stands for the document, whose only child is the
// root element, so lookups can start uniformly from the top.
func (d *Document) Child(parent int, name string) int {
	if parent == -1 {
		if len(d.Elements) > 0 && string(d.Elements[0].Name) == name {
			return 0
		}
		return -1
	}
	if parent < 0 || parent >= len(d.Elements) {
		return -1
	}
	if len(d.skip) != len(d.Elements) { // Elements was built or edited by the caller
		for j := parent + 1; j < len(d.Elements); j++ {
			if int(d.Elements[j].Parent) == parent && string(d.Elements[j].Name) == name {
				return j
			}
		}
		return -1
	}
	end := int(d.skip[parent])
	for j := parent + 1; j < end; j = int(d.skip[j]) {
		if string(d.Elements[j].Name) == name {
			return j
		}
	}
	return -1
}

// Children returns the indexes of all direct children of element parent,
// appended to dst so that callers can reuse a buffer. A parent of -1 stands
// for the document.
func (d *Document) Children(dst []int, parent int) []int {
	if parent == -1 {
		if len(d.Elements) > 0 {
			dst = append(dst, 0)
		}
		return dst
	}
	if parent < 0 || parent >= len(d.Elements) {
		return dst
	}
	if len(d.skip) != len(d.Elements) {
		for j := parent + 1; j < len(d.Elements); j++ {
			if int(d.Elements[j].Parent) == parent {
				dst = append(dst, j)
			}
		}
		return dst
	}
	end := int(d.skip[parent])
	for j := parent + 1; j < end; j = int(d.skip[j]) {
		dst = append(dst, j)
	}
	return dst
}
