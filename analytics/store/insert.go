package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/google/uuid"

	"github.com/ste-utility/ste/analytics/rows"
)

// Inserts are columnar batches sent with clickhouse-go's PrepareBatch (one
// HTTP request or native INSERT per call). A non-empty token is sent as
// insert_deduplication_token: ClickHouse then refuses a second insert with
// the same token into the table (it has a deduplication window) and into
// each materialized view target, so a retried batch — after a timeout whose
// insert did land, say — never doubles rows or per-second counts. The
// token must name exactly the rows of the batch: the ingest derives it from
// the topic, partitions and offset ranges the batch holds.

// column is one column of a batch: its name and a typed slice of values.
type column struct {
	name   string
	values any
}

func col[T any](name string, n int, f func(i int) T) column {
	v := make([]T, n)
	for i := range v {
		v[i] = f(i)
	}
	return column{name, v}
}

// insertSettings are the settings of every batch insert. async_insert is
// off because the ingest batches itself (and an async insert would be
// acknowledged before it is durable); the deduplication of dependent views
// is on explicitly, whatever the server's default.
func insertSettings(ctx context.Context, token string) context.Context {
	set := map[string]any{
		"async_insert": 0,
		"deduplicate_blocks_in_dependent_materialized_views": 1,
	}
	if token != "" {
		set["insert_deduplication_token"] = token
	}
	return clickhouseSettings(ctx, set)
}

func clickhouseSettings(ctx context.Context, set map[string]any) context.Context {
	return clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings(set)))
}

func (s *Store) insert(ctx context.Context, table, token string, cols []column) error {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
	}
	ctx = insertSettings(ctx, token)
	b, err := s.conn.PrepareBatch(ctx, "INSERT INTO "+s.Table(table)+" ("+strings.Join(names, ", ")+")")
	if err != nil {
		return fmt.Errorf("clickhouse: insert into %s: %s", table, oneLine(err))
	}
	for i, c := range cols {
		if err := b.Column(i).Append(c.values); err != nil {
			_ = b.Abort()
			return fmt.Errorf("clickhouse: insert into %s, column %s: %s", table, c.name, oneLine(err))
		}
	}
	if err := b.Send(); err != nil {
		return fmt.Errorf("clickhouse: insert into %s: %s", table, oneLine(err))
	}
	return nil
}

// insertRow inserts one row (bookkeeping tables), without a token.
func (s *Store) insertRow(ctx context.Context, table, columns string, values ...any) error {
	b, err := s.conn.PrepareBatch(insertSettings(ctx, ""), "INSERT INTO "+s.Table(table)+" ("+columns+")")
	if err != nil {
		return fmt.Errorf("clickhouse: insert into %s: %s", table, oneLine(err))
	}
	if err := b.Append(values...); err != nil {
		_ = b.Abort()
		return fmt.Errorf("clickhouse: insert into %s: %s", table, oneLine(err))
	}
	if err := b.Send(); err != nil {
		return fmt.Errorf("clickhouse: insert into %s: %s", table, oneLine(err))
	}
	return nil
}

// epoch stands for "no time": ClickHouse dates start in 1900 (Date32,
// DateTime64) or 1970 (DateTime), Go's zero time is year 1.
var epoch = time.Unix(0, 0).UTC()

func t0(t time.Time) time.Time {
	if t.IsZero() {
		return epoch
	}
	return t
}

func sourceCols[T any](rs []T, src func(i int) *rows.Source) []column {
	n := len(rs)
	return []column{
		col(
			"namespace", n, func(i int) string { return src(i).Namespace }),
		col("topic_id", n, func(i int) uuid.UUID { return src(i).TopicID }),
		col("partition", n, func(i int) int32 { return src(i).Partition }),
		col("offset", n, func(i int) int64 { return src(i).Offset }),
		col("ts", n, func(i int) time.Time { return t0(src(i).Time) }),
	}
}

