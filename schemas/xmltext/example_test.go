package xmltext_test

import (
	"fmt"

	"github.com/ste-utility/ste/schemas/xmltext"
)

// A Document is reused across messages; lookups walk from the document (-1)
// down by element name, and unknown elements are simply never asked for.
func ExampleDocument_Parse() {
	src := []byte(`<?xml version="1.0" encoding="UTF-8"?>
<Msg>
  <Header><MsgId>BRKASGSGXXX-0000000001</MsgId><Extra>ignored</Extra></Header>
  <Body><Price>100.5</Price><Note>T&amp;C <![CDATA[<apply>]]></Note></Body>
  <Sig alg="ed25519">QUJD</Sig>
</Msg>`)
	var d xmltext.Document
	if err := d.Parse(src); err != nil {
		fmt.Println("MALFORMED:", err)
		return
	}
	msg := d.Child(-1, "Msg")
	hdr := d.Child(msg, "Header")
	body := d.Child(msg, "Body")
	sig := &d.Elements[d.Child(msg, "Sig")]
	alg, _ := sig.Attr("alg")
	fmt.Printf("%s\n", d.Elements[d.Child(hdr, "MsgId")].Text)
	fmt.Printf("%s\n", d.Elements[d.Child(body, "Note")].Text)
	fmt.Printf("%s %s\n", alg, sig.Text)

	err := d.Parse([]byte(`<Msg><Header></Body></Msg>`))
	fmt.Println(err)
	// Output:
	// BRKASGSGXXX-0000000001
	// T&C <apply>
	// ed25519 QUJD
	// xml: byte 13: end tag </Body> does not match <Header>
}
