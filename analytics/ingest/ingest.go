// Package ingest moves the records of a namespace's cls, audit, exceptions,
// outbound and monitor topics into the analytics store: a franz-go consumer group of
// its own (<ns>.analytics), batched columnar inserts, and offsets committed
// only after the insert they cover succeeded.
//
// Why a group and a process of its own: analytics must never slow matching
// down. The processors do not wait for it; when ClickHouse is slow or away,
// this group stops polling (its buffers are bounded), retries the same batch
// with backoff, and the topics keep the records until it catches up.
//
// Exactly-once rows from at-least-once delivery, by two mechanisms:
//
//   - Resume after what is stored. Every row carries the topic ID, partition
//     and offset of its record. When the group assigns a partition, the
//     ingest starts at max(committed offset, highest stored offset + 1) for
//     that topic ID. A crash after an insert and before its commit (kill -9)
//     therefore re-reads nothing that is already stored, whatever batch
//     boundaries the restart happens to form.
//   - Deduplication tokens. Each insert carries insert_deduplication_token,
//     derived from the namespace, table, topic ID and the exact offset range
//     of every partition in the batch. A batch retried after an ambiguous
//     failure (the insert landed, the answer did not) is refused by
//     ClickHouse, in the table and in every materialized view target (each
//     has a deduplication window; see analytics/store).
//
// Bad records (undecodable, empty) are counted, logged (rate-limited) and
// committed past; they never stop the ingest.
package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ste-utility/ste/analytics/rows"
	"github.com/ste-utility/ste/analytics/store"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/trust"
)

// Defaults of Options.
const (
	DefaultBatchRows     = 100_000
	DefaultFlushInterval = time.Second
)

// Options configure an ingest.
type Options struct {
	// Kafka is the cluster and how to reach it (TLS, SASL).
	Kafka kafkaconn.Config
	// Namespace whose topics are ingested.
	Namespace string
	// Store receives the rows. It is not closed by the ingest.
	Store *store.Store
	// Group is the consumer group. Default "<ns>.analytics".
	Group string
	// BatchRows is the row count at which a table's batch is inserted at
	// once. Default 100,000 (ClickHouse: thousands to ~100k rows per
	// insert). It also bounds memory: polling stops while a full batch is
	// being inserted.
	BatchRows int
	// FlushInterval is how long a record may wait in a batch before it is
	// inserted: about one insert per second per table. Default 1 s.
	FlushInterval time.Duration
	// Logger; default slog.Default().
	Logger *slog.Logger
	// FromStore starts every partition after the highest offset the store
	// holds for it (from the oldest record when it holds none), ignoring
	// the group's committed offsets: to fill a new or rebuilt store with a
	// namespace already ingested elsewhere. It never doubles rows.
	FromStore bool
	// AfterInsert, if set, runs after a batch is inserted and before its
	// offsets are committed. An error ends the ingest there, as a crash
	// would (tests use it to crash between insert and commit).
	AfterInsert func(Batch) error
	// KafkaOpts are extra franz-go options (tests).
	KafkaOpts []kgo.Opt
	// Secret is the utility's shared secret. When set, an exception record
	// without the utility's proof (trust, topics.Proven) is skipped and
	// counted (ste_unproven_records_total, the ingest's log): a record
	// anyone wrote to <ns>.exceptions never becomes a row that reports and
	// the console's History believe. Without it every exception is
	// ingested (a run whose processes prove nothing, such as ste bench).
	Secret *trust.Secret
}

// Batch describes one insert.
type Batch struct {
	Table  string
	Token  string
	Rows   int
	Ranges []Range
}

// Range is the offsets of one partition in a batch.
type Range struct {
	Topic       string
	Partition   int32
	First, Last int64
}

// Offsets are end offsets per topic and partition.
type Offsets map[string]map[int32]int64

// Group is the consumer group of a namespace's analytics ingest.
func Group(ns string) string { return topology.Names{NS: ns}.AnalyticsGroup() }