// InsertAudit inserts audit step rows.
func (s *Store) InsertAudit(ctx context.Context, token string, rs []rows.Audit) error {
	if len(rs) == 0 {
		return nil
	}
	n := len(rs)
	cols := append(sourceCols(rs, func(i int) *rows.Source { return &rs[i].Source }),
		col("step", n, func(i int) uint8 { return rs[i].Step }),
		col("steps", n, func(i int) uint8 { return rs[i].Steps }),
		col("at", n, func(i int) time.Time { return t0(rs[i].At) }),
		col("stage", n, func(i int) string { return rs[i].Stage }),
		col("event", n, func(i int) string { return rs[i].Event }),
		col("outcome", n, func(i int) string { return rs[i].Outcome }),
		col("reason", n, func(i int) string { return rs[i].Reason }),
		col("trade_key", n, func(i int) string { return rs[i].TradeKey }),
		col("sender", n, func(i int) string { return rs[i].Sender }),
		col("msg_id", n, func(i int) string { return rs[i].MsgId }),
		col("msg_type", n, func(i int) string { return rs[i].MsgType }),
		col("function", n, func(i int) string { return rs[i].Function }),
		col("inbound_partition", n, func(i int) int32 { return rs[i].InboundPartition }),
		col("inbound_offset", n, func(i int) int64 { return rs[i].InboundOffset }),
		col("inbound_at", n, func(i int) time.Time { return t0(rs[i].InboundAt) }),
		col("outputs", n, func(i int) []string {
			if rs[i].Outputs == nil {
				return []string{}
			}
			return rs[i].Outputs
		}),
		col("market", n, func(i int) string { return rs[i].Market }),
		col("cutoff", n, func(i int) time.Time { return t0(rs[i].Cutoff) }),
	)
	return s.insert(ctx, TableAudit, token, cols)
}

// InsertCLS inserts CLS rows.
func (s *Store) InsertCLS(ctx context.Context, token string, rs []rows.CLS) error {
	if len(rs) == 0 {
		return nil
	}
	n := len(rs)
	cols := append(sourceCols(rs, func(i int) *rows.Source { return &rs[i].Source }),
		col("msg_id", n, func(i int) string { return rs[i].MsgId }),
		col("function", n, func(i int) string { return rs[i].Function }),
		col("trade_key", n, func(i int) string { return rs[i].TradeKey }),
		col("version", n, func(i int) uint32 { return rs[i].Version }),
		col("related_msg_id", n, func(i int) string { return rs[i].RelatedMsgId }),
		col("created", n, func(i int) time.Time { return t0(rs[i].Created) }),
		col("trade_ref", n, func(i int) string { return rs[i].TradeRef }),
		col("trade_date", n, func(i int) time.Time { return t0(rs[i].TradeDate) }),
		col("isin", n, func(i int) string { return rs[i].ISIN }),
		col("side", n, func(i int) string { return rs[i].Side }),
		col("broker", n, func(i int) string { return rs[i].Broker }),
		col("inv_mgr", n, func(i int) string { return rs[i].InvMgr }),
		col("quantity", n, func(i int) int64 { return rs[i].Quantity }),
		col("price", n, func(i int) string { return rs[i].Price }),
		col("trade_ccy", n, func(i int) string { return rs[i].TradeCcy }),
		col("settle_date", n, func(i int) time.Time { return t0(rs[i].SettleDate) }),
		col("matched_at", n, func(i int) time.Time { return t0(rs[i].MatchedAt) }),
		col("legs", n, func(i int) uint16 { return rs[i].Legs }),
		col("body", n, func(i int) string { return rs[i].Body }),
	)
	return s.insert(ctx, TableCLS, token, cols)
}

// InsertExceptions inserts exception rows.
func (s *Store) InsertExceptions(ctx context.Context, token string, rs []rows.Exception) error {
	if len(rs) == 0 {
		return nil
	}
	n := len(rs)
	cols := append(sourceCols(rs, func(i int) *rows.Source { return &rs[i].Source }),
		col("id", n, func(i int) string { return rs[i].ID }),
		col("reason", n, func(i int) string { return rs[i].Reason }),
		col("detail", n, func(i int) string { return rs[i].Detail }),
		col("sender", n, func(i int) string { return rs[i].Sender }),
		col("msg_id", n, func(i int) string { return rs[i].MsgId }),
		col("received_at", n, func(i int) time.Time { return t0(rs[i].ReceivedAt) }),
		col("source_partition", n, func(i int) int32 { return rs[i].SourcePartition }),
		col("source_offset", n, func(i int) int64 { return rs[i].SourceOffset }),
		col("payload", n, func(i int) string { return rs[i].Payload }),
		col("payload_truncated", n, func(i int) bool { return rs[i].PayloadTruncated }),
		col("nack_msg_id", n, func(i int) string { return rs[i].NACK }),
	)
	return s.insert(ctx, TableExceptions, token, cols)
}

