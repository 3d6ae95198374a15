package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/IBM/sarama"
	"github.com/lovoo/goka"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/processors/produce"
	"github.com/ste-utility/ste/processors/query"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
)

// raw is a goka codec that passes bytes through untouched: every value on
// STE's topics is already encoded by its owner (XML, JSON or an envelope).
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
// that would lose it silently (docs/spec/messages.md §4 makes it MALFORMED); on
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
	// Offsets are committed twice a second: a partition taken over shows
	// its progress (lag going down) that much sooner, and a crash leaves
	// half a second less to process again, for two small requests a
	// second per group.
	cfg.Consumer.Offsets.AutoCommit.Interval = 500 * time.Millisecond
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
	// Group timeouts (docs/ARCHITECTURE.md, "Failure behaviour"). The
	// session timeout is how long a killed instance keeps its partitions
	// before the others take them over; 10 s rides out a GC pause or a busy
	// core without false expiries. Heartbeats every half second tell a
	// member of a rebalance within half a second (a third of the session
	// timeout or less, as Kafka advises). The rebalance timeout is how long the
	// coordinator waits for members to rejoin: goka needs ~1 s to notice,
	// the time to stop its partitions, then waits rejoinWait — 20 s leaves
	// room under load (a member stalled longer is left out of the
	// generation and joins the next).
	cfg.Consumer.Group.Session.Timeout = 10 * time.Second
	cfg.Consumer.Group.Heartbeat.Interval = 500 * time.Millisecond
	cfg.Consumer.Group.Rebalance.Timeout = 20 * time.Second
	// A JoinGroup legitimately blocks until every member has rejoined, up to
	// the rebalance timeout, but sarama reads its answer under the plain
	// Net.ReadTimeout (sarama issue 2820): the read timeout must exceed the
	// rebalance timeout, or a slow rebalance ends in "i/o timeout".
	cfg.Net.ReadTimeout = cfg.Consumer.Group.Rebalance.Timeout + 10*time.Second
	return cfg
}

// rejoinWait is how long a group waits after a rebalance ended its session
// before it joins again (goka's WithRejoinWait, third_party/goka patch 1;
// upstream waits a fixed 5 s). A rebalance completes only when every
// surviving member has rejoined, so the wait is part of every failover; it
// only keeps a group that keeps being rebalanced from spinning, which a
// quarter of a second does.
const rejoinWait = 250 * time.Millisecond

// groupConfig is the consumer group configuration of one group of an
// instance: static membership (KIP-345) under the instance id, so that an
// instance restarted within the session timeout takes its partitions back
// without a rebalance of the others. Without an id (several anonymous
// instances in one process) membership stays dynamic: two members with one
// static id would fence each other.
func groupConfig(cfg *sarama.Config, instanceID string) *sarama.Config {
	if instanceID != "" {
		cfg.Consumer.Group.InstanceId = instanceID
	}
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
	Stages []topology.Stage
	// InstanceID names this instance's Kafka clients ste-<id>-<stage>, so
	// that an operator (and the lag code) can tell members apart, and is its
	// static group membership id. Default: anonymous, dynamic membership.
	InstanceID string
	// OnAssign is told a stage's partitions after every rebalance (nil
	// after the group is left or has failed).
	OnAssign func(st topology.Stage, partitions []int32)
	// OnGroup is told when a group is up (its tables recovered, running) and
	// when it failed (err) and will be restarted after the delay.
	OnGroup func(st topology.Stage, err error, restartIn time.Duration)
	// Ready is closed once every group has recovered its tables and runs.
	Ready chan<- struct{}
	// Restart is the backoff of failed groups; zero fields: DefaultRestart's.
	Restart Backoff
	// Tables, if set, is filled in so the runtime can read the match table.
	Tables *Tables
	// Produce, if set, follows the groups' producers: records waiting for
	// the brokers' acknowledgement, and the brokers' reasons (/healthz).
	Produce *produce.Watch
	// TableDir, if set, keeps the identity and match tables on disk there
	// (processors/diskstore: resumed from their local offsets on restart)
	// instead of in memory (processors/memstore: rebuilt from the
	// changelogs). It must be this instance's own directory.
	TableDir string
	// LeaveOnStop: after a clean stop the groups are left at once. By
	// default a static member keeps its partitions for the session timeout
	// (KIP-345), waiting for the instance to come back under its id; a
	// one-shot run (ste replay --run) leaves, so that its partitions and
	// groups are free when it returns.
	LeaveOnStop bool
	// Standby keeps, with disk tables (TableDir), every partition of the
	// identity and match tables this instance does not own as a hot
	// standby, following its changelog, so that taking over a lost
	// instance's partitions replays (almost) nothing (tableOptions). It
	// costs each instance the disk space and changelog reads of the whole
	// tables instead of its share. Ignored with memory tables.
	Standby bool
}

