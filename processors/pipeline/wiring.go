package pipeline

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lovoo/goka"

	"github.com/ste-utility/ste/processors/diskstore"
	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/produce"
	"github.com/ste-utility/ste/processors/query"
	"github.com/ste-utility/ste/processors/stages"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/trust"
)

// Config is what the stages need besides Kafka.
type Config struct {
	Names     topology.Names
	Validator *validation.Validator
	Signer    *schemas.Signer
	// Retention of trades past their newest Created (event time). Default 72h.
	Retention time.Duration
	// TombstoneTTL keeps a purged trade's counters. Default 30 days.
	TombstoneTTL time.Duration
	// IdentityMargin is how much longer than the retention an accepted
	// (Sender, MsgId) is remembered by the identity stage. Default 24h.
	IdentityMargin time.Duration
	// AtRiskLead: an unmatched trade whose cutoff is at most this far ahead
	// on Now's clock is at risk (processors/query). Default
	// query.DefaultAtRiskLead.
	AtRiskLead time.Duration
	Metrics    *Metrics     // nil: none
	Logger     *slog.Logger // corrupt records and state; slog.Default() when nil
	Now        func() time.Time
	// Sandbox: the namespace replays recorded inbound records (ste replay;
	// stages.Config.Sandbox).
	Sandbox bool
	// Inbound reads a record of <ns>.inbound back by partition and offset
	// (stages.Config.Inbound). Run sets it (inbound.go); nil (the
	// broker-free tests): the record travels along.
	Inbound func(partition int32, offset int64) ([]byte, error)
	Hook    Hook // tests only: runs before each callback (guard.go)
	// VerifyOneByOne verifies each signature in its validate callback
	// instead of in batches (verifyqueue.go): for A/B measurements. The
	// broker-free graph tests, which do not go through Run, always do.
	VerifyOneByOne bool
	// Secret proves the exceptions the stages write (trust.ProofHeader):
	// readers skip exceptions without proof. Nil writes none.
	Secret *trust.Secret
	// Tolerances the match stage evaluates criteria 7 and 15 with: the
	// reference data the instance has read so far (refdata.Current). Nil:
	// none, values must be equal.
	Tolerances matching.Tolerances
}

// wiring is what one Run (or a broker-free test's graphs) runs on: the
// decisions, the one writer of each stage, the table partitions they read,
// and, on Kafka, what batches and orders their writes.
type wiring struct {
	cfg    Config
	log    *slog.Logger
	decide *stages.Decider
	write  map[topology.Stage]*writer
	tables partitions
	query  *query.Tables
	db     *diskstore.DB // nil: tables in memory

	verify *verifyQueue // nil: signatures verified one by one in the callback
	// commits releases the deferred commits of every record in offset
	// order (commits.go); nil: goka commits (its tester).
	commits *commits
	// audits batch each stage's audit events (processors/produce); none: every
	// event is a record of its own (no Kafka: goka's tester).
	audits map[topology.Stage]*produce.AuditBatches
	// producers are each stage's goka producer of its current run, for the
	// writes made outside its callbacks (the verify queue, the audit
	// batches): the last link of the producer chain records it.
	producers map[topology.Stage]*atomic.Pointer[goka.Producer]
	// idTableParts looks up the identity changelog's partition count for
	// its batches (processors/produce); nil: no batches (goka's tester).
	idTableParts func() (int, error)
	// seal, when set, has the producers sign the outputs (processors/produce): the
	// stages emit them unsigned. Nil (goka's tester): the stages sign.
	seal *produce.Seal
}

// newWiring wires cfg's stages; q, if set, is the read side they serve the
// match table to (Options.Tables), else one of their own.
func newWiring(cfg Config, q *query.Tables) *wiring {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if q == nil {
		q = &query.Tables{}
	}
	rt := &wiring{cfg: cfg, log: cfg.Logger, query: q, write: map[topology.Stage]*writer{},
		producers: map[topology.Stage]*atomic.Pointer[goka.Producer]{}}
	rt.tables.of = map[topology.Stage]map[int32]table{}
	refdataNow := func() *refdata.Set { return nil }
	if cfg.Validator != nil {
		refdataNow = cfg.Validator.Refdata
	}
	rt.decide = stages.New(stages.Config{Names: cfg.Names, Validator: cfg.Validator, UtilityBIC: cfg.Signer.BIC,
		Retention: cfg.Retention, TombstoneTTL: cfg.TombstoneTTL, IdentityMargin: cfg.IdentityMargin, Now: cfg.Now,
		Sandbox: cfg.Sandbox, Inbound: cfg.Inbound, Tolerances: cfg.Tolerances, Tables: rt.tables.get, Logger: cfg.Logger})
	q.Serve(query.Config{Refdata: refdataNow, Tolerances: cfg.Tolerances, Now: cfg.Now, Lead: cfg.AtRiskLead, Logger: cfg.Logger})
	if cfg.Metrics != nil {
		cfg.Metrics.Trades.From(q)
	}
	for _, st := range topology.Stages {
		rt.write[st] = &writer{st: st, cfg: &rt.cfg, decide: rt.decide}
		rt.producers[st] = &atomic.Pointer[goka.Producer]{}
	}
	return rt
}

