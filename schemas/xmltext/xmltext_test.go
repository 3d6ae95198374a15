package xmltext

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"
)

// dump renders the parse result compactly: name@parent{attrs}"text" per
// element, in document order.
func dump(d *Document) string {
	var b strings.Builder
	for i, e := range d.Elements {
		if i > 0 {
			b.WriteString(" | ")
		}
		fmt.Fprintf(&b, "%s@%d", e.Name, e.Parent)
		for _, a := range e.Attrs {
			fmt.Fprintf(&b, " %s=%q", a.Name, a.Value)
		}
		if e.Text != nil {
			fmt.Fprintf(&b, " %q", e.Text)
		}
	}
	return b.String()
}

var wellFormed = []struct {
	name, src, want string
}{
	// Basics and whitespace.
	{"empty element", `<a/>`, `a@-1`},
	{"empty element with space", `<a />`, `a@-1`},
	{"start end", `<a></a>`, `a@-1`},
	{"end tag whitespace", "<a></a \t\r\n>", `a@-1`},
	{"whitespace around root", " \t\r\n<a/>\n\n", `a@-1`},
	{"nested", `<a><b><c/></b><d/></a>`, `a@-1 | b@0 | c@1 | d@0`},
	{"whitespace text kept", "<a>\n <b/>\n</a>", `a@-1 "\n \n" | b@0`},
	{"mixed text concatenated", `<a>x<b>y</b>z<c/>w</a>`, `a@-1 "xzw" | b@0 "y" | c@0`},
	{"empty text is nil", `<a><b></b></a>`, `a@-1 | b@0`},
	// Names.
	{"name chars", `<_a-b.c:d1/>`, `_a-b.c:d1@-1`},
	{"colon names", `<:a/>`, `:a@-1`},
	{"multi colon name", `<a:b:c x:y:z="1"/>`, `a:b:c@-1 x:y:z="1"`},
	{"non-ASCII names", `<é中 ñ·̀="x"/>`, `é中@-1 ñ·̀="x"`},
	{"supplementary plane name", "<\U00010000/>", "\U00010000@-1"},
	{"name with combining char", "<a\u0300\u203F/>", "a\u0300\u203F@-1"},
	// Attributes.
	{"attributes both quotes", `<a x="1" y='2'/>`, `a@-1 x="1" y="2"`},
	{"attribute spacing", "<a x = \"1\"\ty\n=\n'2' ></a>", `a@-1 x="1" y="2"`},
	{"attribute other quote inside", `<a x="it's" y='say "hi"'/>`, `a@-1 x="it's" y="say \"hi\""`},
	{"attribute entities", `<a x="&lt;&gt;&amp;&apos;&quot;"/>`, `a@-1 x="<>&'\""`},
	{"attribute char refs", `<a x="&#65;&#x42;&#x00e9;&#x20AC;&#x1F600;"/>`, `a@-1 x="ABé€😀"`},
	{"attribute normalisation", "<a x=\"a\tb\nc\rd\r\ne\"/>", `a@-1 x="a b c d e"`},
	{"attribute char ref whitespace kept", `<a x="&#9;&#10;&#13;"/>`, `a@-1 x="\t\n\r"`},
	{"attribute gt and ]]>", `<a x="]]>"/>`, `a@-1 x="]]>"`},
	{"empty attribute", `<a x=""/>`, `a@-1 x=""`},
	{"attribute names differing by prefix", `<a p:x="1" q:x="2" x="3"/>`, `a@-1 p:x="1" q:x="2" x="3"`},
	// Text decoding.
	{"entities", `<a>&lt;&gt;&amp;&apos;&quot;</a>`, `a@-1 "<>&'\""`},
	{"char refs", `<a>&#65;&#x41;&#x0041;&#0065;</a>`, `a@-1 "AAAA"`},
	{"char refs multibyte", `<a>&#xE9;&#233;&#x20AC;&#8364;&#x1F600;&#128512;&#x10FFFF;</a>`, `a@-1 "éé€€😀😀\U0010ffff"`},
	{"char ref max BMP", `<a>&#xFFFD;&#xE000;&#xD7FF;</a>`, `a@-1 "�\ue000\ud7ff"`},
	{"literal multibyte", `<a>é€😀</a>`, `a@-1 "é€😀"`},
	{"gt and single brackets in text", `<a>a>b]c]]d] ]></a>`, `a@-1 "a>b]c]]d] ]>"`},
	{"CR LF normalised", "<a>x\r\ny\rz\r\r\nw\n</a>", `a@-1 "x\ny\nz\n\nw\n"`},
	{"char ref CR kept", "<a>&#13;\n\r&#10;</a>", `a@-1 "\r\n\n\n"`},
	{"CDATA", `<a><![CDATA[<b>&amp;]]]]></a>`, `a@-1 "<b>&amp;]]"`},
	{"CDATA empty", `<a><![CDATA[]]></a>`, `a@-1 ""`},
	{"CDATA CR", "<a><![CDATA[x\r\ny\r]]></a>", `a@-1 "x\ny\n"`},
	{"mixed text and CDATA", `<a>x&amp;<![CDATA[&y]]>z<!-- c -->w<?p q?>v</a>`, `a@-1 "x&&yzwv"`},
	{"CR split by comment", "<a>x\r<!---->\ny</a>", `a@-1 "x\n\ny"`},
	// Comments and PIs.
	{"comments everywhere", `<!-- a --><!----><a><!-- b - c --></a><!-- d -->`, `a@-1`},
	{"comment with markup", `<a><!-- <b> & ]]> --></a>`, `a@-1`},
	{"PIs everywhere", `<?p?><?q  x y ?><a><?r s?></a><?t?>`, `a@-1`},
	{"PI target starting with xml", `<?xml-stylesheet href="a"?><a><?xmlfoo?></a>`, `a@-1`},
	{"PI with ? and >", `<a><?p a?b>c? ?></a>`, `a@-1`},
	// Declaration and BOM.
	{"declaration", `<?xml version="1.0"?><a/>`, `a@-1`},
	{"declaration full", `<?xml version='1.0' encoding='UTF-8' standalone='yes'?>` + "\n<a/>", `a@-1`},
	{"declaration spacing", "<?xml \tversion = \"1.0\"\nencoding=\"utf-8\"  standalone=\"no\" ?><a/>", `a@-1`},
	{"declaration mixed-case encoding", `<?xml version="1.0" encoding="Utf-8"?><a/>`, `a@-1`},
	{"BOM", "\uFEFF<a/>", `a@-1`},
	{"BOM and declaration", "\uFEFF<?xml version=\"1.0\"?><a/>", `a@-1`},
	{"BOM inside text", "<a>\uFEFF</a>", `a@-1 "\ufeff"`},
	// Epilog.
	{"comment and PI after root", "<a/>\n<!-- x -->\n<?p?>\n", `a@-1`},
	// Signed message shape.
	{"message", `<Msg><Header><MsgId>X-1</MsgId><RelatedMsgId></RelatedMsgId></Header><Sig alg="ed25519">QUJD</Sig></Msg>`,
		`Msg@-1 | Header@0 | MsgId@1 "X-1" | RelatedMsgId@1 | Sig@0 alg="ed25519" "QUJD"`},
}

