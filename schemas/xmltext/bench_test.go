package xmltext

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"testing"
)

// benchMessage is a realistic signed trade message (~1.6 KB, 43 elements).
func benchMessage(b *testing.B) []byte {
	src, err := os.ReadFile("testdata/message.xml")
	if err != nil {
		b.Fatal(err)
	}
	return src
}

// BenchmarkParse measures the steady state the matching utility runs in: one
// Document reused per goroutine, so Parse should not allocate at all.
func BenchmarkParse(b *testing.B) {
	src := benchMessage(b)
	var d Document
	if err := d.Parse(src); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := d.Parse(src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodingXML is the baseline: the cheapest complete well-formedness
// pass encoding/xml offers over the same document (Strict token loop, no
// unmarshalling), i.e. a lower bound for any encoding/xml-based decoder.
func BenchmarkEncodingXML(b *testing.B) {
	src := benchMessage(b)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	r := bytes.NewReader(src)
	for b.Loop() {
		r.Reset(src)
		dec := xml.NewDecoder(r)
		dec.Strict = true
		for {
			_, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// benchMsg mirrors the benchmark message for BenchmarkEncodingXMLUnmarshal,
// i.e. what a caller would write to get the same values out of encoding/xml.
type benchMsg struct {
	Header struct {
		MsgID        string `xml:"MsgId"`
		MsgType      string
		Function     string
		Sender       string
		Receiver     string
		Created      string
		RelatedMsgID string `xml:"RelatedMsgId"`
	}
	Body struct {
		TradeRef, TradeDate, SettleDate, Side string
		Instrument                            struct {
			Scheme string `xml:"scheme,attr"`
			Value  string `xml:",chardata"`
		}
		Quantity, Price, Currency, GrossAmount, Commission string
		Fees                                               []struct {
			Type  string `xml:"type,attr"`
			Value string `xml:",chardata"`
		} `xml:"Fees>Fee"`
		NetAmount, Broker, Client, Account, Custodian string
		Settlement                                    struct{ Place, Agent, SafeAccount, CashAccount string }
		Allocation                                    []struct{ AllocRef, AllocQty, AllocAccount string }
		Remarks                                       string
	}
	Sig struct {
		Alg   string `xml:"alg,attr"`
		Value string `xml:",chardata"`
	}
}

// BenchmarkEncodingXMLUnmarshal is the realistic baseline: decoding the same
// document into a struct with xml.Unmarshal.
func BenchmarkEncodingXMLUnmarshal(b *testing.B) {
	src := benchMessage(b)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		var m benchMsg
		if err := xml.Unmarshal(src, &m); err != nil {
			b.Fatal(err)
		}
		if m.Sig.Alg != "ed25519" || len(m.Body.Allocation) != 2 {
			b.Fatal("bad decode")
		}
	}
}