// callbacks are the stages' goka callbacks: each decision written by its
// stage's writer (handle.go), and on Kafka the validate stage's through the
// batch verification (verifyqueue.go).
func (rt *wiring) callbacks() Callbacks {
	validate := rt.handle(topology.StageValidate, func(in stages.Input, _ stages.State) *stages.Result {
		return rt.decide.Validate(in)
	})
	if rt.verify != nil {
		validate = rt.verify.callback
	}
	return Callbacks{
		topology.StageValidate: validate,
		topology.StageIdentity: rt.handle(topology.StageIdentity, rt.decide.Identity),
		topology.StageMatch:    rt.handle(topology.StageMatch, rt.decide.Match),
	}
}

// table is what the runtime reads of a partition's table storage besides
// goka's interface: the decisions' clock and due index, and the size for
// the open-trades gauge. Both storages offer it: processors/memstore (in
// memory, rebuilt from the changelog on every start) and
// processors/diskstore (on disk, resumed from its offset).
type table interface {
	stages.Table
	Len() int
}

// partitions are the table partitions each stateful stage works on now.
type partitions struct {
	mu sync.Mutex
	of map[topology.Stage]map[int32]table
}

// get is the decisions' view (stages.Config.Tables): nil when not open.
func (ps *partitions) get(st topology.Stage, p int32) stages.Table {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if t, ok := ps.of[st][p]; ok {
		return t
	}
	return nil
}

// keep forgets a stage's tables of the partitions not in keep (nil: all of
// them) and the per-partition gauges they fed. goka closes a partition's
// table when a session ends and builds a new one for each partition
// assigned in the next; without this the old stores stayed reachable here
// — their maps in memory, ste_open_trades and the event-time clock still
// reported, the lookups answered — after the partitions had moved to
// another instance.
func (rt *wiring) keep(st topology.Stage, keep []int32) {
	if st == topology.StageMatch {
		rt.query.Keep(keep)
	}
	m := rt.cfg.Metrics
	ps := &rt.tables
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for p := range ps.of[st] {
		if slices.Contains(keep, p) {
			continue
		}
		delete(ps.of[st], p)
		if st == topology.StageMatch && m != nil {
			label := strconv.Itoa(int(p))
			m.OpenTrades.DeleteLabelValues(label)
			m.Clock.DeleteLabelValues(label)
		}
	}
}

// opened makes partition p's table of stage st the one its decisions
// read. A match partition's open-trades gauge exists from that moment, not
// from the next sample (reportOpenTrades): a scrape right after an
// assignment finds it.
func (rt *wiring) opened(st topology.Stage, p int32, t table) {
	ps := &rt.tables
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.of[st] == nil {
		ps.of[st] = map[int32]table{}
	}
	ps.of[st][p] = t
	if st == topology.StageMatch {
		rt.sampleOpenTradesLocked(p, t)
	}
}

// reportOpenTrades samples the trade tables for the open-trades gauge.
func (rt *wiring) reportOpenTrades(ctx context.Context) {
	if rt.cfg.Metrics == nil {
		return
	}
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			rt.tables.mu.Lock()
			for p, tb := range rt.tables.of[topology.StageMatch] {
				rt.sampleOpenTradesLocked(p, tb)
			}
			rt.tables.mu.Unlock()
		}
	}
}

// sampleOpenTradesLocked sets partition p's open-trades gauge from its
// match table (the partitions' mu held: keep deletes the gauge under it).
func (rt *wiring) sampleOpenTradesLocked(p int32, t table) {
	if rt.cfg.Metrics != nil {
		rt.cfg.Metrics.OpenTrades.WithLabelValues(strconv.Itoa(int(p))).Set(float64(t.Len()))
	}
}

// partitionCount returns a function that looks a topic's partition count
// up with count (the audit topic's for the batchers, the identity
// changelog's for its batches), at most once a second until it succeeds.
func partitionCount(ctx context.Context, count func(context.Context) (int, error)) func() (int, error) {
	var (
		mu   sync.Mutex
		last time.Time
		n    int
		err  = errors.New("partitions not looked up yet")
	)
	return func() (int, error) {
		mu.Lock()
		defer mu.Unlock()
		if n > 0 || time.Since(last) < time.Second {
			return n, err
		}
		last = time.Now()
		lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		n, err = count(lctx)
		return n, err
	}
}
