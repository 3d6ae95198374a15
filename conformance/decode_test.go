package conformance

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// §2/§4 decoding boundaries: single messages, each on its own trade.
func TestDecode_MalformedVsSchemaVsAccepted(t *testing.T) {
	type dcase struct {
		name string
		code string
		line func(tr *Trade) string
	}
	cases := []dcase{
		{"MALFORMED_truncated", "MALFORMED", func(tr *Trade) string { l := tr.NOE().Line(); return l[:len(l)/2] }},
		{"MALFORMED_truncated_last_byte", "MALFORMED", func(tr *Trade) string { l := tr.NOE().Line(); return l[:len(l)-1] }},
		{"MALFORMED_mismatched_tags", "MALFORMED", func(tr *Trade) string {
			return strings.Replace(tr.NOE().Line(), "</Market>", "</Markt>", 1)
		}},
		{"MALFORMED_undefined_entity", "MALFORMED", func(tr *Trade) string {
			return tr.NOE().SetRaw("Market", "X&nbsp;SES").Line()
		}},
		{"MALFORMED_bare_ampersand", "MALFORMED", func(tr *Trade) string {
			return tr.NOE().SetRaw("Market", "X&SES").Line()
		}},
		{"MALFORMED_no_Header", "MALFORMED", func(tr *Trade) string {
			m := tr.NOE()
			l := m.Line()
			i, j := strings.Index(l, "<Header>"), strings.Index(l, "</Header>")+len("</Header>")
			return l[:i] + l[j:]
		}},
		{"MALFORMED_no_Body", "MALFORMED", func(tr *Trade) string {
			l := tr.NOE().Line()
			i, j := strings.Index(l, "<Body>"), strings.Index(l, "</Body>")+len("</Body>")
			return l[:i] + l[j:]
		}},
		{"MALFORMED_root_not_Msg", "MALFORMED", func(tr *Trade) string {
			l := tr.NOE().Line()
			return "<Message>" + strings.TrimSuffix(strings.TrimPrefix(l, "<Msg>"), "</Msg>") + "</Message>"
		}},
		{"MALFORMED_text_after_root", "MALFORMED", func(tr *Trade) string { return tr.NOE().Line() + "trailing" }},
		{"MALFORMED_text_before_root", "MALFORMED", func(tr *Trade) string { return "leading" + tr.NOE().Line() }},
		{"MALFORMED_two_roots", "MALFORMED", func(tr *Trade) string { return tr.NOE().Line() + "<Msg></Msg>" }},
		{"MALFORMED_DOCTYPE", "MALFORMED", func(tr *Trade) string { return "<!DOCTYPE Msg>" + tr.NOE().Line() }},
		{"MALFORMED_DOCTYPE_internal_entity", "MALFORMED", func(tr *Trade) string {
			m := tr.NOE().SetRaw("Market", "&mic;")
			return `<!DOCTYPE Msg [<!ENTITY mic "XSES">]>` + m.Line()
		}},
		{"MALFORMED_garbage", "MALFORMED", func(tr *Trade) string { return "this is not xml" }},
		{"MALFORMED_empty_Msg", "MALFORMED", func(tr *Trade) string { return "<Msg/>" }},
		{"MALFORMED_invalid_utf8", "MALFORMED", func(tr *Trade) string {
			return tr.NOE().SetRaw("Market", "X\xff\xfeS").Line()
		}},
		{"MALFORMED_control_char_in_text", "MALFORMED", func(tr *Trade) string {
			return tr.SET(0).SetRaw("SafekeepingAccount", "SK\x01A").Line() // raw U+0001: not an XML Char
		}},
		{"MALFORMED_char_ref_to_control_char", "MALFORMED", func(tr *Trade) string {
			return tr.SET(0).SetRaw("SafekeepingAccount", "SK&#1;A").Line()
		}},
		{"MALFORMED_char_ref_to_surrogate", "MALFORMED", func(tr *Trade) string {
			return tr.SET(0).SetRaw("SafekeepingAccount", "SK&#xD800;A").Line()
		}},
		{"MALFORMED_cdata_end_in_text", "MALFORMED", func(tr *Trade) string {
			return tr.SET(0).SetRaw("SafekeepingAccount", "SK]]>A").Line()
		}},
		{"MALFORMED_unquoted_attribute", "MALFORMED", func(tr *Trade) string {
			return strings.Replace(tr.NOE().Line(), `<Sig alg="ed25519">`, `<Sig alg=ed25519>`, 1)
		}},
		{"MALFORMED_duplicate_attribute", "MALFORMED", func(tr *Trade) string {
			return strings.Replace(tr.NOE().Line(), `<Sig alg="ed25519">`, `<Sig alg="ed25519" alg="ed25519">`, 1)
		}},
		{"MALFORMED_double_hyphen_in_comment", "MALFORMED", func(tr *Trade) string {
			m := tr.NOE()
			m.Head = "<!-- a -- b -->"
			return m.Line()
		}},
		{"MALFORMED_xml_declaration_not_first", "MALFORMED", func(tr *Trade) string {
			m := tr.NOE()
			m.Pre = ` <?xml version="1.0"?>`
			return m.Line()
		}},
		{"MALFORMED_root_lowercase_msg", "MALFORMED", func(tr *Trade) string {
			l := tr.NOE().Line()
			return "<msg>" + strings.TrimSuffix(strings.TrimPrefix(l, "<Msg>"), "</Msg>") + "</msg>"
		}},
		{"ok_spec_example_layout_with_comments_and_empty_RelatedMsgId", "", func(tr *Trade) string {
			// the envelope of docs/spec/messages.md §2, on one line: comments after
			// values, an empty RelatedMsgId on a NEW, whitespace between elements
			m := tr.NOE()
			m.Hdr = []F{
				{N: "MsgId", V: m.Get("MsgId")},
				{N: "!c1", V: "<MsgType>NOE</MsgType>          <!-- NOE | ALC | NPR | SET -->"},
				{N: "!c2", V: "<Function>NEW</Function>        <!-- NEW | CANCEL | REPLACE -->"},
				{N: "Sender", V: m.Get("Sender")},
				{N: "Created", V: m.Get("Created")},
				{N: "!c3", V: "<RelatedMsgId></RelatedMsgId>   <!-- required for CANCEL and REPLACE -->"},
			}
			m.Sep = "  "
			return m.Line()
		}},
		{"ok_empty_RelatedMsgId_self_closing_on_NEW", "", func(tr *Trade) string {
			m := tr.NOE()
			m.Hdr = append(m.Hdr, F{N: "!x", V: "<RelatedMsgId/>"})
			return m.Line()
		}},
		{"ok_whitespace_inside_tags", "", func(tr *Trade) string {
			m := tr.NOE().Del("Market")
			m.Body = append(m.Body, F{N: "!x", V: "<Market >XSES</Market\t>"})
			return m.Line()
		}},
		{"ok_single_quoted_alg", "", func(tr *Trade) string {
			return strings.Replace(tr.NOE().Line(), `<Sig alg="ed25519">`, `<Sig alg='ed25519'>`, 1)
		}},
		{"ok_xml_declaration", "", func(tr *Trade) string {
			m := tr.NOE()
			m.Pre = `<?xml version="1.0" encoding="UTF-8"?>`
			return m.Line()
		}},
		{"ok_whitespace_between_elements", "", func(tr *Trade) string { m := tr.NOE(); m.Sep = " \t "; return m.Line() }},
		{"ok_comment_between_elements", "", func(tr *Trade) string {
			m := tr.NOE()
			m.Head = "<!-- note -->"
			return m.Line()
		}},
		{"ok_unknown_elements", "", func(tr *Trade) string {
			m := tr.NOE()
			m.Head = "<Routing><Hop>1</Hop></Routing>"
			m.Hdr = append(m.Hdr, F{N: "Priority", V: "high"})
			m.Body = append(m.Body, F{N: "!x", V: "<Ext><Price>99</Price><Quantity>1</Quantity></Ext>"}, F{N: "Note", V: "n"})
			m.Tail = "<Trailer/>"
			return m.Line()
		}},
		{"ok_self_closing_unknown_element", "", func(tr *Trade) string {
			m := tr.NOE()
			m.Body = append(m.Body, F{N: "!x", V: "<Flag/>"})
			return m.Line()
		}},
		{"SCHEMA_self_closing_required_field", "SCHEMA", func(tr *Trade) string {
			return strings.Replace(tr.NOE().Line(), "<Market>XSES</Market>", "<Market/>", 1)
		}},
		{"SCHEMA_field_twice_in_Header", "SCHEMA", func(tr *Trade) string {
			m := tr.NOE()
			m.Hdr = append(m.Hdr, F{N: "Created", V: m.Get("Created")})
			return m.Line()
		}},
		{"SCHEMA_field_twice_in_Body_different_values", "SCHEMA", func(tr *Trade) string {
			m := tr.NOE()
			m.Body = append(m.Body, F{N: "Quantity", V: "1"})
			return m.Line()
		}},
	}
	var in []string
	for i, c := range cases {
		in = append(in, c.line(stdTrade(fmt.Sprintf("D%03d", i))))
	}
	r := runMatch(t, in)
	for i, c := range cases {
		n := i + 1
		t.Run(c.name, func(t *testing.T) {
			got := r.Reason(n)
			if got != c.code {
				want := c.code
				if want == "" {
					want = "accepted"
				}
				d := ""
				if e := r.ExcAt(n); e != nil {
					d = fmt.Sprint(e["detail"])
				}
				t.Errorf("line %d: got %q (%s), want %s\n  %.400s", n, got, d, want, in[i])
			}
		})
	}
	// an unreadable record: sender and msg_id are ""
	for _, name := range []string{"MALFORMED_garbage", "MALFORMED_empty_Msg"} {
		for i, c := range cases {
			if c.name == name {
				if e := r.ExcAt(i + 1); e != nil && (e["sender"] != "" || e["msg_id"] != "") {
					t.Errorf("%s: sender %v msg_id %v, want \"\" (could not be read)", name, e["sender"], e["msg_id"])
				}
			}
		}
	}
}

