package analytics

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/ste-utility/ste/analytics/rows"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/measure/bench"
)

// BenchFeed is analytics alongside a bench run (bench.Options.Feed): the
// run's namespace ingested into the store of DSN (or the embedded one under
// Home), the run recorded in bench_runs, and the reports written to Reports.
type BenchFeed struct {
	DSN, Home string
	Reports   io.Writer
	fd        *Feed
}

var _ bench.Feed = (*BenchFeed)(nil)

// Start begins ingesting namespace ns. The ingest's log is dropped: a
// bench's output is its result.
func (f *BenchFeed) Start(ctx context.Context, k kafkaconn.Config, ns string) error {
	fd, err := StartFeed(ctx, f.DSN, f.Home, k, ns, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	f.fd = fd
	return err
}

// Finish waits until the run's topics are stored, records the run and
// writes the counts, queues and latency reports.
func (f *BenchFeed) Finish(ctx context.Context, res bench.Result, result []byte, startedAt time.Time) error {
	defer f.fd.Close()
	if err := f.fd.Finish(ctx); err != nil {
		return err
	}
	run := rows.BenchRun{Namespace: res.Namespace, RunID: res.Namespace, StartedAt: startedAt, Trades: uint64(res.Trades),
		Messages: uint64(res.Messages), CLS: uint64(res.CLS), Exceptions: uint64(res.Exceptions), Seconds: res.Seconds,
		MsgsPerSec: res.MsgsPerSec, LatencyP50ms: res.LatencyMs["p50"], LatencyP99ms: res.LatencyMs["p99"],
		LatencyMaxms: res.LatencyMs["max"], ProcessorInstances: uint32(res.ProcessorInstances),
		Partitions: uint32(res.Partitions), Broker: res.Broker, Analytics: true, VerifySignatures: res.VerifySignatures,
		Result: string(result)}
	if err := f.fd.Store.InsertBenchRun(ctx, run); err != nil {
		return err
	}
	return PrintReports(ctx, f.Reports, f.fd.Store, res.Namespace, "counts", "queues", "latency")
}
