package gateway

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/schemas/xmltext"
	"github.com/ste-utility/ste/topics"
)

// A cursor is a position on <ns>.outbound: the partition count it was made
// for, a partition and the offset to read from. It holds positions only
// (no participant): <ns>.outbound is keyed by BIC, so one participant's
// outputs all live in one partition, and a cursor works on every instance
// and across restarts until retention deletes what it points past.
type cursor struct {
	parts, part int32
	off         int64
}

const cursorVersion = 1

func (c cursor) String() string {
	b := []byte{cursorVersion}
	b = binary.AppendUvarint(b, uint64(c.parts))
	b = binary.AppendUvarint(b, uint64(c.part))
	b = binary.AppendUvarint(b, uint64(c.off))
	return base64.RawURLEncoding.EncodeToString(b)
}

func parseCursor(s string) (cursor, bool) {
	if len(s) == 0 || len(s) > 64 {
		return cursor{}, false
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) < 4 || b[0] != cursorVersion {
		return cursor{}, false
	}
	b = b[1:]
	var v [3]uint64
	for i := range v {
		x, n := binary.Uvarint(b)
		if n <= 0 {
			return cursor{}, false
		}
		v[i], b = x, b[n:]
	}
	if len(b) != 0 || v[0] == 0 || v[0] > 1<<20 || v[1] >= v[0] || v[2] > 1<<62 {
		return cursor{}, false
	}
	c := cursor{parts: int32(v[0]), part: int32(v[1]), off: int64(v[2])}
	if c.String() != s { // one spelling per position
		return cursor{}, false
	}
	return c, true
}

// afterEnd is the after value that starts from now (gateway.md §3).
const afterEnd = "end"

type outputJSON struct {
	Cursor  string `json:"cursor"`
	MsgId   string `json:"msg_id"`
	MsgType string `json:"msg_type"`
	XML     string `json:"xml"`
	// Extra is a Front's item's own field (not in the gateway's answer).
	Extra string `json:"-"`
}

// serveOutputs answers GET /v1/outputs (docs/spec/gateway.md §3).
func (s *Server) serveOutputs(w http.ResponseWriter, r *http.Request, bic string) {
	const route = "outputs"
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		s.answer(w, route, http.StatusBadRequest, errorBody{Error: "bad_request"})
		return
	}
	limit, ok1 := intParam(q, "limit", defaultLimit, 1, MaxMessages)
	wait, ok2 := intParam(q, "wait", 0, 0, maxLongPoll)
	if !ok1 || !ok2 {
		s.answer(w, route, http.StatusBadRequest, errorBody{Error: "bad_request"})
		return
	}
	after, hasAfter := q.Get("after"), q.Has("after")
	ctx := r.Context()
	topic := s.outputsTopic()
	n, err := s.outboundPartitions(ctx)
	if err != nil {
		s.log.Warn("outputs: partitions of the outbound topic", "err", err)
		s.answer(w, route, http.StatusServiceUnavailable, errorBody{Error: "unavailable"})
		return
	}
	p := topics.PartitionOf(bic, n)
	t, err := s.tails.get(ctx, p)
	if err != nil {
		s.log.Warn("outputs: following the outbound topic", "err", err)
		s.answer(w, route, http.StatusServiceUnavailable, errorBody{Error: "unavailable"})
		return
	}
	defer func() { t.done() }()
	start, err := s.startOffset(ctx, topic, p)
	if err != nil {
		s.log.Warn("outputs: offsets of the outbound topic", "err", err)
		s.answer(w, route, http.StatusServiceUnavailable, errorBody{Error: "unavailable"})
		return
	}
	end := t.end()
	from := start
	cur := after
	if hasAfter && after == afterEnd {
		// From now (gateway.md version 2, §3): the answer is exactly that
		// to after=E, E the partition's end as the brokers say it now, and
		// next is a cursor (E itself when nothing is returned), never "end".
		e, err := s.endOffset(ctx, topic, p)
		if err != nil {
			s.log.Warn("outputs: offsets of the outbound topic", "err", err)
			s.answer(w, route, http.StatusServiceUnavailable, errorBody{Error: "unavailable"})
			return
		}
		cur = cursor{parts: n, part: p, off: e}.String()
	}
	if hasAfter {
		c, ok := parseCursor(cur)
		if !ok || c.parts != n {
			s.answer(w, route, http.StatusBadRequest, errorBody{Error: "bad_cursor", Reason: "invalid"})
			return
		}
		if c.off > end {
			// Another instance's tail may be ahead of this one's: the
			// broker's end decides.
			if end, err = s.endOffset(ctx, topic, p); err != nil {
				s.log.Warn("outputs: offsets of the outbound topic", "err", err)
				s.answer(w, route, http.StatusServiceUnavailable, errorBody{Error: "unavailable"})
				return
			}
		}
		switch {
		case c.part != p:
			// Another partition's position (another participant's cursor):
			// only the caller's own outputs, from the nearest position.
			from = min(max(c.off, start), end)
		case c.off < start:
			s.answer(w, route, http.StatusBadRequest, errorBody{Error: "bad_cursor", Reason: "expired"})
			return
		case c.off > end:
			s.answer(w, route, http.StatusBadRequest, errorBody{Error: "bad_cursor", Reason: "invalid"})
			return
		default:
			from = c.off
		}
	}
	outs, err := s.readOutputs(ctx, &t, bic, n, p, from, end, limit, time.Duration(wait)*time.Second)
	if err != nil && ctx.Err() == nil {
		s.log.Warn("outputs: reading the outbound topic", "err", err)
		s.answer(w, route, http.StatusServiceUnavailable, errorBody{Error: "unavailable"})
		return
	}
	next := cur
	switch {
	case len(outs) > 0:
		next = outs[len(outs)-1].Cursor
	case !hasAfter:
		next = cursor{parts: n, part: p, off: start}.String()
	}
	s.log.Info("access", "what", "outputs", "participant", bic, "after", after, "outputs", len(outs), "wait_s", wait)
	if s.front != nil && s.front.page != nil {
		s.answer(w, route, http.StatusOK, s.front.page(outs, next))
		return
	}
	s.answer(w, route, http.StatusOK, struct {
		Outputs []outputJSON `json:"outputs"`
		Next    string       `json:"next"`
	}{outs, next})
}

