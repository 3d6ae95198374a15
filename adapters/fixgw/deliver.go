package fixgw

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quickfixgo/quickfix"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/adapters"
	"github.com/ste-utility/ste/topics"
)

// Delivery (§4.7): every logged-on session reads its BIC's records of
// <ns>.outbound from its cursor. One reader per partition serves the
// sessions whose BICs hash to it — each record is fetched and decoded once
// whatever the number of sessions — reading from the oldest cursor among
// them (a session that logs on behind the reader sends it back) and
// handing each session its own records, in order, with the offset the
// batch reaches. Each session translates its records, puts the FIX
// messages in its store, writes the journal entries and only then moves its
// cursor (saved at once when it had records, at most every few seconds
// otherwise: a repeat after a crash is harmless, a loss impossible).

const (
	deliverBatch = 500
	// cursorEvery bounds how long a cursor that only passed other
	// participants' records waits to be saved.
	cursorEvery = 5 * time.Second
	// cursorAfterRecords bounds how often a cursor is saved after records
	// were delivered (an fsync each time; a crash repeats at most that much).
	cursorAfterRecords = time.Second
)

// feed is the records of one partition fetch for one session.
type feed struct {
	recs []*kgo.Record // the session's own, at or past its cursor
	upTo int64         // the offset after the fetch's last record
	lost int64         // > 0: the oldest record is past the cursor (retention)
}

// subscriber is a logged-on session's delivery.
type subscriber struct {
	sess *session
	cur  Cursor // the session's own (its goroutine's)
	// dispatched is the reader's: the offset after the last record handed
	// to the session (its cursor when it joined).
	dispatched int64
	in         chan feed
	done       chan struct{}
}

// partReader reads one partition of <ns>.outbound for its subscribers.
type partReader struct {
	s       *Server
	p       int32
	topic   string
	mu      sync.Mutex
	subs    map[string]*subscriber
	restart chan struct{}
}

// deliver runs a logged-on session's delivery until ctx ends (the session
// logged out).
func (s *Server) deliver(ctx context.Context, sess *session) {
	bic := sess.bic
	topic := s.names.Outbound()
	var n int32
	for ctx.Err() == nil {
		var err error
		if n, err = topics.Partitions(ctx, s.adm, topic); err == nil && n > 0 {
			break
		}
		s.log.Warn("fixgw: outputs: partitions of "+topic, "err", err)
		sleep(ctx, time.Second)
	}
	if ctx.Err() != nil {
		return
	}
	p := topics.PartitionOf(bic, n)
	cur, err := LoadCursor(s.o.Store, bic)
	if err != nil {
		s.log.Error("fixgw: output cursor unreadable: starting at the oldest record", "participant", bic, "err", err)
		cur = Cursor{Next: -1, Resume: -1}
	}
	if cur.Partition >= 0 && (cur.Partition != p || cur.Topic != topic) {
		s.log.Warn("fixgw: the participant's outputs moved to another partition: starting at its oldest record", "participant", bic,
			"was", cur.Partition, "now", p)
		cur.Next = -1
	}
	cur.Topic, cur.Partition = topic, p
	// Delivery resumes here: what a sequence reset rewinds to (§4.2).
	cur.Resume = cur.Next
	if err := SaveCursor(s.o.Store, bic, cur); err != nil {
		s.log.Error("fixgw: saving the output cursor", "participant", bic, "err", err)
	}
	sub := &subscriber{sess: sess, cur: cur, dispatched: cur.Next, in: make(chan feed, 4), done: make(chan struct{})}
	r := s.reader(ctx, topic, p)
	r.add(sub)
	defer r.remove(sub)
	saved := time.Now()
	outs := &Outputs{J: s.j.Index, Now: s.nowFIX}
	for {
		var f feed
		select {
		case <-ctx.Done():
			if h := beforeFinalSave.Load(); h != nil {
				(*h)()
			}
			s.saveCursor(sub)
			return
		case f = <-sub.in:
		}
		if f.lost > 0 {
			s.log.Error("fixgw: outputs removed by retention before they were delivered: resuming at the oldest record",
				"participant", bic, "cursor", sub.cur.Next, "oldest", f.lost)
		}
		if len(f.recs) > 0 {
			if !s.deliverRecords(ctx, sub, outs, f.recs) {
				return
			}
		}
		if f.upTo > sub.cur.Next {
			sub.cur.Next = f.upTo
		}
		if len(f.recs) > 0 && time.Since(saved) > cursorAfterRecords || time.Since(saved) > cursorEvery {
			s.saveCursor(sub)
			saved = time.Now()
		}
	}
}

