// Package metrics declares the processors' Prometheus metrics once: the
// series, their registration, and the nil-safe recorders the goka runtime
// (processors/pipeline) calls per record, per stage and per partition.
package metrics

import (
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ste-utility/ste/processors/query"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topology"
)

// Metrics are the processors' Prometheus metrics: per stage records in and
// out, processing time and critical time (inbound record timestamp to the end
// of the stage's work), per partition the event-time clock, plus rejections
// by reason, open trades and rebalances. A nil *Metrics records nothing.
type Metrics struct {
	In         *prometheus.CounterVec
	StageOut   *prometheus.CounterVec
	Out        *prometheus.CounterVec
	Processing *prometheus.HistogramVec
	Critical   *prometheus.HistogramVec
	Clock      *prometheus.GaugeVec
	// ClockJumps count, per match partition, the times one message moved
	// the event-time clock by more than the retention at once (a message
	// dated far ahead of the others: every older trade expires with it);
	// ClockJump is the last such jump's size and ClockJumpAt its wall time.
	ClockJumps             *prometheus.CounterVec
	ClockJump, ClockJumpAt *prometheus.GaugeVec
	Rejected               *prometheus.CounterVec
	Accepted               *prometheus.CounterVec
	Expired                *prometheus.CounterVec
	Corrupt                *prometheus.CounterVec
	OpenTrades             *prometheus.GaugeVec
	Rebalances             prometheus.Counter
	Restarts               *prometheus.CounterVec
	Internal               *prometheus.CounterVec
	// VerifyBatch is the size of the validate stage's signature batches
	// (processors/pipeline/verifyqueue.go): how many records the fetches delivered while the
	// last batch was verified.
	VerifyBatch prometheus.Histogram
	// SealBatch is the size of the outputs' signing batches (produce): how
	// many outputs the callbacks emitted while the last batch was signed.
	SealBatch prometheus.Histogram
	// AuditBatch and TableBatch are the sizes of the audit records' and
	// the identity changelog's batch records (produce).
	AuditBatch, TableBatch prometheus.Histogram
	Lag                    *prometheus.GaugeVec
	GroupLag               *prometheus.GaugeVec
	// Disk tables (processors/diskstore) only.
	TableRestored *prometheus.CounterVec
	TableRebuilds *prometheus.CounterVec
	// Trades reports the match table's trades at risk, past their cutoff
	// and by status (processors/query).
	Trades *query.Collector

	// The series written for every record, looked up once: a vec's
	// WithLabelValues hashes its labels and takes a lock each time, several
	// times a record. None of these series is ever deleted, so a child kept
	// stays the one the registry reports.
	in, stageOut         children[prometheus.Counter]
	processing, critical children[prometheus.Observer]
	outs                 children[prometheus.Counter]
	newMsg, dupMsg       prometheus.Counter
}

// children caches a vec's series by a one-byte label (a stage, an output
// type), made on first use.
type children[M any] struct {
	with  func(...string) M
	label func(uint8) string
	of    [256]atomic.Pointer[M]
}

func (c *children[M]) get(i uint8) M {
	if p := c.of[i].Load(); p != nil {
		return *p
	}
	m := c.with(c.label(i))
	c.of[i].Store(&m)
	return m
}

