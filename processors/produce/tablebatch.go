package produce

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/IBM/sarama"
	"github.com/lovoo/goka"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/processors/batch"
	"github.com/ste-utility/ste/processors/changelog"
	"github.com/ste-utility/ste/processors/diskstore"
	"github.com/ste-utility/ste/topology"
)

// The identity changelog in batches (docs/ARCHITECTURE.md, "Identity
// changelog in batches").
//
// One changelog record per accepted message was a sixth of every record the
// pipeline produced. The identity table is the one table whose changelog
// compaction never thins: an identity is written once, when its first valid
// message is accepted, and forgotten only locally (processors/stages), so
// its changelog keeps one record per identity ever accepted anyway. Writing
// many of them in one record therefore costs compaction nothing, as long as
// every batch record has a key of its own (a compacted topic keeps the last
// record of each key).
//
// On Kafka (Run) the identity stage's producer gathers the table writes
// goka makes (ctx.SetValue) per changelog partition and writes them as one
// record, keyed changelog.BatchPrefix…, tableLinger after the first or at
// maxTableEntries. Each write's promise completes when its record is
// acknowledged, in emit order like every promise of the producer
// (producer.go), so no input record is committed before its table write is
// on the changelog. The table's update callback (processors/pipeline)
// applies a batch record's writes one by one wherever goka reads the
// changelog: a restore, a hot standby. The match table is not batched: its
// values change with every message of a trade and its tombstones delete
// them, and compaction keeps only the last of each — in batches it would
// keep them all.

const (
	// tableLinger is how long the first write of a batch waits for others:
	// the commit of its input record waits as long, not its outputs.
	tableLinger = 5 * time.Millisecond
	// maxTableEntries caps a batch (~35 KB of identities).
	maxTableEntries = 500
)

// tableWrite is one table write waiting for its batch record.
type tableWrite struct {
	key    string
	value  []byte
	part   int32 // its changelog partition
	seq    uint64
	finish *goka.Promise
}

// tableBatches is a producer's batching of one table's writes: one record
// per changelog partition, tableLinger after the first write or at
// maxTableEntries, one hand-off at a time (processors/batch), so that a
// partition's batches reach the changelog in the order they were gathered.
type tableBatches struct {
	p     *producer
	topic string
	// partitions returns the changelog's partition count; until it is known
	// (an error) writes are emitted one record each, as goka would.
	partitions func() (int, error)
	n          atomic.Int32 // the partition count, once known
	b          *batch.Batcher[tableWrite]
}

func newTableBatches(p *producer, topic string, partitions func() (int, error), size prometheus.Observer) *tableBatches {
	t := &tableBatches{p: p, topic: topic, partitions: partitions}
	t.b = batch.New(batch.Policy{Count: maxTableEntries, Linger: tableLinger, Size: size}, nil, t.write)
	return t
}

// emit queues a write of the table in its partition's batch, if the
// table's partition count is known (ok false: it is not, and nothing was
// queued). It takes its emit sequence number as it is queued, so that
// every later emit's promise completes after it.
func (t *tableBatches) emit(key string, value []byte) (_ *goka.Promise, ok bool) {
	n := t.n.Load()
	if n == 0 {
		got, err := t.partitions()
		if err != nil || got <= 0 {
			return nil, false
		}
		n = int32(got)
		t.n.Store(n)
	}
	promise := goka.NewPromise()
	part := int32(topology.Partition([]byte(key), int(n)))
	t.b.AddFunc(func() tableWrite {
		return tableWrite{key: key, value: value, part: part, seq: t.p.sequence(), finish: promise}
	})
	return promise, true
}

// write writes a batch of table writes, one record per changelog
// partition; each write's promise completes, in emit order, once its
// record is acknowledged.
func (t *tableBatches) write(ws []tableWrite) {
	p, n := t.p, t.n.Load()
	groups := map[int32][]tableWrite{}
	for _, w := range ws {
		groups[w.part] = append(groups[w.part], w)
	}
	for part, g := range groups {
		var value []byte
		for _, w := range g {
			value = changelog.AppendEntry(value, w.key, w.value)
		}
		r := &kgo.Record{Topic: t.topic, Key: []byte(changelog.BatchKey(part, n)), Value: value}
		if p.w != nil {
			p.w.sent(t.topic)
		}
		p.cl.Produce(context.Background(), r, func(r *kgo.Record, err error) {
			if p.w != nil {
				p.w.acked(t.topic, err)
			}
			if err == nil && r.Partition != part {
				err = fmt.Errorf("table batch of partition %d landed in partition %d of %s", part, r.Partition, r.Topic)
			}
			for i, w := range g {
				// goka reads the offset of table writes from the message,
				// the store whether more writes of the record are to come.
				msg := &sarama.ProducerMessage{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset,
					Metadata: diskstore.RecordPart{More: i < len(g)-1}}
				p.complete(w.seq, completion{finish: w.finish, msg: msg, err: err})
			}
		})
	}
}

// close writes what waits.
func (t *tableBatches) close() { t.b.Close() }