// intParam reads a decimal query parameter within [lo, hi].
func intParam(q url.Values, name string, def, lo, hi int) (int, bool) {
	if !q.Has(name) {
		return def, true
	}
	v := q.Get(name)
	if v == "" || len(v) > 6 || strings.Trim(v, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, false
	}
	return n, true
}

func (s *Server) outboundPartitions(ctx context.Context) (int32, error) {
	if n := s.parts.Load(); n > 0 {
		return n, nil
	}
	n, err := topics.Partitions(ctx, s.adm, s.outputsTopic())
	if err != nil {
		return 0, err
	}
	if n <= 0 {
		return 0, errors.New(s.outputsTopic() + " does not exist (run ste topics create)")
	}
	s.parts.Store(n)
	return n, nil
}

// startOffset is the log start offset of partition p, as the brokers said
// it at most startTTL ago (retention moves it by whole segments, rarely;
// asking on every read cost a round trip per long poll). Past half its age
// a read starts a refresh beside it, so that while participants poll the
// round trip is rarely on a request's path (a record arriving while a poll
// asked the brokers waited for that answer too).
func (s *Server) startOffset(ctx context.Context, topic string, p int32) (int64, error) {
	if c := s.starts.Load(); c != nil && time.Since(c.at) < startTTL {
		if o, ok := c.offs[p]; ok {
			if time.Since(c.at) > startTTL/2 && s.refreshing.CompareAndSwap(false, true) {
				go func() {
					defer s.refreshing.Store(false)
					rctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					defer cancel()
					if err := s.listStarts(rctx, topic); err != nil {
						s.log.Debug("outputs: start offsets of the outbound topic", "err", err)
					}
				}()
			}
			return o, nil
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := s.listStarts(ctx, topic); err != nil {
		return 0, err
	}
	o, ok := s.starts.Load().offs[p]
	if !ok {
		return 0, errors.New("no start offset for " + topic)
	}
	return o, nil
}

// listStarts asks the brokers for the start offsets of topic's partitions
// and keeps them (when every partition answered; else the error).
func (s *Server) listStarts(ctx context.Context, topic string) error {
	at := time.Now()
	so, err := s.adm.ListStartOffsets(ctx, topic)
	if err != nil {
		return err
	}
	c := &startOffsets{at: at, offs: map[int32]int64{}}
	so.Each(func(o kadm.ListedOffset) {
		if o.Err == nil {
			c.offs[o.Partition] = o.Offset
		}
	})
	s.starts.Store(c)
	return nil
}

const startTTL = time.Second

type startOffsets struct {
	at   time.Time
	offs map[int32]int64
}

// endOffset is the log end offset of partition p, asked now.
func (s *Server) endOffset(ctx context.Context, topic string, p int32) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return listed(ctx, s.adm.ListEndOffsets, topic, p)
}

// listed is partition p's offset in a listing (ListStartOffsets,
// ListEndOffsets).
func listed(ctx context.Context, list func(context.Context, ...string) (kadm.ListedOffsets, error), topic string, p int32) (int64, error) {
	l, err := list(ctx, topic)
	if err != nil {
		return 0, err
	}
	o, ok := l.Lookup(topic, p)
	if !ok || o.Err != nil {
		return 0, errors.New("no offsets of " + topic)
	}
	return o.Offset, nil
}

// readOutputs answers a read of partition p from offset from: the records
// keyed by bic whose Receiver is bic, up to limit, to end (where the
// partition ended as the request came); when there is none it waits up to
// wait for the first. What the tail holds comes from it; positions older
// than the tail began, from a consumer of their own (scan). *t is replaced
// when the tail stops.
func (s *Server) readOutputs(ctx context.Context, t **tail, bic string, n, p int32, from, end int64, limit int, wait time.Duration) ([]outputJSON, error) {
	outs := []outputJSON{}
	now := time.Now()
	deadline := now.Add(wait)
	// Reading to end (the tail may be behind it): up to 10 s, as one fetch.
	catchUp := now.Add(10 * time.Second)
	waiting := false
	defer func() {
		if waiting {
			s.metrics.longPolls.Dec()
		}
	}()
	var doc xmltext.Document
	for {
		recs, base, next, moved, terr := (*t).since(from)
		if from < base {
			got, err := s.scan(ctx, &doc, bic, n, p, from, base, limit-len(outs))
			if err != nil {
				return nil, err
			}
			outs = append(outs, got...)
			if len(outs) >= limit {
				return outs, nil
			}
			from = base
			continue
		}
		for _, rec := range recs {
			if o, ok := s.outputOf(&doc, rec, bic, n); ok {
				outs = append(outs, o)
				if len(outs) >= limit {
					return outs, nil
				}
			}
		}
		from = max(from, next)
		behind := from < end
		if !behind && (len(outs) > 0 || !time.Now().Before(deadline)) {
			return outs, nil
		}
		if behind && !time.Now().Before(catchUp) {
			return nil, errors.New("the outputs tail did not reach the partition's end in 10 s")
		}
		if terr != nil {
			// Stopped (idle, as this read began): a new one, from here.
			(*t).done()
			nt, err := s.tails.get(ctx, p)
			if err != nil {
				*t = &tail{err: err, moved: make(chan struct{})} // done() on it is harmless
				return nil, err
			}
			*t = nt
			continue
		}
		until := deadline
		if behind {
			until = catchUp
		} else if !waiting {
			waiting = true
			s.metrics.longPolls.Inc()
		}
		timer := time.NewTimer(time.Until(until))
		select {
		case <-moved:
			timer.Stop()
		case <-timer.C:
			// Past the deadline: answered above; past catchUp: refused above.
		case <-ctx.Done():
			timer.Stop()
			return outs, ctx.Err()
		}
	}
}

// output is rec as an output of bic, if it is one: keyed by bic and naming
// bic as its Receiver (never a record whose Receiver is another BIC).
func (s *Server) output(doc *xmltext.Document, rec *kgo.Record, bic string, n int32) (outputJSON, bool) {
	if string(rec.Key) != bic {
		return outputJSON{}, false
	}
	id, typ, recv, ok := outputHeader(doc, rec.Value)
	if !ok || recv != bic {
		s.log.Warn("outputs: a record keyed by a participant names another receiver; not served",
			"partition", rec.Partition, "offset", rec.Offset)
		return outputJSON{}, false
	}
	return outputJSON{Cursor: cursor{parts: n, part: rec.Partition, off: rec.Offset + 1}.String(),
		MsgId: id, MsgType: typ, XML: string(rec.Value)}, true
}

// scan reads partition p over [from, upto) with a consumer of its own (a
// walk behind where the tail began): bic's outputs, up to limit.
func (s *Server) scan(ctx context.Context, doc *xmltext.Document, bic string, n, p int32, from, upto int64, limit int) ([]outputJSON, error) {
	var outs []outputJSON
	topic := s.outputsTopic()
	cl, err := topics.Client(s.o.Kafka, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {p: kgo.NewOffset().At(from)}}),
		kgo.FetchMaxWait(200*time.Millisecond), kgo.FetchMaxPartitionBytes(4<<20))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	next := from
	for next < upto {
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		fs := cl.PollFetches(pctx)
		cancel()
		if ctx.Err() != nil {
			return outs, ctx.Err()
		}
		var ferr error
		fs.EachError(func(_ string, _ int32, err error) { ferr = err })
		if ferr != nil {
			return nil, ferr
		}
		for _, rec := range fs.Records() {
			if rec.Offset < next || rec.Offset >= upto {
				continue
			}
			next = rec.Offset + 1
			if o, ok := s.outputOf(doc, rec, bic, n); ok {
				outs = append(outs, o)
				if len(outs) >= limit {
					return outs, nil
				}
			}
		}
		fs.EachPartition(func(fp kgo.FetchTopicPartition) {
			// Records below upto deleted meanwhile, or control records at
			// the end: nothing more to read below upto.
			if fp.LogStartOffset > next {
				next = fp.LogStartOffset
			}
		})
	}
	return outs, nil
}

// outputHeader reads an output's MsgId, MsgType and Receiver.
func outputHeader(doc *xmltext.Document, v []byte) (id, typ, recv string, ok bool) {
	if err := doc.Parse(v); err != nil || len(doc.Elements) == 0 || string(doc.Elements[0].Name) != "Msg" {
		return "", "", "", false
	}
	h := doc.Child(0, "Header")
	if h < 0 {
		return "", "", "", false
	}
	text := func(name string) string {
		if i := doc.Child(h, name); i >= 0 {
			return strings.Trim(string(doc.Elements[i].Text), " \t\r\n")
		}
		return ""
	}
	return text("MsgId"), text("MsgType"), text("Receiver"), true
}
