// Package instance is the process runtime of STE: one running `ste process`
// (or one of the instances `ste demo` and `ste bench` run inside their own
// process). It claims an identity, makes sure the namespace's topics exist,
// reads reference data to its end before anything consumes inbound and
// follows it afterwards, runs the chosen processor groups, serves /healthz,
// /readyz, /metrics and /status, and the trade lookups on a listener of
// their own behind the utility's lookup token, reports lag — of the partitions it owns and
// of each group as a whole — and announces itself in the instance registry.
package instance

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/instance/registry"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/processors/metrics"
	"github.com/ste-utility/ste/processors/pipeline"
	"github.com/ste-utility/ste/processors/produce"
	"github.com/ste-utility/ste/processors/stages"
	"github.com/ste-utility/ste/processors/supervise"
	"github.com/ste-utility/ste/processors/tablestore"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/lag"
	"github.com/ste-utility/ste/topics/origin"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/trust"
)

// Options configure Run. Kafka, Namespace and Signer are required.
type Options struct {
	// Kafka is the cluster and how to reach it (TLS, SASL).
	Kafka     kafkaconn.Config
	Namespace string
	// Topics says how missing topics are made (replication,
	// min.insync.replicas), or that an operator owns them (NoCreate).
	Topics topics.Options
	// Stages are the groups to run; nil runs all three.
	Stages []topology.Stage
	// RefdataDir, if set, is published to <ns>.refdata first.
	RefdataDir string
	Retention  time.Duration
	// AllegementDelay is the quiet time after a trade's last message before
	// its allegements are sent (messages.md §5a; wall clock): 0 is the
	// default, 60 s; AllegeEveryMessage (negative) after every
	// message (ste process --allegement-delay 0).
	AllegementDelay time.Duration
	// AtRiskLead: how far ahead of its market cutoff an unmatched trade
	// counts in ste_trades_at_risk (0: query.DefaultAtRiskLead).
	AtRiskLead time.Duration
	Signer     *schemas.Signer
	// Verify inbound signatures (off only to benchmark).
	Verify bool
	// HTTPAddr serves /healthz, /readyz, /metrics, /status; "" serves none.
	HTTPAddr string
	// LookupAddr serves the trade lookups (/trades, lookup.PathTrade and
	// lookup.PathRef) on a listener of their own, to holders of the
	// utility's lookup token only (derived from Secret); "" serves none.
	LookupAddr string
	// Tables is where the identity and match tables live: "disk" (the
	// default: under the instance's directory, resumed from there on
	// restart) or "memory" (rebuilt from the changelogs on every start).
	Tables string
	// Standby keeps, with disk tables, hot standbys of the identity and
	// match partitions other instances own (pipeline.Options.Standby).
	Standby bool
	// BrokerInProcess: this process also runs the broker (ste demo, ste
	// bench), whose log is on the Go heap, so the collector is given room
	// as for tables in memory (see tuneGC).
	BrokerInProcess bool
	// DropTables removes the instance's disk tables of the namespace when
	// it stops: the namespace was made for this run alone (ste bench, ste
	// demo) and nothing will resume it.
	DropTables bool
	// Identity of the instance; nil claims one under Home (see Claim).
	Identity *Identity
	Home     string
	Logger   *slog.Logger
	// Ready is closed once the instance is ready (demo, bench).
	Ready chan<- struct{}
	// RegistryEvery is the registry refresh period (default
	// registry.DefaultEvery); LagEvery the lag sampling period (default 5 s).
	RegistryEvery, LagEvery time.Duration
	// Sandbox runs the processors of a replay (pipeline.Config.Sandbox);
	// a namespace whose origin says it was made by ste replay is run as
	// one without being told.
	Sandbox bool
	// StallAfter: a partition this instance owns that is behind and makes no
	// progress for this long (or a group down this long) makes it unhealthy.
	// Default DefaultStallAfter.
	StallAfter time.Duration
	// Restart is the backoff of failed groups (default
	// supervise.DefaultRestart); Hook a test hook run before each callback.
	Restart supervise.Backoff
	Hook    pipeline.Hook
	// LeaveOnStop leaves the groups after a clean stop instead of keeping
	// the partitions for the session timeout (pipeline.Options.LeaveOnStop).
	LeaveOnStop bool
	// Secret is the utility's shared secret, which proves the control
	// records the instance writes (trust); nil loads or creates the one
	// under Home (trust.DefaultPath).
	Secret *trust.Secret
	// DeliverPerParticipant also runs the per-participant delivery group
	// (topics/deliver): <ns>.outbound copied to <ns>.out.<BIC>.
	DeliverPerParticipant bool
	// Registry receives the instance's metrics (nil: a registry of its
	// own). ste bench passes one per instance to count the outputs by type.
	Registry *prometheus.Registry
}