func TestWellFormed(t *testing.T) {
	var d Document
	for _, tc := range wellFormed {
		t.Run(tc.name, func(t *testing.T) {
			if err := d.Parse([]byte(tc.src)); err != nil {
				t.Fatalf("Parse(%q): %v", tc.src, err)
			}
			if got := dump(&d); got != tc.want {
				t.Errorf("Parse(%q)\n got %s\nwant %s", tc.src, got, tc.want)
			}
			checkInvariants(t, []byte(tc.src), &d)
		})
	}
}

var malformed = []struct {
	name, src string
	kind      errKind
	off       int
}{
	// Encoding and characters.
	{"invalid UTF-8 in text", "<a>\xff</a>", errUTF8, 3},
	{"truncated UTF-8 in text", "<a>\xc3</a>", errUTF8, 3},
	{"UTF-8 surrogate", "<a>\xed\xa0\x80</a>", errUTF8, 3},
	{"overlong UTF-8", "<a>\xc0\xaf</a>", errUTF8, 3},
	{"control char in text", "<a>\x01</a>", errChar, 3},
	{"NUL in text", "<a>\x00</a>", errChar, 3},
	{"U+FFFE in text", "<a>\uFFFE</a>", errChar, 3},
	{"U+FFFF in attribute", "<a x=\"\uFFFF\"/>", errChar, 6},
	{"control char in attribute", "<a x=\"\x1f\"/>", errChar, 6},
	{"invalid UTF-8 in attribute", "<a x=\"\x80\"/>", errUTF8, 6},
	{"control char in CDATA", "<a><![CDATA[\x02]]></a>", errChar, 12},
	{"invalid UTF-8 in CDATA", "<a><![CDATA[\xfe]]></a>", errUTF8, 12},
	{"control char in comment", "<a><!--\x0b--></a>", errCommentChar, 7},
	{"invalid UTF-8 in comment", "<!--\xff--><a/>", errCommentChar, 4},
	{"control char in PI", "<?p \x01?><a/>", errPIChar, 4},
	{"BOM not at start", " \uFEFF<a/>", errRootText, 1},
	// Declaration.
	{"declaration after whitespace", " <?xml version=\"1.0\"?><a/>", errXMLDeclPos, 1},
	{"declaration after comment", "<!----><?xml version=\"1.0\"?><a/>", errXMLDeclPos, 7},
	{"declaration inside root", `<a><?xml version="1.0"?></a>`, errXMLDeclPos, 3},
	{"declaration after root", `<a/><?xml version="1.0"?>`, errXMLDeclPos, 4},
	{"reserved PI target XML", `<?XML version="1.0"?><a/>`, errXMLDeclPos, 0},
	{"reserved PI target xMl", `<a><?xMl?></a>`, errXMLDeclPos, 3},
	{"declaration without version", `<?xml?><a/>`, errXMLDecl, 5},
	{"declaration encoding first", `<?xml encoding="UTF-8" version="1.0"?><a/>`, errXMLDecl, 5},
	{"declaration version 1.1", `<?xml version="1.1"?><a/>`, errXMLDecl, 5},
	{"declaration bad encoding", `<?xml version="1.0" encoding="ISO-8859-1"?><a/>`, errXMLDecl, 19},
	{"declaration utf8 alias", `<?xml version="1.0" encoding="utf8"?><a/>`, errXMLDecl, 19},
	{"declaration bad standalone", `<?xml version="1.0" standalone="maybe"?><a/>`, errXMLDecl, 19},
	{"declaration unknown pseudo-attribute", `<?xml version="1.0" foo="bar"?><a/>`, errXMLDecl, 20},
	{"declaration missing space", `<?xml version="1.0"encoding="UTF-8"?><a/>`, errXMLDecl, 19},
	{"declaration unquoted", `<?xml version=1.0?><a/>`, errXMLDecl, 14},
	{"declaration truncated", `<?xml version="1.0"`, errEOF, 19},
	// DOCTYPE and declarations.
	{"DOCTYPE", `<!DOCTYPE a><a/>`, errDirective, 0},
	{"DOCTYPE with entity", `<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>`, errDirective, 0},
	{"DOCTYPE inside root", `<a><!DOCTYPE a></a>`, errDirective, 3},
	{"ENTITY", `<!ENTITY e "x"><a/>`, errDirective, 0},
	{"bad bang", `<a><!-x--></a>`, errTag, 3},
	{"bad CDATA keyword", `<a><![CDATX[x]]></a>`, errTag, 3},
	// Document structure.
	{"empty input", ``, errNoRoot, 0},
	{"only whitespace", " \n", errNoRoot, 2},
	{"only comment", `<!-- x -->`, errNoRoot, 10},
	{"only BOM", "\uFEFF", errNoRoot, 3},
	{"text before root", `x<a/>`, errRootText, 0},
	{"text after root", `<a/>x`, errRootText, 4},
	{"reference after root", `<a/>&amp;`, errRootText, 4},
	{"CDATA before root", `<![CDATA[x]]><a/>`, errRootText, 0},
	{"CDATA after root", `<a/><![CDATA[]]>`, errRootText, 4},
	{"two roots", `<a/><b/>`, errMultipleRoots, 4},
	{"two roots with space", "<a></a>\n<a></a>", errMultipleRoots, 8},
	{"end tag at top", `</a>`, errTag, 0},
	{"end tag after root", `<a/></a>`, errTag, 4},
	// Names.
	{"name starting with digit", `<1a/>`, errName, 1},
	{"name starting with dash", `<-a/>`, errName, 1},
	{"name starting with dot", `<.a/>`, errName, 1},
	{"space after <", `< a/>`, errName, 1},
	{"non-name char start", "<\u00D7/>", errName, 1},
	{"non-name char inside", "<a\u00D7/>", errName, 2},
	{"combining char first", "<\u0300/>", errName, 1},
	{"NBSP in tag", "<a\u00A0x=\"1\"/>", errName, 2},
	{"invalid UTF-8 in name", "<a\xff/>", errName, 2},
	{"bad attribute name", `<a 1="x"/>`, errTag, 3},
	{"bad end tag name", `<a></1>`, errName, 5},
	{"bad PI target", `<?1 x?><a/>`, errTag, 2},
	{"missing PI target", `<? x?><a/>`, errTag, 2},
	// Tags.
	{"mismatched end tag", `<a></b>`, errEndTag, 3},
	{"end tag prefix of name", `<ab></a>`, errEndTag, 4},
	{"end tag longer than name", `<a></ab>`, errEndTag, 3},
	{"end tag prefix differs", `<p:a></q:a>`, errEndTag, 5},
	{"end tag case differs", `<a></A>`, errEndTag, 3},
	{"end tag non-ASCII continuation", "<a></a\u00E9>", errEndTag, 3},
	{"junk in end tag", `<a></a x>`, errTag, 7},
	{"attribute without value", `<a x/>`, errTag, 4},
	{"attribute without quotes", `<a x=1/>`, errTag, 5},
	{"attribute missing space", `<a x="1"y="2"/>`, errAttrSpace, 8},
	{"attribute missing space non-ASCII", `<a x="1"é="2"/>`, errAttrSpace, 8},
	{"non-name char after attribute", "<a x='1'×/>", errName, 8},
	{"duplicate attribute", `<a x="1" y="2" x="3"/>`, errDupAttr, 15},
	{"duplicate attribute with prefix", `<a p:x="1" p:x="1"/>`, errDupAttr, 11},
	{"less-than in attribute", `<a x="<"/>`, errAttrLT, 6},
	{"slash without gt", `<a/ >`, errTag, 2},
	{"junk in start tag", `<a "x"/>`, errTag, 3},
	{"junk after name", `<a"x"/>`, errTag, 2},
	// References.
	{"unknown entity", `<a>&nbsp;</a>`, errRef, 3},
	{"amp without semicolon", `<a>&amp</a>`, errRef, 3},
	{"lone amp", `<a>a & b</a>`, errRef, 5},
	{"amp at end of text", `<a>&</a>`, errRef, 3},
	{"char ref zero", `<a>&#0;</a>`, errRef, 3},
	{"char ref control", `<a>&#1;</a>`, errRef, 3},
	{"char ref FFFE", `<a>&#xFFFE;</a>`, errRef, 3},
	{"char ref too large", `<a>&#x110000;</a>`, errRef, 3},
	{"char ref huge", `<a>&#99999999999999999999999;</a>`, errRef, 3},
	{"char ref surrogate", `<a>&#xD800;</a>`, errSurrogateRef, 3},
	{"char ref low surrogate decimal", `<a>&#57343;</a>`, errSurrogateRef, 3},
	{"char ref uppercase X", `<a>&#X41;</a>`, errRef, 3},
	{"char ref empty", `<a>&#;</a>`, errRef, 3},
	{"char ref empty hex", `<a>&#x;</a>`, errRef, 3},
	{"char ref bad digit", `<a>&#12a;</a>`, errRef, 3},
	{"char ref hex in decimal", `<a>&#1F;</a>`, errRef, 3},
	{"entity case", `<a>&LT;</a>`, errRef, 3},
	{"entity with space", `<a>&lt ;</a>`, errRef, 3},
	{"bad ref in attribute", `<a x="&foo;"/>`, errRef, 6},
	{"amp in attribute", `<a x="a&b"/>`, errRef, 7},
	// ]]> and CDATA.
	{"]]> in text", `<a>x]]>y</a>`, errCDATAEnd, 4},
	{"]]]> in text", `<a>]]]></a>`, errCDATAEnd, 4},
	{"nested CDATA", `<a><![CDATA[<![CDATA[x]]>]]></a>`, errCDATAEnd, 25},
	// Comments.
	{"double dash in comment", `<a><!-- a -- b --></a>`, errComment, 10},
	{"comment ending --->", `<a><!-- a ---></a>`, errComment, 10},
	{"comment <!--->", `<a><!---></a>`, errEOF, 13},
	// Truncation.
	{"truncated start tag", `<a`, errEOF, 2},
	{"truncated attribute", `<a x="1`, errEOF, 7},
	{"truncated after attribute name", `<a x`, errEOF, 4},
	{"truncated after =", `<a x=`, errEOF, 5},
	{"truncated empty tag", `<a/`, errEOF, 3},
	{"missing end tag", `<a>`, errEOF, 3},
	{"missing end tags", `<a><b></b>text`, errEOF, 14},
	{"truncated end tag", `<a></a`, errEOF, 6},
	{"truncated end tag name", `<a></`, errEOF, 5},
	{"lone <", `<`, errEOF, 1},
	{"truncated comment", `<a><!-- x`, errEOF, 9},
	{"truncated comment dashes", `<a><!-- x --`, errEOF, 12},
	{"truncated comment opener", `<a><!-`, errEOF, 6},
	{"truncated CDATA", `<a><![CDATA[x]]`, errEOF, 15},
	{"truncated CDATA opener", `<a><![CDA`, errEOF, 9},
	{"truncated PI", `<a><?p x`, errEOF, 8},
	{"truncated PI target", `<a><?p`, errEOF, 6},
	{"truncated reference", `<a>&am`, errEOF, 3},
	{"truncated char ref", `<a>&#x4`, errEOF, 3},
	{"truncated bang", `<a><!`, errEOF, 5},
	{"PI without whitespace", `<?a%?><a/>`, errPISpace, 3},
	{"too deep", strings.Repeat("<a>", MaxDepth+1) + strings.Repeat("</a>", MaxDepth+1), errDepth, 3 * MaxDepth},
}

