package iso20022

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/ste-utility/ste/adapters/stexml"
	"github.com/ste-utility/ste/schemas/xmltext"
)

// Namespaces of adapters.md §5.1.
const (
	NSSese023 = "urn:iso:std:iso:20022:tech:xsd:sese.023.001.11"
	NSSese020 = "urn:iso:std:iso:20022:tech:xsd:sese.020.001.07"
	NSSese024 = "urn:iso:std:iso:20022:tech:xsd:sese.024.001.12"
	NSSese027 = "urn:iso:std:iso:20022:tech:xsd:sese.027.001.07"
	NSSese028 = "urn:iso:std:iso:20022:tech:xsd:sese.028.001.10"
	NSSese029 = "urn:iso:std:iso:20022:tech:xsd:sese.029.001.06"
)

// Message definitions, as the outputs route names them (msg_def).
const (
	DefSese024 = "sese.024.001.12"
	DefSese027 = "sese.027.001.07"
	DefSese028 = "sese.028.001.10"
	DefSese029 = "sese.029.001.06"
)

// MaxBody is the largest request body (adapters.md §5.2: 413 past it).
const MaxBody = 65536

// Doc is a parsed request body: a Document with one child, its elements
// found by local name (the adapter reads only the paths of §5.3 and §5.5,
// and ignores every other element; prefixes are not interpreted beyond the
// root's namespace).
type Doc struct {
	d     xmltext.Document
	NS    string // the root's namespace
	Top   int    // the child of Document: SctiesSttlmTxInstr or SctiesTxCxlReq
	Inst  bool   // sese.023 (else sese.020)
	Raw   []byte
	local []string
}

// Problem is a refusal of the body before any profile check: the HTTP
// status and the error code of §5.2.
type Problem struct {
	Status int
	Code   string
}

var (
	problemMalformed   = &Problem{400, "malformed"}
	problemUnsupported = &Problem{400, "unsupported_message"}
)

// ParseDocument checks a body against the rows of §5.2 up to the
// transaction reference: well-formed (xmltext: no DOCTYPE, nesting at most
// 64 deep), root Document with exactly one child element, one of the two
// inbound namespaces, and the transaction reference present, non-empty
// and at most 35 characters.
func ParseDocument(body []byte) (*Doc, *Problem) {
	x := &Doc{Raw: body}
	if err := x.d.Parse(body); err != nil || len(x.d.Elements) == 0 {
		return nil, problemMalformed
	}
	x.local = make([]string, len(x.d.Elements))
	for i := range x.d.Elements {
		n := x.d.Elements[i].Name
		if j := bytes.IndexByte(n, ':'); j >= 0 {
			n = n[j+1:]
		}
		x.local[i] = string(n)
	}
	root := x.d.Elements[0]
	if x.local[0] != "Document" || root.Children != 1 {
		return nil, problemMalformed
	}
	attr := "xmlns"
	if j := bytes.IndexByte(root.Name, ':'); j >= 0 {
		attr = "xmlns:" + string(root.Name[:j])
	}
	ns, _ := root.Attr(attr)
	x.NS = string(ns)
	switch x.NS {
	case NSSese023:
		x.Inst = true
	case NSSese020:
	default:
		return nil, problemUnsupported
	}
	for i := 1; i < len(x.d.Elements); i++ {
		if x.d.Elements[i].Parent == 0 {
			x.Top = i
			break
		}
	}
	want := "SctiesTxCxlReq"
	if x.Inst {
		want = "SctiesSttlmTxInstr"
	}
	if x.local[x.Top] != want {
		return nil, problemMalformed
	}
	tx, ok := x.TxId()
	if !ok || tx == "" || utf8.RuneCountInString(tx) > 35 {
		return nil, problemMalformed
	}
	return x, nil
}

// TxId is the transaction reference: sese.023 TxId, sese.020
// AcctOwnrTxId/SctiesSttlmTxId/TxId, as written.
func (x *Doc) TxId() (string, bool) {
	if x.Inst {
		return x.Text("TxId")
	}
	return x.Text("AcctOwnrTxId/SctiesSttlmTxId/TxId")
}

// find is the first element at path (local names separated by '/') under
// the top element, or -1.
func (x *Doc) find(path string) int {
	return x.findFrom(x.Top, path)
}

func (x *Doc) findFrom(at int, path string) int {
	for _, name := range strings.Split(path, "/") {
		next := -1
		for i := at + 1; i < len(x.d.Elements); i++ {
			if int(x.d.Elements[i].Parent) == at && x.local[i] == name {
				next = i
				break
			}
		}
		if next < 0 {
			return -1
		}
		at = next
	}
	return at
}

// count is the number of children named name of the element at path.
func (x *Doc) count(path, name string) int {
	at := x.find(path)
	if at < 0 {
		return 0
	}
	n := 0
	for i := at + 1; i < len(x.d.Elements); i++ {
		if int(x.d.Elements[i].Parent) == at && x.local[i] == name {
			n++
		}
	}
	return n
}

// Has says whether the element at path is present.
func (x *Doc) Has(path string) bool { return x.find(path) >= 0 }

// Text is the text of the element at path, as written (entities decoded).
func (x *Doc) Text(path string) (string, bool) {
	i := x.find(path)
	if i < 0 {
		return "", false
	}
	return string(x.d.Elements[i].Text), true
}

// Code is the text of the element at path with XML whitespace collapsed
// away (the schema types of codes, dates and numbers collapse it).
func (x *Doc) Code(path string) string {
	t, _ := x.Text(path)
	return strings.Trim(t, " \t\r\n")
}

// Attr is an attribute of the element at path.
func (x *Doc) Attr(path, name string) (string, bool) {
	i := x.find(path)
	if i < 0 {
		return "", false
	}
	v, ok := x.d.Elements[i].Attr(name)
	return string(v), ok
}

// Representable is stexml.Representable (kept here for the profile's P14).
var Representable = stexml.Representable
