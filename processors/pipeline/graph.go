package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/IBM/sarama"
	"github.com/lovoo/goka"

	"github.com/ste-utility/ste/kafkaconn"
)

// raw is a goka codec that passes bytes through untouched: every value on
// STE's topics is already encoded by its owner (XML, JSON or an Envelope).
type raw struct{}

func (raw) Encode(v any) ([]byte, error) {
	b, ok := v.([]byte)
	if !ok {
		return nil, fmt.Errorf("pipeline: want []byte, got %T", v)
	}
	return b, nil
}

func (raw) Decode(b []byte) (any, error) { return b, nil }

// nilHandling makes every group call its callback for a record with no
// value: goka's default drops it before any callback, and on <ns>.inbound
// that would lose it silently (messages.md §4 makes it MALFORMED); on
// internal topics it is a corrupt record, counted.
func nilHandling() goka.ProcessorOption { return goka.WithNilHandling(goka.NilProcess) }

// SaramaConfig is goka's client configuration for STE, measured against
// Apache Kafka 4 and kfake: protocol version 4.0 (Kafka 4 dropped the old
// versions goka's default asks for), streams from the oldest offset so that a
// backlog produced before the first start is processed, and an idempotent
// acks=all producer (set explicitly: the contract asks for it).
func SaramaConfig() *sarama.Config {
	cfg := goka.DefaultConfig()
	// goka's default config is one shared value; every client gets its own.
	cp := *cfg
	cfg = &cp
	cfg.Version = sarama.V4_0_0_0
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	cfg.Consumer.Offsets.AutoCommit.Interval = time.Second
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Idempotent = true
	cfg.Net.MaxOpenRequests = 1 // sarama requires it for idempotence
	cfg.Producer.MaxMessageBytes = 16 << 20
	cfg.Producer.Flush.Frequency = 2 * time.Millisecond
	cfg.Producer.Flush.Messages = 1000
	cfg.Producer.Flush.MaxMessages = 10000
	cfg.Producer.Compression = sarama.CompressionNone
	cfg.Consumer.Fetch.Default = 4 << 20
	cfg.Consumer.Fetch.Max = 64 << 20
	cfg.ChannelBufferSize = 4096
	// How long a fetch waits for data. Measured on kfake at 1,500 msg/s: with
	// sarama's default 500 ms each hop of the pipeline took ~13 ms, with 50 ms
	// ~3 ms (10 ms was no better: more empty fetches). A real broker answers
	// as soon as data arrives either way.
	cfg.Consumer.MaxWaitTime = 50 * time.Millisecond
	return cfg
}

// Options configure Run.
type Options struct {
	// Kafka is the cluster and how to reach it (TLS, SASL), for goka's
	// sarama clients and its franz-go producer alike.
	Kafka  kafkaconn.Config
	Config Config
	Logger *slog.Logger
	// Stages are the groups to run, in any order; nil runs all three.
	// Deploying groups apart (validate scaled by replicas, identity and
	// match where state lives) is running different sets in different
	// processes.
	Stages []Stage
	// InstanceID names this instance's Kafka clients ste-<id>-<stage>, so
	// that an operator (and the lag code) can tell members apart. Default
	// "anon".
	InstanceID string
	// OnAssign is told a stage's partitions after every rebalance (nil
	// after the group is left).
	OnAssign func(st Stage, partitions []int32)
	// Ready is closed once every group has recovered its tables and runs.
	Ready chan<- struct{}
	// Tables, if set, is filled in so the runtime can read the match table.
	Tables *Tables
	// TableDir, if set, keeps the identity and match tables on disk there
	// (processors/diskstore: resumed from their local offsets on restart)
	// instead of in memory (processors/memstore: rebuilt from the
	// changelogs). It must be this instance's own directory.
	TableDir string
}

// ClientID is the Kafka client id of one stage's clients in an instance.
func ClientID(instanceID string, st Stage) string { return "ste-" + instanceID + "-" + st.String() }

// Run runs the chosen groups until ctx ends (a graceful stop: in-flight
// callbacks finish, offsets are committed and the groups are left), or one
// fails.
func Run(ctx context.Context, o Options) error {
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	if o.Config.Logger == nil {
		o.Config.Logger = log
	}
	s := newStages(o.Config)
	if o.Tables != nil {
		o.Tables.s.Store(s)
	}
	if o.InstanceID == "" {
		o.InstanceID = "anon"
	}
	routeSaramaLog(log)
	want := o.Stages
	if len(want) == 0 {
		want = Stages
	}
	tables, closeTables, err := openTables(o, s.cfg.Metrics, log)
	if err != nil {
		return err
	}
	defer closeTables() // after every processor has stopped (wg.Wait below)
	s.tables = tables
	graphs := Graphs(s.cfg.Names, Callbacks{Validate: s.validate, Identity: s.identity, Match: s.match})
	var procs []*goka.Processor
	for i, g := range graphs {
		st := Stages[i]
		if !slices.Contains(want, st) {
			continue
		}
		p, err := goka.NewProcessor(o.Kafka.Brokers, g, s.processorOptions(st, o, log)...)
		if err != nil {
			return fmt.Errorf("group %s: %w", g.Group(), err)
		}
		procs = append(procs, p)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, len(procs))
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Add(1)
		go func(p *goka.Processor) {
			defer wg.Done()
			if err := p.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
				errs <- err
				cancel()
			}
		}(p)
	}
	go func() {
		for _, p := range procs {
			if err := p.WaitForReadyContext(ctx); err != nil {
				return
			}
		}
		log.Info("processors ready", "groups", len(procs))
		if o.Ready != nil {
			close(o.Ready)
		}
	}()
	s.cfg.Metrics.initialise(want)
	go s.reportOpenTrades(ctx)
	wg.Wait()
	close(errs)
	var first error
	for err := range errs {
		if first == nil {
			first = err
		}
	}
	return first
}