func TestMalformed(t *testing.T) {
	var d Document
	for _, tc := range malformed {
		t.Run(tc.name, func(t *testing.T) {
			err := d.Parse([]byte(tc.src))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) = %v, want *SyntaxError", tc.src, err)
			}
			if se.kind != tc.kind || se.Offset != tc.off {
				t.Errorf("Parse(%q) = %v (kind %d), want kind %d at byte %d", tc.src, err, se.kind, tc.kind, tc.off)
			}
			if len(d.Elements) != 0 {
				t.Errorf("failed Parse left %d elements", len(d.Elements))
			}
		})
	}
}

func TestDepth(t *testing.T) {
	nest := func(n int) []byte {
		return []byte(strings.Repeat("<a>", n) + strings.Repeat("</a>", n))
	}
	var d Document
	if err := d.Parse(nest(MaxDepth)); err != nil {
		t.Fatalf("depth %d: %v", MaxDepth, err)
	}
	if len(d.Elements) != MaxDepth {
		t.Fatalf("got %d elements", len(d.Elements))
	}
	err := d.Parse(nest(MaxDepth + 1))
	var se *SyntaxError
	if !errors.As(err, &se) || se.kind != errDepth || se.Offset != 3*MaxDepth {
		t.Fatalf("depth %d: %v", MaxDepth+1, err)
	}
	// An empty-element tag is nested just as deeply.
	deep := strings.Repeat("<a>", MaxDepth) + "<b/>" + strings.Repeat("</a>", MaxDepth)
	if err := d.Parse([]byte(deep)); err == nil {
		t.Fatal("empty element at depth 65 accepted")
	}
}

