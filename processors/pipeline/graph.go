package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/lovoo/goka"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/processors/commits"
	"github.com/ste-utility/ste/processors/gokaconf"
	"github.com/ste-utility/ste/processors/produce"
	"github.com/ste-utility/ste/processors/query"
	"github.com/ste-utility/ste/processors/readback"
	"github.com/ste-utility/ste/processors/supervise"
	"github.com/ste-utility/ste/processors/tablestore"
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

// DecodeRef hands a callback the consumed record's bytes by reference:
// a *[]byte is held in an interface without an allocation, a []byte takes
// one (goka patch 10). bytesOf reads either.
func (raw) DecodeRef(b *[]byte) (any, error) { return b, nil }

// bytesOf is the bytes goka handed a callback: by reference (DecodeRef, as
// goka's partition processors hand every consumed record), or as a slice
// (Decode, for any caller that does not decode by reference).
func bytesOf(msg any) []byte {
	switch v := msg.(type) {
	case *[]byte:
		return *v
	case []byte:
		return v
	}
	return nil
}

// nilHandling makes every group call its callback for a record with no
// value: goka's default drops it before any callback, and on <ns>.inbound
// that would lose it silently (docs/spec/messages.md §4 makes it MALFORMED); on
// internal topics it is a corrupt record, counted.
func nilHandling() goka.ProcessorOption { return goka.WithNilHandling(goka.NilProcess) }

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
	// InstanceID names this instance's Kafka clients (topology.ClientID),
	// so that an operator (and the lag code) can tell members apart, and is
	// its static group membership id. Default: anonymous, dynamic
	// membership.
	InstanceID string
	// OnAssign is told a stage's partitions after every rebalance (nil
	// after the group is left or has failed).
	OnAssign func(st topology.Stage, partitions []int32)
	// OnGroup is told when a group is up (its tables recovered, running) and
	// when it failed (err) and will be restarted after the delay.
	OnGroup func(st topology.Stage, err error, restartIn time.Duration)
	// Ready is closed once every group has recovered its tables and runs.
	Ready chan<- struct{}
	// Restart is the backoff of failed groups; zero fields:
	// supervise.DefaultRestart's.
	Restart supervise.Backoff
	// Tables, if set, is filled in so the runtime can read the match table.
	Tables *tablestore.Tables
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

// Run runs the chosen groups until ctx ends (a graceful stop: in-flight
// callbacks finish, offsets are committed; returns nil) or one fails in a
// way a restart cannot mend (supervise.Permanent). A group that fails otherwise —
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
		read, closeReader := readback.Reader(ctx, o.Kafka, o.Config.Names.Inbound())
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
	o.Restart = o.Restart.OrDefault()
	gokaconf.RouteSarama(log)
	want := o.Stages
	if len(want) == 0 {
		want = topology.Stages
	}
	m := s.cfg.Metrics
	tables, closeTables, err := tablestore.Open(tablestore.Disk{Dir: o.TableDir, Kafka: o.Kafka, Names: o.Config.Names, Logger: log,
		Rebuilt:  func(stage string) { m.CountTableRebuild(stage) },
		Restored: func(stage string, n int64) { m.CountTableRestored(stage, n) }})
	if err != nil {
		return err
	}
	defer closeTables() // after every processor has stopped (wg.Wait below)
	s.db = tables
	s.commits = &commits.Order{}
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
	parts := produce.PartitionCount(ctx, o.Kafka, s.cfg.Names.Audit())
	s.idTableParts = produce.PartitionCount(ctx, o.Kafka, topology.Table(s.cfg.Names.IdentityGroup()))
	for _, st := range topology.Stages {
		var size prometheus.Observer
		if m := s.cfg.Metrics; m != nil {
			size = m.AuditBatch
		}
		s.audits[st] = produce.NewAuditBatches(s.cfg.Names.Audit(), s.producers[st], parts, func() { s.cfg.Metrics.CountOut(st) }, size)
		defer s.audits[st].Close() // after every processor has stopped (wg.Wait below)
	}
	if o.Tables != nil && tables != nil {
		o.Tables.OnDisk(tables)
		defer o.Tables.OnDisk(nil)
	}
	graphs, decl := Graphs(s.cfg.Names, s.callbacks()), topology.Describe(s.cfg.Names.NS).Groups
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
	s.cfg.Metrics.Initialise(want)
	for i, g := range graphs {
		st := decl[i].Stage
		if !slices.Contains(want, st) {
			continue
		}
		sup := &supervise.Group{Backoff: o.Restart, Log: log.With("stage", st.String()),
			Answers: func(ctx context.Context) bool { return supervise.ClusterAnswers(ctx, o.Kafka) },
			Build: func() (*goka.Processor, error) {
				return goka.NewProcessor(o.Kafka.Brokers, g, s.processorOptions(st, o, static, log)...)
			},
			OnUp: func() {
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
			OnFail: func(err error, in time.Duration) {
				s.cfg.Metrics.CountRestart(st)
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
			if err := sup.Run(ctx); err != nil {
				errOnce.Do(func() { fatal = fmt.Errorf("group %s: %w", g.Group(), err) })
				cancel()
			}
		}()
	}
	go s.reportOpenTrades(ctx)
	if slices.Contains(want, topology.StageMatch) {
		go s.fireTimers(ctx)
		go s.rewriteLate(ctx)
	}
	wg.Wait()
	if fatal == nil && o.LeaveOnStop && static != "" {
		var names []string
		for i, g := range graphs {
			if slices.Contains(want, decl[i].Stage) {
				names = append(names, string(g.Group()))
			}
		}
		supervise.Leave(o.Kafka, names, static, log)
	}
	return fatal
}

// processorOptions are one group's goka options. Every group gets its own
// sarama configurations: goka's builders write the client id into the
// configuration they are given, so builders shared between groups made
// every group's consumers carry the id of whichever group was built first.
func (s *wiring) processorOptions(st topology.Stage, o Options, static string, log *slog.Logger) []goka.ProcessorOption {
	var own *tablestore.Owned // this group's partitions, for its standbys
	if o.Standby && s.db != nil && s.hasTable(st) {
		own = &tablestore.Owned{}
	}
	opts := []goka.ProcessorOption{
		nilHandling(),
		goka.WithClientID(topology.ClientID(o.InstanceID, st)),
		goka.WithTopicManagerBuilder(gokaconf.TopicManagerBuilder(o.Kafka)),
		goka.WithProducerBuilder(s.producerChain(st, o)),
		goka.WithConsumerGroupBuilder(goka.ConsumerGroupBuilderWithConfig(gokaconf.Group(o.Kafka, static))),
		goka.WithConsumerSaramaBuilder(goka.SaramaConsumerBuilderWithConfig(gokaconf.Sarama(o.Kafka))),
		goka.WithHasher(topology.KeyHash),
		goka.WithRejoinWait(gokaconf.RejoinWait),
		goka.WithLogger(gokaconf.Logger(log.With("stage", st.String()))),
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
				own.Set(parts)
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
