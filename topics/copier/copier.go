// Package copier is the one path by which STE copies records from one
// namespace to another. A replay copies a range of inbound records into a
// sandbox (Copy); a migration makes the table changelogs and reference data
// of a namespace with more partitions hold what the old one holds
// (Converge), and bridges inbound records that still arrive on the old
// namespace after the cut-over (Follow).
//
// What a copy keeps: a record's key, value, headers and time (the producer
// sets the original time; a topic stamped by the broker overrides it), and
// the order of the records of each source partition. Where a record lands:
// in its source partition when both topics have the same count and the
// caller asks for it, otherwise where the shared partitioner
// (topics.Partitioner, FNV-1a as goka computes it) puts its key, so that a
// re-keyed trade meets its state. A record without a key keeps its source
// partition modulo the target's count.
//
// The package holds no connection settings: callers pass a Dial that opens
// a client on their cluster with extra options.
package copier

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/when"
)

// Dial opens a client on the cluster with extra options (later options win).
type Dial func(opts ...kgo.Opt) (*kgo.Client, error)

// Span is the offsets [From, To) of one partition.
type Span struct {
	Partition int32 `json:"partition"`
	From      int64 `json:"from"`
	To        int64 `json:"to"`
}

// Len is the number of offsets in the span.
func (s Span) Len() int64 { return max(s.To-s.From, 0) }

// Total is the number of offsets in spans.
func Total(spans []Span) int64 {
	var n int64
	for _, s := range spans {
		n += s.Len()
	}
	return n
}

// Bound is one end of a range of records: a record time, or an offset per
// partition. The zero Bound is the start of the log (as a lower bound) or
// its end (as an upper bound); partitions an offset Bound does not name are
// open on that side too.
type Bound struct {
	Time    time.Time
	Offsets map[int32]int64
}

// IsZero reports an open bound.
func (b Bound) IsZero() bool { return b.Time.IsZero() && len(b.Offsets) == 0 }

// Spans resolves [since, until) on topic to a span per partition, within what
// the log holds now (its start and end offsets). A time bound is the first
// record at or after that time (Kafka's time index), so since is inclusive and
// until exclusive.
func Spans(ctx context.Context, adm *kadm.Client, topic string, since, until Bound) ([]Span, error) {
	starts, err := adm.ListStartOffsets(ctx, topic)
	if err == nil {
		err = starts.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("%s: start offsets: %w", topic, err)
	}
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("%s: end offsets: %w", topic, err)
	}
	at := func(b Bound) (kadm.ListedOffsets, error) {
		if b.Time.IsZero() {
			return nil, nil
		}
		l, err := adm.ListOffsetsAfterMilli(ctx, b.Time.UnixMilli(), topic)
		if err == nil {
			err = l.Error()
		}
		if err != nil {
			return nil, fmt.Errorf("%s: offsets at %s: %w", topic, b.Time.Format(time.RFC3339), err)
		}
		return l, nil
	}
	sinceAt, err := at(since)
	if err != nil {
		return nil, err
	}
	untilAt, err := at(until)
	if err != nil {
		return nil, err
	}
	var spans []Span
	var unknown []int32
	ends.Each(func(e kadm.ListedOffset) {
		s := Span{Partition: e.Partition, To: e.Offset}
		if st, ok := starts.Lookup(topic, e.Partition); ok {
			s.From = st.Offset
		}
		if o, ok := sinceAt.Lookup(topic, e.Partition); ok && o.Offset >= 0 {
			s.From = max(s.From, o.Offset)
		}
		if o, ok := since.Offsets[e.Partition]; ok {
			s.From = max(s.From, o)
		}
		if o, ok := untilAt.Lookup(topic, e.Partition); ok && o.Offset >= 0 {
			s.To = min(s.To, o.Offset)
		}
		if o, ok := until.Offsets[e.Partition]; ok {
			s.To = min(s.To, o)
		}
		s.To = max(s.To, s.From)
		spans = append(spans, s)
	})
	for _, b := range []Bound{since, until} {
		for p := range b.Offsets {
			if _, ok := ends.Lookup(topic, p); !ok {
				unknown = append(unknown, p)
			}
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return nil, fmt.Errorf("%s has no partition %d (it has %d)", topic, unknown[0], len(spans))
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].Partition < spans[j].Partition })
	return spans, nil
}

