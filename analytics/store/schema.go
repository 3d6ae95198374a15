package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Table names.
const (
	TableAudit      = "audit"
	TableCLS        = "cls"
	TableExceptions = "exceptions"
	TableOutbound   = "outbound"
	TableMonitor    = "monitor"
	TableBenchRuns  = "bench_runs"
	// TableThroughput is the target of the per-second throughput views.
	TableThroughput = "throughput_1s"
	// TableNamespaces records when each namespace last received rows (the
	// reports' default namespace is the most recent).
	TableNamespaces = "namespaces"
	tableMigrations = "schema_migrations"
	tableSettings   = "store_settings"
)

// dedupWindow is how many recent inserts per table ClickHouse remembers for
// insert_deduplication_token. A non-replicated MergeTree deduplicates only
// with a window; a view's target needs its own (otherwise a replayed batch,
// refused by the source table, still reaches the view). 10,000 inserts at
// about one per second per table is hours — far more than a retry needs.
const dedupWindow = "non_replicated_deduplication_window = 10000"

// migration is one schema version. Statements must be idempotent (IF NOT
// EXISTS, ADD COLUMN IF NOT EXISTS, ...): two processes may start at once
// against a fresh store and both apply it.
type migration struct {
	version int
	name    string
	stmts   []string
}

// ttlTables are the tables with a retention TTL, and the expression the TTL
// adds the retention to: the time the row's record was written.
var ttlTables = []struct{ table, expr string }{
	{TableAudit, "toDateTime(ts)"},
	{TableCLS, "toDateTime(ts)"},
	{TableExceptions, "toDateTime(ts)"},
	{TableMonitor, "toDateTime(ts)"},
	{TableThroughput, "sec"},
	{TableOutbound, "toDateTime(ts)"},
}