func TestErrorMessage(t *testing.T) {
	var d Document
	src := "<Msg><Header><MsgId>1</MsgId></Body></Msg>"
	err := d.Parse([]byte(src))
	want := "xml: byte 29: end tag </Body> does not match <Header>"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	if err := d.Parse([]byte(`<!DOCTYPE x><x/>`)); err == nil || !strings.Contains(err.Error(), "DOCTYPE not allowed") {
		t.Fatalf("got %v", err)
	}
}

// Long names are shortened in error messages without cutting a character in
// two: the message becomes an exception's detail (JSON).
func TestErrorMessageShortensNames(t *testing.T) {
	var d Document
	name := "a" + strings.Repeat("é", 100)
	err := d.Parse([]byte("<" + name + ">"))
	if err == nil || !utf8.ValidString(err.Error()) || len(err.Error()) > 200 {
		t.Fatalf("got %q", err)
	}
}

func TestSpans(t *testing.T) {
	src := "\uFEFF<?xml version=\"1.0\"?>\n<r x=\"1\">t<a/><b  >u<c></c >v</b\n>w<d\ty='2'\n/></r>\n<!-- end -->"
	var d Document
	if err := d.Parse([]byte(src)); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"r": "<r x=\"1\">t<a/><b  >u<c></c >v</b\n>w<d\ty='2'\n/></r>",
		"a": "<a/>",
		"b": "<b  >u<c></c >v</b\n>",
		"c": "<c></c >",
		"d": "<d\ty='2'\n/>",
	}
	for _, e := range d.Elements {
		if got := src[e.Start:e.End]; got != want[string(e.Name)] {
			t.Errorf("<%s> span %q, want %q", e.Name, got, want[string(e.Name)])
		}
	}
	if d.Elements[0].Start != int32(strings.Index(src, "<r")) {
		t.Errorf("root Start %d", d.Elements[0].Start)
	}
}