// orEmpty is s, or an empty array for nil (a column value is never NULL).
func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// InsertOutbound inserts outbound rows (ACK, NACK, STATUS; CNF, BLK, ALG
// with their lifecycle facts).
func (s *Store) InsertOutbound(ctx context.Context, token string, rs []rows.Outbound) error {
	if len(rs) == 0 {
		return nil
	}
	n := len(rs)
	cols := append(sourceCols(rs, func(i int) *rows.Source { return &rs[i].Source }),
		col("msg_id", n, func(i int) string { return rs[i].MsgId }),
		col("msg_type", n, func(i int) string { return rs[i].MsgType }),
		col("function", n, func(i int) string { return rs[i].Function }),
		col("receiver", n, func(i int) string { return rs[i].Receiver }),
		col("related_msg_id", n, func(i int) string { return rs[i].RelatedMsgId }),
		col("trade_key", n, func(i int) string { return rs[i].TradeKey }),
		col("status", n, func(i int) string { return rs[i].Status }),
		col("reason", n, func(i int) string { return rs[i].Reason }),
		col("criteria", n, func(i int) []uint8 {
			if rs[i].Criteria == nil {
				return []uint8{}
			}
			return rs[i].Criteria
		}),
		col("body", n, func(i int) string { return rs[i].Body }),
		col("trade_ref", n, func(i int) string { return rs[i].TradeRef }),
		col("broker", n, func(i int) string { return rs[i].Broker }),
		col("inv_mgr", n, func(i int) string { return rs[i].InvMgr }),
		col("match_digest", n, func(i int) string { return rs[i].MatchDigest }),
		col("proposal_digest", n, func(i int) string { return rs[i].ProposalDigest }),
		col("reject_reasons", n, func(i int) []string { return orEmpty(rs[i].RejectReasons) }),
		col("pending", n, func(i int) []string { return orEmpty(rs[i].Pending) }),
		col("cancel_requests", n, func(i int) []string { return orEmpty(rs[i].CancelRequests) }),
		col("cancelled_by", n, func(i int) []string { return orEmpty(rs[i].CancelledBy) }),
		col("owed", n, func(i int) []string { return orEmpty(rs[i].Owed) }),
	)
	return s.insert(ctx, TableOutbound, token, cols)
}

// InsertMonitor inserts queue samples.
func (s *Store) InsertMonitor(ctx context.Context, token string, rs []rows.Monitor) error {
	if len(rs) == 0 {
		return nil
	}
	n := len(rs)
	orEmpty32 := func(v []int32) []int32 {
		if v == nil {
			return []int32{}
		}
		return v
	}
	orEmpty64 := func(v []int64) []int64 {
		if v == nil {
			return []int64{}
		}
		return v
	}
	cols := append(sourceCols(rs, func(i int) *rows.Source { return &rs[i].Source }),
		col("at", n, func(i int) time.Time { return t0(rs[i].At) }),
		col("stage", n, func(i int) string { return rs[i].Stage }),
		col("interval", n, func(i int) float64 { return rs[i].Interval }),
		col("arrivals", n, func(i int) int64 { return rs[i].Arrivals }),
		col("completions", n, func(i int) int64 { return rs[i].Completions }),
		col("queue", n, func(i int) int64 { return rs[i].Queue }),
		col("part", n, func(i int) []int32 { return orEmpty32(rs[i].Partitions) }),
		col("part_end", n, func(i int) []int64 { return orEmpty64(rs[i].PartEnd) }),
		col("part_committed", n, func(i int) []int64 { return orEmpty64(rs[i].PartCommitted) }),
		col("part_lag", n, func(i int) []int64 { return orEmpty64(rs[i].PartLag) }),
	)
	return s.insert(ctx, TableMonitor, token, cols)
}

