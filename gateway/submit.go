package gateway

import (
	"bytes"
	"context"
	"mime"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/xmltext"
)

// ParticipantHeader names, on each record the gateway publishes, the
// participant that signed the request.
const ParticipantHeader = "ste-participant"

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
	// Every message is checked here although the pipeline parses each one
	// again: docs/spec/gateway.md §2 answers a message that is not
	// well-formed XML with 400 malformed and publishes nothing of the
	// request, so the gateway must know before the first record goes out;
	// and the Sender it authorizes is only the one Header/Sender of a
	// well-formed message (a substring search could be fooled by a comment
	// or CDATA). The strict scan stays; what it costs is kept small (one
	// Document per goroutine, reused, and no allocation per message).
	doc := docs.Get().(*xmltext.Document)
	for i, m := range msgs {
		if i%16 == 15 {
			// A batch's scan is a millisecond or two of CPU; on one core
			// (--procs 1) a single submit's next step would wait behind it
			// for all of it, at each of its hops.
			runtime.Gosched()
		}
		sender, ok := senderOf(doc, m)
		if !ok {
			docs.Put(doc)
			s.answer(w, route, http.StatusBadRequest, errorBody{Error: "malformed", Line: lines[i]})
			return
		}
		if sender != bic {
			docs.Put(doc)
			s.answer(w, route, http.StatusForbidden, errorBody{Error: "sender_mismatch", Line: lines[i]})
			return
		}
	}
	docs.Put(doc)
	// One key and one header for every record of the request (the client
	// only reads them), one allocation for the records.
	key, topic := []byte(bic), s.names.Inbound()
	hdr := []kgo.RecordHeader{{Key: ParticipantHeader, Value: key}}
	backing := make([]kgo.Record, len(msgs))
	for i, m := range msgs {
		backing[i] = kgo.Record{Topic: topic, Key: key, Value: m, Headers: hdr}
	}
	ctx, cancel := context.WithTimeout(r.Context(), submitWait)
	defer cancel()
	// The last acknowledgement closes done: no goroutine of our own per
	// request to wait for them (every wake-up of another thread costs the
	// gateway more than the bookkeeping it replaces).
	var left atomic.Int64
	var perr atomic.Pointer[error]
	done := make(chan struct{})
	left.Store(int64(len(backing)))
	ack := func(_ *kgo.Record, err error) {
		if err != nil {
			perr.CompareAndSwap(nil, &err)
		}
		if left.Add(-1) == 0 {
			close(done)
		}
	}
	pcl := s.cl
	if len(backing) == 1 {
		pcl = s.single
	}
	for i := range backing {
		pcl.Produce(ctx, &backing[i], ack)
	}
	var failed error
	select {
	case <-done:
		if p := perr.Load(); p != nil {
			failed = *p
		}
	case <-ctx.Done():
		failed = ctx.Err()
	}
	if failed != nil {
		// Records not acknowledged may still be in the producer, pointing
		// into the body: its buffer is not used again.
		b.inUse = true
		s.log.Warn("submit not acknowledged in time", "participant", bic, "messages", len(backing), "err", failed)
		s.answer(w, route, http.StatusServiceUnavailable, errorBody{Error: "unavailable"})
		return
	}
	s.metrics.submitted.Add(float64(len(backing)))
	s.metrics.submit.Observe(time.Since(start).Seconds())
	// {"accepted":[{"partition":P,"offset":O},…]} written by hand: the
	// reflection of encoding/json over a hundred entries cost more than the
	// rest of the answer.
	out := make([]byte, 0, 16+len(backing)*40)
	out = append(out, `{"accepted":[`...)
	for i := range backing {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"partition":`...)
		out = strconv.AppendInt(out, int64(backing[i].Partition), 10)
		out = append(out, `,"offset":`...)
		out = strconv.AppendInt(out, backing[i].Offset, 10)
		out = append(out, '}')
	}
	out = append(out, "]}\n"...)
	s.answerJSON(w, route, http.StatusAccepted, out)
}

// docs are the Documents of submits under way: a Document's slices grow
// to the messages it parses and are kept for the next request.
var docs = sync.Pool{New: func() any { return new(xmltext.Document) }}

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
	for i := 1; i < len(els); i++ {
		if els[i].Parent != 0 {
			continue
		}
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
	for i := header + 1; i < len(els) && els[i].Parent >= int32(header); i++ {
		if els[i].Parent == int32(header) && string(els[i].Name) == "Sender" {
			if sender >= 0 {
				return "", false
			}
			sender = i
		}
	}
	if sender < 0 {
		return "", false
	}
	return string(bytes.Trim(els[sender].Text, " \t\r\n")), true
}