// EndSpans are the spans from the start to the end of every partition of
// topic as it is now.
func EndSpans(ctx context.Context, adm *kadm.Client, topic string) ([]Span, error) {
	return Spans(ctx, adm, topic, Bound{}, Bound{})
}

// Read hands fn every record of spans, in offset order within a partition,
// and returns how many it handed over. A compacted topic is read to its end
// (EndSpans): its last record is never compacted away, so the end is seen.
func Read(ctx context.Context, dial Dial, topic string, spans []Span, fn func(*kgo.Record) error) (int64, error) {
	remaining := map[int32]int64{}
	offsets := map[int32]kgo.Offset{}
	for _, s := range spans {
		if s.Len() > 0 {
			remaining[s.Partition] = s.To
			offsets[s.Partition] = kgo.NewOffset().At(s.From)
		}
	}
	if len(remaining) == 0 {
		return 0, nil
	}
	cl, err := dial(kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: offsets}))
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	var n int64
	for len(remaining) > 0 {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return n, err
		}
		var ferr error
		fs.EachError(func(t string, p int32, err error) {
			// The client retries what is transient itself (a lost leader,
			// a broker that cannot be dialled) and reports it here only to
			// be seen; a topic that went away is final.
			if ferr == nil && (!kafkaconn.Transient(err) || errors.Is(err, kerr.UnknownTopicOrPartition)) {
				ferr = fmt.Errorf("%s partition %d: %w", t, p, err)
			}
		})
		if ferr != nil {
			return n, ferr
		}
		var cbErr error
		fs.EachRecord(func(r *kgo.Record) {
			end, ok := remaining[r.Partition]
			if !ok || r.Offset >= end || cbErr != nil {
				return
			}
			n++
			cbErr = fn(r)
			if r.Offset+1 >= end {
				delete(remaining, r.Partition)
			}
		})
		if cbErr != nil {
			return n, cbErr
		}
	}
	return n, nil
}

// Route says where a copied record lands: in its source partition (Keep,
// both topics having the same count), or by its key with the shared
// partitioner over Partitions; a record without a key keeps its source
// partition modulo Partitions.
type Route struct {
	Partitions int32
	Keep       bool
}

// Partition is the target partition of a record read from partition src.
func (rt Route) Partition(key []byte, src int32) int32 {
	switch {
	case rt.Keep:
		return src
	case key == nil:
		return src % rt.Partitions
	}
	return int32(topology.Partition(key, int(rt.Partitions)))
}

// writer produces records to partitions chosen by the caller, in order per
// partition (idempotent producer), remembering the first failure.
type writer struct {
	cl     *kgo.Client
	topic  string
	rate   float64
	start  time.Time
	sent   atomic.Int64
	acked  atomic.Int64
	mu     sync.Mutex
	first  error
	onAck  func(n int64)
	paceAt time.Time
}

func newWriter(dial Dial, topic string, rate float64) (*writer, error) {
	cl, err := dial(kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.MaxBufferedRecords(20000))
	if err != nil {
		return nil, err
	}
	now := time.Now()
	return &writer{cl: cl, topic: topic, rate: rate, start: now, paceAt: now}, nil
}

