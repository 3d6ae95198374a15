package pipeline

import (
	"errors"
	"fmt"
	"hash"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lovoo/goka"

	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/signature"
	"github.com/ste-utility/ste/topology"
)

// Batch verification in the validate stage (docs/ARCHITECTURE.md, "Batch
// signature verification").
//
// goka calls the validate callback one record at a time per partition. The
// callback decodes and validates the record with the signature's
// verification left out (validation.InspectDeferred), takes goka's
// DeferCommit and queues the record: it returns at once, so goka hands it
// the next record of the fetch, and partitions never wait for each other.
// Workers (one per core) take whatever is queued — what the fetches
// delivered meanwhile, up to maxVerifyBatch — verify the signatures as one
// batch (signature.Batcher: bisection on failure, so every record gets the
// verdict single verification gives), then write each record's result in
// queue order through the processor's own producer and commit it once its
// records are written. Nothing waits for a batch to fill: an idle stage
// verifies a lone record at once, so the latency added is the queue hand-off.
//
// Order: batches are written in the order they were taken, records in
// queue order, so a partition's records reach the next stage in offset
// order as before (two records with one identity are decided in the order
// ste match decides them); commits are made in the same order, so an
// offset is never committed before the records of an earlier one are
// written (at-least-once).

// maxVerifyBatch caps a batch: past ~64 signatures the curve flattens
// (docs/benchmarks.md, the batch-size curve) while latency keeps growing.
const maxVerifyBatch = 128

// maxQueued bounds the records queued and being verified; a callback that
// finds it full waits (back-pressure on that partition only).
const maxQueued = 4096

var errNoProducer = errors.New("validate stage: batch verification has no producer to write with")

// queued is one record waiting for its signature's verdict.
type queued struct {
	vd      validation.Verdict
	pending *validation.Pending // nil: the verdict is final
	in      inboundRecord
	at      position
	start   time.Time
	// work is the time spent on the record itself: its decoding in the
	// callback, its share of its batch's verification and its writing —
	// not its wait in the queue (ste_stage_processing_seconds; the wait
	// is in the critical time).
	work   time.Duration
	commit func(error)
	prod   goka.Producer
	panic  any // the decision panicked in the callback: an INTERNAL exception
}

type verifyQueue struct {
	s       *stages
	log     *slog.Logger
	prod    atomic.Pointer[goka.Producer] // the validate processor's, of its current run
	batcher signature.Batcher
	slots   chan struct{}

	mu      sync.Mutex
	cond    *sync.Cond
	queue   []*queued
	written chan struct{} // closed once the last batch taken is written
	done    chan struct{} // closed once the last batch taken is committed
	stopped bool
}

func newVerifyQueue(s *stages, log *slog.Logger) *verifyQueue {
	q := &verifyQueue{s: s, log: log, slots: make(chan struct{}, maxQueued),
		written: make(chan struct{}), done: make(chan struct{})}
	close(q.written)
	close(q.done)
	q.cond = sync.NewCond(&q.mu)
	for range runtime.GOMAXPROCS(0) {
		go q.work()
	}
	return q
}

// stop ends the workers once the queue is empty (after every processor
// stopped: goka waits for deferred commits before it stops a partition).
func (q *verifyQueue) stop() {
	q.mu.Lock()
	q.stopped = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

// producerBuilder records the producer goka builds for the validate
// processor (one per run of the processor) to write with.
func (q *verifyQueue) producerBuilder(inner goka.ProducerBuilder) goka.ProducerBuilder {
	return recordingProducer(inner, &q.prod)
}

// recordingProducer is inner, storing in at every producer it builds: the
// processor's producer of its current run, for writing outside its
// callbacks.
func recordingProducer(inner goka.ProducerBuilder, at *atomic.Pointer[goka.Producer]) goka.ProducerBuilder {
	return func(brokers []string, clientID string, hasher func() hash.Hash32) (goka.Producer, error) {
		p, err := inner(brokers, clientID, hasher)
		if err == nil {
			at.Store(&p)
		}
		return p, err
	}
}

// callback is the validate stage's goka callback.
func (q *verifyQueue) callback(ctx goka.Context, msg any) {
	s := q.s
	qd := &queued{start: time.Now(), at: position{topic: string(ctx.Topic()), key: ctx.Key(), partition: ctx.Partition(), offset: ctx.Offset()}}
	raw, _ := msg.([]byte)
	func() {
		defer func() {
			if p := recover(); p != nil {
				qd.panic = p
			}
		}()
		if s.cfg.Hook != nil {
			s.cfg.Hook(topology.StageValidate, ctx, msg)
		}
		now := ctx.Timestamp()
		if !s.cfg.Sandbox {
			now = s.cfg.Validator.Now()
		}
		dec := s.decoders.Get().(*schemas.Decoder)
		qd.vd, qd.pending = s.cfg.Validator.InspectDeferred(dec, raw, now)
		s.decoders.Put(dec)
		qd.in = inboundAt(ctx, raw)
	}()
	if qd.panic != nil {
		qd.in = inboundRecord{raw: raw, partition: qd.at.partition, offset: qd.at.offset}
	}
	if p := q.prod.Load(); p != nil {
		qd.prod = *p
	}
	qd.commit = ctx.DeferCommit()
	qd.work = time.Since(qd.start)
	q.slots <- struct{}{}
	q.mu.Lock()
	q.queue = append(q.queue, qd)
	q.mu.Unlock()
	q.cond.Signal()
}

// take waits for queued records and takes up to maxVerifyBatch of them,
// with the channels that order its writing and committing after the
// previous batch's. ok false: stopped and empty.
func (q *verifyQueue) take() (batch []*queued, prevWritten, written, prevDone, done chan struct{}, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.queue) == 0 {
		if q.stopped {
			return nil, nil, nil, nil, nil, false
		}
		q.cond.Wait()
	}
	n := min(len(q.queue), maxVerifyBatch)
	batch = append([]*queued(nil), q.queue[:n]...)
	q.queue = append(q.queue[:0], q.queue[n:]...)
	prevWritten, written = q.written, make(chan struct{})
	prevDone, done = q.done, make(chan struct{})
	q.written, q.done = written, done
	return batch, prevWritten, written, prevDone, done, true
}

