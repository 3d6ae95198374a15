// Package produce is the pipeline's write side on Kafka: one goka producer
// on franz-go whose promises complete in emit order (producer.go), which
// seals the outputs in batches (seal.go) and writes the identity table's
// changelog in batch records (tablebatch.go); the stages' audit events in
// batch records (auditbatch.go); and the watch of what the brokers have not
// acknowledged, for /healthz (watch.go). Every batch is gathered by
// processors/batch.
package produce

import (
	"context"
	"fmt"
	"hash"
	"slices"
	"sync"
	"unsafe"

	"github.com/IBM/sarama"
	"github.com/lovoo/goka"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/topics"
)

// producer is a goka.Producer on franz-go. Profiles of a saturated `ste
// process` showed sarama's async producer at a fifth of all CPU; franz-go
// batches the same records for a fraction of it. Records land where sarama
// would put them (topics.Partitioner), with acks from all in-sync replicas and
// idempotence.
//
// Its promises complete in the order the records were emitted, whatever the
// order of the brokers' acknowledgements. goka marks an input message
// consumed as soon as that message's own emits are acknowledged, and
// sarama's mark only moves forward: when the records of message N wait
// (their partition's leader moved, and they are retried) while those of
// N+1 on another partition are acknowledged, N+1's mark commits N as
// consumed. Killed before N's retries went through, the instance lost N's
// outputs, and N was never read again (the cluster chaos suite's lost
// trades, seed 1796180246868686429). Completing in emit order, a message
// is marked only after every earlier message's outputs are acknowledged.
// For the same reason a record that failed (not retriable) fails every
// record emitted after it: goka stops the partition on the failure, but a
// later message's acknowledged outputs would still have marked it
// consumed. goka builds a new producer when the group restarts.
type producer struct {
	cl *kgo.Client
	w  *Watch // nil: not watched

	mu   sync.Mutex
	next uint64 // the sequence number of the next emit
	done uint64 // every emit before this one has completed
	// held[off+i] is emit done+i once acknowledged ahead of an earlier
	// emit: a window over the emits in flight (a map cost a hash insert and
	// delete per record). Completed emits advance off; an empty window
	// starts again at the array's start, so that acknowledgements in order
	// reuse one slot (re-slicing from the front used the array up and
	// allocated another every record or two).
	held   []completion
	off    int
	run    sync.Mutex // one goroutine completes at a time, in order
	failed error      // the first record that failed (run's)

	// table, if set, writes one table's writes in batch records
	// (tablebatch.go).
	table *tableBatches
	// seal, if set, signs the outputs written to its topics, many at a time
	// (seal.go).
	seal *sealer
	// ack is acked, made once: franz-go calls it for every record.
	ack func(*kgo.Record, error)

	// changelog, if set, is the one topic whose completions carry the
	// record's partition and offset (Options.Changelog); stateless, none's.
	changelog string
	stateless bool
}

// emission is one emit: its record and what completes it, in one
// allocation (a record, its key, a promise and an acknowledgement closure
// were four a record). The record is the first field, so that the
// acknowledgement, which franz-go calls with the record handed to it,
// finds its emission (acked).
type emission struct {
	r       kgo.Record
	seq     uint64
	tw      *topicWatch
	promise goka.Promise
}

func newEmission(topic, key string, value []byte, headers goka.Headers) *emission {
	e := &emission{r: kgo.Record{Topic: topic, Value: value}}
	if key != "" {
		// The key's bytes are the string's, as kgo.KeyStringRecord makes
		// them: franz-go only reads a record's key. Keyless records spread
		// sticky over partitions.
		e.r.Key = unsafe.Slice(unsafe.StringData(key), len(key))
	}
	for k, v := range headers {
		e.r.Headers = append(e.r.Headers, kgo.RecordHeader{Key: k, Value: v})
	}
	return e
}

type completion struct {
	finish *goka.Promise
	msg    *sarama.ProducerMessage
	err    error
	acked  bool // set: the window's slot is filled
}

// Options are what a producer does besides writing records.
type Options struct {
	Watch *Watch // reported to; nil: none
	// Seal, if set, has the outputs sealed in batches (seal.go).
	Seal *Seal
	// Table's writes go in batch records (tablebatch.go); Partitions
	// looks its partition count up, TableSize observes the batches' sizes.
	// "": none.
	Table      string
	Partitions func() (int, error)
	TableSize  prometheus.Observer
	// Changelog is the stage's table changelog: goka stores the offset of
	// a table write, and the disk tables route its acknowledgement by
	// partition, from the message its promise completes with. The
	// promises of other records complete without one (an allocation a
	// record less). "": every promise completes with its message, unless
	// Stateless.
	Changelog string
	// Stateless: the stage has no table, and no promise completes with its
	// message (goka reads none but a table write's).
	Stateless bool
	// Extra are further client options (the connection's TLS and SASL).
	Extra []kgo.Opt
}