// ClientID is the Kafka client id of one stage's clients in an instance.
func ClientID(instanceID string, st topology.Stage) string {
	return "ste-" + instanceID + "-" + st.String()
}

// Run runs the chosen groups until ctx ends (a graceful stop: in-flight
// callbacks finish, offsets are committed; returns nil) or one fails in a
// way a restart cannot mend (see Permanent). A group that fails otherwise —
// a broker restart, a network error, a rebalance gone wrong — is restarted
// in-process with capped exponential backoff and jitter, logged and counted
// (ste_group_restarts_total); the other groups keep running.
func Run(ctx context.Context, o Options) error {
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	if o.Config.Logger == nil {
		o.Config.Logger = log
	}
	if o.Config.Inbound == nil {
		read, closeReader := inboundReader(ctx, o.Kafka, o.Config.Names.Inbound())
		defer closeReader()
		o.Config.Inbound = read
	}
	var q *query.Tables
	if o.Tables != nil {
		q = &o.Tables.Tables
	}
	s := newWiring(o.Config, q)
	static := o.InstanceID
	if o.InstanceID == "" {
		o.InstanceID = "anon"
	}
	o.Restart = o.Restart.orDefault()
	routeSaramaLog(log)
	want := o.Stages
	if len(want) == 0 {
		want = topology.Stages
	}
	tables, closeTables, err := openTables(o, s.cfg.Metrics, log)
	if err != nil {
		return err
	}
	defer closeTables() // after every processor has stopped (wg.Wait below)
	s.db = tables
	s.commits = &commits{}
	if !o.Config.VerifyOneByOne {
		s.verify = newVerifyQueue(s)
		defer s.verify.stop() // after every processor has stopped (wg.Wait below)
	}
	s.audits = map[topology.Stage]*produce.AuditBatches{}
	s.seal = &produce.Seal{Signer: s.cfg.Signer, Topics: []string{s.cfg.Names.Outbound(), s.cfg.Names.CLS()}}
	if m := s.cfg.Metrics; m != nil {
		s.seal.Size = m.SealBatch
	}
	for _, w := range s.write {
		w.seal = true
	}
	countOf := func(topic string) func() (int, error) {
		return partitionCount(ctx, func(ctx context.Context) (int, error) {
			cl, err := kgo.NewClient(o.Kafka.Opts()...)
			if err != nil {
				return 0, err
			}
			defer cl.Close()
			n, err := topics.Partitions(ctx, kadm.NewClient(cl), topic)
			return int(n), err
		})
	}
	parts := countOf(s.cfg.Names.Audit())
	s.idTableParts = countOf(topology.Table(s.cfg.Names.IdentityGroup()))
	for _, st := range topology.Stages {
		var size prometheus.Observer
		if m := s.cfg.Metrics; m != nil {
			size = m.AuditBatch
		}
		s.audits[st] = produce.NewAuditBatches(s.cfg.Names.Audit(), s.producers[st], parts, func() { s.cfg.Metrics.out(st) }, size)
		defer s.audits[st].Close() // after every processor has stopped (wg.Wait below)
	}
	if o.Tables != nil && tables != nil {
		o.Tables.disk.Store(tables)
		defer o.Tables.disk.Store(nil)
	}
	graphs := Graphs(s.cfg.Names, s.callbacks())
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg      sync.WaitGroup
		errOnce sync.Once
		fatal   error
		mu      sync.Mutex
		up      = map[topology.Stage]bool{}
		ready   = o.Ready
	)
	s.cfg.Metrics.initialise(want)
	for i, g := range graphs {
		st := topology.Stages[i]
		if !slices.Contains(want, st) {
			continue
		}
		sup := &supervisor{stage: st, backoff: o.Restart, log: log.With("stage", st.String()), metrics: s.cfg.Metrics,
			answers: func(ctx context.Context) bool { return clusterAnswers(ctx, o.Kafka) },
			build: func() (*goka.Processor, error) {
				return goka.NewProcessor(o.Kafka.Brokers, g, s.processorOptions(st, o, static, log)...)
			},
			onUp: func() {
				if o.OnGroup != nil {
					o.OnGroup(st, nil, 0)
				}
				mu.Lock()
				defer mu.Unlock()
				up[st] = true
				if len(up) == len(want) && ready != nil {
					log.Info("processors ready", "groups", len(want))
					close(ready)
					ready = nil
				}
			},
			onFail: func(err error, in time.Duration) {
				s.keep(st, nil)
				if o.OnAssign != nil {
					o.OnAssign(st, nil)
				}
				if o.OnGroup != nil {
					o.OnGroup(st, err, in)
				}
			},
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := sup.run(ctx); err != nil {
				errOnce.Do(func() { fatal = fmt.Errorf("group %s: %w", g.Group(), err) })
				cancel()
			}
		}()
	}
	go s.reportOpenTrades(ctx)
	wg.Wait()
	if fatal == nil && o.LeaveOnStop && static != "" {
		var names []string
		for i, g := range graphs {
			if slices.Contains(want, topology.Stages[i]) {
				names = append(names, string(g.Group()))
			}
		}
		leave(o.Kafka, names, static, log)
	}
	return fatal
}

