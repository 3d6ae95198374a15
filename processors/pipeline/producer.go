package pipeline

import (
	"context"
	"fmt"
	"hash"
	"slices"
	"sync"
	"time"

	"github.com/IBM/sarama"
	"github.com/lovoo/goka"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
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
	w  *ProduceWatch // nil: not watched

	mu   sync.Mutex
	next uint64 // the sequence number of the next emit
	done uint64 // every emit before this one has completed
	// held[i] is emit done+i once acknowledged ahead of an earlier emit: a
	// window over the emits in flight (a map cost a hash insert and delete
	// per record).
	held   []completion
	run    sync.Mutex // one goroutine completes at a time, in order
	failed error      // the first record that failed (run's)

	// batch, if set, writes one table's writes in batch records
	// (tablebatch.go); flushMu orders its flushes.
	batch   *tableBatcher
	flushMu sync.Mutex
	// seal, if set, signs the outputs written to its topics, many at a time
	// (seal.go).
	seal *sealer
}

type completion struct {
	finish goka.PromiseFinisher
	msg    *sarama.ProducerMessage
	err    error
	acked  bool // set: the window's slot is filled
}

// ProducerBuilder returns a goka producer builder on franz-go.
func ProducerBuilder(extra ...kgo.Opt) goka.ProducerBuilder {
	return WatchedProducerBuilder(nil, extra...)
}

// WatchedProducerBuilder is ProducerBuilder whose producers report to w
// (nil: none).
func WatchedProducerBuilder(w *ProduceWatch, extra ...kgo.Opt) goka.ProducerBuilder {
	return producerBuilder(producerOptions{watch: w}, extra...)
}

// producerOptions are what a producer does besides writing records.
type producerOptions struct {
	watch *ProduceWatch // reported to; nil: none
	// table's writes go in batch records (tablebatch.go); partitions looks
	// its partition count up. "": none.
	table      string
	partitions func() (int, error)
	seal       *sealConfig // outputs sealed in batches (seal.go); nil: none
}

// producerBuilder returns a builder of producers doing what po says.
func producerBuilder(po producerOptions, extra ...kgo.Opt) goka.ProducerBuilder {
	w, table, partitions := po.watch, po.table, po.partitions
	return func(brokers []string, clientID string, _ func() hash.Hash32) (goka.Producer, error) {
		opts := append([]kgo.Opt{
			kgo.SeedBrokers(brokers...),
			kgo.ClientID(clientID),
			kgo.RecordPartitioner(topics.Partitioner()),
			kgo.RequiredAcks(kgo.AllISRAcks()),
			kgo.ProducerBatchMaxBytes(topology.MaxBatchBytes),
			kgo.MaxBufferedRecords(100000),
			kgo.UnknownTopicRetries(20),
			// franz-go lingers 10 ms by default; each hop of the pipeline would
			// add it to the latency of a lightly loaded run.
			kgo.ProducerLinger(time.Millisecond),
			// Snappy by default: CPU spent to save bandwidth a local or
			// data-centre broker does not lack (2–3 % of a saturated run).
			kgo.ProducerBatchCompression(kgo.NoCompression()),
		}, extra...)
		if w != nil {
			opts = append(opts, kgo.WithLogger(w.logger()))
		}
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			return nil, err
		}
		p := &producer{cl: cl, w: w}
		if table != "" {
			p.batch = newTableBatcher(table, partitions)
		}
		if po.seal != nil {
			p.seal = newSealer(p, po.seal)
		}
		return p, nil
	}
}

func (p *producer) Emit(topic, key string, value []byte) *goka.Promise {
	return p.EmitWithHeaders(topic, key, value, nil)
}

func (p *producer) EmitWithHeaders(topic, key string, value []byte, headers goka.Headers) *goka.Promise {
	if p.batch != nil && topic == p.batch.topic && len(headers) == 0 {
		if promise, ok := p.emitBatched(p.batch, key, value); ok {
			return promise
		}
	}
	promise, finish := goka.NewPromiseWithFinisher()
	r := &kgo.Record{Topic: topic, Value: value}
	if key != "" {
		r.Key = []byte(key) // keyless records spread sticky over partitions
	}
	for k, v := range headers {
		r.Headers = append(r.Headers, kgo.RecordHeader{Key: k, Value: v})
	}
	var tw *topicWatch
	if p.w != nil {
		tw = p.w.topic(topic)
		p.w.sentTo(tw)
	}
	if p.seal != nil && p.seal.takes(topic) {
		p.seal.add(r, finish, tw) // takes its sequence number in emit order
		return promise
	}
	p.produce(r, p.sequence(), finish, tw)
	return promise
}

// sequence numbers the next emit.
func (p *producer) sequence() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	seq := p.next
	p.next++
	return seq
}

// produce hands emit seq's record to franz-go; its promise completes in
// emit order once the record is acknowledged.
func (p *producer) produce(r *kgo.Record, seq uint64, finish goka.PromiseFinisher, tw *topicWatch) {
	p.cl.Produce(context.Background(), r, func(r *kgo.Record, err error) {
		if tw != nil {
			p.w.ackedBy(tw, err)
		}
		// goka reads the offset of table writes from the message.
		msg := &sarama.ProducerMessage{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset}
		p.complete(seq, completion{finish: finish, msg: msg, err: err})
	})
}

// complete runs the completion of emit seq once every earlier emit's has
// run, and then those of later emits it was holding up.
func (p *producer) complete(seq uint64, c completion) {
	c.acked = true
	p.mu.Lock()
	i := int(seq - p.done)
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
		if len(p.held) == 0 || !p.held[0].acked {
			p.mu.Unlock()
			return
		}
		c := p.held[0]
		p.held[0] = completion{}
		p.held = p.held[1:]
		p.done++
		p.mu.Unlock()
		switch {
		case p.failed != nil && c.err == nil:
			c.err = fmt.Errorf("not trusted as delivered: an earlier record failed: %w", p.failed)
		case p.failed == nil && c.err != nil:
			p.failed = c.err
		}
		c.finish(c.msg, c.err)
	}
}

// Close flushes what is buffered and closes the client.
func (p *producer) Close() error {
	if p.seal != nil {
		p.seal.close() // what waits to be sealed is handed over first
	}
	if p.batch != nil {
		p.flushTable(false)
	}
	err := p.cl.Flush(context.Background())
	p.cl.Close()
	return err
}