// §7: "sender and msg_id are \"\" when they could not be read" — a
// well-formed message that lacks its Body is MALFORMED, but its Header is
// readable, so the exception names its Sender and MsgId. [interpretation]
func TestDecode_MalformedNoBody_SenderAndMsgIdRead(t *testing.T) {
	m := stdTrade("NB-1").NOE()
	l := m.Line()
	i, j := strings.Index(l, "<Body>"), strings.Index(l, "</Body>")+len("</Body>")
	r := runMatch(t, []string{l[:i] + l[j:]})
	e := r.ExcAt(1)
	if e == nil || e["reason"] != "MALFORMED" {
		t.Fatalf("want MALFORMED, got %v", e)
	}
	if e["sender"] != BRK || e["msg_id"] != m.ID() {
		t.Errorf("exception sender %q msg_id %q, want %q %q (the Header could be read)", e["sender"], e["msg_id"], BRK, m.ID())
	}
}

// §2/§3: entities, character references and CDATA are decoded and values
// trimmed before use; element order is free; whitespace between elements and
// unknown elements are allowed — each variant still lands in the same trade
// (trade key over the decoded, trimmed fields) and matches.
func TestDecode_VariantsLandInSameTradeAndMatch(t *testing.T) {
	type variant struct {
		name string
		mk   func(tr *Trade) []*Msg
	}
	rng := rand.New(rand.NewSource(3))
	variants := []variant{
		{"CDATA_TradeRef_in_NOE", func(tr *Trade) []*Msg {
			ms := tr.All()
			ms[0].SetRaw("TradeRef", "<![CDATA["+tr.Ref+"]]>")
			return ms
		}},
		{"CDATA_partial_and_Quantity", func(tr *Trade) []*Msg {
			ms := tr.All()
			ms[1].SetRaw("TradeRef", tr.Ref[:2]+"<![CDATA["+tr.Ref[2:]+"]]>")
			ms[1].SetRaw("Quantity", "<![CDATA[1000]]>")
			return ms
		}},
		{"char_references_in_TradeRef_and_ISIN", func(tr *Trade) []*Msg {
			ms := tr.All()
			ms[2].SetRaw("TradeRef", fmt.Sprintf("&#%d;&#x%x;%s", tr.Ref[0], tr.Ref[1], tr.Ref[2:]))
			ms[3].SetRaw("ISIN", "&#83;"+tr.ISIN[1:])
			return ms
		}},
		{"amp_entity_in_TradeRef", func(tr *Trade) []*Msg {
			tr.IDPrefix = tr.Ref
			tr.Ref = tr.Ref + "&<'\">"
			return tr.All() // the builder escapes & < > in every message
		}},
		{"predefined_entities_spelled_out", func(tr *Trade) []*Msg {
			tr.IDPrefix = tr.Ref
			tr.Ref = tr.Ref + "&'\""
			ms := tr.All()
			ms[0].SetRaw("TradeRef", strings.TrimSuffix(tr.Ref, "&'\"")+"&amp;&apos;&quot;")
			return ms
		}},
		{"values_with_surrounding_whitespace", func(tr *Trade) []*Msg {
			ms := tr.All()
			ms[0].Set("TradeRef", "  "+tr.Ref+"\t").Set("Quantity", " 1500 ").Set("Price", "\t12.345 ").Set("ISIN", " "+tr.ISIN)
			ms[5].Set("NetAmount", " "+ms[5].Get("NetAmount")+" ").Set("Custodian", CUSA+" ")
			ms[2].Set("Side", " BUY ").Set("AllocCount", " 2 ")
			ms[3].Set("MsgId", " "+ms[3].Get("MsgId")+" ")
			return ms
		}},
		{"element_order_shuffled", func(tr *Trade) []*Msg {
			ms := tr.All()
			for _, m := range ms {
				rng.Shuffle(len(m.Hdr), func(i, j int) { m.Hdr[i], m.Hdr[j] = m.Hdr[j], m.Hdr[i] })
				rng.Shuffle(len(m.Body), func(i, j int) { m.Body[i], m.Body[j] = m.Body[j], m.Body[i] })
			}
			return ms
		}},
		{"whitespace_between_elements", func(tr *Trade) []*Msg {
			ms := tr.All()
			for i, m := range ms {
				m.Sep = []string{" ", "\t", "  \t "}[i%3]
			}
			return ms
		}},
		{"xml_declaration", func(tr *Trade) []*Msg {
			ms := tr.All()
			for _, m := range ms {
				m.Pre = `<?xml version="1.0" encoding="UTF-8"?>`
			}
			return ms
		}},
		{"unknown_elements_everywhere", func(tr *Trade) []*Msg {
			ms := tr.All()
			for _, m := range ms {
				m.Head = "<Envelope>x</Envelope>"
				m.Hdr = append([]F{{N: "Trace", V: "abc"}}, m.Hdr...)
				m.Body = append(m.Body, F{N: "!x", V: "<Ext><Price>1</Price><Account>ZZ</Account></Ext>"})
				m.Tail = "<After/>"
			}
			return ms
		}},
	}
	var in []string
	var trades []*Trade
	for i, v := range variants {
		tr := stdTrade(fmt.Sprintf("VAR-%02d", i))
		for _, m := range v.mk(tr) {
			in = append(in, m.Line())
		}
		trades = append(trades, tr)
	}
	r := runMatch(t, in)
	for i, v := range variants {
		tr := trades[i]
		t.Run(v.name, func(t *testing.T) {
			for j := i * 7; j < i*7+7; j++ {
				if e := r.ExcAt(j + 1); e != nil {
					t.Errorf("line %d rejected %v: %v\n  %.300s", j+1, e["reason"], e["detail"], in[j])
				}
			}
			cls := r.CLSFor(tr.Key())
			if len(cls) != 1 {
				t.Fatalf("trade %q (key %s) not matched: CLS %v\n%s", tr.Ref, tr.Key(), r.CLSIDs(tr.Key()), statusSummary(r, tr.Key()))
			}
			checkCLSNew(t, cls[0], tr, 1)
		})
	}
}