// Placeholders in migrations: {db} the database, {ttl} the retention in
// seconds, {dedup} the deduplication window setting.
var migrations = []migration{
	{1, "tables for audit steps, CLS, exceptions, monitor samples and bench runs; per-second throughput views", []string{
		// One row per step of each audit record. Sorted for the per-stage
		// time-range queries; partitioned by the record's day so every row
		// of a record lands in the same part (one insert is all-or-nothing
		// per part).
		`CREATE TABLE IF NOT EXISTS {db}.audit (
			namespace         LowCardinality(String),
			topic_id          UUID,
			partition         Int32,
			offset            Int64,
			ts                DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1)),
			step              UInt8,
			steps             UInt8,
			at                DateTime64(6, 'UTC') CODEC(Delta, ZSTD(1)),
			stage             LowCardinality(String),
			event             LowCardinality(String),
			outcome           LowCardinality(String),
			reason            LowCardinality(String),
			trade_key         String,
			sender            LowCardinality(String),
			msg_id            String,
			msg_type          LowCardinality(String),
			function          LowCardinality(String),
			inbound_partition Int32,
			inbound_offset    Int64,
			inbound_at        DateTime64(6, 'UTC'),
			outputs           Array(String)
		) ENGINE = MergeTree
		PARTITION BY toDate(ts)
		ORDER BY (namespace, stage, at)
		TTL toDateTime(ts) + toIntervalSecond({ttl})
		SETTINGS {dedup}`,
		`CREATE TABLE IF NOT EXISTS {db}.cls (
			namespace      LowCardinality(String),
			topic_id       UUID,
			partition      Int32,
			offset         Int64,
			ts             DateTime64(3, 'UTC'),
			msg_id         String,
			function       LowCardinality(String),
			trade_key      String,
			version        UInt32,
			related_msg_id String,
			created        DateTime64(3, 'UTC'),
			trade_ref      String,
			trade_date     Date32,
			isin           LowCardinality(String),
			side           LowCardinality(String),
			broker         LowCardinality(String),
			inv_mgr        LowCardinality(String),
			quantity       Int64,
			price          String,
			trade_ccy      LowCardinality(String),
			settle_date    Date32,
			matched_at     DateTime64(3, 'UTC'),
			legs           UInt16,
			body           String CODEC(ZSTD(3))
		) ENGINE = MergeTree
		PARTITION BY toDate(ts)
		ORDER BY (namespace, msg_id, ts)
		TTL toDateTime(ts) + toIntervalSecond({ttl})
		SETTINGS {dedup}`,
		`CREATE TABLE IF NOT EXISTS {db}.exceptions (
			namespace         LowCardinality(String),
			topic_id          UUID,
			partition         Int32,
			offset            Int64,
			ts                DateTime64(3, 'UTC'),
			id                String,
			reason            LowCardinality(String),
			detail            String,
			sender            LowCardinality(String),
			msg_id            String,
			received_at       DateTime64(6, 'UTC'),
			source_partition  Int32,
			source_offset     Int64,
			payload           String CODEC(ZSTD(3)),
			payload_truncated Bool,
			nack_msg_id       String
		) ENGINE = MergeTree
		PARTITION BY toDate(ts)
		ORDER BY (namespace, reason, ts)
		TTL toDateTime(ts) + toIntervalSecond({ttl})
		SETTINGS {dedup}`,
		`CREATE TABLE IF NOT EXISTS {db}.monitor (
			namespace      LowCardinality(String),
			topic_id       UUID,
			partition      Int32,
			offset         Int64,
			ts             DateTime64(3, 'UTC'),
			at             DateTime64(6, 'UTC'),
			stage          LowCardinality(String),
			interval       Float64,
			arrivals       Int64,
			completions    Int64,
			queue          Int64,
			part           Array(Int32),
			part_end       Array(Int64),
			part_committed Array(Int64),
			part_lag       Array(Int64)
		) ENGINE = MergeTree
		PARTITION BY toDate(ts)
		ORDER BY (namespace, stage, at)
		TTL toDateTime(ts) + toIntervalSecond({ttl})
		SETTINGS {dedup}`,
		// Bench runs are the long-term record of performance: no TTL.
		`CREATE TABLE IF NOT EXISTS {db}.bench_runs (
			namespace           LowCardinality(String),
			run_id              String,
			started_at          DateTime64(3, 'UTC'),
			trades              UInt64,
			messages            UInt64,
			cls                 UInt64,
			exceptions          UInt64,
			seconds             Float64,
			msgs_per_sec        Float64,
			latency_p50_ms      Float64,
			latency_p99_ms      Float64,
			latency_max_ms      Float64,
			processor_instances UInt32,
			partitions          UInt32,
			broker              LowCardinality(String),
			analytics           Bool,
			verify_signatures   Bool,
			result              String
		) ENGINE = MergeTree
		PARTITION BY toDate(started_at)
		ORDER BY (started_at, run_id)
		SETTINGS {dedup}`,
		// Per-second counts per namespace, stage and event. A
		// SummingMergeTree: always read it with sum(n) ... GROUP BY, parts
		// are merged lazily. Its own deduplication window makes a replayed
		// batch harmless here too.
		`CREATE TABLE IF NOT EXISTS {db}.throughput_1s (
			namespace LowCardinality(String),
			stage     LowCardinality(String),
			event     LowCardinality(String),
			sec       DateTime('UTC'),
			n         UInt64
		) ENGINE = SummingMergeTree
		PARTITION BY toDate(sec)
		ORDER BY (namespace, stage, event, sec)
		TTL sec + toIntervalSecond({ttl})
		SETTINGS {dedup}`,
		// Each stage a message went through, at the time the stage handled it.
		`CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.throughput_steps_mv TO {db}.throughput_1s AS
		SELECT namespace, stage, event, toDateTime(at, 'UTC') AS sec, count() AS n
		FROM {db}.audit WHERE stage != ''
		GROUP BY namespace, stage, event, sec`,
		// Stage "network": journeys ended (messages through the whole
		// pipeline), at their last step, by outcome. Retention purges are not
		// messages and are left out.
		`CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.throughput_network_mv TO {db}.throughput_1s AS
		SELECT namespace, 'network' AS stage, outcome AS event, toDateTime(at, 'UTC') AS sec, count() AS n
		FROM {db}.audit WHERE step + 1 = steps AND outcome != 'expired'
		GROUP BY namespace, stage, event, sec`,
		// Stage "inbound": messages as they were sent (the inbound record's
		// timestamp) — the offered load.
		`CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.throughput_inbound_mv TO {db}.throughput_1s AS
		SELECT namespace, 'inbound' AS stage, outcome AS event, toDateTime(inbound_at, 'UTC') AS sec, count() AS n
		FROM {db}.audit WHERE step = 0 AND outcome != 'expired'
		GROUP BY namespace, stage, event, sec`,
		`CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.throughput_cls_mv TO {db}.throughput_1s AS
		SELECT namespace, 'cls' AS stage, function AS event, toDateTime(ts, 'UTC') AS sec, count() AS n
		FROM {db}.cls
		GROUP BY namespace, stage, event, sec`,
		`CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.throughput_exceptions_mv TO {db}.throughput_1s AS
		SELECT namespace, 'exceptions' AS stage, reason AS event, toDateTime(ts, 'UTC') AS sec, count() AS n
		FROM {db}.exceptions
		GROUP BY namespace, stage, event, sec`,
		`CREATE TABLE IF NOT EXISTS {db}.namespaces (
			namespace   String,
			last_ingest DateTime64(3, 'UTC')
		) ENGINE = ReplacingMergeTree(last_ingest)
		ORDER BY namespace`,
		`CREATE TABLE IF NOT EXISTS {db}.store_settings (
			name  String,
			value String,
			at    DateTime64(3, 'UTC')
		) ENGINE = ReplacingMergeTree(at)
		ORDER BY name`,
	}},
	{2, "outbound: ACKs, NACKs and STATUS as participants received them (with cls and exceptions, a run's outcome for ste diff)", []string{
		`CREATE TABLE IF NOT EXISTS {db}.outbound (
			namespace      LowCardinality(String),
			topic_id       UUID,
			partition      Int32,
			offset         Int64,
			ts             DateTime64(3, 'UTC'),
			msg_id         String,
			msg_type       LowCardinality(String),
			function       LowCardinality(String),
			receiver       LowCardinality(String),
			related_msg_id String,
			trade_key      String,
			status         LowCardinality(String),
			reason         LowCardinality(String),
			criteria       Array(UInt8),
			body           String CODEC(ZSTD(3))
		) ENGINE = MergeTree
		PARTITION BY toDate(ts)
		ORDER BY (namespace, msg_type, msg_id, ts)
		TTL toDateTime(ts) + toIntervalSecond({ttl})
		SETTINGS {dedup}`,
	}},
	{3, "audit: the trade's market and cutoff on the match stage's rows (timeliness scorecards)", []string{
		// Rows written before have market '' and cutoff 0: the timeliness
		// report counts a trade under the last market and cutoff any of its
		// rows carries, and leaves out trades with none (docs/timeliness.md).
		`ALTER TABLE {db}.audit ADD COLUMN IF NOT EXISTS market LowCardinality(String) DEFAULT ''`,
		`ALTER TABLE {db}.audit ADD COLUMN IF NOT EXISTS cutoff DateTime64(3, 'UTC') DEFAULT toDateTime64(0, 3, 'UTC')`,
	}},
	{4, "outbound: the lifecycle of contract version 3 — CNF, STATUS lifecycle values, BLK and ALG facts from their bodies (affirmation timeliness, cancellations, allegement age)", []string{
		// Read from the Body of each version 3 output (rows.Lifecycle):
		// the key fields a CNF NEW and an ALG NEW carry, the MatchDigest of
		// a CNF and of a STATUS with a version 3 value, a STATUS's proposal,
		// rejection reasons, pending changes, cancel requests ("STATE
		// Sender:MsgId") and accepting messages, an ALG NEW's items. Rows
		// written before are left with the defaults (their bodies are kept:
		// docs/analytics.md says how to read them).
		`ALTER TABLE {db}.outbound ADD COLUMN IF NOT EXISTS trade_ref String DEFAULT ''`,
		`ALTER TABLE {db}.outbound ADD COLUMN IF NOT EXISTS broker LowCardinality(String) DEFAULT ''`,
		`ALTER TABLE {db}.outbound ADD COLUMN IF NOT EXISTS inv_mgr LowCardinality(String) DEFAULT ''`,
		`ALTER TABLE {db}.outbound ADD COLUMN IF NOT EXISTS match_digest String DEFAULT ''`,
		`ALTER TABLE {db}.outbound ADD COLUMN IF NOT EXISTS proposal_digest String DEFAULT ''`,
		`ALTER TABLE {db}.outbound ADD COLUMN IF NOT EXISTS reject_reasons Array(LowCardinality(String)) DEFAULT []`,
		`ALTER TABLE {db}.outbound ADD COLUMN IF NOT EXISTS pending Array(String) DEFAULT []`,
		`ALTER TABLE {db}.outbound ADD COLUMN IF NOT EXISTS cancel_requests Array(String) DEFAULT []`,
		`ALTER TABLE {db}.outbound ADD COLUMN IF NOT EXISTS cancelled_by Array(String) DEFAULT []`,
		`ALTER TABLE {db}.outbound ADD COLUMN IF NOT EXISTS owed Array(String) DEFAULT []`,
	}},
}

