package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/topics"
)

// A tail is this instance's reading of one partition of <ns>.outbound,
// started tailLookback records before the partition's end when a participant
// of that partition first reads its outputs: it keeps the newest records in memory and wakes the
// long polls waiting on it. Outputs reads at or after where the tail began
// are answered from it, so a thousand participants polling cost one fetch
// per new batch, not a consumer each. It holds positions and records only
// (no participant, no cursor of its own): every read still filters by key
// and Receiver, and a cursor stays a position valid on every instance.
// Nothing of it outlives the process, so kill -9 loses nothing.
type tail struct {
	part int32

	mu    sync.Mutex
	base  int64         // the first offset the tail read from
	next  int64         // every record of [base, next) still retained is in recs
	hw    int64         // the partition's end as the brokers last said it
	recs  []*kgo.Record // ascending offsets
	bytes int
	moved chan struct{} // closed and replaced when next moves or the tail stops
	err   error         // why the tail stopped (errTailStopped when idle)
	used  time.Time     // the last read
	reads int           // reads in progress
}

var errTailStopped = errors.New("outputs tail stopped")

// Bounds of what one tail keeps: enough for every participant of its
// partition to catch up after a pause of minutes at the pipeline's rate;
// older positions are read with a consumer of their own (scan).
const (
	tailMaxBytes   = 16 << 20
	tailMaxRecords = 50000
)

// tailIdle is how long a tail nobody reads is kept (a variable: tests
// shorten it).
var tailIdle = 2 * time.Minute

// tailLookback is how many records before a partition's end a tail starts
// at (a variable: tests set it to 0 to read behind a tail).
var tailLookback int64 = 5000

// tails are the instance's tails, by partition, read by one Kafka client:
// one fetch loop wakes for a produce of outputs across partitions, where a
// client per tail woke one loop per partition (each a few goroutines on the
// instance's one core, docs/benchmarks.md "The gateway").
type tails struct {
	conn  kafkaconn.Config
	topic string
	adm   *kadm.Client
	log   *slog.Logger
	ctx   context.Context // the server's

	mu  sync.Mutex
	m   map[int32]*tail
	cl  *kgo.Client // made with the first tail; consumes the partitions of m
	err error       // the client could not be made, or the server stopped
}

func newTails(ctx context.Context, conn kafkaconn.Config, topic string, adm *kadm.Client, log *slog.Logger) *tails {
	return &tails{conn: conn, topic: topic, adm: adm, log: log, ctx: ctx, m: map[int32]*tail{}}
}