func (q *verifyQueue) work() {
	for {
		batch, prevWritten, written, prevDone, done, ok := q.take()
		if !ok {
			return
		}
		q.verify(batch)
		<-prevWritten
		errs := q.write(batch)
		close(written)
		go func() {
			// Commit in queue order, once every record of the batch is written.
			<-prevDone
			for i, qd := range batch {
				qd.commit(errs[i].wait())
			}
			close(done)
		}()
	}
}

// verify batch-verifies the pending signatures and resolves the verdicts.
func (q *verifyQueue) verify(batch []*queued) {
	var items []signature.Item
	var idx []int
	for i, qd := range batch {
		if qd.pending != nil && qd.panic == nil {
			items = append(items, qd.pending.Item)
			idx = append(idx, i)
		}
	}
	if len(items) == 0 {
		return
	}
	ok := make([]bool, len(items))
	q.s.cfg.Metrics.verifyBatch(len(items))
	began := time.Now()
	defer func() {
		share := time.Since(began) / time.Duration(len(items))
		for _, i := range idx {
			batch[i].work += share
		}
	}()
	func() {
		// A batch that fails in the curve code (it panics when the
		// system's randomness fails) must not stop the queue: every
		// signature is then verified alone, the same verdicts.
		defer func() {
			if p := recover(); p != nil {
				q.log.Error("batch verification failed; verifying one by one", "panic", fmt.Sprint(p))
				for j := range items {
					ok[j] = false
					for _, k := range items[j].Keys {
						ok[j] = ok[j] || signature.Verify(k, items[j].Msg, items[j].Sig)
					}
				}
			}
		}()
		q.batcher.Verify(items, ok)
	}()
	for j, i := range idx {
		batch[i].pending.Resolve(&batch[i].vd, ok[j])
	}
}

// write decides and writes each record of the batch, in order.
func (q *verifyQueue) write(batch []*queued) []*emits {
	s := q.s
	out := make([]*emits, len(batch))
	for i, qd := range batch {
		e := &emits{prod: qd.prod, batcher: s.audits[topology.StageValidate]}
		out[i] = e
		if qd.prod == nil {
			e.fail(errNoProducer)
			<-q.slots
			continue
		}
		var inboundTS int64
		began := time.Now()
		func() {
			defer func() {
				if p := recover(); p != nil {
					s.internalTo(e, qd.at, topology.StageValidate, q.log, qd.in.raw, p)
				}
			}()
			if qd.panic != nil {
				s.internalTo(e, qd.at, topology.StageValidate, q.log, qd.in.raw, qd.panic)
				return
			}
			r := s.validated(qd.vd, qd.in)
			inboundTS = r.e.InboundTS
			s.writeTo(e, topology.StageValidate, r)
		}()
		s.cfg.Metrics.observeWork(topology.StageValidate, qd.work+time.Since(began), inboundTS)
		<-q.slots
	}
	return out
}

// emits is the sink of one queued record: it writes through the producer
// and tells when all its records are written.
type emits struct {
	prod    goka.Producer
	batcher *auditBatcher // nil: audit events are records of their own
	wg      sync.WaitGroup
	mu      sync.Mutex
	err     error
}

func (e *emits) emit(topic, key string, value []byte, headers goka.Headers) {
	e.wg.Add(1)
	e.prod.EmitWithHeaders(topic, key, value, headers).Then(func(err error) {
		if err != nil {
			e.fail(err)
		}
		e.wg.Done()
	})
}

func (e *emits) fail(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err == nil {
		e.err = err
	}
}

func (e *emits) wait() error {
	e.wg.Wait()
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}