// New registers the metrics with reg.
func New(reg prometheus.Registerer) *Metrics {
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	}
	gauge := func(name, help string, labels ...string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
	}
	// batchSize is a batch size histogram, buckets 1, 2, 4 … 2^(n-1).
	batchSize := func(name, help string, n int) prometheus.Histogram {
		return prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: prometheus.ExponentialBuckets(1, 2, n)})
	}
	m := &Metrics{
		In: counter("ste_stage_records_in_total",
			"Records consumed per stage.", "stage"),
		StageOut: counter("ste_stage_records_out_total",
			"Records emitted per stage (to the next stage, outputs, exceptions and audit).", "stage"),
		Out: counter("ste_outputs_total",
			"Outputs emitted by type (ACK, NACK, STATUS, CLS).", "type"),
		Processing: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "ste_stage_processing_seconds",
			Help: "Time a stage spends on one record.", Buckets: prometheus.ExponentialBuckets(5e-6, 2, 16)}, []string{"stage"}),
		Critical: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "ste_stage_critical_seconds",
			Help:    "Critical time: from the inbound record's timestamp to the end of this stage's work.",
			Buckets: prometheus.ExponentialBuckets(1e-4, 2, 20)}, []string{"stage"}),
		Clock: gauge("ste_event_time_clock_seconds",
			"Event-time clock (newest accepted Created) per match partition.", "partition"),
		ClockJumps: counter("ste_event_time_jumps_total",
			"Times a match partition's event-time clock moved by more than the retention at once (a message dated far ahead: the older trades expired with it).", "partition"),
		ClockJump: gauge("ste_event_time_last_jump_seconds",
			"Size of a match partition's last event-time jump beyond the retention (ste_event_time_jumps_total).", "partition"),
		ClockJumpAt: gauge("ste_event_time_last_jump_timestamp_seconds",
			"Wall time (Unix seconds) of a match partition's last event-time jump beyond the retention.", "partition"),
		Rejected: counter("ste_rejected_total",
			"Records rejected, by reason.", "reason"),
		Accepted: counter("ste_matched_messages_total",
			"Messages handled by the match stage: new or duplicate.", "kind"),
		Expired: counter("ste_trades_purged_total",
			"Trades purged by retention; expired = with a STATUS EXPIRED.", "kind"),
		Corrupt: counter("ste_corrupt_records_total",
			"Internal records or state values that could not be read (skipped, never fatal).", "stage"),
		OpenTrades: gauge("ste_open_trades",
			"Trades and tombstones held per match partition.", "partition"),
		Rebalances: prometheus.NewCounter(prometheus.CounterOpts{Name: "ste_rebalances_total",
			Help: "Partition assignments received by this instance's groups."}),
		Restarts: counter("ste_group_restarts_total",
			"Processor groups restarted in-process after a transient failure.", "stage"),
		Internal: counter("ste_internal_errors_total",
			"Records that made a stage fail (a panic): each became an INTERNAL exception.", "stage"),
		VerifyBatch: batchSize("ste_verify_batch_size",
			"Records taken together by the validate stage's batch signature verification (1: verified alone).", 9),
		SealBatch: batchSize("ste_seal_batch_size",
			"Outputs signed together in one batch by a processor's producer (1: signed alone).", 7),
		AuditBatch: batchSize("ste_audit_batch_size",
			"Audit events a stage gathered into one batch of audit records (one record per audit partition).", 10),
		TableBatch: batchSize("ste_table_batch_size",
			"Identity table writes gathered into one batch of changelog records (one record per changelog partition).", 10),
		Lag: gauge("ste_consumer_lag",
			"Records behind the end of a stage's input, per partition this instance owns.", "stage", "topic", "partition"),
		GroupLag: gauge("ste_group_lag",
			"Records behind the end of a stage's input topic, over the whole group (every instance).", "stage", "topic"),
		TableRestored: counter("ste_table_records_restored_total",
			"Changelog records replayed into disk tables on start: those after each partition's local offset.", "table"),
		TableRebuilds: counter("ste_table_rebuilds_total",
			"Disk table partitions whose local state was dropped and rebuilt from the changelog (stale, inconsistent or another layout; the log says why).", "table"),
		Trades: query.NewCollector(),
	}
	m.in.with, m.stageOut.with, m.outs.with = m.In.WithLabelValues, m.StageOut.WithLabelValues, m.Out.WithLabelValues
	m.processing.with, m.critical.with = m.Processing.WithLabelValues, m.Critical.WithLabelValues
	stage := func(i uint8) string { return topology.Stage(i).String() }
	m.in.label, m.stageOut.label, m.processing.label, m.critical.label = stage, stage, stage, stage
	m.outs.label = func(i uint8) string { return schemas.MsgType(i).String() }
	m.newMsg, m.dupMsg = m.Accepted.WithLabelValues("new"), m.Accepted.WithLabelValues("duplicate")
	reg.MustRegister(m.In, m.StageOut, m.Out, m.Processing, m.Critical, m.Clock, m.ClockJumps, m.ClockJump, m.ClockJumpAt, m.Rejected, m.Accepted, m.Expired,
		m.Corrupt, m.OpenTrades, m.Rebalances, m.Restarts, m.Internal, m.VerifyBatch, m.SealBatch, m.AuditBatch, m.TableBatch, m.Lag, m.GroupLag, m.TableRestored, m.TableRebuilds, m.Trades)
	return m
}

// ObserveWork counts a record into stage st: its processing time is the
// work given — the stage's time on the record itself, which for the
// validate stage's batch verification is not one stretch of time (its
// callback, its share of its batch's verification, its writing: the
// writer's run) — and its critical time runs from its inbound record's
// timestamp (0: unknown) to now.
func (m *Metrics) ObserveWork(st topology.Stage, work time.Duration, inboundTS int64) {
	if m == nil {
		return
	}
	m.in.get(uint8(st)).Inc()
	m.processing.get(uint8(st)).Observe(work.Seconds())
	if inboundTS > 0 {
		m.critical.get(uint8(st)).Observe(float64(time.Now().UnixMicro()-inboundTS) / 1e6)
	}
}