func TestMessage(t *testing.T) {
	src, err := os.ReadFile("testdata/message.xml")
	if err != nil {
		t.Fatal(err)
	}
	var d Document
	if err := d.Parse(src); err != nil {
		t.Fatal(err)
	}
	hdr := d.Child(d.Child(-1, "Msg"), "Header")
	if hdr < 0 {
		t.Fatal("no Header")
	}
	text := func(parent int, name string) string {
		i := d.Child(parent, name)
		if i < 0 {
			t.Fatalf("no %s", name)
		}
		return string(d.Elements[i].Text)
	}
	if got := text(hdr, "MsgId"); got != "BRKASGSGXXX-0000000001" {
		t.Errorf("MsgId %q", got)
	}
	if got := text(hdr, "Created"); got != "2026-11-29T09:30:00.123Z" {
		t.Errorf("Created %q", got)
	}
	if rel := d.Child(hdr, "RelatedMsgId"); rel < 0 || d.Elements[rel].Text != nil {
		t.Errorf("RelatedMsgId %d", rel)
	}
	body := d.Child(0, "Body")
	if got := text(body, "Remarks"); got != "Block & allocate per instruction №7" {
		t.Errorf("Remarks %q", got)
	}
	if got := len(d.Children(nil, body)); got != int(d.Elements[body].Children) || got != 20 {
		t.Errorf("Body children %d / %d", got, d.Elements[body].Children)
	}
	var allocs []int
	for _, c := range d.Children(nil, body) {
		if string(d.Elements[c].Name) == "Allocation" {
			allocs = append(allocs, c)
		}
	}
	if len(allocs) != 2 || text(allocs[1], "AllocRef") != "A2" {
		t.Errorf("allocations %v", allocs)
	}
	sig := d.Child(0, "Sig")
	if alg, ok := d.Elements[sig].Attr("alg"); !ok || string(alg) != "ed25519" {
		t.Errorf("alg %q %v", alg, ok)
	}
	if _, ok := d.Elements[sig].Attr("nope"); ok {
		t.Error("missing attribute found")
	}
	if d.Child(0, "Nope") != -1 || d.Child(-1, "Body") != -1 || d.Child(len(d.Elements), "x") != -1 || d.Child(-2, "Msg") != -1 {
		t.Error("Child found something that is not there")
	}
	if got := d.Children(nil, -1); len(got) != 1 || got[0] != 0 {
		t.Errorf("Children(-1) = %v", got)
	}
}

