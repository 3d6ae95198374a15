package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/IBM/sarama"
	"github.com/lovoo/goka"

	"github.com/ste-utility/ste/processors/memstore"
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

// Graphs declares the three groups: their inputs, tables and outputs.
func (s *stages) Graphs() []*goka.GroupGraph {
	n := s.cfg.Names
	out := func(topic string) goka.Edge { return goka.Output(goka.Stream(topic), raw{}) }
	return []*goka.GroupGraph{
		goka.DefineGroup(goka.Group(n.ValidateGroup()),
			goka.Input(goka.Stream(n.Inbound()), raw{}, s.validate),
			out(n.Verdicts()), out(n.Exceptions()), out(n.Outbound()), out(n.Audit())),
		goka.DefineGroup(goka.Group(n.IdentityGroup()),
			goka.Input(goka.Stream(n.Verdicts()), raw{}, s.identity),
			goka.Persist(raw{}),
			out(n.Accepted()), out(n.Exceptions()), out(n.Outbound()), out(n.Audit())),
		goka.DefineGroup(goka.Group(n.MatchGroup()),
			goka.Input(goka.Stream(n.Accepted()), raw{}, s.match),
			goka.Loop(raw{}, s.match),
			goka.Persist(raw{}),
			out(n.CLS()), out(n.Outbound()), out(n.Exceptions()), out(n.Audit())),
	}
}

// processorOptions are the options every group needs, under test too.
// NilProcess: goka's default drops a record with no value before any
// callback, and on <ns>.inbound that would lose it silently (messages.md §4
// makes it MALFORMED); on internal topics it is a corrupt record, counted.
func processorOptions() []goka.ProcessorOption {
	return []goka.ProcessorOption{goka.WithNilHandling(goka.NilProcess)}
}

// SaramaConfig is goka's client configuration for STE, measured against
// Apache Kafka 4 and kfake: protocol version 4.0 (Kafka 4 dropped the old
// versions goka's default asks for), streams from the oldest offset so that a
// backlog produced before the first start is processed, and an idempotent
// acks=all producer (set explicitly: the contract asks for it).
func SaramaConfig() *sarama.Config {
	cfg := goka.DefaultConfig()
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
	Brokers []string
	Config  Config
	Logger  *slog.Logger
	// Ready is closed once every group has recovered its tables and runs.
	Ready chan<- struct{}
}

// Run runs the three groups until ctx ends (a graceful stop: in-flight
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
	tmc := goka.NewTopicManagerConfig()
	tmc.Table.Replication = 1
	tmc.Stream.Replication = 1
	common := append(processorOptions(),
		goka.WithTopicManagerBuilder(goka.TopicManagerBuilderWithConfig(SaramaConfig(), tmc)),
		goka.WithProducerBuilder(ProducerBuilder()),
		goka.WithConsumerGroupBuilder(goka.ConsumerGroupBuilderWithConfig(SaramaConfig())),
		goka.WithConsumerSaramaBuilder(goka.SaramaConsumerBuilderWithConfig(SaramaConfig())),
		goka.WithHasher(KeyHash),
		goka.WithLogger(gokaLogger{log}),
		goka.WithRebalanceCallback(func(a goka.Assignment) {
			if s.cfg.Metrics != nil {
				s.cfg.Metrics.Rebalances.Inc()
			}
			log.Info("partitions assigned", "assignment", fmt.Sprint(a))
		}),
	)
	stores := []goka.ProcessorOption{
		nil, // validate: stateless
		goka.WithStorageBuilder(memstore.Builder(s.identityIndex, func(_ string, p int32, st *memstore.Store) {
			s.mu.Lock()
			s.idStore[p] = st
			s.mu.Unlock()
		})),
		goka.WithStorageBuilder(memstore.Builder(s.matchIndex, func(_ string, p int32, st *memstore.Store) {
			s.mu.Lock()
			s.matchStore[p] = st
			s.mu.Unlock()
		})),
	}
	var procs []*goka.Processor
	for i, g := range s.Graphs() {
		opts := append([]goka.ProcessorOption(nil), common...)
		if stores[i] != nil {
			opts = append(opts, stores[i])
		}
		p, err := goka.NewProcessor(o.Brokers, g, opts...)
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

// gokaLogger sends goka's and sarama's chatter to slog at debug level.
type gokaLogger struct{ l *slog.Logger }

func (g gokaLogger) Print(v ...any)                   { g.l.Debug(fmt.Sprint(v...)) }
func (g gokaLogger) Println(v ...any)                 { g.l.Debug(fmt.Sprint(v...)) }
func (g gokaLogger) Printf(f string, v ...any)        { g.l.Debug(fmt.Sprintf(f, v...)) }
func (g gokaLogger) Debugf(f string, v ...any)        { g.l.Debug(fmt.Sprintf(f, v...)) }
func (g gokaLogger) PrefixDebugf(f string, v ...any)  { g.l.Debug(fmt.Sprintf(f, v...)) }
func (g gokaLogger) Prefix(p string) goka.Logger      { return gokaLogger{g.l.With("component", p)} }
func (g gokaLogger) CurrentPrefix() string            { return "" }
func (g gokaLogger) StackPrefix(p string) goka.Logger { return gokaLogger{g.l.With("component", p)} }
func (g gokaLogger) IsDebug() bool                    { return false }
