package topics

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topology"
)

// InboundKey is the key a record is sent to <ns>.inbound with, from the
// message as decoded (m nil when nothing was): its Sender's BIC when the
// record reads that far, else none (see InboundKeyOf).
func InboundKey(m *schemas.Message) []byte {
	if m != nil && schemas.IsBIC(m.Sender) {
		return []byte(m.Sender)
	}
	return nil
}

// InboundKeyOf is the key of a record not yet decoded: the value of its
// first <Sender> element when that is a BIC as it stands (what a decode
// finds in every well-formed message written plainly; a record that does
// not decode is keyed by it too), else InboundKey of the record decoded.
// The driver keys every record with it, and an operator's retry keys the
// original bytes the same way (docs/spec/messages.md §7): decoding every
// message to key it cost the driver as much CPU as the validate stage's
// own decode.
func InboundKeyOf(raw []byte) []byte {
	const open = "<Sender>"
	if i := bytes.Index(raw, []byte(open)); i >= 0 {
		v := raw[i+len(open):]
		if j := bytes.IndexByte(v, '<'); j >= 0 && schemas.IsBIC(string(v[:j])) {
			return v[:j:j]
		}
	}
	var dec schemas.Decoder
	m, _ := dec.Decode(raw)
	return InboundKey(m)
}

// PartitionOf is the partition of n that STE's partitioner gives key: where
// goka, the driver and every franz-go producer put a record with that key.
// It is the partitioner's hash itself: building a partitioner to ask it
// seeds a random source each time (franz-go's sticky fallback for records
// without a key), which a profile of the gateway's long polls found at 12 %
// of their CPU.
func PartitionOf(key string, n int32) int32 {
	return int32(topology.Partition([]byte(key), int(n)))
}

// Partitions is the partition count of topic (0 when it does not exist).
func Partitions(ctx context.Context, adm *kadm.Client, topic string) (int32, error) {
	td, err := adm.ListTopics(ctx, topic)
	if err != nil {
		return 0, fmt.Errorf("list topics: %w", err)
	}
	d, ok := td[topic]
	if !ok || d.Err != nil {
		return 0, nil
	}
	return int32(len(d.Partitions)), nil
}

// ErrGone: the record asked for is not on the topic (before the log's start:
// removed by retention or compaction; or never written).
var ErrGone = errors.New("record not on the topic")

// ReadRecord reads the one record at partition and offset of topic.
func ReadRecord(ctx context.Context, c kafkaconn.Config, topic string, partition int32, offset int64) (*kgo.Record, error) {
	var got *kgo.Record
	err := ReadPartition(ctx, c, topic, partition, offset, func(r *kgo.Record) bool {
		if r.Offset == offset {
			got = r
		}
		return false // the first record at or after offset decides
	})
	if err == nil && got == nil {
		err = fmt.Errorf("%s/%d at offset %d: %w", topic, partition, offset, ErrGone)
	}
	return got, err
}

// ReadPartitionSince reads one partition of topic from the first record
// stamped at or after since, as ReadPartition does.
func ReadPartitionSince(ctx context.Context, c kafkaconn.Config, topic string, partition int32, since time.Time,
	fn func(*kgo.Record) bool) error {
	cl, err := Connect(ctx, c)
	if err != nil {
		return err
	}
	offs, err := kadm.NewClient(cl).ListOffsetsAfterMilli(ctx, since.UnixMilli(), topic)
	cl.Close()
	if err != nil {
		return err
	}
	o, ok := offs.Lookup(topic, partition)
	if !ok || o.Err != nil {
		return fmt.Errorf("%s/%d: no offset for %s", topic, partition, since.Format(time.RFC3339))
	}
	return ReadPartition(ctx, c, topic, partition, o.Offset, fn)
}

// ReadPartition hands fn the records of one partition of topic from offset
// (the log's start if that is later) up to the end the partition has when
// called, in order, until fn returns false.
func ReadPartition(ctx context.Context, c kafkaconn.Config, topic string, partition int32, offset int64,
	fn func(*kgo.Record) bool) error {
	cl, err := Connect(ctx, c)
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err != nil {
		return err
	}
	end, ok := ends.Lookup(topic, partition)
	if !ok || end.Err != nil {
		return fmt.Errorf("%s/%d: %w", topic, partition, errors.Join(ErrGone, end.Err))
	}
	if offset >= end.Offset {
		return nil
	}
	cl.AddConsumePartitions(map[string]map[int32]kgo.Offset{topic: {partition: kgo.NewOffset().At(offset)}})
	for {
		fs, err := Poll(ctx, cl)
		if err != nil {
			return err
		}
		for it := fs.RecordIter(); !it.Done(); {
			r := it.Next()
			if r.Offset < offset {
				continue
			}
			if !fn(r) || r.Offset+1 >= end.Offset {
				return nil
			}
		}
	}
}