// TestAliasing pins the zero-copy contract: values that need no decoding
// point into src, decoded ones into the Document's scratch buffer.
func TestAliasing(t *testing.T) {
	src := []byte(`<r a="plain" b="x&amp;y"><p>plain</p><q>a&lt;b</q><c><![CDATA[raw]]></c><m>x<i/>y</m></r>`)
	var d Document
	if err := d.Parse(src); err != nil {
		t.Fatal(err)
	}
	inSrc := func(b []byte) bool {
		if len(b) == 0 {
			return false
		}
		p := uintptr(unsafe.Pointer(&b[0]))
		s := uintptr(unsafe.Pointer(&src[0]))
		return p >= s && p < s+uintptr(len(src))
	}
	r := &d.Elements[0]
	for _, tc := range []struct {
		what  string
		b     []byte
		alias bool
	}{
		{"name", r.Name, true},
		{"plain attribute", r.Attrs[0].Value, true},
		{"decoded attribute", r.Attrs[1].Value, false},
		{"plain text", d.Elements[d.Child(0, "p")].Text, true},
		{"decoded text", d.Elements[d.Child(0, "q")].Text, false},
		{"single CDATA", d.Elements[d.Child(0, "c")].Text, true},
		{"mixed text", d.Elements[d.Child(0, "m")].Text, false},
	} {
		if inSrc(tc.b) != tc.alias {
			t.Errorf("%s %q: aliases src = %v, want %v", tc.what, tc.b, !tc.alias, tc.alias)
		}
		if cap(tc.b) != len(tc.b) {
			t.Errorf("%s: cap %d > len %d lets appends clobber neighbours", tc.what, cap(tc.b), len(tc.b))
		}
	}
}