// Topics are the topics ingested for a namespace: the declared inputs of
// its group.
func Topics(ns string) []string {
	t := topology.Describe(ns)
	g, _ := t.Consumer(t.Names.AnalyticsGroup())
	return g.Inputs
}

// Ingester is a running ingest.
type Ingester struct {
	o     Options
	log   *slog.Logger
	cl    *kgo.Client // the group consumer
	admCl *kgo.Client // admin requests, apart from the consumer
	adm   *kadm.Client

	mu    sync.Mutex // sinks, committed; held by the poll loop while it works on a poll
	sinks map[string]sink
	// committed is the next offset to read, per topic and partition, as
	// committed by this ingester.
	committed Offsets
	// resumed are partitions that start after stored rows their group had
	// not committed (a crash between insert and commit): their offset is
	// committed on the next poll, so that the group's progress — what
	// WaitFor and lag monitoring read — does not stay behind the store when
	// nothing more arrives on them.
	resumed map[string]map[int32]kgo.EpochOffset

	ids sync.Map // topic -> uuid.UUID

	lastTouch time.Time
	stats     counters

	cancel context.CancelFunc
	done   chan struct{}
	err    error

	unproven atomic.Int64 // exception records skipped for want of proof
}

// Start connects to the brokers and starts ingesting in the background. The
// ingest runs until ctx is canceled or Stop is called.
func Start(ctx context.Context, o Options) (*Ingester, error) {
	if o.Namespace == "" || o.Store == nil {
		return nil, errors.New("ingest: namespace and store are required")
	}
	if o.Group == "" {
		o.Group = Group(o.Namespace)
	}
	if o.BatchRows <= 0 {
		o.BatchRows = DefaultBatchRows
	}
	if o.FlushInterval <= 0 {
		o.FlushInterval = DefaultFlushInterval
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	in := &Ingester{o: o, log: o.Logger.With("namespace", o.Namespace, "group", o.Group),
		committed: Offsets{}, done: make(chan struct{})}
	n := topology.Names{NS: o.Namespace}
	st := o.Store
	in.sinks = map[string]sink{
		n.Audit():      newSink(n.Audit(), store.TableAudit, rows.DecodeAudit, st.InsertAudit),
		n.CLS():        newSink(n.CLS(), store.TableCLS, one(rows.DecodeCLS), st.InsertCLS),
		n.Exceptions(): newSink(n.Exceptions(), store.TableExceptions, one(rows.DecodeException), st.InsertExceptions),
		n.Outbound():   newSink(n.Outbound(), store.TableOutbound, one(rows.DecodeOutbound), st.InsertOutbound),
		n.Monitor():    newSink(n.Monitor(), store.TableMonitor, one(rows.DecodeMonitor), st.InsertMonitor),
	}
	opts := append([]kgo.Opt{
		kgo.ConsumerGroup(o.Group),
		kgo.ConsumeTopics(Topics(o.Namespace)...),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DisableAutoCommit(),
		kgo.BlockRebalanceOnPoll(),
		kgo.OnPartitionsRevoked(in.dropPartitions("revoked")),
		kgo.OnPartitionsLost(in.dropPartitions("lost")),
		kgo.AdjustFetchOffsetsFn(in.resumeOffsets),
		// After a crash (kill -9) the group waits for the dead member's
		// session to expire before its restart gets the partitions: keep
		// that short (franz-go's default is 45 s).
		kgo.SessionTimeout(10 * time.Second),
		kgo.RebalanceTimeout(30 * time.Second),
		// Bounded memory: at most two fetches of 16 MiB buffered.
		kgo.FetchMaxBytes(16 << 20),
		kgo.FetchMaxPartitionBytes(4 << 20),
		kgo.MaxConcurrentFetches(2),
	}, o.KafkaOpts...)
	// The admin client comes first and apart: the group may join, and call
	// resumeOffsets (which needs it), while the consumer client is still
	// being set up.
	admCl, err := topics.Client(o.Kafka)
	if err != nil {
		return nil, err
	}
	if err := topics.Ping(ctx, admCl, o.Kafka); err != nil {
		admCl.Close()
		return nil, err
	}
	in.admCl, in.adm = admCl, kadm.NewClient(admCl)
	cl, err := topics.Client(o.Kafka, opts...)
	if err != nil {
		admCl.Close()
		return nil, err
	}
	in.cl = cl
	if td, err := in.adm.ListTopics(ctx, Topics(o.Namespace)...); err == nil {
		var missing []string
		for _, t := range Topics(o.Namespace) {
			if d, ok := td[t]; !ok || d.Err != nil {
				missing = append(missing, t)
			}
		}
		if len(missing) > 0 {
			in.log.Info("topics do not exist yet; their records are ingested once they do", "topics", strings.Join(missing, ","))
		}
	}
	rctx, cancel := context.WithCancel(ctx)
	in.cancel = cancel
	go func() {
		defer close(in.done)
		in.err = in.run(rctx)
	}()
	in.log.Info("analytics ingest started", "topics", strings.Join(Topics(o.Namespace), ","), "database", st.Database())
	return in, nil
}

// Run ingests until ctx is canceled, then inserts and commits what it holds.
func Run(ctx context.Context, o Options) error {
	in, err := Start(ctx, o)
	if err != nil {
		return err
	}
	<-in.done
	return in.err
}

// CatchUp ingests what the topics hold now, then stops (ste analytics
// --catch-up: a finished run or sandbox, before ste diff --clickhouse).
func CatchUp(ctx context.Context, o Options) error {
	in, err := Start(ctx, o)
	if err != nil {
		return err
	}
	if err := in.CatchUp(ctx); err != nil {
		in.Stop()
		return err
	}
	return in.Stop()
}

// Stop ends the ingest: buffered rows are inserted and committed, the group
// is left. It returns the error that ended the ingest, if any.
func (in *Ingester) Stop() error {
	in.cancel()
	<-in.done
	return in.err
}

// Done is closed when the ingest has ended.
func (in *Ingester) Done() <-chan struct{} { return in.done }

// Err is the error that ended the ingest, once Done is closed.
func (in *Ingester) Err() error {
	select {
	case <-in.done:
		return in.err
	default:
		return nil
	}
}

func (in *Ingester) run(ctx context.Context) error {
	defer in.admCl.Close()
	defer in.cl.CloseAllowingRebalance()
	statsTick := time.NewTicker(30 * time.Second)
	defer statsTick.Stop()
	var last Stats
	lastAt := time.Now()
	for {
		pctx, cancel := context.WithTimeout(ctx, in.pollWait())
		fs := in.cl.PollRecords(pctx, 10_000)
		cancel()
		if ctx.Err() != nil {
			in.cl.AllowRebalance()
			return in.final()
		}
		if err := in.handle(ctx, fs); err != nil {
			in.cl.AllowRebalance()
			if ctx.Err() != nil {
				return in.final()
			}
			return err
		}
		in.cl.AllowRebalance()
		select {
		case <-statsTick.C:
			now := in.stats.snapshot()
			in.logProgress(last, now, time.Since(lastAt))
			last, lastAt = now, time.Now()
		default:
		}
	}
}

// pollWait bounds a poll by the time the oldest buffered record is due.
func (in *Ingester) pollWait() time.Duration {
	in.mu.Lock()
	wait := in.o.FlushInterval
	now := time.Now()
	for _, s := range in.sinks {
		if s.records() > 0 {
			wait = min(wait, max(s.since().Add(in.o.FlushInterval).Sub(now), time.Millisecond))
		}
	}
	in.mu.Unlock()
	return wait
}

// handle buffers a poll's records and inserts the batches that are full or
// due. It holds the lock: rebalance callbacks wait for it.
func (in *Ingester) handle(ctx context.Context, fs kgo.Fetches) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(in.resumed) > 0 {
		in.commit(ctx, "resumed after stored rows", in.resumed)
		in.resumed = nil
	}
	var fatal error
	fs.EachError(func(t string, p int32, err error) {
		switch {
		case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		case errors.Is(err, kgo.ErrClientClosed):
			fatal = err
		default:
			in.log.Warn("fetch error", "topic", t, "partition", p, "err", err)
		}
	})
	if fatal != nil {
		return fatal
	}
	exceptions := topology.Names{NS: in.o.Namespace}.Exceptions()
	for _, r := range fs.Records() {
		s := in.sinks[r.Topic]
		if s == nil {
			continue
		}
		if in.o.Secret != nil && r.Topic == exceptions && !topics.Proven(in.o.Secret, r) {
			in.stats.add(r.Topic, 1, 0)
			if n := in.unproven.Add(1); n <= 5 || n%1000 == 0 {
				in.log.Warn("exception without the utility's proof skipped", "partition", r.Partition, "offset", r.Offset,
					"unproven_records", n)
			}
			continue
		}
		ts := r.Timestamp.UTC()
		if ts.Year() < 2000 {
			// No timestamp (-1 from old producers): the row's partition and
			// TTL need one, and 1970 would expire it at once.
			ts = time.Now().UTC()
		}
		src := rows.Source{Namespace: in.o.Namespace, TopicID: in.topicID(r.Topic), Partition: r.Partition,
			Offset: r.Offset, Time: ts}
		n, err := s.add(r, src)
		in.stats.add(r.Topic, 1, int64(n))
		if err != nil {
			bad := in.stats.bad(r.Topic)
			if bad <= 5 || bad%1000 == 0 {
				in.log.Warn("bad record skipped", "topic", r.Topic, "partition", r.Partition, "offset", r.Offset,
					"err", err, "bad_records", bad)
			}
		}
		// A full batch is inserted at once: batches stay near BatchRows
		// and memory stays bounded whatever a poll returns.
		if s.rows() >= in.o.BatchRows {
			if err := in.flush(ctx, s); err != nil {
				return err
			}
		}
	}
	now := time.Now()
	for _, t := range sortedTopics(in.sinks) {
		s := in.sinks[t]
		if s.records() == 0 {
			continue
		}
		if now.Sub(s.since()) >= in.o.FlushInterval {
			if err := in.flush(ctx, s); err != nil {
				return err
			}
		}
	}
	return nil
}

