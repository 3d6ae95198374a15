package pipeline

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lovoo/goka"

	"github.com/ste-utility/ste/processors/commits"
	"github.com/ste-utility/ste/processors/diskstore"
	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/metrics"
	"github.com/ste-utility/ste/processors/produce"
	"github.com/ste-utility/ste/processors/query"
	"github.com/ste-utility/ste/processors/stages"
	"github.com/ste-utility/ste/processors/tablestore"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/trust"
)

// Config is what the stages need besides Kafka. The decisions' settings
// (Names through AllegementDelay, Logger, Now) are stages.Config's, passed
// to stages.New as they are: their meaning and defaults are documented
// there, once. The rest is the runtime's.
type Config struct {
	Names     topology.Names
	Validator *validation.Validator
	// Signer signs the outputs; its BIC and key are stages.Config's
	// UtilityBIC and UtilityKey.
	Signer         *schemas.Signer
	Retention      time.Duration // stages.Config.Retention
	TombstoneTTL   time.Duration // stages.Config.TombstoneTTL
	IdentityMargin time.Duration // stages.Config.IdentityMargin
	// AtRiskLead: an unmatched trade whose cutoff is at most this far ahead
	// on Now's clock is at risk (processors/query). Default
	// query.DefaultAtRiskLead.
	AtRiskLead time.Duration
	Metrics    *metrics.Metrics // nil: none
	Logger     *slog.Logger     // stages.Config.Logger, and the runtime's; slog.Default() when nil
	Now        func() time.Time // stages.Config.Now, and the at-risk clock
	Sandbox    bool             // stages.Config.Sandbox
	// Inbound is stages.Config.Inbound. Run sets it (processors/readback).
	Inbound func(partition int32, offset int64) ([]byte, error)
	Hook    Hook // tests only: runs before each callback (guard.go)
	// VerifyOneByOne verifies each signature in its validate callback
	// instead of in batches (verifyqueue.go): for A/B measurements. The
	// broker-free graph tests, which do not go through Run, always do.
	VerifyOneByOne bool
	// Secret proves the exceptions the stages write (trust.ProofHeader):
	// readers skip exceptions without proof. Nil writes none.
	Secret          *trust.Secret
	Tolerances      matching.Tolerances       // stages.Config.Tolerances
	Affirmation     matching.AffirmationModes // stages.Config.Affirmation (the AFFs signed with Signer's key)
	AllegementDelay time.Duration             // stages.Config.AllegementDelay
}

// wiring is what one Run (or a broker-free test's graphs) runs on: the
// decisions, the one writer of each stage, the table partitions they read,
// and, on Kafka, what batches and orders their writes.
type wiring struct {
	cfg    Config
	log    *slog.Logger
	decide *stages.Decider
	write  map[topology.Stage]*writer
	tables tablestore.Partitions
	query  *query.Tables
	// timers are the owned match partitions' wall-clock timers (the
	// trades' allegement timers), fired by fireTimers (timers.go).
	timers tablestore.TimerSet
	db     *diskstore.DB // nil: tables in memory
	// fence is the match table's ownership epochs (tablestore.Fence:
	// fence.go, chain.go); fenceLog rate-limits the log of the late writes
	// it skips.
	fence    tablestore.Fence
	fenceLog rateLimit
	// stamps are each match partition's last stamp (fence.go: stamp).
	stamps sync.Map // int32 → *epochStamp
	// late are the trades whose late writes the fence skipped, waiting to
	// be written again (fence.go: rewriteLate).
	late lateKeys

	verify *verifyQueue // nil: signatures verified one by one in the callback
	// commits releases the deferred commits of every record in offset
	// order (processors/commits); nil: goka commits (its tester).
	commits *commits.Order
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
	rt.fence.Skipped = rt.lateWriteSkipped
	if m := cfg.Metrics; m != nil {
		rt.tables.Size = func(p int32, n int) { m.OpenTrades.WithLabelValues(strconv.Itoa(int(p))).Set(float64(n)) }
		rt.tables.Gone = func(p int32) {
			m.OpenTrades.DeleteLabelValues(strconv.Itoa(int(p)))
			m.Clock.DeleteLabelValues(strconv.Itoa(int(p)))
		}
	}
	refdataNow := func() *refdata.Set { return nil }
	if cfg.Validator != nil {
		refdataNow = cfg.Validator.Refdata
	}
	rt.decide = stages.New(stages.Config{Names: cfg.Names, Validator: cfg.Validator, UtilityBIC: cfg.Signer.BIC,
		Retention: cfg.Retention, TombstoneTTL: cfg.TombstoneTTL, IdentityMargin: cfg.IdentityMargin, Now: cfg.Now,
		Sandbox: cfg.Sandbox, Inbound: cfg.Inbound, Tolerances: cfg.Tolerances, Tables: rt.tables.Get, Decided: q.Decided, Reclaim: q.Reclaim, Logger: cfg.Logger,
		Affirmation: cfg.Affirmation, UtilityKey: cfg.Signer.Key, AllegementDelay: cfg.AllegementDelay})
	q.Serve(query.Config{Refdata: refdataNow, Tolerances: cfg.Tolerances, Now: cfg.Now, Lead: cfg.AtRiskLead, Logger: cfg.Logger})
	if cfg.Metrics != nil {
		cfg.Metrics.Trades.From(q)
	}
	for _, st := range topology.Stages {
		rt.write[st] = &writer{st: st, cfg: &rt.cfg, decide: rt.decide, topics: topicsOf(cfg.Names)}
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

// keep forgets a stage's tables of the partitions not in keep (nil: all of
// them): those its decisions read, the gauges they fed, and the match
// table's lookups.
func (rt *wiring) keep(st topology.Stage, keep []int32) {
	if st == topology.StageMatch {
		rt.query.Keep(keep)
		rt.timers.Keep(keep)
	}
	rt.tables.Keep(st, keep)
}

// reportOpenTrades samples the trade tables for the open-trades gauge.
func (rt *wiring) reportOpenTrades(ctx context.Context) {
	if rt.cfg.Metrics == nil {
		return
	}
	every(ctx, 2*time.Second, rt.tables.Sample)
}

// every calls fn every d until ctx ends: the runtime's work on the wall
// clock (the open-trades gauge, the allegement timers, the rewrites of
// skipped late writes).
func every(ctx context.Context, d time.Duration, fn func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fn()
		}
	}
}
