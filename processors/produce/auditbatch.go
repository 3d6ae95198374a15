package produce

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lovoo/goka"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/processors/batch"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
)

// Audit events in batches (docs/ARCHITECTURE.md, "Audit batches").
//
// One audit record per message was a seventh of every record the pipeline
// produced (docs/benchmarks.md). On Kafka (Run) each stage gathers the
// events of the journeys that end there and writes them as one record per
// audit partition (JSON lines, as schemas.AppendAuditBatch writes them)
// when maxAuditEvents are waiting or auditLinger after the first,
// whichever comes first. A record
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
// released in offset order (processors/commits), each once
// its events are written. With the producer's promises completing in emit
// order (producer.go), record N's commit then never comes after N+1's.
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

// AuditBatches gather one stage's audit events and write them in batch
// records (processors/batch: maxAuditEvents, auditLinger, one hand-off at
// a time).
type AuditBatches struct {
	topic string
	prod  *atomic.Pointer[goka.Producer] // the stage's processor's, of its current run
	// partitions returns the audit topic's partition count; until it is
	// known (an error), events are grouped by trade key alone.
	partitions func() (int, error)
	nParts     atomic.Int32
	groups     atomic.Pointer[[]string] // the groups' names by partition, once the count is known
	written    func()                   // a record written (the stage's output count)
	b          *batch.Batcher[auditEvent]
}

// auditEvent is one event waiting for its batch record.
type auditEvent struct {
	group, key string // the record's group (its audit partition) and trade key
	json       []byte
	done       func(error)
}

// NewAuditBatches batches audit events to topic, written with prod (the
// stage's producer of its current run; nil there: not written, the
// events' done told so). written is called for each record written, size
// observes the batches' sizes (either nil: not).
func NewAuditBatches(topic string, prod *atomic.Pointer[goka.Producer], partitions func() (int, error),
	written func(), size prometheus.Observer) *AuditBatches {
	if written == nil {
		written = func() {}
	}
	a := &AuditBatches{topic: topic, prod: prod, partitions: partitions, written: written}
	a.b = batch.New(batch.Policy{Count: maxAuditEvents, Linger: auditLinger, Size: size}, nil, a.write)
	return a
}

// groupKey is the group an event with trade key tk joins: its audit
// partition's, or, while the partition count is unknown, its own key.
func (a *AuditBatches) groupKey(tk string) string {
	if tk == "" {
		return ""
	}
	n := int(a.nParts.Load())
	if n == 0 {
		if got, err := a.partitions(); err == nil && got > 0 {
			a.nParts.Store(int32(got))
			n = got
		}
	}
	if n == 0 {
		return tk
	}
	names := a.groups.Load()
	if names == nil || len(*names) != n {
		ns := make([]string, n)
		for i := range ns {
			ns[i] = "p" + strconv.Itoa(i)
		}
		names = &ns
		a.groups.Store(names)
	}
	return (*names)[topology.Partition([]byte(tk), n)]
}

// Add queues event ev (trade key tk, "" for none); done is called once it
// is written, or with the error that kept it from being written.
func (a *AuditBatches) Add(tk string, ev *schemas.AuditEvent, done func(error)) {
	// An event is ~600 bytes: one buffer of that, not eight doublings to it.
	a.b.Add(auditEvent{group: a.groupKey(tk), key: tk, json: ev.AppendJSON(make([]byte, 0, 768)), done: done})
}

// write writes one record per group of the batch: its events in the order
// added, keyed by the first one's trade key.
func (a *AuditBatches) write(evs []auditEvent) {
	var prod goka.Producer
	if p := a.prod.Load(); p != nil {
		prod = *p
	}
	type record struct {
		key   string
		size  int // its value's length: allocated once
		value []byte
		done  []func(error)
	}
	var order []string
	groups := map[string]*record{}
	for _, ev := range evs {
		r := groups[ev.group]
		if r == nil {
			r = &record{key: ev.key}
			groups[ev.group] = r
			order = append(order, ev.group)
		}
		r.size += len(ev.json) + 1
	}
	for _, ev := range evs {
		r := groups[ev.group]
		if r.value == nil {
			r.value = make([]byte, 0, r.size)
		} else {
			r.value = append(r.value, schemas.AuditBatchSep)
		}
		r.value = append(r.value, ev.json...)
		r.done = append(r.done, ev.done)
	}
	for _, g := range order {
		r := groups[g]
		if prod == nil {
			for _, d := range r.done {
				d(errNoAuditProducer)
			}
			continue
		}
		prod.EmitWithHeaders(a.topic, r.key, r.value, nil).Then(func(err error) {
			for _, d := range r.done {
				d(err)
			}
		})
		a.written()
	}
}

// Close writes what waits.
func (a *AuditBatches) Close() { a.b.Close() }

// PartitionCount returns a function that looks topic's partition count up
// on cluster k (the audit topic's for the audit batches, the identity
// changelog's for its batches), at most once a second until it succeeds.
func PartitionCount(ctx context.Context, k kafkaconn.Config, topic string) func() (int, error) {
	return partitionCount(ctx, func(ctx context.Context) (int, error) {
		cl, err := kgo.NewClient(k.Opts()...)
		if err != nil {
			return 0, err
		}
		defer cl.Close()
		n, err := topics.Partitions(ctx, kadm.NewClient(cl), topic)
		return int(n), err
	})
}

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
