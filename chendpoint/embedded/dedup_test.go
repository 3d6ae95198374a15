package embedded_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// TestInsertDeduplicationToken checks whether chDB honours
// insert_deduplication_token on a non-replicated MergeTree with
// non_replicated_deduplication_window, for the table and for a materialized
// view fed by it — the mechanism STE's analytics sink relies on to make a
// replayed batch (after a crash between insert and offset commit) harmless.
// It runs on an endpoint of its own so that it can restart it and check that
// the deduplication log survives a restart.
func TestInsertDeduplicationToken(t *testing.T) {
	requireLib(t)
	home := filepath.Join(tmpRoot, "dedup")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dsn, err := cfg().Ensure(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	conn := openConn(t, dsn)
	exec1(t, conn, "CREATE DATABASE IF NOT EXISTS ste")
	exec1(t, conn, `CREATE TABLE ste.audit (
			ts   DateTime64(6),
			seq  UInt64,
			kind LowCardinality(String)
		) ENGINE = MergeTree
		PARTITION BY toDate(ts)
		ORDER BY seq
		SETTINGS non_replicated_deduplication_window = 1000`)
	// Two views of the same aggregation. Their target tables differ only in
	// the deduplication window: a view's insert is deduplicated by its
	// target table (with a token derived from the source's), so a target
	// without the window double-counts a replayed batch even though the
	// source table refused it.
	for _, v := range []struct{ name, settings string }{
		{"audit_per_sec", "SETTINGS non_replicated_deduplication_window = 1000"},
		{"audit_per_sec_nowindow", ""},
	} {
		exec1(t, conn, `CREATE TABLE ste.`+v.name+` (
				sec  DateTime,
				kind LowCardinality(String),
				n    UInt64
			) ENGINE = SummingMergeTree ORDER BY (kind, sec) `+v.settings)
		exec1(t, conn, `CREATE MATERIALIZED VIEW ste.`+v.name+`_mv TO ste.`+v.name+` AS
			SELECT toStartOfSecond(ts) AS sec, kind, count() AS n FROM ste.audit GROUP BY sec, kind`)
	}

	// One batch of 10,000 events spanning midnight, so it splits into two
	// partitions (two parts, each deduplicated under token + part index).
	const rows = 10_000
	midnight := time.Now().UTC().Truncate(24 * time.Hour)
	send := func(conn driver.Conn, token string) {
		t.Helper()
		c := ctx
		if token != "" {
			c = clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{"insert_deduplication_token": token}))
		}
		batch, err := conn.PrepareBatch(c, "INSERT INTO ste.audit")
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < rows; i++ {
			ts := midnight.Add(time.Duration(i-rows/2) * 10 * time.Millisecond)
			if err := batch.Append(ts, uint64(i), []string{"match", "break", "resend"}[i%3]); err != nil {
				t.Fatal(err)
			}
		}
		if err := batch.Send(); err != nil {
			t.Fatal(err)
		}
	}
	// expect checks the source table and the view whose target has the
	// window against want; the view without it must show every replay the
	// source refused (noWindowExtra) — the gotcha this test pins down.
	var noWindowExtra uint64
	expect := func(conn driver.Conn, step string, want uint64) {
		t.Helper()
		var table, view, viewNoWindow uint64
		err := conn.QueryRow(ctx, `SELECT
				(SELECT count() FROM ste.audit),
				(SELECT sum(n) FROM ste.audit_per_sec),
				(SELECT sum(n) FROM ste.audit_per_sec_nowindow)`).Scan(&table, &view, &viewNoWindow)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-52s table=%6d view=%6d view(no window on target)=%6d", step, table, view, viewNoWindow)
		if table != want || view != want {
			t.Fatalf("%s: table %d, view %d, want %d in both", step, table, view, want)
		}
		if viewNoWindow != want+noWindowExtra {
			t.Fatalf("%s: view without window %d, want %d", step, viewNoWindow, want+noWindowExtra)
		}
	}

	send(conn, "batch-1")
	expect(conn, "insert, token batch-1", rows)
	send(conn, "batch-1")
	noWindowExtra += rows // the replay reaches the target without a window
	expect(conn, "same batch again, token batch-1 (deduplicated)", rows)
	send(conn, "batch-2")
	expect(conn, "same rows, token batch-2 (a different batch)", 2*rows)
	send(conn, "")
	expect(conn, "same rows, no token (content hash is new)", 3*rows)
	send(conn, "")
	noWindowExtra += rows
	expect(conn, "same rows, no token again (content hash dedup)", 3*rows)

	// The deduplication log lives in the table's directory: a restarted
	// endpoint still refuses the replay.
	if err := cfg().Stop(home); err != nil {
		t.Fatal(err)
	}
	dsn, err = cfg().Ensure(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	conn2 := openConn(t, dsn)
	send(conn2, "batch-1")
	noWindowExtra += rows
	expect(conn2, "after restart, token batch-1 again (deduplicated)", 3*rows)
	send(conn2, "batch-3")
	expect(conn2, "after restart, token batch-3", 4*rows)
	if err := cfg().Stop(home); err != nil {
		t.Fatal(err)
	}
}