func TestManyAttributes(t *testing.T) {
	var b strings.Builder
	b.WriteString("<a")
	for i := range 300 {
		fmt.Fprintf(&b, " n%d='%d'", i, i)
	}
	ok := b.String() + "/>"
	var d Document
	if err := d.Parse([]byte(ok)); err != nil {
		t.Fatal(err)
	}
	if len(d.Elements[0].Attrs) != 300 || string(d.Elements[0].Attrs[299].Value) != "299" {
		t.Fatalf("attrs %d", len(d.Elements[0].Attrs))
	}
	for _, dup := range []int{0, 15, 16, 17, 150, 299} {
		src := fmt.Sprintf("%s n%d='x'/>", b.String(), dup)
		err := d.Parse([]byte(src))
		var se *SyntaxError
		if !errors.As(err, &se) || se.kind != errDupAttr || se.Offset != len(b.String())+1 {
			t.Errorf("duplicate n%d: %v", dup, err)
		}
	}
	// A second element with many attributes reuses the hash table.
	two := "<r>" + ok + ok + "</r>"
	if err := d.Parse([]byte(two)); err != nil {
		t.Fatal(err)
	}
}

func TestChildren(t *testing.T) {
	var d Document
	if err := d.Parse([]byte(`<r><a><x/><x/></a><b/><a/>text<c><d/></c></r>`)); err != nil {
		t.Fatal(err)
	}
	if got := d.Children(nil, 0); fmt.Sprint(got) != "[1 4 5 6]" {
		t.Errorf("Children(0) = %v", got)
	}
	if got := d.Children([]int{9}, 1); fmt.Sprint(got) != "[9 2 3]" {
		t.Errorf("Children(1) appended = %v", got)
	}
	if got := d.Children(nil, 2); len(got) != 0 {
		t.Errorf("Children(leaf) = %v", got)
	}
	if d.Child(0, "a") != 1 || d.Child(0, "c") != 6 || d.Child(0, "x") != -1 || d.Child(6, "d") != 7 {
		t.Error("Child")
	}
	// A Document whose Elements the caller filled in still answers.
	manual := Document{Elements: d.Elements}
	if got := manual.Children(nil, 0); fmt.Sprint(got) != "[1 4 5 6]" || manual.Child(0, "c") != 6 {
		t.Errorf("manual Children(0) = %v", got)
	}
}