// leave takes the static member instanceID out of the groups.
func leave(k kafkaconn.Config, groups []string, instanceID string, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(k.Opts()...)
	if err == nil {
		defer cl.Close()
		adm := kadm.NewClient(cl)
		for _, g := range groups {
			var resp kadm.LeaveGroupResponses
			if resp, err = adm.LeaveGroup(ctx, kadm.LeaveGroup(g).InstanceIDs(instanceID).Reason("the instance stopped")); err == nil {
				err = resp.Error()
			}
			if err != nil {
				break
			}
		}
	}
	if err != nil {
		log.Warn("groups not left: the partitions move when the session times out", "instance", instanceID, "err", err)
	}
}

// processorOptions are one group's goka options. Every group gets its own
// sarama configurations: goka's builders write the client id into the
// configuration they are given, so builders shared between groups made
// every group's consumers carry the id of whichever group was built first.
func (s *wiring) processorOptions(st topology.Stage, o Options, static string, log *slog.Logger) []goka.ProcessorOption {
	tmc := goka.NewTopicManagerConfig()
	tmc.Table.Replication = 1
	tmc.Stream.Replication = 1
	// Topics are made in one place, topics.Create, with the operator's
	// replication and configs (or by the operator: --no-create-topics); a
	// topic goka created would have its defaults, so it creates none.
	tmc.NoCreate = true
	saramaCfg := func() *sarama.Config {
		cfg := SaramaConfig()
		SaramaSecurity(o.Kafka, cfg)
		// goka's default sets the deprecated single Strategy, which sarama
		// warns about on every client; the same strategy as the one-element
		// list it prefers (Strategy wins over GroupStrategies, so this is
		// the same assignment).
		if r := &cfg.Consumer.Group.Rebalance; r.Strategy != nil {
			r.GroupStrategies, r.Strategy = []sarama.BalanceStrategy{r.Strategy}, nil
		}
		return cfg
	}
	var own *owned // this group's partitions, for its standbys
	if o.Standby && s.db != nil && (st == topology.StageIdentity || st == topology.StageMatch) {
		own = &owned{}
	}
	opts := []goka.ProcessorOption{
		nilHandling(),
		goka.WithClientID(ClientID(o.InstanceID, st)),
		goka.WithTopicManagerBuilder(goka.TopicManagerBuilderWithConfig(saramaCfg(), tmc)),
		goka.WithProducerBuilder(s.producerChain(st, o)),
		goka.WithConsumerGroupBuilder(goka.ConsumerGroupBuilderWithConfig(groupConfig(saramaCfg(), static))),
		goka.WithConsumerSaramaBuilder(goka.SaramaConsumerBuilderWithConfig(saramaCfg())),
		goka.WithHasher(topology.KeyHash),
		goka.WithRejoinWait(rejoinWait),
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
			if own != nil {
				own.set(parts)
			}
			log.Info("partitions assigned", "stage", st.String(), "partitions", fmt.Sprint(parts))
			s.keep(st, parts)
			if o.OnAssign != nil {
				o.OnAssign(st, parts)
			}
		}),
	}
	return append(opts, s.tableOptions(st, own)...)
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
