package rows

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/xmltext"
)

// DecodeAudit appends the rows of one audit record (schemas.AuditEvent JSON)
// to dst: one per step, or a single row with an empty Stage when the record
// has no steps, so that every record is counted exactly once by
// "step = 0". The MsgIds the message caused go on the last row only.
func DecodeAudit(dst []Audit, src Source, value []byte) ([]Audit, error) {
	if len(value) == 0 {
		return dst, errEmpty
	}
	ev, ok := decodeAuditFast(value)
	if !ok {
		ev = schemas.AuditEvent{}
		if err := json.Unmarshal(value, &ev); err != nil {
			return dst, fmt.Errorf("audit JSON: %w", err)
		}
	}
	if ev.Outcome == "" {
		return dst, errors.New("audit record without outcome")
	}
	if len(ev.Steps) > 255 {
		return dst, fmt.Errorf("audit record with %d steps", len(ev.Steps))
	}
	base := Audit{
		Source: src, Outcome: ev.Outcome, Reason: ev.Reason, TradeKey: ev.TradeKey,
		Sender: ev.Sender, MsgId: ev.MsgId, MsgType: ev.Type, Function: ev.Function,
		InboundPartition: ev.Partition, InboundOffset: ev.Offset,
	}
	if ev.InboundAt != "" {
		t, err := parseMicro(ev.InboundAt)
		if err != nil {
			return dst, fmt.Errorf("audit inbound_at: %w", err)
		}
		base.InboundAt = t
	}
	if len(ev.Steps) == 0 {
		base.Steps, base.At, base.Outputs = 1, src.Time, ev.Outputs
		return append(dst, base), nil
	}
	n := len(dst)
	for i, st := range ev.Steps {
		at, err := parseMicro(st.At)
		if err != nil {
			return dst[:n], fmt.Errorf("audit step %d: %w", i, err)
		}
		r := base
		r.Step, r.Steps, r.At, r.Stage, r.Event = uint8(i), uint8(len(ev.Steps)), at, st.Stage, st.Event
		if i == len(ev.Steps)-1 {
			r.Outputs = ev.Outputs
		}
		dst = append(dst, r)
	}
	return dst, nil
}

// DecodeCLS reads one CLS record (CLS NEW or CANCEL XML, messages.md
// section 6). Header and content are read with schemas.ParseOutput, as
// every consumer of outputs does; the CLS NEW body fields are read from the
// content.
func DecodeCLS(src Source, value []byte) (CLS, error) {
	if len(value) == 0 {
		return CLS{}, errEmpty
	}
	out, err := schemas.ParseOutput(value)
	if err != nil {
		return CLS{}, fmt.Errorf("CLS XML: %w", err)
	}
	if out.MsgType != "CLS" {
		return CLS{}, fmt.Errorf("MsgType %q on the cls topic", out.MsgType)
	}
	if out.MsgId == "" {
		return CLS{}, errors.New("CLS without MsgId")
	}
	c := CLS{Source: src, MsgId: out.MsgId, Function: out.Function, TradeKey: out.TradeKey,
		Version: uint32(max(out.Version, 0)), RelatedMsgId: out.RelatedMsgId, Body: string(out.Body)}
	if out.Created != "" {
		if t, err := parseTime(out.Created); err == nil {
			c.Created = t
		}
	}
	if out.Function != "NEW" {
		return c, nil
	}
	// The content is the inner bytes of <Body>: wrap it to get a document.
	doc := make([]byte, 0, len(out.Body)+7)
	doc = append(append(append(doc, "<B>"...), out.Body...), "</B>"...)
	var d xmltext.Document
	if err := d.Parse(doc); err != nil {
		return CLS{}, fmt.Errorf("CLS body: %w", err)
	}
	text := func(name string) string {
		if i := d.Child(0, name); i >= 0 {
			return string(trimSpace(d.Elements[i].Text))
		}
		return ""
	}
	c.TradeRef, c.ISIN, c.Side = text("TradeRef"), text("ISIN"), text("Side")
	c.Broker, c.InvMgr, c.TradeCcy, c.Price = text("Broker"), text("InvMgr"), text("TradeCcy"), text("Price")
	c.TradeDate, _ = time.Parse(time.DateOnly, text("TradeDate"))
	c.SettleDate, _ = time.Parse(time.DateOnly, text("SettleDate"))
	c.Quantity, _ = strconv.ParseInt(text("Quantity"), 10, 64)
	if s := text("MatchedAt"); s != "" {
		c.MatchedAt, _ = parseTime(s)
	}
	for _, i := range d.Children(nil, 0) {
		if string(d.Elements[i].Name) == "Leg" {
			c.Legs++
		}
	}
	return c, nil
}

