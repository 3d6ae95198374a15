package schemas

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"

	"github.com/ste-utility/ste/schemas/signature"
	"github.com/ste-utility/ste/schemas/xmltext"
)

// Draft is an inbound message before signing, with every value as text so that
// generators and tests can write invalid messages as easily as valid ones.
type Draft struct {
	MsgId, MsgType, Function, Sender, Created, RelatedMsgId string
	Body                                                    []Pair // in order; empty values are written as empty elements
	// Signer, when not empty, is written after Sender (version 3: a
	// delegated signer, whose key then signs; adapters.md §3's order).
	Signer string
}

// Pair is one body element.
type Pair struct{ Name, Value string }

// Set replaces the value of the first body element called name, or appends it.
func (d *Draft) Set(name, value string) {
	for i := range d.Body {
		if d.Body[i].Name == name {
			d.Body[i].Value = value
			return
		}
	}
	d.Body = append(d.Body, Pair{name, value})
}

// Get returns the value of the first body element called name.
func (d *Draft) Get(name string) string {
	for _, p := range d.Body {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

// Delete removes every body element called name.
func (d *Draft) Delete(name string) {
	out := d.Body[:0]
	for _, p := range d.Body {
		if p.Name != name {
			out = append(out, p)
		}
	}
	d.Body = out
}

// Clone is a deep copy (the body slice is not shared).
func (d *Draft) Clone() *Draft {
	c := *d
	c.Body = append([]Pair(nil), d.Body...)
	return &c
}

// AppendSigned writes the draft as a one-line message signed with key; a nil
// key writes an empty <Sig>.
func (d *Draft) AppendSigned(b []byte, key ed25519.PrivateKey) []byte {
	b = append(b, "<Msg>"...)
	start := len(b)
	b = append(b, "<Header>"...)
	b = elem(b, "MsgId", d.MsgId)
	b = elem(b, "MsgType", d.MsgType)
	b = elem(b, "Function", d.Function)
	b = elem(b, "Sender", d.Sender)
	if d.Signer != "" {
		b = elem(b, "Signer", d.Signer)
	}
	b = elem(b, "Created", d.Created)
	if d.RelatedMsgId != "" {
		b = elem(b, "RelatedMsgId", d.RelatedMsgId)
	}
	b = append(b, "</Header><Body>"...)
	for _, p := range d.Body {
		b = elem(b, p.Name, p.Value)
	}
	b = append(b, "</Body>"...)
	var sig []byte
	if key != nil {
		sig = signature.Sign(key, b[start:])
	}
	b = append(b, `<Sig alg="ed25519">`...)
	b = base64.StdEncoding.AppendEncode(b, sig)
	return append(b, "</Sig></Msg>"...)
}

// ParseDraft reads a message back into a draft (its signature dropped), so
// that a test or tool can change a field and sign it again.
func ParseDraft(raw []byte) (*Draft, error) {
	var doc xmltext.Document
	if err := doc.Parse(raw); err != nil {
		return nil, err
	}
	h, b := doc.Child(0, "Header"), doc.Child(0, "Body")
	if h < 0 || b < 0 {
		return nil, errors.New("no <Header> or <Body>")
	}
	d := &Draft{}
	for _, i := range doc.Children(nil, h) {
		el := &doc.Elements[i]
		v := string(trim(el.Text))
		switch string(el.Name) {
		case "MsgId":
			d.MsgId = v
		case "MsgType":
			d.MsgType = v
		case "Function":
			d.Function = v
		case "Sender":
			d.Sender = v
		case "Created":
			d.Created = v
		case "RelatedMsgId":
			d.RelatedMsgId = v
		case "Signer":
			d.Signer = v
		}
	}
	for _, i := range doc.Children(nil, b) {
		el := &doc.Elements[i]
		d.Body = append(d.Body, Pair{string(el.Name), string(trim(el.Text))})
	}
	return d, nil
}
