package exceptions

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/schemas/xmltext"
	"github.com/ste-utility/ste/topics"
)

// Field is one element of a message with text and no child elements, by
// its path below the root ("Header/MsgId", "Body/Quantity").
type Field struct {
	Path  string `json:"path"`
	Value string `json:"value"`
}

// maxFieldValue bounds a field's shown value (a signature, a 64 KiB
// element of an oversized record).
const maxFieldValue = 256

// Fields lists the message's elements as an operator reads them: the
// header and body fields with their values, whatever the message's
// validity, as long as it is well-formed XML. A record that is not is an
// error saying why (show the raw text instead).
func Fields(payload []byte) ([]Field, error) {
	var d xmltext.Document
	if err := d.Parse(payload); err != nil {
		return nil, err
	}
	var out []Field
	path := make([]string, 0, 8)
	var walk func(i int, depth int)
	walk = func(i int, depth int) {
		el := &d.Elements[i]
		path = append(path[:depth], string(el.Name))
		if el.Children == 0 {
			v := strings.TrimSpace(string(el.Text))
			if len(v) > maxFieldValue {
				v = v[:maxFieldValue] + fmt.Sprintf("… (%d bytes)", len(el.Text))
			}
			p := strings.Join(path[1:], "/")
			if p == "" {
				p = path[0]
			}
			out = append(out, Field{Path: p, Value: v})
			return
		}
		for _, c := range d.Children(nil, i) {
			walk(c, depth+1)
		}
	}
	walk(0, 0)
	return out, nil
}

// nackWindow bounds the search for a NACK on the outbound topic: it is
// written with its exception, moments apart.
const nackWindow = 5 * time.Minute

// NACK reads the NACK sent for an exception from <ns>.outbound: the record
// with its MsgId in the sender's partition, near the exception's time. It
// returns nil when the exception says no NACK was sent.
func (w *Workflow) NACK(ctx context.Context, e Exception) ([]byte, error) {
	if e.NACK == "" {
		return nil, nil
	}
	n, err := topics.Partitions(ctx, kadm.NewClient(w.cl), w.names.Outbound())
	if err != nil || n == 0 {
		return nil, errors.Join(errors.New("no outbound topic"), err)
	}
	var got []byte
	want := []byte("<MsgId>" + e.NACK + "</MsgId>")
	err = topics.ReadPartitionSince(ctx, w.conn, w.names.Outbound(), topics.PartitionOf(e.Sender, n), e.Time.Add(-nackWindow),
		func(r *kgo.Record) bool {
			if bytes.Contains(r.Value, want) {
				got = r.Value
				return false
			}
			return r.Timestamp.Before(e.Time.Add(nackWindow))
		})
	if err == nil && got == nil {
		err = fmt.Errorf("NACK %s not found on %s near %s", e.NACK, w.names.Outbound(), e.Time.Format(time.RFC3339))
	}
	return got, err
}