// processorOptions are one group's goka options. Every group gets its own
// sarama configurations: goka's builders write the client id into the
// configuration they are given, so builders shared between groups made
// every group's consumers carry the id of whichever group was built first.
func (s *stages) processorOptions(st Stage, o Options, log *slog.Logger) []goka.ProcessorOption {
	tmc := goka.NewTopicManagerConfig()
	tmc.Table.Replication = 1
	tmc.Stream.Replication = 1
	// Topics are made in one place, topics.Create, with the operator's
	// replication and configs (or by the operator: --no-create-topics); a
	// topic goka created would have its defaults, so it creates none.
	tmc.NoCreate = true
	producer := ProducerBuilder(o.Kafka.Security()...)
	saramaCfg := func() *sarama.Config {
		cfg := SaramaConfig()
		o.Kafka.Sarama(cfg)
		// goka's default sets the deprecated single Strategy, which sarama
		// warns about on every client; the same strategy as the one-element
		// list it prefers (Strategy wins over GroupStrategies, so this is
		// the same assignment).
		if r := &cfg.Consumer.Group.Rebalance; r.Strategy != nil {
			r.GroupStrategies, r.Strategy = []sarama.BalanceStrategy{r.Strategy}, nil
		}
		return cfg
	}
	opts := []goka.ProcessorOption{
		nilHandling(),
		goka.WithClientID(ClientID(o.InstanceID, st)),
		goka.WithTopicManagerBuilder(goka.TopicManagerBuilderWithConfig(saramaCfg(), tmc)),
		goka.WithProducerBuilder(producer),
		goka.WithConsumerGroupBuilder(goka.ConsumerGroupBuilderWithConfig(saramaCfg())),
		goka.WithConsumerSaramaBuilder(goka.SaramaConsumerBuilderWithConfig(saramaCfg())),
		goka.WithHasher(KeyHash),
		goka.WithLogger(gokaLogger{log.With("stage", st.String())}),
		goka.WithRebalanceCallback(func(a goka.Assignment) {
			if s.cfg.Metrics != nil {
				s.cfg.Metrics.Rebalances.Inc()
			}
			parts := make([]int32, 0, len(a))
			for p := range a {
				parts = append(parts, p)
			}
			slices.Sort(parts)
			log.Info("partitions assigned", "stage", st.String(), "partitions", fmt.Sprint(parts))
			if o.OnAssign != nil {
				o.OnAssign(st, parts)
			}
		}),
	}
	return append(opts, s.tableOptions(st, producer)...)
}

// reportOpenTrades samples the trade tables for the open-trades gauge.
func (s *stages) reportOpenTrades(ctx context.Context) {
	if s.cfg.Metrics == nil {
		return
	}
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.mu.Lock()
			for p, st := range s.matchStore {
				s.cfg.Metrics.OpenTrades.WithLabelValues(strconv.Itoa(int(p))).Set(float64(st.Len()))
			}
			s.mu.Unlock()
		}
	}
}

// gokaLogger sends goka's messages to slog: problems at warn or error,
// the rest at debug (levelOf).
type gokaLogger struct{ l *slog.Logger }

func (g gokaLogger) Print(v ...any)                   { logAt(g.l, "goka", fmt.Sprint(v...)) }
func (g gokaLogger) Println(v ...any)                 { logAt(g.l, "goka", fmt.Sprint(v...)) }
func (g gokaLogger) Printf(f string, v ...any)        { logAt(g.l, "goka", fmt.Sprintf(f, v...)) }
func (g gokaLogger) Debugf(f string, v ...any)        { g.l.Debug(fmt.Sprintf(f, v...)) }
func (g gokaLogger) PrefixDebugf(f string, v ...any)  { g.l.Debug(fmt.Sprintf(f, v...)) }
func (g gokaLogger) Prefix(p string) goka.Logger      { return gokaLogger{g.l.With("component", p)} }
func (g gokaLogger) CurrentPrefix() string            { return "" }
func (g gokaLogger) StackPrefix(p string) goka.Logger { return gokaLogger{g.l.With("component", p)} }
func (g gokaLogger) IsDebug() bool                    { return false }
