package gateway

import (
	"cmp"
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
	// Function and TradeKey: for a CNF, BLK or ALG (gateway.md v2 §3).
	Function string `json:"function,omitempty"`
	TradeKey string `json:"trade_key,omitempty"`
	XML      string `json:"xml"`
	// Extra is a Front's item's own field (not in the gateway's answer).
	Extra string `json:"-"`
}

// outputTypes are the MsgTypes of <ns>.outbound a participant receives
// (gateway.md v2 §3 types=); the last three carry a function and a trade
// key in their entries.
var outputTypes = map[string]bool{"ACK": true, "NACK": true, "STATUS": true, "CNF": true, "BLK": true, "ALG": true}

func tradeOutput(typ string) bool { return typ == "CNF" || typ == "BLK" || typ == "ALG" }

// typeFilter is the MsgTypes a read returns: nil for every type.
type typeFilter map[string]bool

func (f typeFilter) keeps(typ string) bool { return f == nil || f[typ] }

// parseTypes reads types=T,…: every item one of outputTypes, none empty.
func parseTypes(q url.Values) (typeFilter, bool) {
	if !q.Has("types") {
		return nil, true
	}
	if len(q["types"]) != 1 {
		return nil, false
	}
	f := typeFilter{}
	for _, t := range strings.Split(q.Get("types"), ",") {
		if !outputTypes[t] {
			return nil, false
		}
		f[t] = true
	}
	return f, true
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
	types, ok3 := parseTypes(q)
	if !ok1 || !ok2 || !ok3 {
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
	rd := outputsRead{bic: bic, n: n, p: p, limit: limit, types: types}
	err = s.readOutputs(ctx, &t, &rd, from, end, time.Duration(wait)*time.Second)
	if err != nil && ctx.Err() == nil {
		s.log.Warn("outputs: reading the outbound topic", "err", err)
		s.answer(w, route, http.StatusServiceUnavailable, errorBody{Error: "unavailable"})
		return
	}
	outs := rd.outs
	// next: the cursor after the last of the caller's records examined —
	// the last returned, or with types= the last looked at, returned or
	// not (§3) — else where the read started.
	next := cur
	switch {
	case rd.examined != "":
		next = rd.examined
	case !hasAfter:
		next = cursor{parts: n, part: p, off: start}.String()
	}
	s.log.Info("access", "what", "outputs", "participant", bic, "after", after, "types", q.Get("types"), "outputs", len(outs), "wait_s", wait)
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

// outputsRead is one read of the caller's outputs: who and where, how
// many and which types, and what it found — the outputs returned and the
// cursor after the last of the caller's records it examined ("" when none).
type outputsRead struct {
	bic      string
	n, p     int32
	limit    int
	types    typeFilter
	outs     []outputJSON
	examined string
}

// full says the read has its limit of outputs.
func (rd *outputsRead) full() bool { return len(rd.outs) >= rd.limit }

// take looks at one record: when it is the caller's output it is examined,
// and returned when its type is asked for.
func (rd *outputsRead) take(s *Server, doc *xmltext.Document, rec *kgo.Record) {
	o, ok := s.outputOf(doc, rec, rd.bic, rd.n)
	if !ok {
		return
	}
	rd.examined = o.Cursor
	if rd.types.keeps(o.MsgType) {
		rd.outs = append(rd.outs, o)
	}
}

// readOutputs reads partition p from offset from into rd: the records
// keyed by the caller whose Receiver is the caller, of the types asked, up
// to its limit, to end (where the partition ended as the request came);
// when there is none it waits up to wait for the first. What the tail
// holds comes from it; positions older than the tail began, from a
// consumer of their own (scan). *t is replaced when the tail stops.
func (s *Server) readOutputs(ctx context.Context, t **tail, rd *outputsRead, from, end int64, wait time.Duration) error {
	rd.outs = []outputJSON{}
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
			if err := s.scan(ctx, &doc, rd, from, base); err != nil {
				return err
			}
			if rd.full() {
				return nil
			}
			from = base
			continue
		}
		for _, rec := range recs {
			rd.take(s, &doc, rec)
			if rd.full() {
				return nil
			}
		}
		from = max(from, next)
		behind := from < end
		if !behind && (len(rd.outs) > 0 || !time.Now().Before(deadline)) {
			return nil
		}
		if behind && !time.Now().Before(catchUp) {
			return errors.New("the outputs tail did not reach the partition's end in 10 s")
		}
		if terr != nil {
			// Stopped (idle, as this read began): a new one, from here.
			(*t).done()
			nt, err := s.tails.get(ctx, rd.p)
			if err != nil {
				*t = &tail{err: err, moved: make(chan struct{})} // done() on it is harmless
				return err
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
			return ctx.Err()
		}
	}
}

// output is rec as an output of bic, if it is one: keyed by bic and naming
// bic as its Receiver (never a record whose Receiver is another BIC).
func (s *Server) output(doc *xmltext.Document, rec *kgo.Record, bic string, n int32) (outputJSON, bool) {
	if string(rec.Key) != bic {
		return outputJSON{}, false
	}
	h, ok := outputHeader(doc, rec.Value)
	if !ok || h.receiver != bic {
		s.log.Warn("outputs: a record keyed by a participant names another receiver; not served",
			"partition", rec.Partition, "offset", rec.Offset)
		return outputJSON{}, false
	}
	o := outputJSON{Cursor: cursor{parts: n, part: rec.Partition, off: rec.Offset + 1}.String(),
		MsgId: h.id, MsgType: h.typ, XML: string(rec.Value)}
	if tradeOutput(h.typ) {
		o.Function, o.TradeKey = cmp.Or(h.function, "NEW"), h.tradeKey
	}
	return o, true
}

// scan reads partition rd.p over [from, upto) with a consumer of its own
// (a walk behind where the tail began) into rd, up to its limit.
func (s *Server) scan(ctx context.Context, doc *xmltext.Document, rd *outputsRead, from, upto int64) error {
	topic := s.outputsTopic()
	cl, err := topics.Client(s.o.Kafka, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {rd.p: kgo.NewOffset().At(from)}}),
		kgo.FetchMaxWait(200*time.Millisecond), kgo.FetchMaxPartitionBytes(4<<20))
	if err != nil {
		return err
	}
	defer cl.Close()
	next := from
	for next < upto {
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		fs := cl.PollFetches(pctx)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var ferr error
		fs.EachError(func(_ string, _ int32, err error) { ferr = err })
		if ferr != nil {
			return ferr
		}
		for _, rec := range fs.Records() {
			if rec.Offset < next || rec.Offset >= upto {
				continue
			}
			next = rec.Offset + 1
			rd.take(s, doc, rec)
			if rd.full() {
				return nil
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
	return nil
}

// header is what the gateway reads of an output: its Header's MsgId,
// MsgType, Function and Receiver, and its Body's TradeKey.
type header struct{ id, typ, function, receiver, tradeKey string }

// outputHeader reads an output's header (and its Body's TradeKey).
func outputHeader(doc *xmltext.Document, v []byte) (header, bool) {
	if err := doc.Parse(v); err != nil || len(doc.Elements) == 0 || string(doc.Elements[0].Name) != "Msg" {
		return header{}, false
	}
	h := doc.Child(0, "Header")
	if h < 0 {
		return header{}, false
	}
	text := func(parent int, name string) string {
		if parent < 0 {
			return ""
		}
		if i := doc.Child(parent, name); i >= 0 {
			return strings.Trim(string(doc.Elements[i].Text), " \t\r\n")
		}
		return ""
	}
	return header{id: text(h, "MsgId"), typ: text(h, "MsgType"), function: text(h, "Function"),
		receiver: text(h, "Receiver"), tradeKey: text(doc.Child(0, "Body"), "TradeKey")}, true
}