// SchemaVersion is the newest migration this code knows.
func SchemaVersion() int { return migrations[len(migrations)-1].version }

// Migrations lists the applied schema versions, oldest first.
func (s *Store) Migrations(ctx context.Context) ([]int, error) {
	rows, err := s.conn.Query(ctx, "SELECT DISTINCT version FROM "+s.Table(tableMigrations)+" ORDER BY version")
	if err != nil {
		return nil, fmt.Errorf("clickhouse: schema versions: %s", oneLine(err))
	}
	defer rows.Close()
	var vs []int
	for rows.Next() {
		var v uint32
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		vs = append(vs, int(v))
	}
	return vs, rows.Err()
}

// migrate creates the database and applies missing migrations in order,
// then the retention.
func (s *Store) migrate(ctx context.Context, o Options) error {
	if err := s.exec(ctx, "CREATE DATABASE IF NOT EXISTS "+s.db); err != nil {
		return err
	}
	if err := s.exec(ctx, `CREATE TABLE IF NOT EXISTS `+s.Table(tableMigrations)+` (
			version    UInt32,
			name       String,
			applied_at DateTime64(3, 'UTC')
		) ENGINE = ReplacingMergeTree(applied_at) ORDER BY version`); err != nil {
		return err
	}
	applied, err := s.Migrations(ctx)
	if err != nil {
		return err
	}
	current := 0
	if len(applied) > 0 {
		current = applied[len(applied)-1]
	}
	if current > SchemaVersion() {
		return fmt.Errorf("analytics store %s has schema version %d, newer than this ste's %d: upgrade ste", s.db, current, SchemaVersion())
	}
	if o.NoMigrate {
		if current < SchemaVersion() {
			return fmt.Errorf("analytics store %s has schema version %d, want %d: run ste analytics once to migrate it", s.db, current, SchemaVersion())
		}
		return nil
	}
	retention := o.Retention
	if retention <= 0 && current > 0 {
		// A table added by a later migration gets the TTL the store has.
		if retention, err = s.Retention(ctx); err != nil {
			return err
		}
	}
	if retention <= 0 {
		retention = DefaultRetention
	}
	if current < SchemaVersion() {
		r := strings.NewReplacer("{db}", s.db, "{ttl}", strconv.FormatInt(int64(retention/time.Second), 10), "{dedup}", dedupWindow)
		for _, m := range migrations {
			if m.version <= current {
				continue
			}
			for _, st := range m.stmts {
				if err := s.exec(ctx, r.Replace(st)); err != nil {
					return fmt.Errorf("migration %d (%s): %w", m.version, m.name, err)
				}
			}
			if err := s.insertRow(ctx, tableMigrations, "version, name, applied_at", uint32(m.version), m.name, time.Now().UTC()); err != nil {
				return err
			}
			if m.version == 1 {
				// The TTL the tables were just created with.
				if err := s.setSetting(ctx, "retention_seconds", strconv.FormatInt(int64(retention/time.Second), 10)); err != nil {
					return err
				}
			}
		}
	}
	if o.Retention > 0 {
		return s.SetRetention(ctx, o.Retention)
	}
	return nil
}

