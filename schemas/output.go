package schemas

import (
	"bytes"
	"errors"
	"strconv"

	"github.com/ste-utility/ste/schemas/xmltext"
)

// Received is an output message as a consumer reads it: the header, the
// content (the exact bytes inside <Body>), and the body fields consumers
// key on. Consumers (tests, the sink, analytics) dedupe by MsgId.
type Received struct {
	MsgId, MsgType, Function, Sender, Receiver, Created, RelatedMsgId string
	Body                                                              []byte // inner bytes of <Body>: the content
	TradeKey                                                          string
	Version                                                           int
	Status                                                            string
	Reason                                                            string
	Criteria                                                          []int // STATUS MISMATCHED: the failing criteria, in order
	Tolerances                                                        []int // STATUS MATCHED: the criteria held only within tolerance, in order
}

// ParseOutput reads an output message (ACK, NACK, STATUS or CLS). It checks
// well-formedness and shape, not the signature (see VerifyOutput).
func ParseOutput(raw []byte) (*Received, error) {
	var d xmltext.Document
	if err := d.Parse(raw); err != nil {
		return nil, err
	}
	if string(d.Elements[0].Name) != "Msg" {
		return nil, errors.New("root is not <Msg>")
	}
	h, b := d.Child(0, "Header"), d.Child(0, "Body")
	if h < 0 || b < 0 {
		return nil, errors.New("no <Header> or <Body>")
	}
	r := &Received{}
	text := func(parent int, name string) string {
		i := d.Child(parent, name)
		if i < 0 {
			return ""
		}
		return string(trim(d.Elements[i].Text))
	}
	r.MsgId, r.MsgType, r.Function = text(h, "MsgId"), text(h, "MsgType"), text(h, "Function")
	r.Sender, r.Receiver, r.Created, r.RelatedMsgId = text(h, "Sender"), text(h, "Receiver"), text(h, "Created"), text(h, "RelatedMsgId")
	be := d.Elements[b]
	// Content: from after <Body ...> to before </Body>.
	open := int(be.Start)
	for open < len(raw) && raw[open] != '>' {
		open++
	}
	r.Body = raw[open+1 : int(be.End)-len("</Body>")]
	r.TradeKey = text(b, "TradeKey")
	r.Status = text(b, "Status")
	r.Reason = text(b, "Reason")
	if v := text(b, "Version"); v != "" {
		r.Version, _ = strconv.Atoi(v)
	}
	for _, i := range d.Children(nil, b) {
		var to *[]int
		switch string(d.Elements[i].Name) {
		case "Discrepancy":
			to = &r.Criteria
		case "Tolerance":
			to = &r.Tolerances
		default:
			continue
		}
		for _, a := range d.Elements[i].Attrs {
			if string(a.Name) == "criterion" {
				n, _ := strconv.Atoi(string(a.Value))
				*to = append(*to, n)
			}
		}
	}
	return r, nil
}

// StatusTolerances reads the criteria of the <Tolerance> elements of a
// STATUS body (the inner bytes of <Body>), for readers that keep the body but
// not the parsed message (analytics).
func StatusTolerances(body []byte) []int {
	var out []int
	const open = `<Tolerance criterion="`
	for {
		i := bytes.Index(body, []byte(open))
		if i < 0 {
			return out
		}
		body = body[i+len(open):]
		j := bytes.IndexByte(body, '"')
		if j < 0 {
			return out
		}
		if n, err := strconv.Atoi(string(body[:j])); err == nil {
			out = append(out, n)
		}
	}
}
