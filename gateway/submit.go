package gateway

import (
	"bytes"
	"context"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/xmltext"
)

// ParticipantHeader names, on each record the gateway publishes, the
// participant that signed the request.
const ParticipantHeader = "ste-participant"

type accepted struct {
	Partition int32 `json:"partition"`
	Offset    int64 `json:"offset"`
}

// serveSubmit answers POST /v1/messages (docs/spec/gateway.md §2): every check on the
// whole body before anything is published — 413, then 415, then the lines
// in order (400 malformed, 403 sender_mismatch) — then every message on
// <ns>.inbound keyed by its Sender, 202 once all are acknowledged.
func (s *Server) serveSubmit(w http.ResponseWriter, r *http.Request, bic string, b *body) {
	start := time.Now()
	const route = "messages"
	if b.size > MaxBody {
		s.answer(w, route, http.StatusRequestEntityTooLarge, errorBody{Error: "too_large"})
		return
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || (mt != "application/xml" && mt != "text/plain") {
		s.answer(w, route, http.StatusUnsupportedMediaType, errorBody{Error: "unsupported_media_type"})
		return
	}
	msgs, lines := splitBody(b.data, mt == "application/xml")
	if len(msgs) > MaxMessages {
		s.answer(w, route, http.StatusRequestEntityTooLarge, errorBody{Error: "too_large"})
		return
	}
	for _, m := range msgs {
		if len(m) > schemas.MaxRecord {
			s.answer(w, route, http.StatusRequestEntityTooLarge, errorBody{Error: "too_large"})
			return
		}
	}
	if len(msgs) == 0 {
		s.answer(w, route, http.StatusBadRequest, errorBody{Error: "malformed", Line: 1})
		return
	}
	var doc xmltext.Document
	for i, m := range msgs {
		sender, ok := senderOf(&doc, m)
		if !ok {
			s.answer(w, route, http.StatusBadRequest, errorBody{Error: "malformed", Line: lines[i]})
			return
		}
		if sender != bic {
			s.answer(w, route, http.StatusForbidden, errorBody{Error: "sender_mismatch", Line: lines[i]})
			return
		}
	}
	// One key and one header for every record of the request (the client
	// only reads them), one allocation for the records.
	key, topic := []byte(bic), s.names.Inbound()
	hdr := []kgo.RecordHeader{{Key: ParticipantHeader, Value: key}}
	recs, backing := make([]*kgo.Record, len(msgs)), make([]kgo.Record, len(msgs))
	for i, m := range msgs {
		backing[i] = kgo.Record{Topic: topic, Key: key, Value: m, Headers: hdr}
		recs[i] = &backing[i]
	}
	ctx, cancel := context.WithTimeout(r.Context(), submitWait)
	defer cancel()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var perr error
	pcl := s.cl
	if len(recs) == 1 {
		pcl = s.single
	}
	wg.Add(len(recs))
	for _, rec := range recs {
		pcl.Produce(ctx, rec, func(_ *kgo.Record, err error) {
			if err != nil {
				mu.Lock()
				perr = err
				mu.Unlock()
			}
			wg.Done()
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		perr = ctx.Err()
	}
	mu.Lock()
	failed := perr
	mu.Unlock()
	if failed != nil {
		s.log.Warn("submit not acknowledged in time", "participant", bic, "messages", len(recs), "err", failed)
		s.answer(w, route, http.StatusServiceUnavailable, errorBody{Error: "unavailable"})
		return
	}
	out := make([]accepted, len(recs))
	for i, rec := range recs {
		out[i] = accepted{Partition: rec.Partition, Offset: rec.Offset}
	}
	s.metrics.submitted.Add(float64(len(recs)))
	s.metrics.submit.Observe(time.Since(start).Seconds())
	s.answer(w, route, http.StatusAccepted, struct {
		Accepted []accepted `json:"accepted"`
	}{out})
}

// splitBody cuts a body into its messages and their 1-based physical line
// numbers: one message for application/xml (its line terminator dropped),
// else one per line, lines of only whitespace skipped but counted.
func splitBody(data []byte, single bool) (msgs [][]byte, lines []int) {
	if single {
		m := bytes.TrimSuffix(data, []byte("\n"))
		m = bytes.TrimSuffix(m, []byte("\r"))
		if len(bytes.TrimSpace(m)) == 0 {
			return nil, nil
		}
		return [][]byte{m}, []int{1}
	}
	n := 0
	for len(data) > 0 {
		n++
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		msgs = append(msgs, line)
		lines = append(lines, n)
	}
	return msgs, lines
}

// senderOf is the one Header/Sender of a message that is well-formed XML
// with the elements docs/spec/messages.md §4 requires (a MALFORMED message has none).
func senderOf(doc *xmltext.Document, m []byte) (string, bool) {
	if err := doc.Parse(m); err != nil {
		return "", false
	}
	els := doc.Elements
	if len(els) == 0 || string(els[0].Name) != "Msg" {
		return "", false
	}
	header, hasBody := -1, false
	for _, i := range doc.Children(nil, 0) {
		switch string(els[i].Name) {
		case "Header":
			if header >= 0 {
				return "", false
			}
			header = i
		case "Body":
			hasBody = true
		}
	}
	if header < 0 || !hasBody {
		return "", false
	}
	sender := -1
	for _, i := range doc.Children(nil, header) {
		if string(els[i].Name) == "Sender" {
			if sender >= 0 {
				return "", false
			}
			sender = i
		}
	}
	if sender < 0 {
		return "", false
	}
	return strings.Trim(string(els[sender].Text), " \t\r\n"), true
}