// Retention is the TTL the store's tables have.
func (s *Store) Retention(ctx context.Context) (time.Duration, error) {
	v, err := s.setting(ctx, "retention_seconds")
	if err != nil || v == "" {
		return 0, err
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("store setting retention_seconds %q: %v", v, err)
	}
	return time.Duration(n) * time.Second, nil
}

// SetRetention changes the TTL of every table that has one, if it differs.
// Existing parts are not rewritten at once (materialize_ttl_after_modify=0):
// rows past the new retention go at the next merge.
func (s *Store) SetRetention(ctx context.Context, d time.Duration) error {
	if d < time.Minute {
		return fmt.Errorf("retention %v: at least a minute", d)
	}
	cur, err := s.Retention(ctx)
	if err != nil {
		return err
	}
	secs := int64(d / time.Second)
	if cur == time.Duration(secs)*time.Second {
		return nil
	}
	ctx = clickhouseSettings(ctx, map[string]any{"materialize_ttl_after_modify": 0})
	for _, t := range ttlTables {
		if err := s.exec(ctx, fmt.Sprintf("ALTER TABLE %s MODIFY TTL %s + toIntervalSecond(%d)", s.Table(t.table), t.expr, secs)); err != nil {
			return err
		}
	}
	return s.setSetting(ctx, "retention_seconds", strconv.FormatInt(secs, 10))
}

func (s *Store) setting(ctx context.Context, name string) (string, error) {
	var v string
	err := s.conn.QueryRow(ctx, "SELECT argMax(value, at) FROM "+s.Table(tableSettings)+" WHERE name = ?", name).Scan(&v)
	if err != nil {
		return "", fmt.Errorf("clickhouse: store setting %s: %s", name, oneLine(err))
	}
	return v, nil
}

func (s *Store) setSetting(ctx context.Context, name, value string) error {
	return s.insertRow(ctx, tableSettings, "name, value, at", name, value, time.Now().UTC())
}
