package pipeline

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lovoo/goka"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
)

// Audit events in batches (docs/ARCHITECTURE.md, "Audit batches").
//
// One audit record per message was a seventh of every record the pipeline
// produced (docs/benchmarks.md). On Kafka (Run) each stage gathers the
// events of the journeys that end there and writes them as one record per
// audit partition (schemas.AppendAuditBatch) when maxAuditEvents are
// waiting or auditLinger after the first, whichever comes first. A record
// holds only events whose trade keys are in its partition and is keyed by
// the first one's, so that a trade's events are where they always were (the
// exceptions workflow reads a trade's partition); events without a trade go
// in a record of their own, keyed empty.
//
// At-least-once: an input record is committed only once its events are on
// the topic. goka commits a record when its own emits and deferred commits
// are done, and a commit (sarama's mark) moves the partition's offset
// forward whatever came before it: record N+1, its emits acknowledged,
// would commit N while N's events still wait for their batch. So every
// record takes a deferred commit, and a partition's deferred commits are
// released in offset order (commits.go), each once its events are
// written. With the producer's promises completing in emit order
// (producer.go), record N's commit then never comes after N+1's.
//
// Without Kafka (goka's tester, the broker-free tests) there is no batcher:
// every event is a record of its own, as before.

const (
	// auditLinger is how long the first event of a batch waits for others:
	// a batch holds ~rate × linger events (~50 at 10,000 msg/s), and the
	// commit of the records behind it waits as long — not their outputs.
	// (The monitor counts a journey ended when its event is on the topic,
	// so its network response time includes this wait.)
	auditLinger = 5 * time.Millisecond
	// maxAuditEvents caps a batch (~200 KB at ~400 bytes an event, under
	// the broker's default 1 MB).
	maxAuditEvents = 500
)

var errNoAuditProducer = errors.New("audit batch: the stage has no producer to write with")

// auditBatcher gathers one stage's audit events and writes them in batches.
type auditBatcher struct {
	st    topology.Stage
	m     *Metrics
	topic string
	prod  *atomic.Pointer[goka.Producer] // the stage's processor's, of its current run
	// partitions returns the audit topic's partition count; until it is
	// known (an error), events are grouped by trade key alone.
	partitions func() (int, error)
	nParts     atomic.Int32

	mu     sync.Mutex
	groups map[string]*auditGroup // by the group's key
	events int
	armed  bool
}

// auditGroup is one record being built: events of one audit partition.
type auditGroup struct {
	key   string
	value []byte
	done  []func(error)
}

// newAuditBatcher batches stage st's audit events to topic, written with
// prod (the stage's producer of its current run).
func newAuditBatcher(topic string, st topology.Stage, m *Metrics, prod *atomic.Pointer[goka.Producer], partitions func() (int, error)) *auditBatcher {
	return &auditBatcher{st: st, m: m, topic: topic, prod: prod, partitions: partitions, groups: map[string]*auditGroup{}}
}

// groupKey is the group an event with trade key tk joins: its audit
// partition's, or, while the partition count is unknown, its own key.
func (b *auditBatcher) groupKey(tk string) string {
	if tk == "" {
		return ""
	}
	n := int(b.nParts.Load())
	if n == 0 {
		if got, err := b.partitions(); err == nil && got > 0 {
			b.nParts.Store(int32(got))
			n = got
		}
	}
	if n == 0 {
		return tk
	}
	return "p" + strconv.Itoa(int(topics.PartitionOf(tk, int32(n))))
}

// add queues event a (trade key tk, "" for none); done is called once it is
// written, or with the error that kept it from being written.
func (b *auditBatcher) add(tk string, a *schemas.AuditEvent, done func(error)) {
	gk := b.groupKey(tk)
	b.mu.Lock()
	g := b.groups[gk]
	if g == nil {
		g = &auditGroup{key: tk}
		b.groups[gk] = g
	}
	g.value = schemas.AppendAuditBatch(g.value, a)
	g.done = append(g.done, done)
	b.events++
	if b.events >= maxAuditEvents {
		b.flushLocked()
		b.mu.Unlock()
		return
	}
	if !b.armed {
		b.armed = true
		time.AfterFunc(auditLinger, b.flush)
	}
	b.mu.Unlock()
}

// flush writes what is waiting (the linger's timer).
func (b *auditBatcher) flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.armed = false
	b.flushLocked()
}

// flushLocked writes one record per group (b.mu held). A timer armed
// before a flush by size fires later and writes what gathered meanwhile.
func (b *auditBatcher) flushLocked() {
	if b.events == 0 {
		return
	}
	var prod goka.Producer
	if p := b.prod.Load(); p != nil {
		prod = *p
	}
	for gk, g := range b.groups {
		delete(b.groups, gk)
		if prod == nil {
			for _, d := range g.done {
				d(errNoAuditProducer)
			}
			continue
		}
		done := g.done
		prod.EmitWithHeaders(b.topic, g.key, g.value, nil).Then(func(err error) {
			for _, d := range done {
				d(err)
			}
		})
		b.m.out(b.st)
	}
	b.events = 0
}

// partitionCount returns a function that looks a topic's partition count
// up with count (the audit topic's for the batchers, the identity
// changelog's for its batches), at most once a second until it succeeds.
func partitionCount(ctx context.Context, count func(context.Context) (int, error)) func() (int, error) {
	var (
		mu   sync.Mutex
		last time.Time
		n    int
		err  = errors.New("partitions not looked up yet")
	)
	return func() (int, error) {
		mu.Lock()
		defer mu.Unlock()
		if n > 0 || time.Since(last) < time.Second {
			return n, err
		}
		last = time.Now()
		lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		n, err = count(lctx)
		return n, err
	}
}