// §4 TOO_LARGE: a record over 65,536 bytes; exactly 65,536 is accepted.
// Bytes, not characters. No NACK even for a known sender; the exception
// payload is the first 64 KiB with payload_truncated true.
func TestDecode_TooLargeBoundary(t *testing.T) {
	pad := func(m *Msg, total int, unit string) string {
		base := m.Line()
		over := len("<Pad></Pad>")
		need := total - len(base) - over
		if need < 0 {
			panic("too long")
		}
		fill := strings.Repeat(unit, need/len(unit)) + strings.Repeat("x", need%len(unit))
		m.Tail = "<Pad>" + fill + "</Pad>"
		l := m.Line()
		if len(l) != total {
			panic(fmt.Sprintf("pad: %d != %d", len(l), total))
		}
		return l
	}
	padWS := func(m *Msg, total int) string {
		base := m.Line()
		m.Tail = strings.Repeat(" ", total-len(base))
		return m.Line()
	}
	t1, t2, t3, t4 := stdTrade("BIG-1"), stdTrade("BIG-2"), stdTrade("BIG-3"), stdTrade("BIG-4")
	in := []string{
		pad(t1.NOE(), 65536, "x"),             // accepted
		pad(t2.NOE(), 65537, "x"),             // TOO_LARGE
		pad(t3.NOE(), 65537, "é"),             // TOO_LARGE: 65,537 bytes, fewer characters
		padWS(t4.NOE(), 65536),                // accepted: whitespace padding
		padWS(stdTrade("BIG-5").NOE(), 70000), // TOO_LARGE
		strings.Repeat("<", 70000),            // TOO_LARGE before MALFORMED
	}
	r := runMatch(t, in)
	want := []string{"", "TOO_LARGE", "TOO_LARGE", "", "TOO_LARGE", "TOO_LARGE"}
	for i, w := range want {
		if got := r.Reason(i + 1); got != w {
			t.Errorf("line %d (%d bytes): got %q, want %q", i+1, len(in[i]), got, w)
		}
	}
	for _, n := range []int{2, 3, 5, 6} {
		if e := r.ExcAt(n); e != nil {
			if v, _ := e["payload_truncated"].(bool); !v {
				t.Errorf("line %d: payload_truncated = %v, want true", n, e["payload_truncated"])
			}
		}
	}
}