// beforeFinalSave, when set, runs before a stopped delivery saves its
// cursor (tests: Serve must wait for that save).
var beforeFinalSave atomic.Pointer[func()]

func (s *Server) saveCursor(sub *subscriber) {
	if err := SaveCursor(s.o.Store, sub.sess.bic, sub.cur); err != nil {
		s.log.Error("fixgw: saving the output cursor", "participant", sub.sess.bic, "err", err)
	}
}

// reader is the partition's reader, started on first use.
func (s *Server) reader(ctx context.Context, topic string, p int32) *partReader {
	s.readersMu.Lock()
	defer s.readersMu.Unlock()
	if r := s.readers[p]; r != nil {
		return r
	}
	r := &partReader{s: s, p: p, topic: topic, subs: map[string]*subscriber{}, restart: make(chan struct{}, 1)}
	s.readers[p] = r
	go r.run(s.ctx)
	return r
}

func (r *partReader) add(sub *subscriber) {
	r.mu.Lock()
	r.subs[sub.sess.bic] = sub
	r.mu.Unlock()
	select {
	case r.restart <- struct{}{}:
	default:
	}
}

func (r *partReader) remove(sub *subscriber) {
	r.mu.Lock()
	if r.subs[sub.sess.bic] == sub {
		delete(r.subs, sub.sess.bic)
	}
	r.mu.Unlock()
	close(sub.done)
}

// from is where the reader must start: the oldest cursor of its
// subscribers (-1: the oldest record); ok false without subscribers.
func (r *partReader) from() (int64, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.subs) == 0 {
		return 0, false
	}
	var m int64 = 1<<63 - 1
	for _, sub := range r.subs {
		m = min(m, sub.dispatched)
	}
	return m, true
}

func (r *partReader) run(ctx context.Context) {
	s := r.s
	var pos int64 = -2 // where the open client reads from; -2: none
	var cl *kgo.Client
	defer func() {
		if cl != nil {
			cl.Close()
		}
	}()
	for ctx.Err() == nil {
		from, ok := r.from()
		if !ok {
			// No session on this partition: wait for one.
			if cl != nil {
				cl.Close()
				cl, pos = nil, -2
			}
			select {
			case <-ctx.Done():
				return
			case <-r.restart:
			}
			continue
		}
		if cl == nil || from < pos && from >= -1 && pos != -1 {
			if cl != nil {
				cl.Close()
			}
			off := kgo.NewOffset().AtStart()
			if from >= 0 {
				off = kgo.NewOffset().At(from)
			}
			var err error
			cl, err = topics.Client(s.o.Kafka, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{r.topic: {r.p: off}}),
				kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(100*time.Millisecond))
			if err != nil {
				s.log.Warn("fixgw: outputs: consumer", "partition", r.p, "err", err)
				sleep(ctx, time.Second)
				continue
			}
			pos = from
		}
		pctx, cancel := context.WithCancel(ctx)
		go func() {
			select {
			case <-r.restart:
				// A session logged on: re-read from the oldest cursor if
				// it is behind (the poll is cut short either way).
				select {
				case r.restart <- struct{}{}:
				default:
				}
				cancel()
			case <-pctx.Done():
			}
		}()
		fs := cl.PollRecords(pctx, deliverBatch)
		cut := pctx.Err() != nil && ctx.Err() == nil
		cancel()
		if cut {
			select {
			case <-r.restart:
			default:
			}
			continue
		}
		if ctx.Err() != nil {
			return
		}
		fs.EachError(func(t string, p int32, err error) {
			s.log.Warn("fixgw: outputs: fetch", "topic", t, "partition", p, "err", err)
		})
		recs := fs.Records()
		if len(recs) == 0 {
			continue
		}
		upTo := recs[len(recs)-1].Offset + 1
		if pos < upTo {
			pos = upTo
		}
		r.dispatch(ctx, recs, upTo)
	}
}

