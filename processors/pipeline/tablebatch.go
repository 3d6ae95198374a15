package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/IBM/sarama"
	"github.com/lovoo/goka"
	"github.com/lovoo/goka/storage"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/processors/changelog"
	"github.com/ste-utility/ste/processors/diskstore"
	"github.com/ste-utility/ste/topics"
)

// The identity changelog in batches (docs/ARCHITECTURE.md, "Identity
// changelog in batches").
//
// One changelog record per accepted message was a sixth of every record the
// pipeline produced. The identity table is the one table whose changelog
// compaction never thins: an identity is written once, when its first valid
// message is accepted, and forgotten only locally (forgetIdentities), so
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
// on the changelog. The table's update callback (unpackTableBatches)
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

// unpackTableBatches is the identity table's update callback: a batch
// record is applied as its writes; any other record as goka would.
func (rt *wiring) unpackTableBatches(ctx goka.UpdateContext, st storage.Storage, key string, value []byte) error {
	if !changelog.IsBatch(key) {
		return goka.DefaultUpdate(ctx, st, key, value)
	}
	n := 0
	err := changelog.EachEntry(value, func(k string, v []byte) error {
		n++
		return goka.DefaultUpdate(ctx, st, k, v)
	})
	if errors.Is(err, changelog.ErrBatch) {
		// Not ours (nothing else writes the changelog): what could be read
		// is applied, the rest is reported, and the restore goes on rather
		// than stopping the stage for good.
		rt.log.Warn("table changelog: batch record unreadable", "topic", ctx.Topic(), "partition", ctx.Partition(),
			"offset", ctx.Offset(), "applied", n)
		return nil
	}
	return err
}

// tableBatcher is a producer's batching of one table's writes (producer.go).
// Its groups, one per changelog partition, are guarded by the producer's mu.
type tableBatcher struct {
	topic string
	// partitions returns the changelog's partition count; until it is known
	// (an error) writes are emitted one record each, as goka would.
	partitions func() (int, error)

	n       int32 // the partition count, once known
	groups  map[int32]*tableGroup
	entries int
	armed   bool
}

// tableGroup is one batch record being built.
type tableGroup struct {
	value []byte
	seqs  []uint64
	fins  []goka.PromiseFinisher
}

func newTableBatcher(topic string, partitions func() (int, error)) *tableBatcher {
	return &tableBatcher{topic: topic, partitions: partitions, groups: map[int32]*tableGroup{}}
}

// emitBatched queues a write of b's table in its partition's batch, if
// the table's partition count is known (ok false: it is not, and nothing
// was queued). It takes its emit sequence number now, so that every later
// emit's promise completes after it.
func (p *producer) emitBatched(b *tableBatcher, key string, value []byte) (_ *goka.Promise, ok bool) {
	p.mu.Lock()
	n := b.n
	p.mu.Unlock()
	if n == 0 {
		got, err := b.partitions()
		if err != nil || got <= 0 {
			return nil, false
		}
		n = int32(got)
	}
	promise, finish := goka.NewPromiseWithFinisher()
	part := topics.PartitionOf(key, n)
	p.mu.Lock()
	b.n = n
	seq := p.next
	p.next++
	g := b.groups[part]
	if g == nil {
		g = &tableGroup{}
		b.groups[part] = g
	}
	g.value = changelog.AppendEntry(g.value, key, value)
	g.seqs = append(g.seqs, seq)
	g.fins = append(g.fins, finish)
	b.entries++
	full := b.entries >= maxTableEntries
	if !full && !b.armed {
		b.armed = true
		time.AfterFunc(tableLinger, func() { p.flushTable(true) })
	}
	p.mu.Unlock()
	if full {
		p.flushTable(false)
	}
	return promise, true
}

// flushTable writes the batches waiting, one record per partition. One
// flush at a time (flushMu), so that a partition's batches reach the
// changelog in the order they were gathered; the producer's mu is not held
// while producing, which may wait for buffer space freed by completions.
func (p *producer) flushTable(timer bool) {
	b := p.batch
	p.flushMu.Lock()
	defer p.flushMu.Unlock()
	p.mu.Lock()
	if timer {
		b.armed = false
	}
	n, groups := b.n, b.groups
	if len(groups) > 0 {
		b.groups, b.entries = map[int32]*tableGroup{}, 0
	}
	p.mu.Unlock()
	for part, g := range groups {
		r := &kgo.Record{Topic: b.topic, Key: []byte(changelog.BatchKey(part, n)), Value: g.value}
		if p.w != nil {
			p.w.sent(b.topic)
		}
		p.cl.Produce(context.Background(), r, func(r *kgo.Record, err error) {
			if p.w != nil {
				p.w.acked(b.topic, err)
			}
			if err == nil && r.Partition != part {
				err = fmt.Errorf("table batch of partition %d landed in partition %d of %s", part, r.Partition, r.Topic)
			}
			for i, seq := range g.seqs {
				// goka reads the offset of table writes from the message,
				// the store whether more writes of the record are to come.
				msg := &sarama.ProducerMessage{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset,
					Metadata: diskstore.RecordPart{More: i < len(g.seqs)-1}}
				p.complete(seq, completion{finish: g.fins[i], msg: msg, err: err})
			}
		})
	}
}