func (o *Options) validate() error {
	switch {
	case len(o.Kafka.Brokers) == 0:
		return errors.New("instance: no brokers")
	case o.Namespace == "":
		return errors.New("instance: no namespace")
	case o.Signer == nil:
		return errors.New("instance: no signer")
	}
	if len(o.Stages) == 0 {
		o.Stages = slices.Clone(topology.Stages)
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.LagEvery <= 0 {
		o.LagEvery = 5 * time.Second
	}
	switch o.Tables {
	case "":
		o.Tables = TablesDisk
	case TablesMemory, TablesDisk:
	default:
		return fmt.Errorf("instance: tables %q: want %s or %s", o.Tables, TablesMemory, TablesDisk)
	}
	if o.Tables == TablesDisk && o.Identity != nil && o.Identity.Dir == "" {
		// Tables under "" would land in the working directory.
		return fmt.Errorf("instance: identity %s has no directory for its disk tables", o.Identity.ID)
	}
	if o.StallAfter <= 0 {
		o.StallAfter = DefaultStallAfter
	}
	if o.Secret == nil {
		if o.Home == "" {
			return errors.New("instance: no utility secret and no home to keep one in")
		}
		s, err := trust.LoadOrCreate(trust.DefaultPath(o.Home))
		if err != nil {
			return fmt.Errorf("instance: %w", err)
		}
		o.Secret = s
	}
	return nil
}

// AllegeEveryMessage as Options.AllegementDelay sends a trade's
// allegements after every message (ste process --allegement-delay 0).
const AllegeEveryMessage = stages.AllegeEveryMessage

// Where tables live (Options.Tables).
const (
	TablesMemory = "memory"
	TablesDisk   = "disk"
)

// tableDir is the directory of the instance's disk tables of its namespace
// ("" in memory; see tablesDir).
func (r *runtime) tableDir() string {
	if r.o.Tables != TablesDisk {
		return ""
	}
	return tablesDir(r.id.Dir, r.o.Namespace)
}

// runtime is one running instance's shared state.
type runtime struct {
	o       Options
	id      *Identity
	log     *slog.Logger
	adm     *kadm.Client
	metrics *metrics.Metrics
	reg     *prometheus.Registry
	started time.Time
	addr    string // the HTTP address actually bound
	lookup  string // the lookup listener's address, as announced

	ready  atomic.Bool
	failed atomic.Pointer[string]

	mu       sync.Mutex
	assigned map[topology.Stage][]int32
	up       map[topology.Stage]bool
	lastLag  lag.Sample
	stall    *stallDetector
	stalled  []Stall
	lagPoke  chan struct{} // a lag sample now (after a rebalance)
	// Gauges of this instance's own state (the pipeline's are in metrics).
	stalledGauge, upGauge *prometheus.GaugeVec

	tables tablestore.Tables // the match table, for /trades; the disk tables' health
	// produce follows the groups' producers: a produce the brokers refuse
	// (below min ISR: NOT_ENOUGH_REPLICAS) makes the instance unhealthy.
	produce *produce.Watch
	refused string // the last refusal reportRefused logged (reportLag's goroutine only)
	// refdata is the reference data read so far: the match group evaluates
	// tolerances with it (section 5: the rows the instance has read).
	refdata refdata.Current
}

// Run runs one instance until ctx ends (exit nil after a clean stop) or it
// fails. A broker that does not answer at start is an error at once; a
// cluster that answers but has not healed (a lost leader, below min ISR)
// is waited for.
func Run(ctx context.Context, o Options) error {
	if err := o.validate(); err != nil {
		return err
	}
	id := o.Identity
	if id == nil {
		var err error
		if id, err = Claim(o.Home, ""); err != nil {
			return err
		}
		defer id.Release()
	}
	r := &runtime{o: o, id: id, started: time.Now().UTC(), assigned: map[topology.Stage][]int32{}, produce: produce.NewWatch(),
		up: map[topology.Stage]bool{}, stall: newStallDetector(o.StallAfter), lagPoke: make(chan struct{}, 1)}
	r.log = o.Logger.With("namespace", o.Namespace, "instance", id.ID)
	return r.run(ctx)
}

func (r *runtime) run(ctx context.Context) error {
	o := r.o
	cl, err := topics.Connect(ctx, o.Kafka)
	if err != nil {
		return err
	}
	defer cl.Close()
	r.adm = kadm.NewClient(cl)
	to := o.Topics
	if to.Log == nil {
		to.Log = r.log
	}
	// Kafka's part of the start is retried while the cluster answers with
	// transient errors: an instance restarted while a node is down (its
	// partitions not yet led by another) or while the cluster is below
	// min ISR waits for it to heal instead of exiting (kafkaconn.Retry).
	if err := kafkaconn.Retry(ctx, r.log, "topics", func() error { return topics.Ensure(ctx, r.adm, o.Namespace, to) }); err != nil {
		return err
	}
	if !o.Sandbox {
		dial := func(opts ...kgo.Opt) (*kgo.Client, error) { return topics.Client(o.Kafka, opts...) }
		var rs []origin.Record
		var bad []string
		err := kafkaconn.Retry(ctx, r.log, "origin", func() (err error) {
			rs, bad, err = origin.Scan(ctx, dial, o.Namespace, o.Secret)
			return err
		})
		if err != nil {
			return err
		}
		if len(bad) > 0 {
			r.log.Warn("unreadable records on the origin topic skipped", "topic", topology.Names{NS: o.Namespace}.Origin(), "keys", bad)
		}
		r.o.Sandbox = origin.IsSandbox(rs)
	}
	if r.o.Sandbox {
		r.log.Info("sandbox: the Created rule reads each inbound record's time, not the wall clock")
	}
	if o.RefdataDir != "" {
		set, err := refdata.LoadDir(o.RefdataDir)
		if err != nil {
			return err
		}
		if err := kafkaconn.Retry(ctx, r.log, "reference data", func() error {
			if err := topics.KeepStoredSigners(ctx, o.Kafka, o.Namespace, set); err != nil {
				return err
			}
			_, err := topics.PublishRefdata(ctx, cl, o.Namespace, set)
			return err
		}); err != nil {
			return err
		}
		r.log.Info("reference data published", "dir", o.RefdataDir)
	}

	r.reg = o.Registry
	if r.reg == nil {
		r.reg = prometheus.NewRegistry()
	}
	r.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	r.metrics = metrics.New(r.reg)
	r.reg.MustRegister(topics.Unproven)
	r.registerInstanceMetrics()
	if o.HTTPAddr != "" {
		ln, err := net.Listen("tcp", o.HTTPAddr)
		if err != nil {
			return fmt.Errorf("--http %s: %v", o.HTTPAddr, err)
		}
		r.addr = ln.Addr().String()
		WarnIfExposed(r.log, r.addr)
		stopHTTP := r.serveHTTP(ln)
		defer stopHTTP()
		r.log.Info("http endpoints", "addr", r.addr, "paths", "/healthz /readyz /metrics /status")
	}
	if o.LookupAddr != "" {
		ln, err := net.Listen("tcp", o.LookupAddr)
		if err != nil {
			return fmt.Errorf("--lookup %s: %v", o.LookupAddr, err)
		}
		r.lookup = advertised(ln.Addr().String(), o.Kafka.Brokers)
		WarnIfLookupExposed(r.log, ln.Addr().String())
		stopLookup := r.serveLookup(ln)
		defer stopLookup()
		r.log.Info("trade lookup endpoint (the utility's lookup token required)", "addr", ln.Addr().String(),
			"announced", r.lookup, "paths", "/trades/<trade key> /trades?ref=<TradeRef> /at-risk")
	}

	ann := registry.NewAnnouncer(cl, o.Namespace, o.RegistryEvery, r.entry).Prove(o.Secret).WithLogger(r.log)
	actx, stopAnn := context.WithCancel(context.Background())
	annDone := make(chan struct{})
	go func() { defer close(annDone); ann.Run(actx) }()
	defer func() { stopAnn(); <-annDone }()

	v, err := r.followRefdata(ctx)
	if err != nil || v == nil {
		return err // nil, nil: stopped while waiting
	}

	procReady := make(chan struct{})
	go func() {
		select {
		case <-procReady:
			ann.Poke()
			if o.Ready != nil {
				close(o.Ready)
			}
		case <-ctx.Done():
		}
	}()
	go r.reportLag(ctx)
	tuneGC(o.Tables == TablesMemory || o.BrokerInProcess)
	if o.Tables != TablesMemory && !o.BrokerInProcess {
		go releaseWhenIdle(ctx, func() { r.log.Debug("quiet after work: free memory returned to the system") })
	}
	if dir := r.tableDir(); dir != "" && o.DropTables {
		defer func() {
			if err := os.RemoveAll(dir); err != nil {
				r.log.Warn("this run's tables not removed", "dir", dir, "err", err)
			}
		}()
	}
	if o.DeliverPerParticipant {
		stopDeliver := r.runDelivery(ctx)
		defer stopDeliver()
	}
	err = pipeline.Run(ctx, pipeline.Options{
		Kafka: o.Kafka,
		Config: pipeline.Config{Names: topology.Names{NS: o.Namespace}, Validator: v, Signer: o.Signer,
			Retention: o.Retention, AtRiskLead: o.AtRiskLead, Metrics: r.metrics, Sandbox: r.o.Sandbox, Hook: o.Hook,
			Tolerances: &r.refdata, Affirmation: &r.refdata, AllegementDelay: o.AllegementDelay, Secret: o.Secret},
		Logger:      r.log,
		Stages:      o.Stages,
		InstanceID:  r.id.ID,
		OnAssign:    r.onAssign,
		OnGroup:     func(st topology.Stage, err error, _ time.Duration) { r.onGroup(st, err, ann) },
		Ready:       procReady,
		Restart:     o.Restart,
		Tables:      &r.tables,
		Produce:     r.produce,
		TableDir:    r.tableDir(),
		LeaveOnStop: o.LeaveOnStop,
		Standby:     o.Standby,
	})
	r.ready.Store(false)
	if err != nil {
		msg := err.Error()
		r.failed.Store(&msg)
		return err
	}
	r.log.Info("processors stopped cleanly")
	return nil
}

// followRefdata reads reference data to its end — no inbound message is
// consumed before — and keeps applying later changes to the validator and
// to r.refdata (the match group's tolerances and affirmation modes). Every instance reads it,
// whatever its groups: all of them sign outputs, and refdata.CheckSigner
// refuses a key the utility's row does not list.
// It returns nil, nil when ctx ends first.
func (r *runtime) followRefdata(ctx context.Context) (*validation.Validator, error) {
	vopts := []validation.Option{validation.WithUtilityBIC(r.o.Signer.BIC)}
	if !r.o.Verify {
		vopts = append(vopts, validation.WithoutSignatureVerification())
		r.log.Warn("signature verification is OFF (benchmarking only)")
	}
	loaded := make(chan *refdata.Set, 1)
	var validator atomic.Pointer[validation.Validator]
	var demo atomic.Int32 // participants holding their public demo keys, last warned of
	refErr := make(chan error, 1)
	go func() {
		// FollowRefdata fails only before it has read anything (the
		// topic's end offsets): retried while the cluster heals.
		refErr <- kafkaconn.Retry(ctx, r.log, "reference data", func() error {
			return topics.FollowRefdata(ctx, r.o.Kafka, r.o.Namespace,
				func(s *refdata.Set) {
					demo.Store(int32(len(refdata.DemoKeyed(s))))
					refdata.WarnDemoKeys(s, r.log)
					loaded <- s
				},
				func(s *refdata.Set) {
					if n := int32(len(refdata.DemoKeyed(s))); demo.Swap(n) != n {
						refdata.WarnDemoKeys(s, r.log)
					}
					if v := validator.Load(); v != nil {
						v.SetRefdata(s)
						r.refdata.Store(s)
						r.log.Info("reference data updated", "participants", len(s.Participants()), "securities", len(s.Securities()),
							"tolerances", len(s.Tolerances()))
					}
					// Too late to refuse: say it loudly, participants can no
					// longer verify what this instance signs.
					if err := refdata.CheckSigner(s, r.o.Signer.BIC, r.o.Signer.Public()); err != nil {
						r.log.Error("reference data no longer lists this instance's signing key; restart with a key the utility's row lists", "err", err)
					}
				},
				func(key []byte, err error) {
					var ignored *refdata.KeyIgnoredError
					if errors.As(err, &ignored) {
						r.log.Warn("public key on the reference data topic ignored: the participant is treated as holding no such key", "key", string(key), "err", err)
						return
					}
					r.log.Warn("bad reference data record skipped", "key", string(key), "err", err)
				})
		})
	}()
	var set *refdata.Set
	select {
	case set = <-loaded:
	case err := <-refErr:
		if err == nil || ctx.Err() != nil {
			return nil, nil
		}
		return nil, err
	case <-ctx.Done():
		return nil, nil
	}
	if len(set.Participants()) == 0 {
		return nil, fmt.Errorf("reference data topic %s is empty: load it first (ste refdata load), the utility's row must list its signing key", topology.Names{NS: r.o.Namespace}.Refdata())
	}
	// Every group signs outputs (NACKs, ACKs, STATUS, CLS), so every
	// instance checks its key before it consumes anything.
	if err := refdata.CheckSigner(set, r.o.Signer.BIC, r.o.Signer.Public()); err != nil {
		return nil, err
	}
	v := validation.New(set, vopts...)
	r.refdata.Store(set)
	validator.Store(v)
	r.log.Info("reference data loaded", "participants", len(set.Participants()), "securities", len(set.Securities()),
		"tolerances", len(set.Tolerances()))
	return v, nil
}

func (r *runtime) onAssign(st topology.Stage, parts []int32) {
	r.mu.Lock()
	r.assigned[st] = parts
	r.stall.assigned(st, parts, time.Now())
	r.mu.Unlock()
	select {
	case r.lagPoke <- struct{}{}:
	default:
	}
}

// onGroup follows the groups going up and down: the instance is ready while
// every group runs, and a group down for the stall limit makes it unhealthy.
func (r *runtime) onGroup(st topology.Stage, err error, ann *registry.Announcer) {
	r.mu.Lock()
	r.up[st] = err == nil
	r.stall.group(st, err, time.Now())
	all := true
	for _, s := range r.o.Stages {
		all = all && r.up[s]
	}
	r.mu.Unlock()
	v := 0.0
	if err == nil {
		v = 1
	}
	r.upGauge.WithLabelValues(st.String()).Set(v)
	if r.ready.Swap(all) != all {
		ann.Poke()
	}
}

// entry is the instance's registry announcement now.
func (r *runtime) entry() registry.Entry {
	host, _ := os.Hostname()
	e := registry.Entry{ID: r.id.ID, Namespace: r.o.Namespace, HTTP: r.addr, Lookup: r.lookup, Version: Version(),
		Ready: r.ready.Load(), Health: r.health(), Host: host, PID: os.Getpid(), Started: r.started}
	for _, st := range r.o.Stages {
		e.Groups = append(e.Groups, st.String())
	}
	return e
}

// health is "ok" or why the instance is not healthy.
func (r *runtime) health() string {
	if msg := r.failed.Load(); msg != nil {
		return "failed: " + *msg
	}
	if err := r.tables.Health(); err != nil {
		return "table storage: " + err.Error()
	}
	if why := r.produce.Refused(RefusedAfter); why != "" {
		return why
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.stalled); n > 0 {
		h := "stalled: " + r.stalled[0].String()
		if n > 1 {
			h += fmt.Sprintf(" (and %d more)", n-1)
		}
		return h
	}
	return "ok"
}

// reportLag samples the lag of this instance's groups: per partition it
// owns (ste_consumer_lag; partitions it no longer owns disappear) and per
// group and topic in total (ste_group_lag).
func (r *runtime) reportLag(ctx context.Context) {
	groups := lag.Groups(r.o.Namespace, r.o.Stages...)
	mine := map[string]bool{}
	for _, st := range r.o.Stages {
		mine[topology.ClientID(r.id.ID, st)] = true
	}
	t := time.NewTicker(r.o.LagEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-r.lagPoke:
			// A new assignment: the lag of the partitions owned now, at once.
		}
		s, err := lag.Read(ctx, r.adm, groups)
		if err != nil {
			r.log.Debug("lag not read", "err", err)
			continue
		}
		r.reportRefused()
		r.mu.Lock()
		r.lastLag = s
		stalled := r.stall.observe(s, time.Now())
		before := r.stalled
		r.stalled = stalled
		r.mu.Unlock()
		r.reportStalls(before, stalled)
		r.metrics.Lag.Reset()
		totals := map[[2]string]int64{}
		for _, p := range s.Partitions {
			totals[[2]string{p.Stage, p.Topic}] += p.Lag
			if mine[p.ClientID] {
				r.metrics.Lag.WithLabelValues(p.Stage, p.Topic, fmt.Sprint(p.Partition)).Set(float64(p.Lag))
			}
		}
		for k, v := range totals {
			r.metrics.GroupLag.WithLabelValues(k[0], k[1]).Set(float64(v))
		}
	}
}

