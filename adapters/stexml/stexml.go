// Package stexml writes the STE records the adapters produce, byte-exact as
// docs/spec/adapters.md §3.1 says — <Msg><Header>…</Header><Body>…</Body><Sig
// alg="ed25519">…</Sig></Msg>, no declaration, no whitespace, the Header in
// its order, the Body in the mapping's order, the text escaped one way — and
// the values of §3.3 (dates, timestamps, canonical decimals). The same input
// always gives the same bytes, so a resend is an exact duplicate.
package stexml

import (
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/ste-utility/ste/schemas"
)

// MaxRecord is the largest record an adapter produces (§3.1): past it the
// standard message is rejected with TOO_LARGE.
const MaxRecord = 65536

// Header is an STE Header as the adapters write it: MsgId, MsgType,
// Function, Sender, Signer, Created, then RelatedMsgId (CANCEL and REPLACE
// only; empty is not written).
type Header struct {
	MsgId, MsgType, Function, Sender, Signer, Created, RelatedMsgId string
}

// Field is one Body element; the Body is written in the order given, and a
// field with an empty value is not written (§3.1: "absent", never empty).
type Field struct{ Name, Value string }

// F is a Field.
func F(name, value string) Field { return Field{Name: name, Value: value} }

// ErrTooLarge: the record would be over MaxRecord bytes.
var ErrTooLarge = errors.New("TOO_LARGE")

// BadValueError: a value is not valid UTF-8 or holds a character XML 1.0
// forbids; it cannot be represented (an adapter rejection naming the field).
type BadValueError struct{ Field string }

func (e *BadValueError) Error() string { return "invalid character in " + e.Field }

// Record is one STE record made by an adapter.
type Record struct {
	Bytes []byte
	// Signed is the signed range, <Header> through </Body> (a sub-slice of
	// Bytes); SignedSHA256 its digest, which the journal keeps.
	Signed       []byte
	SignedSHA256 [32]byte
}

// Build writes and signs a record with key (the adapter's signer key, §2).
func Build(h Header, body []Field, key ed25519.PrivateKey) (*Record, error) {
	var b strings.Builder
	b.Grow(512)
	b.WriteString("<Msg>")
	start := b.Len()
	b.WriteString("<Header>")
	hdr := []Field{{"MsgId", h.MsgId}, {"MsgType", h.MsgType}, {"Function", h.Function}, {"Sender", h.Sender},
		{"Signer", h.Signer}, {"Created", h.Created}, {"RelatedMsgId", h.RelatedMsgId}}
	for _, f := range hdr {
		if err := element(&b, f); err != nil {
			return nil, err
		}
	}
	b.WriteString("</Header><Body>")
	for _, f := range body {
		if err := element(&b, f); err != nil {
			return nil, err
		}
	}
	b.WriteString("</Body>")
	end := b.Len()
	signed := b.String()[start:end]
	b.WriteString(`<Sig alg="ed25519">`)
	b.WriteString(schemas.Sign(key, []byte(signed)))
	b.WriteString("</Sig></Msg>")
	if b.Len() > MaxRecord {
		return nil, ErrTooLarge
	}
	out := []byte(b.String())
	r := &Record{Bytes: out, Signed: out[start:end]}
	r.SignedSHA256 = sha256.Sum256(r.Signed)
	return r, nil
}

func element(b *strings.Builder, f Field) error {
	if f.Value == "" {
		return nil
	}
	if !Representable(f.Value) {
		return &BadValueError{Field: f.Name}
	}
	b.WriteByte('<')
	b.WriteString(f.Name)
	b.WriteByte('>')
	Escape(b, f.Value)
	b.WriteString("</")
	b.WriteString(f.Name)
	b.WriteByte('>')
	return nil
}

// Representable: s is valid UTF-8 and holds no character XML 1.0 forbids
// (C0 controls but TAB, LF and CR; U+FFFE, U+FFFF).
func Representable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xFFFE || r == 0xFFFF {
			return false
		}
	}
	return true
}

// Escape writes s as §3.1 escapes text: &, < and > as entities, CR as
// &#13; (a parser would turn a raw CR into LF), nothing else; no CDATA.
func Escape(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '\r':
			b.WriteString("&#13;")
		default:
			b.WriteByte(c)
		}
	}
}

// Key returns the six key fields of a body (TradeRef, TradeDate, ISIN,
// Side, Broker, InvMgr, by name), as the trade key hashes them.
func Key(body []Field) schemas.Key {
	var k schemas.Key
	for _, f := range body {
		v := strings.Trim(f.Value, " \t\r\n")
		switch f.Name {
		case "TradeRef":
			k.TradeRef = v
		case "TradeDate":
			k.TradeDate = v
		case "ISIN":
			k.ISIN = v
		case "Side":
			k.Side = v
		case "Broker":
			k.Broker = v
		case "InvMgr":
			k.InvMgr = v
		}
	}
	return k
}

// TradeKey is the trade key (messages.md §5) of a body's key fields.
func TradeKey(body []Field) string {
	k := Key(body)
	return k.TradeKey().String()
}

// KeyFields are the six key fields' names, in the order the adapters write
// them.
var KeyFields = []string{"TradeRef", "TradeDate", "ISIN", "Side", "Broker", "InvMgr"}

// Get is the value of the field named name ("" when absent).
func Get(body []Field, name string) string {
	for _, f := range body {
		if f.Name == name {
			return f.Value
		}
	}
	return ""
}
