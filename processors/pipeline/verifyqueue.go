package pipeline

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/lovoo/goka"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/ste-utility/ste/processors/batch"
	"github.com/ste-utility/ste/processors/commits"
	"github.com/ste-utility/ste/processors/stages"
	"github.com/ste-utility/ste/processors/validation"
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
// Workers (one per core: processors/batch, no linger) take whatever is
// queued — what the fetches delivered meanwhile, up to maxVerifyBatch —
// verify the signatures as one batch (signature.Batcher: bisection on failure, so every record gets the
// verdict single verification gives), then write each record's result in
// queue order through the stage's writer and the processor's own producer;
// each record's commit is released once its records are written, in
// offset order (processors/commits). Nothing waits for a batch to fill: an idle stage
// verifies a lone record at once, so the latency added is the queue hand-off.
//
// Order: batches are written in the order they were taken, records in
// queue order, so a partition's records reach the next stage in offset
// order as before (two records with one identity are decided in the order
// ste match decides them); an offset is never committed before the records
// of an earlier one are written (at-least-once, processors/commits).

// maxVerifyBatch caps a batch: past ~64 signatures the curve flattens
// (docs/benchmarks.md, the batch-size curve) while latency keeps growing.
const maxVerifyBatch = 128

// maxQueued bounds the records queued, being verified and being written; a
// callback that finds it full waits (back-pressure on that partition only).
const maxQueued = 4096

var errNoProducer = errors.New("validate stage: batch verification has no producer to write with")

// queued is one record waiting for its signature's verdict.
type queued struct {
	in      stages.Input
	vd      validation.Verdict
	pending *validation.Pending // nil: the verdict is final
	start   time.Time
	// work is the time spent on the record itself: its decoding in the
	// callback and its share of its batch's verification (its writing is
	// added as it is written) — not its wait in the queue
	// (ste_stage_processing_seconds; the wait is in the critical time).
	work  time.Duration
	gate  *commits.Gate // its deferred commit, held while it is queued
	prod  goka.Producer
	panic any // the decision panicked in the callback: an INTERNAL exception
}

type verifyQueue struct {
	rt      *wiring
	prod    *atomic.Pointer[goka.Producer] // the validate processor's, of its current run
	batcher signature.Batcher
	b       *batch.Batcher[*queued]
}

func newVerifyQueue(rt *wiring) *verifyQueue {
	q := &verifyQueue{rt: rt, prod: rt.producers[topology.StageValidate]}
	var size prometheus.Observer
	if m := rt.cfg.Metrics; m != nil {
		size = m.VerifyBatch
	}
	q.b = batch.New(batch.Policy{Count: maxVerifyBatch, MaxWaiting: maxQueued, Workers: runtime.GOMAXPROCS(0), Size: size},
		q.verify, q.write)
	return q
}

// stop ends the workers once the queue is empty (after every processor
// stopped: goka waits for deferred commits before it stops a partition).
func (q *verifyQueue) stop() { q.b.Close() }

// callback is the validate stage's goka callback.
func (q *verifyQueue) callback(ctx goka.Context, msg any) {
	rt := q.rt
	qd := &queued{start: time.Now(), in: rt.input(ctx, msg)}
	func() {
		defer func() {
			if p := recover(); p != nil {
				qd.panic = p
			}
		}()
		if rt.cfg.Hook != nil {
			rt.cfg.Hook(topology.StageValidate, ctx, qd.in.Value)
		}
		qd.vd, qd.pending = rt.decide.InspectDeferred(qd.in)
	}()
	if p := q.prod.Load(); p != nil {
		qd.prod = *p
	}
	qd.gate = rt.commits.Take(ctx)
	qd.work = time.Since(qd.start)
	q.b.Add(qd)
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
	began := time.Now()
	defer func() {
		// Each record's share of the batch's verification is its work.
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
				q.rt.log.Error("batch verification failed; verifying one by one", "panic", fmt.Sprint(p))
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

// write decides and writes each record of the batch, in order, through the
// stage's writer, and releases its place in the queue.
func (q *verifyQueue) write(batch []*queued) {
	rt := q.rt
	w := rt.write[topology.StageValidate]
	for _, qd := range batch {
		if qd.prod == nil {
			qd.gate.Done(errNoProducer)
			continue
		}
		snk := &sink{prod: qd.prod, gate: qd.gate, audit: rt.audits[topology.StageValidate]}
		w.run(snk, qd.in, time.Now(), qd.work, func() *stages.Result {
			if qd.panic != nil {
				panic(qd.panic)
			}
			return rt.decide.Validated(qd.vd, qd.in)
		})
		qd.gate.Done(nil) // its place in the queue
	}
}