// write sends one record; a rate above zero paces the writes.
func (w *writer) write(ctx context.Context, r *kgo.Record) error {
	if err := w.err(); err != nil {
		return err
	}
	if w.rate > 0 {
		w.paceAt = w.paceAt.Add(time.Duration(float64(time.Second) / w.rate))
		if d := time.Until(w.paceAt); d > time.Millisecond {
			select {
			case <-time.After(d):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	r.Topic = w.topic
	w.sent.Add(1)
	w.cl.Produce(ctx, r, func(r *kgo.Record, err error) {
		if err != nil {
			w.mu.Lock()
			if w.first == nil {
				w.first = fmt.Errorf("write to %s partition %d: %w", w.topic, r.Partition, err)
			}
			w.mu.Unlock()
			return
		}
		if n := w.acked.Add(1); w.onAck != nil {
			w.onAck(n)
		}
	})
	return nil
}

func (w *writer) err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.first
}

// flush waits for every write to be acknowledged.
func (w *writer) flush(ctx context.Context) error {
	if err := w.cl.Flush(ctx); err != nil {
		return err
	}
	return w.err()
}

func (w *writer) close() { w.cl.Close() }

// Options configure Copy.
type Options struct {
	Dial Dial
	// From and To are the source and target topics; Spans what to copy.
	From, To string
	Spans    []Span
	Route    Route
	// Rate limits the copy to that many records per second (0: as fast as
	// the cluster takes them), to spare a cluster that serves live traffic.
	Rate float64
	// Progress is called about every 200 ms with the records copied
	// (acknowledged) so far, and once at the end.
	Progress func(copied int64)
}

// Result says what a copy did.
type Result struct {
	Copied  int64   `json:"copied"`
	Seconds float64 `json:"seconds"`
}

// Copy copies the records of o.Spans from o.From to o.To, keeping key,
// value, headers, record time and the order of each source partition, and
// returns once every copied record is acknowledged.
func Copy(ctx context.Context, o Options) (Result, error) {
	if o.Route.Partitions < 1 {
		return Result{}, errors.New("copier: no target partition count")
	}
	w, err := newWriter(o.Dial, o.To, o.Rate)
	if err != nil {
		return Result{}, err
	}
	defer w.close()
	stop := progress(w, o.Progress)
	_, err = Read(ctx, o.Dial, o.From, o.Spans, func(r *kgo.Record) error {
		return w.write(ctx, &kgo.Record{Key: r.Key, Value: r.Value, Headers: r.Headers, Timestamp: r.Timestamp,
			Partition: o.Route.Partition(r.Key, r.Partition)})
	})
	if err == nil {
		err = w.flush(ctx)
	}
	stop()
	return Result{Copied: w.acked.Load(), Seconds: time.Since(w.start).Seconds()}, err
}

// progress reports w's acknowledged writes every 200 ms until the returned
// stop is called (which reports once more).
func progress(w *writer, fn func(int64)) (stop func()) {
	if fn == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				fn(w.acked.Load())
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
		fn(w.acked.Load())
	}
}

var offsetsForm = regexp.MustCompile(`^\s*\d+:\d+(\s*,\s*\d+:\d+)*\s*$`)

// ParseBound reads a bound as an operator types it (ste replay --since,
// --until): a time (package when: RFC 3339, a date, a duration before now)
// or offsets per partition, PARTITION:OFFSET,…; "" is the open bound.
func ParseBound(s string) (Bound, error) {
	if strings.TrimSpace(s) == "" {
		return Bound{}, nil
	}
	if offsetsForm.MatchString(s) {
		b := Bound{Offsets: map[int32]int64{}}
		for _, pair := range strings.Split(s, ",") {
			p, o, _ := strings.Cut(strings.TrimSpace(pair), ":")
			pn, err1 := strconv.ParseInt(p, 10, 32)
			on, err2 := strconv.ParseInt(o, 10, 64)
			if err := errors.Join(err1, err2); err != nil {
				return b, err
			}
			if _, dup := b.Offsets[int32(pn)]; dup {
				return b, fmt.Errorf("partition %d given twice", pn)
			}
			b.Offsets[int32(pn)] = on
		}
		return b, nil
	}
	t, err := when.Time(s)
	if err != nil {
		return Bound{}, fmt.Errorf("%v, or PARTITION:OFFSET,…", err)
	}
	return Bound{Time: t}, nil
}