// CountOut counts one record stage st emitted (to the next stage, outputs,
// exceptions or audit).
func (m *Metrics) CountOut(st topology.Stage) {
	if m != nil {
		m.stageOut.get(uint8(st)).Inc()
	}
}

// CountRejected counts one record rejected with reason r.
func (m *Metrics) CountRejected(r schemas.Reason) {
	if m != nil {
		m.Rejected.WithLabelValues(r.String()).Inc()
	}
}

// CountAccepted counts one message the match stage took: new or a duplicate.
func (m *Metrics) CountAccepted(dup bool) {
	if m == nil {
		return
	}
	if dup {
		m.dupMsg.Inc()
	} else {
		m.newMsg.Inc()
	}
}

// CountExpired counts one trade purged by retention, with a STATUS EXPIRED
// or silently.
func (m *Metrics) CountExpired(withStatus bool) {
	if m == nil {
		return
	}
	if withStatus {
		m.Expired.WithLabelValues("expired").Inc()
	} else {
		m.Expired.WithLabelValues("silent").Inc()
	}
}

// CountCorrupt counts one internal record or state value stage st could
// not read.
func (m *Metrics) CountCorrupt(st topology.Stage) {
	if m != nil {
		m.Corrupt.WithLabelValues(st.String()).Inc()
	}
}

// CountOutputs counts the outputs emitted, by type.
func (m *Metrics) CountOutputs(outs []schemas.Output) {
	if m == nil {
		return
	}
	for i := range outs {
		m.outs.get(uint8(outs[i].Type)).Inc()
	}
}

// SetClock sets match partition p's event-time clock (Unix nanoseconds).
func (m *Metrics) SetClock(p int32, clock int64) {
	if m != nil {
		m.Clock.WithLabelValues(strconv.Itoa(int(p))).Set(float64(clock) / 1e9)
	}
}

// CountClockJump counts a jump of match partition p's event-time clock by
// more than the retention, of by, at wall time at.
func (m *Metrics) CountClockJump(p int32, by time.Duration, at time.Time) {
	if m != nil {
		label := strconv.Itoa(int(p))
		m.ClockJumps.WithLabelValues(label).Inc()
		m.ClockJump.WithLabelValues(label).Set(by.Seconds())
		m.ClockJumpAt.WithLabelValues(label).Set(float64(at.UnixMilli()) / 1e3)
	}
}

// Initialise creates the series of the stages an instance runs at zero, so
// that they exist on /metrics before the first record (a counter that
// appears only with its first increment hides a stage that never worked
// from rate() and from alerts). Stages the instance does not run get none.
func (m *Metrics) Initialise(stages []topology.Stage) {
	if m == nil {
		return
	}
	for _, st := range stages {
		m.In.WithLabelValues(st.String())
		m.StageOut.WithLabelValues(st.String())
		m.Corrupt.WithLabelValues(st.String())
		m.Restarts.WithLabelValues(st.String())
		m.Internal.WithLabelValues(st.String())
		if st == topology.StageMatch {
			for _, kind := range []string{"new", "duplicate"} {
				m.Accepted.WithLabelValues(kind)
			}
			for _, kind := range []string{"expired", "silent"} {
				m.Expired.WithLabelValues(kind)
			}
		}
	}
	if len(stages) > 0 {
		for _, r := range schemas.Reasons {
			m.Rejected.WithLabelValues(r.String())
		}
	}
}

// CountRestart counts one in-process restart of stage st's group.
func (m *Metrics) CountRestart(st topology.Stage) {
	if m != nil {
		m.Restarts.WithLabelValues(st.String()).Inc()
	}
}

// CountInternal counts one record that made stage st fail (an INTERNAL
// exception).
func (m *Metrics) CountInternal(st topology.Stage) {
	if m != nil {
		m.Internal.WithLabelValues(st.String()).Inc()
	}
}

// CountTableRebuild counts one disk table partition of stage's table
// rebuilt from its changelog.
func (m *Metrics) CountTableRebuild(stage string) {
	if m != nil {
		m.TableRebuilds.WithLabelValues(stage).Inc()
	}
}

// CountTableRestored counts n changelog records replayed into stage's
// disk table on start.
func (m *Metrics) CountTableRestored(stage string, n int64) {
	if m != nil {
		m.TableRestored.WithLabelValues(stage).Add(float64(n))
	}
}