// dispatch hands each subscriber its records of a fetch. The journal is
// read to its end first (§1, read-your-writes) when any record is for a
// subscriber.
func (r *partReader) dispatch(ctx context.Context, recs []*kgo.Record, upTo int64) {
	r.mu.Lock()
	subs := make([]*subscriber, 0, len(r.subs))
	feeds := make([]feed, 0, len(r.subs))
	any := false
	for _, sub := range r.subs {
		if upTo <= sub.dispatched {
			continue // already handed (the reader went back for another)
		}
		f := feed{upTo: upTo}
		if sub.dispatched >= 0 && recs[0].Offset > sub.dispatched {
			f.lost = recs[0].Offset
		}
		for _, rec := range recs {
			if rec.Offset >= sub.dispatched && string(rec.Key) == sub.sess.bic {
				f.recs = append(f.recs, rec)
			}
		}
		sub.dispatched = upTo
		any = any || len(f.recs) > 0
		subs, feeds = append(subs, sub), append(feeds, f)
	}
	r.mu.Unlock()
	if any && !r.s.retry(ctx, "read the journal", func(ctx context.Context) error { return r.s.j.Sync(ctx) }) {
		return
	}
	for i, sub := range subs {
		select {
		case sub.in <- feeds[i]:
		case <-sub.done:
		case <-ctx.Done():
			return
		}
	}
}

// deliverRecords translates a session's records and hands it the FIX
// messages one at a time, each put in the session store before the next
// (SendToTarget persists before it returns), the session's lock held for
// each so the application callback never runs in between one message's
// making and its queueing; then the journal entries are written and
// acknowledged. false when the session ended first.
func (s *Server) deliverRecords(ctx context.Context, sub *subscriber, outs *Outputs, recs []*kgo.Record) bool {
	sess := sub.sess
	var d Delivery
	for _, r := range recs {
		sess.mu.Lock()
		got := outs.Translate(sess.bic, r.Value)
		sess.mu.Unlock()
		for _, m := range got.Msgs {
			if err := s.send(ctx, sess, m); err != nil {
				// The session ended: nothing after the last record it
				// took is acknowledged (its answers and notes are in the
				// index already, and repeat harmlessly).
				return false
			}
		}
		d.Journal = append(d.Journal, got.Journal...)
	}
	if len(d.Journal) > 0 && !s.retry(ctx, "write the journal", func(ctx context.Context) error { return s.j.Write(ctx, d.Journal...) }) {
		return false
	}
	return true
}

// send queues m on the session — under the session's lock, so never while
// the application callback runs (§4.4: a J's P 87=3 precedes every P made
// from STE's answers to it) — and then, the lock released, waits (briefly)
// until the engine has written it to the connection: quickfixgo offers
// queued messages to its writer without blocking and offers them again at
// once while the writer is busy, so messages queued back to back spin the
// session's loop for as long as each write takes; one at a time, each
// finds the writer free.
func (s *Server) send(ctx context.Context, sess *session, m *quickfix.Message) error {
	c := s.front.conn(sess.bic)
	if c != nil {
		select {
		case <-c.wrote:
		default:
		}
	}
	sess.mu.Lock()
	err := quickfix.SendToTarget(m, sess.id)
	sess.mu.Unlock()
	if err != nil || c == nil {
		return err
	}
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-c.wrote:
	case <-c.done:
	case <-t.C:
	case <-ctx.Done():
	}
	return nil
}

// retry runs f until it succeeds (adapters.Retry); false when ctx ended
// first.
func (s *Server) retry(ctx context.Context, what string, f func(context.Context) error) bool {
	return adapters.Retry(ctx, s.log, "fixgw: outputs: "+what, f)
}

func sleep(ctx context.Context, d time.Duration) { adapters.Sleep(ctx, d) }
