package embedded_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/ext"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

func TestPingAndServerVersion(t *testing.T) {
	conn := openConn(t, sharedEndpoint(t))
	ctx := context.Background()
	if err := conn.Ping(ctx); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	v, err := conn.ServerVersion()
	if err != nil {
		t.Fatalf("ServerVersion: %v", err)
	}
	if v.Version.Major < 24 || v.Revision != 0 {
		t.Fatalf("server version %+v: want a modern ClickHouse answered with revision 0", v)
	}
	t.Logf("server: %s %d.%d.%d revision %d tz %s", v.DisplayName, v.Version.Major, v.Version.Minor, v.Version.Patch, v.Revision, v.Timezone)
}

const clsDDL = `
CREATE TABLE IF NOT EXISTS ste.cls (
    ts         DateTime64(6),
    venue      LowCardinality(String),
    kind       LowCardinality(String),
    trade_id   UInt64,
    qty        Int64,
    latency_us UInt32
) ENGINE = MergeTree
PARTITION BY toDate(ts)
ORDER BY (venue, ts, trade_id)
TTL toDateTime(ts) + INTERVAL 90 DAY`

const clsPerSecDDL = `
CREATE TABLE IF NOT EXISTS ste.cls_per_sec (
    sec   DateTime,
    venue LowCardinality(String),
    n     UInt64,
    qty   Int64
) ENGINE = SummingMergeTree
ORDER BY (venue, sec)`

const clsMVDDL = `
CREATE MATERIALIZED VIEW IF NOT EXISTS ste.cls_per_sec_mv TO ste.cls_per_sec AS
SELECT toStartOfSecond(ts) AS sec, venue, count() AS n, sum(qty) AS qty
FROM ste.cls GROUP BY sec, venue`

var venues = []string{"XLON", "XPAR", "XETR", "XAMS", "XMIL"}

// appendCLS sends n synthetic rows starting at base through one batch and
// returns how long Send took (the HTTP request: encoding, transfer, insert).
func appendCLS(t testing.TB, ctx context.Context, conn driver.Conn, base time.Time, first, n int) time.Duration {
	t.Helper()
	batch, err := conn.PrepareBatch(ctx, "INSERT INTO ste.cls")
	if err != nil {
		t.Fatalf("PrepareBatch: %v", err)
	}
	for i := first; i < first+n; i++ {
		ts := base.Add(time.Duration(i) * 100 * time.Microsecond)
		kind := "match"
		if i%7 == 0 {
			kind = "break"
		}
		if err := batch.Append(ts, venues[i%len(venues)], kind, uint64(i), int64(i%1000), uint32(i%5000)); err != nil {
			t.Fatalf("Append: %v", err)
		}
	}
	start := time.Now()
	if err := batch.Send(); err != nil {
		t.Fatalf("Send: %v", err)
	}
	return time.Since(start)
}

