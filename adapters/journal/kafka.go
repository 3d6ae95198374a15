package journal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/topics"
)

// Journal is the journal topic followed into an Index, and written through
// one producer.
type Journal struct {
	*Index
	topic string
	conn  kafkaconn.Config
	cl    *kgo.Client // producer (acks=all, idempotent)
	adm   *kadm.Client
	log   *slog.Logger

	mu    sync.Mutex
	next  int64 // every offset below it is applied
	moved chan struct{}
	err   error
}

// Open starts following topic (from its start, then as it grows) until ctx
// ends. cl is the producer Write uses (the caller's, closed by it).
func Open(ctx context.Context, conn kafkaconn.Config, topic string, cl *kgo.Client, log *slog.Logger) *Journal {
	j := &Journal{Index: NewIndex(), topic: topic, conn: conn, cl: cl, adm: kadm.NewClient(cl), log: log, moved: make(chan struct{})}
	go j.follow(ctx)
	return j
}

func (j *Journal) follow(ctx context.Context) {
	for ctx.Err() == nil {
		j.mu.Lock()
		from := kgo.NewOffset().AtStart()
		if j.next > 0 {
			from = kgo.NewOffset().At(j.next)
		}
		j.mu.Unlock()
		cl, err := topics.Client(j.conn, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{j.topic: {0: from}}),
			kgo.FetchMaxWait(200*time.Millisecond))
		if err != nil {
			j.setErr(err)
			sleep(ctx, time.Second)
			continue
		}
		for ctx.Err() == nil {
			fs := cl.PollFetches(ctx)
			if ctx.Err() != nil {
				break
			}
			fs.EachError(func(_ string, _ int32, err error) { j.setErr(err) })
			fs.EachPartition(func(p kgo.FetchTopicPartition) {
				for _, r := range p.Records {
					e, err := Decode(r.Value)
					if err != nil {
						j.log.Warn("journal record skipped", "offset", r.Offset, "err", err)
						continue
					}
					j.Apply(e)
				}
				next := p.HighWatermark
				if n := len(p.Records); n > 0 {
					next = max(p.Records[n-1].Offset+1, 0)
				}
				j.reach(next)
			})
		}
		cl.Close()
	}
}

func (j *Journal) setErr(err error) {
	j.mu.Lock()
	j.err = err
	j.mu.Unlock()
}

func (j *Journal) reach(next int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.err = nil
	if next > j.next {
		j.next = next
		close(j.moved)
		j.moved = make(chan struct{})
	}
}

// ErrUnavailable: the brokers did not answer in time.
var ErrUnavailable = errors.New("the brokers did not acknowledge in time")

// Sync reads the journal to the end offset the brokers give now (§1,
// read-your-writes).
func (j *Journal) Sync(ctx context.Context) error {
	ends, err := j.adm.ListEndOffsets(ctx, j.topic)
	if err != nil {
		return fmt.Errorf("%w: journal end offsets: %v", ErrUnavailable, err)
	}
	o, ok := ends.Lookup(j.topic, 0)
	if !ok || o.Err != nil {
		return fmt.Errorf("%w: journal end offsets: %v", ErrUnavailable, o.Err)
	}
	return j.waitFor(ctx, o.Offset)
}

func (j *Journal) waitFor(ctx context.Context, end int64) error {
	for {
		j.mu.Lock()
		if j.next >= end {
			j.mu.Unlock()
			return nil
		}
		moved := j.moved
		j.mu.Unlock()
		select {
		case <-moved:
		case <-ctx.Done():
			return fmt.Errorf("%w: the journal was not read to its end", ErrUnavailable)
		}
	}
}

// Records are entries as journal records (for a caller that produces them
// with others, waiting for all at once).
func (j *Journal) Records(es ...Entry) []*kgo.Record {
	out := make([]*kgo.Record, len(es))
	for i, e := range es {
		out[i] = &kgo.Record{Topic: j.topic, Partition: 0, Key: []byte(e.Key()), Value: e.Encode()}
	}
	return out
}

// Write produces entries and waits for the brokers' acknowledgement (acks=all).
func (j *Journal) Write(ctx context.Context, es ...Entry) error {
	if len(es) == 0 {
		return nil
	}
	if err := j.cl.ProduceSync(ctx, j.Records(es...)...).FirstErr(); err != nil {
		return fmt.Errorf("%w: journal: %v", ErrUnavailable, err)
	}
	return nil
}

// Topic is the journal's topic name.
func (j *Journal) Topic() string { return j.topic }

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