// Builder returns a goka producer builder on franz-go doing what o says.
// Its client options are every STE producer's (topics.ProducerOpts: the
// shared partitioner, acks from all in-sync replicas, idempotence, the
// batch size, a 1 ms linger, no compression) and the pipeline's own.
func Builder(o Options) goka.ProducerBuilder {
	return func(brokers []string, clientID string, _ func() hash.Hash32) (goka.Producer, error) {
		opts := append(topics.ProducerOpts(),
			kgo.SeedBrokers(brokers...),
			kgo.ClientID(clientID),
			kgo.MaxBufferedRecords(100000),
			kgo.UnknownTopicRetries(20),
		)
		if o.Watch != nil {
			opts = append(opts, o.Watch.opts()...)
		}
		cl, err := kgo.NewClient(append(opts, o.Extra...)...)
		if err != nil {
			return nil, err
		}
		p := &producer{cl: cl, w: o.Watch, changelog: o.Changelog, stateless: o.Stateless}
		p.ack = p.acked
		if o.Table != "" {
			p.table = newTableBatches(p, o.Table, o.Partitions, o.TableSize)
		}
		if o.Seal != nil {
			p.seal = newSealer(p, o.Seal)
		}
		return p, nil
	}
}

func (p *producer) Emit(topic, key string, value []byte) *goka.Promise {
	return p.EmitWithHeaders(topic, key, value, nil)
}

func (p *producer) EmitWithHeaders(topic, key string, value []byte, headers goka.Headers) *goka.Promise {
	if p.table != nil && topic == p.table.topic && len(headers) == 0 {
		if promise, ok := p.table.emit(key, value); ok {
			return promise
		}
	}
	e := newEmission(topic, key, value, headers)
	if p.w != nil {
		e.tw = p.w.topic(topic)
		p.w.sentTo(e.tw)
	}
	if p.seal != nil && p.seal.takes(topic) {
		p.seal.add(e) // takes its sequence number in emit order
		return &e.promise
	}
	e.seq = p.sequence()
	p.produce(e)
	return &e.promise
}

// sequence numbers the next emit.
func (p *producer) sequence() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	seq := p.next
	p.next++
	return seq
}

// produce hands an emit's record to franz-go; its promise completes in
// emit order once the record is acknowledged.
func (p *producer) produce(e *emission) { p.cl.Produce(context.Background(), &e.r, p.ack) }

// acked is franz-go's acknowledgement of an emission's record.
func (p *producer) acked(r *kgo.Record, err error) {
	e := (*emission)(unsafe.Pointer(r)) // produce handed franz-go the emission's first field
	if e.tw != nil {
		p.w.ackedBy(e.tw, err)
	}
	// goka reads the offset of table writes from the message.
	var msg *sarama.ProducerMessage
	if !p.stateless && (p.changelog == "" || r.Topic == p.changelog) {
		msg = &sarama.ProducerMessage{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset}
	}
	p.complete(e.seq, completion{finish: &e.promise, msg: msg, err: err})
}

// complete runs the completion of emit seq once every earlier emit's has
// run, and then those of later emits it was holding up.
func (p *producer) complete(seq uint64, c completion) {
	c.acked = true
	p.mu.Lock()
	i := p.off + int(seq-p.done)
	if i >= cap(p.held) && p.off > 0 {
		// Full: the completed front makes room first.
		n := copy(p.held, p.held[p.off:])
		clear(p.held[n:])
		p.held, i, p.off = p.held[:n], i-p.off, 0
	}
	if n := len(p.held); i >= n {
		p.held = slices.Grow(p.held, i+1-n)[:i+1]
		clear(p.held[n:])
	}
	p.held[i] = c
	p.mu.Unlock()
	p.run.Lock()
	defer p.run.Unlock()
	for {
		p.mu.Lock()
		if p.off == len(p.held) || !p.held[p.off].acked {
			p.mu.Unlock()
			return
		}
		c := p.held[p.off]
		p.held[p.off] = completion{}
		if p.off++; p.off == len(p.held) {
			p.held, p.off = p.held[:0], 0
		}
		p.done++
		p.mu.Unlock()
		switch {
		case p.failed != nil && c.err == nil:
			c.err = fmt.Errorf("not trusted as delivered: an earlier record failed: %w", p.failed)
		case p.failed == nil && c.err != nil:
			p.failed = c.err
		}
		c.finish.Finish(c.msg, c.err)
	}
}

// Close flushes what is buffered and closes the client.
func (p *producer) Close() error {
	if p.seal != nil {
		p.seal.close() // what waits to be sealed is handed over first
	}
	if p.table != nil {
		p.table.close()
	}
	err := p.cl.Flush(context.Background())
	p.cl.Close()
	return err
}