// version is set at link time by the Makefile (git describe).
var version string

// Version is the build's version: what the Makefile stamped, else the
// module version and VCS revision Go recorded.
func Version() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		return strings.TrimSpace(v + " " + rev + dirty)
	}
	return v
}

// reportRefused logs the brokers refusing the groups' produces once when it
// starts and once when it ends.
func (r *runtime) reportRefused() {
	why := r.produce.Refused(RefusedAfter)
	was := r.refused
	r.refused = why
	switch {
	case was == "" && why != "":
		r.log.Error("produce refused: /healthz reports unhealthy", "reason", why)
	case was != "" && why == "":
		r.log.Info("produce acknowledged again", "was", was)
	}
}

// reportStalls logs each stall once when it starts and once when it ends,
// and exports how many partitions of each stage are stalled.
func (r *runtime) reportStalls(before, now []Stall) {
	key := func(s Stall) string { return fmt.Sprint(s.Stage, "/", s.Topic, "/", s.Partition) }
	was := map[string]bool{}
	for _, s := range before {
		was[key(s)] = true
	}
	is := map[string]bool{}
	count := map[topology.Stage]int{}
	for _, s := range now {
		is[key(s)] = true
		if s.Partition >= 0 {
			count[s.Stage]++
		}
		if !was[key(s)] {
			r.log.Error("stalled: /healthz reports unhealthy", "reason", s.String(), "stall_after", r.o.StallAfter)
		}
	}
	for _, s := range before {
		if !is[key(s)] {
			r.log.Info("no longer stalled", "was", s.String())
		}
	}
	for _, st := range r.o.Stages {
		r.stalledGauge.WithLabelValues(st.String()).Set(float64(count[st]))
	}
}
