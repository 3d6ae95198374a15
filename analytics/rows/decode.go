package rows

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/xmltext"
)

// DecodeAudit appends the rows of one audit record — one event's JSON or a
// batch of them (schemas.EachAuditEvent) — to dst: per event, one row per
// step, or a single row with an empty Stage when the event has no steps, so
// that every event is counted exactly once by "step = 0". The MsgIds the
// message caused go on the event's last row only. A record with an event
// it cannot read adds no rows.
func DecodeAudit(dst []Audit, src Source, value []byte) ([]Audit, error) {
	if len(value) == 0 {
		return dst, errEmpty
	}
	n := len(dst)
	err := schemas.EachAuditEvent(value, func(ev schemas.AuditEvent) error {
		var err error
		dst, err = auditRows(dst, src, &ev)
		return err
	})
	if err != nil {
		return dst[:n], err
	}
	return dst, nil
}

// auditRows appends the rows of one event.
func auditRows(dst []Audit, src Source, ev *schemas.AuditEvent) ([]Audit, error) {
	if ev.Outcome == "" {
		return dst, errors.New("audit record without outcome")
	}
	if len(ev.Steps) > 255 {
		return dst, fmt.Errorf("audit record with %d steps", len(ev.Steps))
	}
	base := Audit{
		Source: src, Outcome: ev.Outcome, Reason: ev.Reason, TradeKey: ev.TradeKey,
		Sender: ev.Sender, MsgId: ev.MsgId, MsgType: ev.Type, Function: ev.Function,
		InboundPartition: ev.Partition, InboundOffset: ev.Offset, Market: ev.Market,
	}
	if ev.Cutoff != "" {
		t, err := schemas.ParseMicroTime(ev.Cutoff)
		if err != nil {
			return dst, fmt.Errorf("audit cutoff: %w", err)
		}
		base.Cutoff = t
	}
	if ev.InboundAt != "" {
		t, err := schemas.ParseMicroTime(ev.InboundAt)
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
		at, err := schemas.ParseMicroTime(st.At)
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

// DecodeCLS reads one CLS record (CLS NEW or CANCEL XML, docs/spec/messages.md
// section 6). Header and content are read with schemas.ParseOutput, as
// every consumer of outputs does; the CLS NEW body with
// schemas.ParseCLSBody, the codec that writes it.
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
	body, err := schemas.ParseCLSBody(out.Body)
	if err != nil {
		return CLS{}, err
	}
	c.TradeRef, c.ISIN, c.Side = body.Key.TradeRef, body.Key.ISIN, body.Key.Side
	c.Broker, c.InvMgr, c.TradeCcy = body.Key.Broker, body.Key.InvMgr, body.TradeCcy
	c.Price = body.Price.String()
	c.TradeDate, _ = time.Parse(time.DateOnly, body.Key.TradeDate)
	if body.SettleDate != 0 {
		c.SettleDate = body.SettleDate.Time()
	}
	c.Quantity = body.Quantity
	if body.MatchedAt != 0 {
		c.MatchedAt = time.Unix(0, body.MatchedAt).UTC()
	}
	c.Legs = uint16(len(body.Legs))
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
	switch o.MsgType {
	case "STATUS", "CNF", "BLK", "ALG":
		if o.Lifecycle, err = lifecycleOf(out.Body); err != nil {
			return Outbound{}, fmt.Errorf("%s body: %w", o.MsgType, err)
		}
	}
	return o, nil
}

// lifecycleOf reads the version 3 elements of an output's Body.
func lifecycleOf(body []byte) (Lifecycle, error) {
	var l Lifecycle
	doc := make([]byte, 0, len(body)+7)
	doc = append(append(append(doc, "<B>"...), body...), "</B>"...)
	var d xmltext.Document
	if err := d.Parse(doc); err != nil {
		return l, err
	}
	tokens := func(i int) []string { return strings.Fields(string(d.Elements[i].Text)) }
	for _, i := range d.Children(nil, 0) {
		e := &d.Elements[i]
		text := strings.TrimSpace(string(e.Text))
		attr := func(name string) string { v, _ := e.Attr(name); return string(v) }
		switch string(e.Name) {
		case "TradeRef":
			l.TradeRef = text
		case "Broker":
			l.Broker = text
		case "InvMgr":
			l.InvMgr = text
		case "MatchDigest":
			l.MatchDigest = text
		case "RejectReason":
			l.RejectReasons = append(l.RejectReasons, text)
		case "Pending":
			l.Pending = tokens(i)
		case "Proposal":
			l.ProposalDigest = attr("digest")
		case "CancelRequest":
			l.CancelRequests = append(l.CancelRequests, attr("state")+" "+text)
		case "CancelledBy":
			l.CancelledBy = tokens(i)
		case "Owed":
			item := attr("msgType")
			if a := attr("account"); a != "" {
				item += " " + a
			}
			if c := attr("count"); c != "" {
				item += " " + c
			}
			l.Owed = append(l.Owed, item)
		}
	}
	return l, nil
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

// parseTime reads the RFC 3339 timestamps of the contract and of STE's own
// records (milliseconds or microseconds, UTC or with an offset).
func parseTime(s string) (time.Time, error) {
	ns, err := schemas.ParseTimestamp(s)
	if err != nil {
		return time.Time{}, err
	}
	return time.Unix(0, ns).UTC(), nil
}
