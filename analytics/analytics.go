// Package analytics is STE's analytics in ClickHouse: CLS, audit events,
// exceptions and queue samples ingested from a namespace's topics, and the
// reports over them (throughput history, volume degradation, queues,
// latency). It is the entry point for commands that run analytics in-process
// (ste analytics, ste report, ste demo, ste bench) — Open, the Feed that
// ingests alongside a demo or bench run (BenchFeed is bench's) and the
// reports as text; the work is done by its packages:
//
//   - store: the ClickHouse connection (clickhouse-go/v2 only), schema and
//     versioned migrations, idempotent inserts;
//   - rows: the table rows and the decoders of the topics' records;
//   - ingest: the consumer group <ns>.analytics, batches, commits;
//   - report: the report queries; charts: their PNG/SVG plots.
//
// When no server is given, Open uses the local ClickHouse-compatible
// endpoint through chendpoint/embedded — a tree of its own (chendpoint/README.md).
//
// Data flows one way: schemas → processors → topics → measure → analytics.
// Only the commands import analytics itself — cmd/ste and the demo package
// at the top of the rule — and analytics never slows the processors: it is
// a consumer group of its own.
package analytics

import (
	"context"
	"fmt"
	"io"

	"github.com/ste-utility/ste/analytics/report"
	"github.com/ste-utility/ste/analytics/store"
	"github.com/ste-utility/ste/chendpoint/embedded"
)

// Open opens the analytics store: the ClickHouse at dsn, or — when dsn is
// "" — the embedded endpoint for the STE home directory home (started, or
// reused if it runs, and held until the store is closed: it does not stop
// as idle meanwhile). Migrations are applied.
func Open(ctx context.Context, dsn, home string, o store.Options) (*store.Store, error) {
	if dsn != "" {
		return store.Open(ctx, dsn, o)
	}
	d, release, err := embedded.Hold(ctx, home)
	if err != nil {
		return nil, err
	}
	if prev := o.OnClose; prev != nil {
		o.OnClose = func() { release(); prev() }
	} else {
		o.OnClose = release
	}
	st, err := store.Open(ctx, d, o)
	if err != nil {
		release()
	}
	return st, err
}

// PrintReports runs the named reports (report.Names) for namespace ns and
// writes them as text to w, separated by blank lines.
func PrintReports(ctx context.Context, w io.Writer, st *store.Store, ns string, names ...string) error {
	for i, name := range names {
		res, err := report.Run(ctx, st, name, report.Params{Namespace: ns})
		if err != nil {
			return fmt.Errorf("report %s: %w", name, err)
		}
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := res.WriteText(w); err != nil {
			return err
		}
	}
	return nil
}