func TestSchemaBatchAndQueries(t *testing.T) {
	dsn := sharedEndpoint(t)
	conn := openConn(t, dsn)
	ctx := context.Background()
	exec1(t, conn, "CREATE DATABASE IF NOT EXISTS ste")
	exec1(t, conn, "DROP TABLE IF EXISTS ste.cls_per_sec_mv SYNC")
	exec1(t, conn, "DROP TABLE IF EXISTS ste.cls_per_sec SYNC")
	exec1(t, conn, "DROP TABLE IF EXISTS ste.cls SYNC")
	exec1(t, conn, clsDDL)
	exec1(t, conn, clsPerSecDDL)
	exec1(t, conn, clsMVDDL)

	// 100,000-row batches, the size STE's analytics sink uses. The first
	// warms the table up; the next three are measured.
	const rows = 100_000
	base := time.Now().UTC().Truncate(time.Second).Add(-time.Hour)
	appendCLS(t, ctx, conn, base, 0, rows)
	var took, sends []time.Duration
	for b := 1; b <= 3; b++ {
		start := time.Now()
		sends = append(sends, appendCLS(t, ctx, conn, base, b*rows, rows))
		took = append(took, time.Since(start))
	}
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	sort.Slice(sends, func(i, j int) bool { return sends[i] < sends[j] })
	t.Logf("batch insert of %d rows, PrepareBatch+Append+Send: median %v = %.0f rows/s (min %v, max %v); Send alone: median %v = %.0f rows/s",
		rows, took[1].Round(time.Millisecond), rows/took[1].Seconds(), took[0].Round(time.Millisecond), took[2].Round(time.Millisecond),
		sends[1].Round(time.Millisecond), rows/sends[1].Seconds())

	t.Logf("endpoint RSS after %d rows: %.0f MiB", 4*rows, rssMiB(pidOf(t, sharedHome)))

	var count uint64
	if err := conn.QueryRow(ctx, "SELECT count() FROM ste.cls").Scan(&count); err != nil {
		t.Fatal(err)
	}
	if count != 4*rows {
		t.Fatalf("count = %d, want %d", count, 4*rows)
	}

	// The materialized view aggregated per second and per venue.
	var mvN uint64
	var mvSecs uint64
	if err := conn.QueryRow(ctx, "SELECT sum(n), uniqExact(sec) FROM ste.cls_per_sec").Scan(&mvN, &mvSecs); err != nil {
		t.Fatal(err)
	}
	if mvN != 4*rows || mvSecs != 40 {
		t.Fatalf("materialized view: sum(n)=%d over %d seconds, want %d over 40", mvN, mvSecs, 4*rows)
	}

	// DateTime64(6) keeps microseconds.
	var ts time.Time
	if err := conn.QueryRow(ctx, "SELECT ts FROM ste.cls WHERE trade_id = 12345").Scan(&ts); err != nil {
		t.Fatal(err)
	}
	if want := base.Add(12345 * 100 * time.Microsecond); !ts.Equal(want) {
		t.Fatalf("ts = %v, want %v", ts, want)
	}

	// Select into structs, with an aggregation.
	type venueStats struct {
		Venue  string  `ch:"venue"`
		Trades uint64  `ch:"trades"`
		Breaks uint64  `ch:"breaks"`
		AvgLat float64 `ch:"avg_latency_us"`
		P99Lat float64 `ch:"p99_latency_us"`
	}
	var stats []venueStats
	const aggQ = `SELECT venue, count() AS trades, countIf(kind = 'break') AS breaks,
	       avg(latency_us) AS avg_latency_us, quantile(0.99)(latency_us) AS p99_latency_us
	FROM ste.cls GROUP BY venue ORDER BY venue`
	if err := conn.Select(ctx, &stats, aggQ); err != nil {
		t.Fatalf("Select: %v", err)
	}
	if len(stats) != len(venues) {
		t.Fatalf("got %d venues: %+v", len(stats), stats)
	}
	var total uint64
	for _, s := range stats {
		total += s.Trades
		if s.Breaks == 0 || s.AvgLat <= 0 || s.P99Lat <= s.AvgLat {
			t.Fatalf("implausible stats %+v", s)
		}
	}
	if total != 4*rows {
		t.Fatalf("sum of trades %d", total)
	}

	// Latency of that aggregation over 400k rows, end to end through the driver.
	var lat []time.Duration
	for i := 0; i < 30; i++ {
		start := time.Now()
		var s []venueStats
		if err := conn.Select(ctx, &s, aggQ); err != nil {
			t.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	t.Logf("aggregation over %d rows (GROUP BY venue, count/countIf/avg/quantile) via Select: median %v, p90 %v",
		4*rows, lat[len(lat)/2].Round(10*time.Microsecond), lat[len(lat)*9/10].Round(10*time.Microsecond))

	lat = lat[:0]
	for i := 0; i < 50; i++ {
		start := time.Now()
		var n uint64
		if err := conn.QueryRow(ctx, "SELECT count() FROM ste.cls WHERE venue = 'XLON'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	t.Logf("simple count() with a filter via QueryRow: median %v", lat[len(lat)/2].Round(10*time.Microsecond))

	// A window function: running total per venue over the per-second view.
	rowsW, err := conn.Query(ctx, `
		SELECT venue, sec, n,
		       sum(n) OVER (PARTITION BY venue ORDER BY sec) AS running,
		       rank() OVER (PARTITION BY venue ORDER BY n DESC, sec) AS rnk
		FROM (SELECT venue, sec, sum(n) AS n FROM ste.cls_per_sec GROUP BY venue, sec)
		ORDER BY venue, sec`)
	if err != nil {
		t.Fatalf("window query: %v", err)
	}
	var (
		lastVenue string
		running   uint64
		nRows     int
	)
	for rowsW.Next() {
		var (
			venue   string
			sec     time.Time
			n, run  uint64
			rankPos uint64
		)
		if err := rowsW.Scan(&venue, &sec, &n, &run, &rankPos); err != nil {
			t.Fatal(err)
		}
		if venue != lastVenue {
			lastVenue, running = venue, 0
		}
		running += n
		if run != running || rankPos == 0 {
			t.Fatalf("window: %s %v running %d, want %d (rank %d)", venue, sec, run, running, rankPos)
		}
		nRows++
	}
	if err := rowsW.Err(); err != nil {
		t.Fatal(err)
	}
	rowsW.Close()
	if nRows != 40*len(venues) {
		t.Fatalf("window: %d rows", nRows)
	}
}

func TestTTLDropsExpiredRows(t *testing.T) {
	conn := openConn(t, sharedEndpoint(t))
	ctx := context.Background()
	exec1(t, conn, "CREATE DATABASE IF NOT EXISTS ste")
	exec1(t, conn, "DROP TABLE IF EXISTS ste.ttl_probe SYNC")
	exec1(t, conn, `CREATE TABLE ste.ttl_probe (ts DateTime64(6), v UInt32)
		ENGINE = MergeTree PARTITION BY toDate(ts) ORDER BY ts TTL toDateTime(ts) + INTERVAL 30 DAY`)
	batch, err := conn.PrepareBatch(ctx, "INSERT INTO ste.ttl_probe")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	for i := 0; i < 100; i++ {
		ts := now
		if i%2 == 0 {
			ts = now.AddDate(0, 0, -60)
		}
		if err := batch.Append(ts, uint32(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := batch.Send(); err != nil {
		t.Fatal(err)
	}
	exec1(t, conn, "OPTIMIZE TABLE ste.ttl_probe FINAL")
	var n uint64
	if err := conn.QueryRow(ctx, "SELECT count() FROM ste.ttl_probe").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 50 {
		t.Fatalf("after TTL: %d rows, want 50", n)
	}
}

func TestDatabaseSQL(t *testing.T) {
	dsn := sharedEndpoint(t)
	db := clickhouse.OpenDB(&clickhouse.Options{Protocol: clickhouse.HTTP, Addr: []string{addrOf(t, dsn)}, Auth: authOf(t, dsn)})
	defer db.Close()
	ctx := context.Background()
	if err := db.PingContext(ctx); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS ste",
		"DROP TABLE IF EXISTS ste.sql_probe SYNC",
		"CREATE TABLE ste.sql_probe (id UInt64, name String, tags Array(LowCardinality(String)), at DateTime64(3)) ENGINE = MergeTree ORDER BY id",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// Batch insert the database/sql way: a prepared INSERT in a transaction.
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	stmt, err := tx.PrepareContext(ctx, "INSERT INTO ste.sql_probe")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 678_000_000, time.UTC)
	for i := 0; i < 1000; i++ {
		if _, err := stmt.ExecContext(ctx, uint64(i), fmt.Sprintf("n%d", i), []string{"a", fmt.Sprint(i % 3)}, at); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	var (
		n    uint64
		name string
		tags []string
		got  time.Time
	)
	if err := db.QueryRowContext(ctx, "SELECT count() FROM ste.sql_probe").Scan(&n); err != nil || n != 1000 {
		t.Fatalf("count %d, %v", n, err)
	}
	// Server-side parameters through database/sql named arguments.
	err = db.QueryRowContext(ctx, "SELECT name, tags, at FROM ste.sql_probe WHERE id = {id:UInt64}",
		clickhouse.Named("id", "42")).Scan(&name, &tags, &got)
	if err != nil {
		t.Fatal(err)
	}
	if name != "n42" || len(tags) != 2 || tags[1] != "0" || !got.Equal(at) {
		t.Fatalf("row 42: %q %q %v", name, tags, got)
	}
	// A bad query is a typed exception here, too.
	_, err = db.ExecContext(ctx, "SELECT * FROM ste.no_such_table")
	var ex *clickhouse.Exception
	if !errors.As(err, &ex) || ex.Code != 60 {
		t.Fatalf("want *clickhouse.Exception code 60, got %T %v", err, err)
	}
}

func TestTypedException(t *testing.T) {
	conn := openConn(t, sharedEndpoint(t))
	ctx := context.Background()
	cases := []struct {
		q    string
		code int32
	}{
		{"SELEC 1", 62},                     // SYNTAX_ERROR
		{"SELECT * FROM ste.nope_nope", 60}, // UNKNOWN_TABLE
		{"SELECT throwIf(1, 'boom')", 395},  // FUNCTION_THROW_IF_VALUE_IS_NON_ZERO
		{"SELECT no_such_function(1)", 46},  // UNKNOWN_FUNCTION
	}
	for _, c := range cases {
		_, err := conn.Query(ctx, c.q)
		var ex *clickhouse.Exception
		if !errors.As(err, &ex) {
			t.Fatalf("%s: want *clickhouse.Exception, got %T %v", c.q, err, err)
		}
		if ex.Code != c.code {
			t.Fatalf("%s: code %d (%s), want %d", c.q, ex.Code, ex.Message, c.code)
		}
	}
	// Exec and batches report typed errors too.
	err := conn.Exec(ctx, "CREATE TABLE ste.bad (x NoSuchType) ENGINE = Memory")
	var ex *clickhouse.Exception
	if !errors.As(err, &ex) || ex.Code != 50 {
		t.Fatalf("exec: want code 50 (UNKNOWN_TYPE), got %v", err)
	}
	if _, err := conn.PrepareBatch(ctx, "INSERT INTO ste.nope_nope"); !errors.As(err, &ex) || ex.Code != 60 {
		t.Fatalf("PrepareBatch on a missing table: want code 60, got %v", err)
	}
}

func TestSettingsAndDatabaseDoNotLeak(t *testing.T) {
	dsn := sharedEndpoint(t)
	conn := openConn(t, dsn)
	ctx := context.Background()
	get := func(ctx context.Context, q string) string {
		t.Helper()
		var s string
		if err := conn.QueryRow(ctx, q).Scan(&s); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return s
	}
	def := get(ctx, "SELECT toString(getSetting('max_threads'))")
	with := get(clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{"max_threads": 1})), "SELECT toString(getSetting('max_threads'))")
	if with != "1" {
		t.Fatalf("per-query setting not applied: %s", with)
	}
	if after := get(ctx, "SELECT toString(getSetting('max_threads'))"); after != def {
		t.Fatalf("per-query setting leaked: %s, default %s", after, def)
	}
	// A SET statement lasts for its own request only (no sessions).
	exec1(t, conn, "SET max_threads = 1")
	if after := get(ctx, "SELECT toString(getSetting('max_threads'))"); after != def {
		t.Fatalf("SET leaked into the next request: %s", after)
	}
	// An unknown setting is a typed error, as on a real server.
	_, err := conn.Query(clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{"no_such_setting": 1})), "SELECT 1")
	var ex *clickhouse.Exception
	if !errors.As(err, &ex) || ex.Code != 115 {
		t.Fatalf("unknown setting: want code 115, got %v", err)
	}

	// The database of the connection applies to its requests only.
	exec1(t, conn, "CREATE DATABASE IF NOT EXISTS ste")
	steConn := openConn(t, dsn, func(o *clickhouse.Options) { o.Auth.Database = "ste" })
	var db string
	if err := steConn.QueryRow(ctx, "SELECT currentDatabase()").Scan(&db); err != nil || db != "ste" {
		t.Fatalf("database=ste: %q %v", db, err)
	}
	if d := get(ctx, "SELECT currentDatabase()"); d != "default" {
		t.Fatalf("database leaked: %s", d)
	}
	exec1(t, conn, "USE ste")
	if d := get(ctx, "SELECT currentDatabase()"); d != "default" {
		t.Fatalf("USE leaked: %s", d)
	}
}

func TestQueryParameters(t *testing.T) {
	conn := openConn(t, sharedEndpoint(t))
	// Parameter values travel as text in ClickHouse's escaped (TSV) form,
	// exactly as with a real server: `\t` in the value is a tab.
	ctx := clickhouse.Context(context.Background(), clickhouse.WithParameters(clickhouse.Parameters{
		"s":  `it's a 'quoted' string with \t an escaped tab`,
		"n":  "42",
		"ts": "2026-03-04 05:06:07.123456",
		"a":  "[1,2,3]",
	}))
	var (
		s  string
		n  uint32
		ts time.Time
		a  []uint8
	)
	err := conn.QueryRow(ctx, "SELECT {s:String}, {n:UInt32}, {ts:DateTime64(6, 'UTC')}, {a:Array(UInt8)}").Scan(&s, &n, &ts, &a)
	if err != nil {
		t.Fatal(err)
	}
	if s != "it's a 'quoted' string with \t an escaped tab" || n != 42 || ts.Nanosecond() != 123456000 || len(a) != 3 {
		t.Fatalf("params: %q %d %v %v", s, n, ts, a)
	}
	// clickhouse.Named in the native API goes the same way.
	var v string
	if err := conn.QueryRow(context.Background(), "SELECT {v:String}", clickhouse.Named("v", "x'y")).Scan(&v); err != nil || v != "x'y" {
		t.Fatalf("named: %q %v", v, err)
	}
	// A parameter the query does not declare is ignored; a missing one is
	// a typed error (456, UNKNOWN_QUERY_PARAMETER).
	_, err = conn.Query(context.Background(), "SELECT {missing:UInt8}")
	var ex *clickhouse.Exception
	if !errors.As(err, &ex) || ex.Code != 456 {
		t.Fatalf("missing parameter: %v", err)
	}
}

func TestCompressionMethods(t *testing.T) {
	dsn := sharedEndpoint(t)
	setup := openConn(t, dsn)
	exec1(t, setup, "CREATE DATABASE IF NOT EXISTS ste")
	exec1(t, setup, "DROP TABLE IF EXISTS ste.comp SYNC")
	exec1(t, setup, "CREATE TABLE ste.comp (m LowCardinality(String), i UInt64, s String) ENGINE = MergeTree ORDER BY (m, i)")
	methods := map[string]clickhouse.CompressionMethod{
		"none": clickhouse.CompressionNone, "gzip": clickhouse.CompressionGZIP,
		"deflate": clickhouse.CompressionDeflate, "br": clickhouse.CompressionBrotli,
		"lz4": clickhouse.CompressionLZ4, "zstd": clickhouse.CompressionZSTD,
	}
	for name, method := range methods {
		for _, httpComp := range []bool{false, true} {
			label := fmt.Sprintf("%s/enable_http_compression=%v", name, httpComp)
			t.Run(label, func(t *testing.T) {
				conn := openConn(t, dsn, func(o *clickhouse.Options) {
					o.Compression = &clickhouse.Compression{Method: method}
					if httpComp {
						o.Settings = clickhouse.Settings{"enable_http_compression": 1}
					}
				})
				ctx := context.Background()
				tag := label
				batch, err := conn.PrepareBatch(ctx, "INSERT INTO ste.comp")
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; i < 20000; i++ {
					if err := batch.Append(tag, uint64(i), strings.Repeat("x", i%50)); err != nil {
						t.Fatal(err)
					}
				}
				if err := batch.Send(); err != nil {
					t.Fatalf("Send: %v", err)
				}
				var n, sum uint64
				if err := conn.QueryRow(ctx, "SELECT count(), sum(i) FROM ste.comp WHERE m = ?", tag).Scan(&n, &sum); err != nil {
					t.Fatal(err)
				}
				if n != 20000 || sum != 20000*19999/2 {
					t.Fatalf("count %d sum %d", n, sum)
				}
				// A result of several MiB (several compressed frames, and past
				// the streaming threshold), read back whole.
				rows, err := conn.Query(ctx, "SELECT i, s FROM ste.comp WHERE m = ? ORDER BY i", tag)
				if err != nil {
					t.Fatal(err)
				}
				k := 0
				for rows.Next() {
					var i uint64
					var s string
					if err := rows.Scan(&i, &s); err != nil {
						t.Fatal(err)
					}
					if i != uint64(k) || len(s) != k%50 {
						t.Fatalf("row %d: %d %d", k, i, len(s))
					}
					k++
				}
				if err := rows.Err(); err != nil || k != 20000 {
					t.Fatalf("rows %d %v", k, err)
				}
				// Errors stay typed whatever the compression.
				_, err = conn.Query(ctx, "SELEC 1")
				var ex *clickhouse.Exception
				if !errors.As(err, &ex) || ex.Code != 62 {
					t.Fatalf("error under %s: %T %v", label, err, err)
				}
			})
		}
	}
}

func TestLargeResultAndLateError(t *testing.T) {
	conn := openConn(t, sharedEndpoint(t))
	ctx := context.Background()
	// ~40 MB of Native: past the 8 MiB threshold, so it is written through
	// with chunked encoding.
	rows, err := conn.Query(ctx, "SELECT number, toString(number) FROM numbers(3000000)")
	if err != nil {
		t.Fatal(err)
	}
	var n, last uint64
	for rows.Next() {
		var s string
		if err := rows.Scan(&last, &s); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if err := rows.Err(); err != nil || n != 3000000 || last != 2999999 {
		t.Fatalf("read %d rows (last %d): %v", n, last, err)
	}
	rows.Close()

	// A query failing after producing most of its rows: chDB materialises
	// the result before anything is sent, so the client gets a clean non-200
	// and a typed exception, never a truncated result.
	_, err = conn.Query(ctx, "SELECT number, toString(number) FROM numbers(3000000) WHERE throwIf(number = 2500000, 'late failure') = 0")
	var ex *clickhouse.Exception
	if !errors.As(err, &ex) || ex.Code != 395 {
		t.Fatalf("late error: want *clickhouse.Exception 395, got %T %v", err, err)
	}
	if err := conn.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestFormatsAndExternalTables(t *testing.T) {
	conn := openConn(t, sharedEndpoint(t))
	ctx := context.Background()
	exec1(t, conn, "CREATE DATABASE IF NOT EXISTS ste")
	exec1(t, conn, "DROP TABLE IF EXISTS ste.fmt SYNC")
	exec1(t, conn, "CREATE TABLE ste.fmt (id UInt32, name String) ENGINE = MergeTree ORDER BY id")
	// InsertFormat / QueryFormat: raw formats over HTTP.
	if err := conn.InsertFormat(ctx, "CSV", "INSERT INTO ste.fmt", strings.NewReader("1,\"one\"\n2,\"two, too\"\n")); err != nil {
		t.Fatalf("InsertFormat: %v", err)
	}
	if err := conn.InsertFormat(ctx, "JSONEachRow", "INSERT INTO ste.fmt", strings.NewReader(`{"id":3,"name":"three"}`+"\n")); err != nil {
		t.Fatalf("InsertFormat JSONEachRow: %v", err)
	}
	rc, err := conn.QueryFormat(ctx, "JSONEachRow", "SELECT id, name FROM ste.fmt ORDER BY id")
	if err != nil {
		t.Fatalf("QueryFormat: %v", err)
	}
	b, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":1,"name":"one"}` + "\n" + `{"id":2,"name":"two, too"}` + "\n" + `{"id":3,"name":"three"}` + "\n"
	if string(b) != want {
		t.Fatalf("QueryFormat: %q", b)
	}

	// External tables (multipart/form-data) become temporary tables of the
	// request.
	ext1, err := ext.NewTable("lookup", ext.Column("id", "UInt32"), ext.Column("label", "String"))
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range []string{"", "uno", "dos", "tres"} {
		if err := ext1.Append(uint32(i), l); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	rows, err := conn.Query(clickhouse.Context(ctx, clickhouse.WithExternalTable(ext1)),
		"SELECT f.name || '=' || l.label FROM ste.fmt AS f INNER JOIN lookup AS l ON f.id = l.id ORDER BY f.id")
	if err != nil {
		t.Fatalf("external table: %v", err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	rows.Close()
	if strings.Join(got, ";") != "one=uno;two, too=dos;three=tres" {
		t.Fatalf("external join: %q", got)
	}
}

func TestConcurrentClientsAreSerialised(t *testing.T) {
	dsn := sharedEndpoint(t)
	conn := openConn(t, dsn, func(o *clickhouse.Options) { o.MaxOpenConns = 8 })
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				var v uint64
				settings := clickhouse.Settings{"max_threads": g + 1}
				q := clickhouse.Context(ctx, clickhouse.WithSettings(settings))
				if err := conn.QueryRow(q, "SELECT getSetting('max_threads') + {i:UInt64} * 0", clickhouse.Named("i", fmt.Sprint(i))).Scan(&v); err != nil {
					errs <- err
					return
				}
				if v != uint64(g+1) {
					errs <- fmt.Errorf("goroutine %d saw max_threads=%d: settings crossed requests", g, v)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestMixedLoadDoesNotWedge replays a bounded mix of successful queries,
// failing queries and small inserts from several clients; every request has
// a deadline, so an engine deadlock fails the test instead of hanging it.
func TestMixedLoadDoesNotWedge(t *testing.T) {
	dsn := sharedEndpoint(t)
	setup := openConn(t, dsn)
	exec1(t, setup, "CREATE DATABASE IF NOT EXISTS ste")
	exec1(t, setup, "DROP TABLE IF EXISTS ste.mixed SYNC")
	exec1(t, setup, "CREATE TABLE ste.mixed (g UInt8, i UInt32) ENGINE = MergeTree ORDER BY (g, i)")
	const clients, rounds = 4, 60
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for g := 0; g < clients; g++ {
		wg.Add(1)
		conn := openConn(t, dsn)
		go func(g int) {
			defer wg.Done()
			fail := func(err error) { errs <- fmt.Errorf("client %d: %w", g, err) }
			for r := 0; r < rounds; r++ {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				var ex *clickhouse.Exception
				if _, err := conn.Query(ctx, "SELECT * FROM ste.no_such_table"); !errors.As(err, &ex) {
					cancel()
					fail(err)
					return
				}
				if _, err := conn.Query(ctx, "SELECT throwIf(number = 3) FROM numbers(10)"); !errors.As(err, &ex) {
					cancel()
					fail(err)
					return
				}
				batch, err := conn.PrepareBatch(ctx, "INSERT INTO ste.mixed")
				if err == nil {
					for i := 0; i < 10; i++ {
						_ = batch.Append(uint8(g), uint32(r*10+i))
					}
					err = batch.Send()
				}
				if err != nil {
					cancel()
					fail(err)
					return
				}
				var n uint64
				if err := conn.QueryRow(ctx, "SELECT count() FROM ste.mixed WHERE g = ?", uint8(g)).Scan(&n); err != nil || n != uint64((r+1)*10) {
					cancel()
					fail(fmt.Errorf("count %d after round %d: %v", n, r, err))
					return
				}
				cancel()
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	t.Logf("%d rounds of 5 requests (2 failing queries, DESCRIBE, INSERT, count) from %d clients in %v",
		clients*rounds, clients, time.Since(start).Round(time.Millisecond))
}