// final inserts and commits everything buffered, on shutdown.
func (in *Ingester) final() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, t := range sortedTopics(in.sinks) {
		if s := in.sinks[t]; s.records() > 0 {
			if err := in.flush(ctx, s); err != nil {
				return fmt.Errorf("final insert: %w", err)
			}
		}
	}
	in.log.Info("analytics ingest stopped", "rows", in.stats.snapshot().rowsTotal())
	return nil
}

// flush inserts a sink's batch (retrying with the same token until it
// succeeds or ctx ends), then commits its offsets. Called with mu held.
func (in *Ingester) flush(ctx context.Context, s sink) error {
	b := s.batch(in.o.Namespace, in.topicID(s.topic()))
	backoff := 100 * time.Millisecond
	for {
		start := time.Now()
		err := s.insert(ctx, b.Token)
		if err == nil {
			in.stats.inserted(s.topic(), time.Since(start))
			break
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		in.stats.insertErrors.Add(1)
		in.log.Warn("analytics insert failed; retrying the same batch", "table", b.Table, "rows", b.Rows,
			"retry_in", backoff, "err", err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 10*time.Second)
	}
	if in.o.AfterInsert != nil {
		if err := in.o.AfterInsert(b); err != nil {
			return err
		}
	}
	offsets := map[string]map[int32]kgo.EpochOffset{}
	for _, r := range b.Ranges {
		if offsets[r.Topic] == nil {
			offsets[r.Topic] = map[int32]kgo.EpochOffset{}
		}
		offsets[r.Topic][r.Partition] = kgo.EpochOffset{Epoch: s.epoch(r.Partition), Offset: r.Last + 1}
	}
	s.reset()
	in.commit(ctx, b.Table, offsets)
	if b.Rows > 0 && time.Since(in.lastTouch) > 5*time.Second {
		if err := in.o.Store.TouchNamespace(ctx, in.o.Namespace, time.Now()); err == nil {
			in.lastTouch = time.Now()
		}
	}
	return nil
}

// commit commits offsets and records them; called with mu held.
func (in *Ingester) commit(ctx context.Context, what string, offsets map[string]map[int32]kgo.EpochOffset) {
	var cerr error
	in.cl.CommitOffsetsSync(ctx, offsets, func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
		if err != nil {
			cerr = err
			return
		}
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				if e := kerr.ErrorForCode(p.ErrorCode); e != nil && cerr == nil {
					cerr = fmt.Errorf("%s/%d: %w", t.Topic, p.Partition, e)
				}
			}
		}
	})
	if cerr != nil {
		// The rows are stored; a restart resumes after them (stored
		// offsets), so a failed commit costs nothing but a warning.
		in.log.Warn("offset commit failed", "after", what, "err", cerr)
		return
	}
	for t, ps := range offsets {
		if in.committed[t] == nil {
			in.committed[t] = map[int32]int64{}
		}
		for p, o := range ps {
			in.committed[t][p] = o.Offset
		}
	}
}