// InsertBenchRun records one bench result. Its RunID is the deduplication
// token, so recording a run twice stores it once.
func (s *Store) InsertBenchRun(ctx context.Context, r rows.BenchRun) error {
	if r.RunID == "" {
		return fmt.Errorf("bench run without RunID")
	}
	rs := []rows.BenchRun{r}
	n := 1
	cols := []column{
		col("namespace", n, func(i int) string { return rs[i].Namespace }),
		col("run_id", n, func(i int) string { return rs[i].RunID }),
		col("started_at", n, func(i int) time.Time { return t0(rs[i].StartedAt) }),
		col("trades", n, func(i int) uint64 { return rs[i].Trades }),
		col("messages", n, func(i int) uint64 { return rs[i].Messages }),
		col("cls", n, func(i int) uint64 { return rs[i].CLS }),
		col("exceptions", n, func(i int) uint64 { return rs[i].Exceptions }),
		col("seconds", n, func(i int) float64 { return rs[i].Seconds }),
		col("msgs_per_sec", n, func(i int) float64 { return rs[i].MsgsPerSec }),
		col("latency_p50_ms", n, func(i int) float64 { return rs[i].LatencyP50ms }),
		col("latency_p99_ms", n, func(i int) float64 { return rs[i].LatencyP99ms }),
		col("latency_max_ms", n, func(i int) float64 { return rs[i].LatencyMaxms }),
		col("processor_instances", n, func(i int) uint32 { return rs[i].ProcessorInstances }),
		col("partitions", n, func(i int) uint32 { return rs[i].Partitions }),
		col("broker", n, func(i int) string { return rs[i].Broker }),
		col("analytics", n, func(i int) bool { return rs[i].Analytics }),
		col("verify_signatures", n, func(i int) bool { return rs[i].VerifySignatures }),
		col("result", n, func(i int) string { return rs[i].Result }),
	}
	if err := s.insert(ctx, TableBenchRuns, "bench:"+r.RunID, cols); err != nil {
		return err
	}
	return s.TouchNamespace(ctx, r.Namespace, time.Now())
}

// StoredOffsets returns, per partition, the highest offset of topicID's
// records stored in table for namespace ns. The ingest resumes after it:
// a batch that was inserted but whose offsets were never committed (a
// crash in between) is not read again.
func (s *Store) StoredOffsets(ctx context.Context, table, ns string, topicID uuid.UUID) (map[int32]int64, error) {
	rows, err := s.conn.Query(ctx, "SELECT partition, max(offset) FROM "+s.Table(table)+
		" WHERE namespace = ? AND topic_id = toUUID(?) GROUP BY partition", ns, topicID.String())
	if err != nil {
		return nil, fmt.Errorf("clickhouse: stored offsets of %s: %s", table, oneLine(err))
	}
	defer rows.Close()
	out := map[int32]int64{}
	for rows.Next() {
		var p int32
		var o int64
		if err := rows.Scan(&p, &o); err != nil {
			return nil, err
		}
		out[p] = o
	}
	return out, rows.Err()
}

// TouchNamespace records that ns received rows at t.
func (s *Store) TouchNamespace(ctx context.Context, ns string, t time.Time) error {
	return s.insertRow(ctx, TableNamespaces, "namespace, last_ingest", ns, t.UTC())
}

// Namespace is one namespace with data in the store.
type Namespace struct {
	Name       string    `json:"namespace"`
	LastIngest time.Time `json:"last_ingest"`
	// FirstData is when its data begins (reports set it: the first second
	// of its throughput; zero when it has none).
	FirstData time.Time `json:"first_data,omitzero"`
}

// Namespaces lists the namespaces that received rows, most recent first.
func (s *Store) Namespaces(ctx context.Context) ([]Namespace, error) {
	rows, err := s.conn.Query(ctx, "SELECT namespace, max(last_ingest) AS last FROM "+s.Table(TableNamespaces)+
		" GROUP BY namespace ORDER BY last DESC, namespace")
	if err != nil {
		return nil, fmt.Errorf("clickhouse: namespaces: %s", oneLine(err))
	}
	defer rows.Close()
	var out []Namespace
	for rows.Next() {
		var n Namespace
		if err := rows.Scan(&n.Name, &n.LastIngest); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// LatestNamespace is the namespace that most recently received rows, or ""
// if the store is empty.
func (s *Store) LatestNamespace(ctx context.Context) (string, error) {
	ns, err := s.Namespaces(ctx)
	if err != nil || len(ns) == 0 {
		return "", err
	}
	return ns[0].Name, nil
}