// TestReuse checks that results from one Parse do not leak into the next and
// that a reused Document does not allocate.
func TestReuse(t *testing.T) {
	src, err := os.ReadFile("testdata/message.xml")
	if err != nil {
		t.Fatal(err)
	}
	var d, fresh Document
	if err := d.Parse([]byte(`<x a="&amp;"><y>&lt;</y><y/>z</x>`)); err != nil {
		t.Fatal(err)
	}
	if err := d.Parse([]byte(`<bad>`)); err == nil {
		t.Fatal("accepted")
	}
	if err := d.Parse(src); err != nil {
		t.Fatal(err)
	}
	if err := fresh.Parse(src); err != nil {
		t.Fatal(err)
	}
	if !sameDoc(&d, &fresh) {
		t.Fatal("reused Document differs from fresh one")
	}
	allocs := testing.AllocsPerRun(100, func() {
		if err := d.Parse(src); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per Parse, want 0", allocs)
	}
}

// TestDifferentialTables runs the table cases through the differential
// harness too, so every rule's relation to encoding/xml is pinned.
func TestDifferentialTables(t *testing.T) {
	var d Document
	for _, tc := range wellFormed {
		src := []byte(tc.src)
		if err := d.Parse(src); err != nil {
			t.Fatal(err)
		}
		if gerr := goValidate(src); gerr == nil {
			compareWithGo(t, src, &d)
		} else if explainGoRejection(src, &d, gerr) == "" {
			t.Errorf("%s: encoding/xml rejects, unexplained: %v", tc.name, gerr)
		}
	}
	for _, tc := range malformed {
		src := []byte(tc.src)
		err := d.Parse(src)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Fatal(err)
		}
		if goValidate(src) == nil && explainOurRejection(src, se) == "" {
			t.Errorf("%s: encoding/xml accepts, unexplained: %v", tc.name, err)
		}
	}
}

func TestIsName(t *testing.T) {
	for s, want := range map[string]bool{
		"a": true, "_": true, ":": true, "a1": true, "a-.b": true, "é": true,
		"": false, "1": false, "-a": false, ".a": false, "a b": false, "\u00B7": false,
		"a\u00B7": true, "\xff": false, "a\xff": false, "\U000EFFFF": true, "\U000F0000": false,
	} {
		if IsName([]byte(s)) != want {
			t.Errorf("IsName(%q) = %v", s, !want)
		}
	}
}

func TestLargeDocument(t *testing.T) {
	// 64 KiB of elements, text and references stays well-formed and linear.
	var b bytes.Buffer
	b.WriteString("<r>")
	for b.Len() < 64<<10-64 {
		b.WriteString("<e k=\"v&amp;\">t&lt;\r\n<![CDATA[c]]></e>")
	}
	b.WriteString("</r>")
	var d Document
	if err := d.Parse(b.Bytes()); err != nil {
		t.Fatal(err)
	}
	if got := string(d.Elements[1].Text); got != "t<\nc" {
		t.Fatalf("text %q", got)
	}
}