// DecodeOutbound reads one outbound record (ACK, NACK or STATUS XML).
func DecodeOutbound(src Source, value []byte) (Outbound, error) {
	if len(value) == 0 {
		return Outbound{}, errEmpty
	}
	out, err := schemas.ParseOutput(value)
	if err != nil {
		return Outbound{}, fmt.Errorf("outbound XML: %w", err)
	}
	if out.MsgType == "CLS" || out.MsgType == "" {
		return Outbound{}, fmt.Errorf("MsgType %q on the outbound topic", out.MsgType)
	}
	if out.MsgId == "" {
		return Outbound{}, errors.New("outbound record without MsgId")
	}
	o := Outbound{Source: src, MsgId: out.MsgId, MsgType: out.MsgType, Function: out.Function, Receiver: out.Receiver,
		RelatedMsgId: out.RelatedMsgId, TradeKey: out.TradeKey, Status: out.Status, Reason: out.Reason, Body: string(out.Body)}
	for _, c := range out.Criteria {
		if c < 0 || c > 255 {
			return Outbound{}, fmt.Errorf("criterion %d", c)
		}
		o.Criteria = append(o.Criteria, uint8(c))
	}
	return o, nil
}

// DecodeException reads one exceptions record (schemas.Exception JSON).
func DecodeException(src Source, value []byte) (Exception, error) {
	if len(value) == 0 {
		return Exception{}, errEmpty
	}
	var e schemas.Exception
	if err := json.Unmarshal(value, &e); err != nil {
		return Exception{}, fmt.Errorf("exception JSON: %w", err)
	}
	if e.ID == "" || e.Reason == "" {
		return Exception{}, errors.New("exception without id or reason")
	}
	x := Exception{Source: src, ID: e.ID, Reason: e.Reason, Detail: e.Detail, Sender: e.Sender,
		MsgId: e.MsgId, SourcePartition: e.SourcePartition, SourceOffset: e.SourceOffset,
		Payload: string(e.Payload), PayloadTruncated: e.PayloadTruncated, NACK: e.NACK}
	if e.ReceivedAt != "" {
		t, err := parseTime(e.ReceivedAt)
		if err != nil {
			return Exception{}, fmt.Errorf("exception received_at: %w", err)
		}
		x.ReceivedAt = t
	}
	return x, nil
}

// DecodeMonitor reads one queue sample (schemas.MonitorSample JSON).
func DecodeMonitor(src Source, value []byte) (Monitor, error) {
	if len(value) == 0 {
		return Monitor{}, errEmpty
	}
	var s schemas.MonitorSample
	if err := json.Unmarshal(value, &s); err != nil {
		return Monitor{}, fmt.Errorf("monitor JSON: %w", err)
	}
	if s.Stage == "" || s.At == "" {
		return Monitor{}, errors.New("monitor sample without stage or time")
	}
	at, err := parseTime(s.At)
	if err != nil {
		return Monitor{}, fmt.Errorf("monitor at: %w", err)
	}
	if s.Interval < 0 || s.Interval != s.Interval {
		return Monitor{}, fmt.Errorf("monitor interval %v", s.Interval)
	}
	m := Monitor{Source: src, At: at, Stage: s.Stage, Interval: s.Interval, Arrivals: s.Arrivals,
		Completions: s.Completions, Queue: s.Queue}
	for _, p := range s.Partitions {
		m.Partitions = append(m.Partitions, p.Partition)
		m.PartEnd = append(m.PartEnd, p.End)
		m.PartCommitted = append(m.PartCommitted, p.Committed)
		m.PartLag = append(m.PartLag, p.Lag)
	}
	return m, nil
}

// IsEmpty reports whether err is the error of a record without a value.
func IsEmpty(err error) bool { return errors.Is(err, errEmpty) }

// parseTime reads the RFC 3339 timestamps of the contract and of STE's own
// records (milliseconds or microseconds, UTC or with an offset).
func parseTime(s string) (time.Time, error) {
	ns, err := schemas.ParseTimestamp(s)
	if err != nil {
		return time.Time{}, err
	}
	return time.Unix(0, ns).UTC(), nil
}

func trimSpace(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	for j > i && (b[j-1] == ' ' || b[j-1] == '\t' || b[j-1] == '\n' || b[j-1] == '\r') {
		j--
	}
	return b[i:j]
}