// get is partition p's tail, started at the partition's end if none runs;
// the caller ends its read with done. The partition's offsets are listed
// without holding the tails (their reading goes on meanwhile); of two reads
// starting one partition's tail at once, the first to finish starts it and
// the other reads from it.
func (ts *tails) get(ctx context.Context, p int32) (*tail, error) {
	if t, err := ts.running(p); t != nil || err != nil {
		return t, err
	}
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	end, err := listed(lctx, ts.adm.ListEndOffsets, ts.topic, p)
	if err != nil {
		return nil, err
	}
	start, err := listed(lctx, ts.adm.ListStartOffsets, ts.topic, p)
	if err != nil {
		return nil, err
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if t, err := ts.runningLocked(p); t != nil || err != nil {
		return t, err
	}
	if ts.cl == nil {
		cl, err := topics.Client(ts.conn,
			// A tail is at the end: were its position ever out of range,
			// the end again, never the start of the partition.
			kgo.ConsumeResetOffset(kgo.NewOffset().AtEnd()),
			kgo.FetchMaxWait(500*time.Millisecond), kgo.FetchMaxPartitionBytes(4<<20))
		if err != nil {
			return nil, err
		}
		ts.cl = cl
		go ts.run(cl)
	}
	// A little history too: participants catching up on the last minutes
	// read it from memory, not with a consumer each.
	from := max(start, end-tailLookback)
	t := &tail{part: p, base: from, next: from, hw: end, moved: make(chan struct{}), used: time.Now(), reads: 1}
	ts.m[p] = t
	ts.cl.AddConsumePartitions(map[string]map[int32]kgo.Offset{ts.topic: {p: kgo.NewOffset().At(from)}})
	return t, nil
}

// running is partition p's tail with a read begun on it, if one runs.
func (ts *tails) running(p int32) (*tail, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.runningLocked(p)
}

func (ts *tails) runningLocked(p int32) (*tail, error) {
	if ts.err != nil {
		return nil, ts.err
	}
	t := ts.m[p]
	if t == nil {
		return nil, nil
	}
	t.mu.Lock()
	ok := t.err == nil
	if ok {
		t.reads++
		t.used = time.Now()
	}
	t.mu.Unlock()
	if ok {
		return t, nil
	}
	delete(ts.m, p)
	// Its reading ends (stopped on a gap, its partition still consumed):
	// the partition is no longer fetched until a new tail adds it again
	// from where that tail starts.
	ts.cl.RemoveConsumePartitions(map[string][]int32{ts.topic: {p}})
	return nil, nil
}

// done ends a read of t.
func (t *tail) done() {
	t.mu.Lock()
	t.reads--
	t.used = time.Now()
	t.mu.Unlock()
}

// run reads the tails' partitions until the server stops, handing each
// partition's records to its tail and stopping the tails left idle.
func (ts *tails) run(cl *kgo.Client) {
	defer cl.Close()
	for {
		pctx, cancel := context.WithTimeout(ts.ctx, 30*time.Second)
		fs := cl.PollFetches(pctx)
		cancel()
		if ts.ctx.Err() != nil {
			ts.mu.Lock()
			ts.err = ts.ctx.Err()
			for p, t := range ts.m {
				t.stop(ts.err)
				delete(ts.m, p)
			}
			ts.mu.Unlock()
			return
		}
		fs.EachError(func(_ string, p int32, err error) {
			if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
				// The client retries; readers go on waiting meanwhile.
				ts.log.Warn("outputs tail: fetching", "partition", p, "err", err)
			}
		})
		ts.mu.Lock()
		fs.EachPartition(func(fp kgo.FetchTopicPartition) {
			if t := ts.m[fp.Partition]; t != nil {
				t.add(fp.Records, fp.HighWatermark)
			}
		})
		var idle []int32
		for p, t := range ts.m {
			t.mu.Lock()
			if t.err == nil && t.reads == 0 && time.Since(t.used) > tailIdle {
				idle = append(idle, p)
			}
			t.mu.Unlock()
		}
		if len(idle) > 0 {
			cl.RemoveConsumePartitions(map[string][]int32{ts.topic: idle})
			for _, p := range idle {
				ts.m[p].stop(errTailStopped)
				delete(ts.m, p)
			}
		}
		ts.mu.Unlock()
	}
}

// add appends records past next and drops the oldest beyond the bounds;
// hw is the partition's end the fetch reported.
func (t *tail) add(recs []*kgo.Record, hw int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	moved := false
	if hw > t.hw {
		t.hw = hw
		moved = true
	}
	for _, r := range recs {
		if r.Offset < t.next {
			continue
		}
		if r.Offset > t.next && len(t.recs) > 0 {
			// Records of this partition are contiguous (no transactions,
			// deleted only from the start): a gap is a fetch of the
			// partition's earlier reading, which must not pass for this
			// one's. The tail stops; the next read starts another.
			t.stopLocked(fmt.Errorf("outputs tail: offset %d read after %d", r.Offset, t.next-1))
			return
		}
		t.recs = append(t.recs, r)
		t.bytes += len(r.Key) + len(r.Value)
		t.next = r.Offset + 1
		moved = true
	}
	if !moved {
		return
	}
	drop := 0
	for drop < len(t.recs)-1 && (t.bytes > tailMaxBytes || len(t.recs)-drop > tailMaxRecords) {
		t.bytes -= len(t.recs[drop].Key) + len(t.recs[drop].Value)
		t.base = t.recs[drop].Offset + 1
		drop++
	}
	if drop > 0 {
		// A fresh array: readers may still hold a slice of the old one.
		t.recs = append([]*kgo.Record(nil), t.recs[drop:]...)
	}
	close(t.moved)
	t.moved = make(chan struct{})
}

func (t *tail) stop(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stopLocked(err)
}

// stopLocked is stop with t.mu held: the first error stands.
func (t *tail) stopLocked(err error) {
	if t.err == nil {
		t.err = err
		close(t.moved)
	}
}

// since is what the tail holds from offset from: the records at or after
// it, where the tail has read to, and a channel closed when that moves.
// from < base means the tail began after from (read those with scan).
func (t *tail) since(from int64) (recs []*kgo.Record, base, next int64, moved <-chan struct{}, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := sort.Search(len(t.recs), func(i int) bool { return t.recs[i].Offset >= from })
	return t.recs[i:len(t.recs):len(t.recs)], t.base, t.next, t.moved, t.err
}

// end is the partition's end as the tail knows it: where its records reach,
// or further when the brokers said so and the tail has not read that far.
func (t *tail) end() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return max(t.next, t.hw)
}