// dropPartitions forgets the buffered records of partitions the group took
// away: they were neither inserted nor committed, so their next owner reads
// them again from the committed offset. The lock makes the callback wait
// for an insert in progress, so the new owner's resume point includes it.
func (in *Ingester) dropPartitions(why string) func(context.Context, *kgo.Client, map[string][]int32) {
	return func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
		in.mu.Lock()
		defer in.mu.Unlock()
		for t, ps := range m {
			if s := in.sinks[t]; s != nil {
				s.drop(ps)
			}
			for _, p := range ps {
				delete(in.committed[t], p)
			}
		}
		if len(m) > 0 {
			in.log.Info("partitions "+why, "partitions", fmtAssignment(m))
		}
	}
}

// resumeOffsets is the group's AdjustFetchOffsetsFn: each assigned partition
// starts after the highest offset stored for its topic ID, if that is past
// the committed offset. It retries while ClickHouse does not answer:
// consuming without knowing what is stored could double rows.
func (in *Ingester) resumeOffsets(ctx context.Context, offsets map[string]map[int32]kgo.Offset) (map[string]map[int32]kgo.Offset, error) {
	backoff := 200 * time.Millisecond
	for {
		err := in.adjust(ctx, offsets)
		if err == nil {
			return offsets, nil
		}
		if ctx.Err() != nil {
			return nil, err
		}
		in.log.Warn("cannot read stored offsets; waiting before consuming", "retry_in", backoff, "err", err)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

func (in *Ingester) adjust(ctx context.Context, offsets map[string]map[int32]kgo.Offset) error {
	names := make([]string, 0, len(offsets))
	for t := range offsets {
		names = append(names, t)
	}
	td, err := in.adm.ListTopics(ctx, names...)
	if err != nil {
		return fmt.Errorf("topic IDs: %w", err)
	}
	assigned := map[string][]string{}
	for t, ps := range offsets {
		d, ok := td[t]
		if !ok || d.Err != nil {
			return fmt.Errorf("topic %s not described", t)
		}
		id := uuid.UUID(d.ID)
		in.ids.Store(t, id)
		s := in.sinks[t]
		if s == nil {
			continue
		}
		stored, err := in.o.Store.StoredOffsets(ctx, s.table(), in.o.Namespace, id)
		if err != nil {
			return err
		}
		for p, o := range ps {
			from := o.EpochOffset().Offset
			if in.o.FromStore {
				from = -2
				ps[p] = kgo.NewOffset().AtStart()
			}
			if last, ok := stored[p]; ok && last+1 > from {
				ps[p] = kgo.NewOffset().At(last + 1).WithEpoch(-1)
				from = last + 1
				in.log.Info("resuming after stored rows", "topic", t, "partition", p, "offset", from)
				in.mu.Lock()
				if in.resumed == nil {
					in.resumed = map[string]map[int32]kgo.EpochOffset{}
				}
				if in.resumed[t] == nil {
					in.resumed[t] = map[int32]kgo.EpochOffset{}
				}
				in.resumed[t][p] = kgo.EpochOffset{Epoch: -1, Offset: from}
				in.mu.Unlock()
			}
			desc := "start"
			if from >= 0 {
				desc = strconv.FormatInt(from, 10)
			}
			assigned[t] = append(assigned[t], fmt.Sprintf("%d@%s", p, desc))
		}
	}
	for t, l := range assigned {
		sort.Strings(l)
		in.log.Info("partitions assigned", "topic", t, "from", strings.Join(l, " "))
	}
	return nil
}

func (in *Ingester) topicID(topic string) uuid.UUID {
	if v, ok := in.ids.Load(topic); ok {
		return v.(uuid.UUID)
	}
	return uuid.UUID{}
}

// batchToken names the exact rows of a batch: namespace, table, topic ID and
// each partition's offset range.
func batchToken(ns, table string, id uuid.UUID, ranges []Range) string {
	h := sha256.New()
	fmt.Fprintf(h, "ste-analytics/1|%s|%s|%s", ns, table, id)
	for _, r := range ranges {
		fmt.Fprintf(h, "|%d:%d-%d", r.Partition, r.First, r.Last)
	}
	return table + "-" + hex.EncodeToString(h.Sum(nil)[:16])
}

func sortedTopics(m map[string]sink) []string {
	out := make([]string, 0, len(m))
	for t := range m {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

func fmtAssignment(m map[string][]int32) string {
	var parts []string
	for t, ps := range m {
		s := make([]string, len(ps))
		for i, p := range ps {
			s[i] = strconv.Itoa(int(p))
		}
		parts = append(parts, t+":"+strings.Join(s, ","))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// counters are the ingest's statistics.
type counters struct {
	mu           sync.Mutex
	records      map[string]int64
	rows         map[string]int64
	badRecords   map[string]int64
	inserts      map[string]int64
	insertTime   map[string]time.Duration
	insertErrors atomic.Int64
}

func (c *counters) add(topic string, records, rows int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.records == nil {
		c.records, c.rows, c.badRecords = map[string]int64{}, map[string]int64{}, map[string]int64{}
		c.inserts, c.insertTime = map[string]int64{}, map[string]time.Duration{}
	}
	c.records[topic] += records
	c.rows[topic] += rows
}

func (c *counters) bad(topic string) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.badRecords[topic]++
	return c.badRecords[topic]
}

func (c *counters) inserted(topic string, d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inserts == nil {
		c.inserts, c.insertTime = map[string]int64{}, map[string]time.Duration{}
	}
	c.inserts[topic]++
	c.insertTime[topic] += d
}

// Stats are counts since the ingest started, per topic.
type Stats struct {
	Records      map[string]int64         `json:"records"`
	Rows         map[string]int64         `json:"rows"`
	BadRecords   map[string]int64         `json:"bad_records"`
	Inserts      map[string]int64         `json:"inserts"`
	InsertTime   map[string]time.Duration `json:"insert_time"`
	InsertErrors int64                    `json:"insert_errors"`
}

func (c *counters) snapshot() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	cp := func(m map[string]int64) map[string]int64 {
		out := make(map[string]int64, len(m))
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	it := make(map[string]time.Duration, len(c.insertTime))
	for k, v := range c.insertTime {
		it[k] = v
	}
	return Stats{Records: cp(c.records), Rows: cp(c.rows), BadRecords: cp(c.badRecords), Inserts: cp(c.inserts),
		InsertTime: it, InsertErrors: c.insertErrors.Load()}
}

func (s Stats) rowsTotal() int64 {
	var n int64
	for _, v := range s.Rows {
		n += v
	}
	return n
}

// Stats returns the ingest's counters.
func (in *Ingester) Stats() Stats { return in.stats.snapshot() }

func (in *Ingester) logProgress(prev, now Stats, d time.Duration) {
	delta := now.rowsTotal() - prev.rowsTotal()
	if delta == 0 {
		return
	}
	var bad int64
	for _, v := range now.BadRecords {
		bad += v
	}
	in.log.Info("analytics ingest progress", "rows", now.rowsTotal(), "rows_per_sec", int64(float64(delta)/d.Seconds()),
		"bad_records", bad, "insert_errors", now.InsertErrors)
}
