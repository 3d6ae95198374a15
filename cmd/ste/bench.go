package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/ste-utility/ste/analytics"
	"github.com/ste-utility/ste/analytics/ingest"
	"github.com/ste-utility/ste/analytics/rows"
	"github.com/ste-utility/ste/analytics/store"
	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/measure/bench"
	"github.com/ste-utility/ste/measure/monitor"
	"github.com/ste-utility/ste/measure/oplaw"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/workload"
)

func init() {
	register(command{"bench", "run a measured experiment: generator → driver → processors → sink, with the monitor", runBench})
	register(command{"monitor", "sample every stage's queue, publish to <ns>.monitor, print operational laws", runMonitor})
}

func runBench(ctx context.Context, args []string) error {
	fs := flags("bench", "--trades N [--json FILE] [--rate R] [--brokers B] [--instances N] [--partitions N] [--mix M] [--tables memory|disk]")
	trades := fs.Int("trades", 0, "trades to generate and drive (required)")
	jsonOut := fs.String("json", "", "also write the result to this file")
	rate := fs.Float64("rate", 0, "paced driver rate in msg/s (0: full speed)")
	rampTo := fs.Float64("ramp-to", 0, "raise the paced rate linearly to this over --ramp-over")
	rampOver := fs.Duration("ramp-over", time.Minute, "duration of the ramp")
	brokers := fs.String("brokers", "", "use this cluster instead of the embedded broker")
	kafka := kafkaSecurityFlags(fs, brokers)
	instances := fs.Int("instances", 1, "processor instances sharing the partitions")
	partitions := fs.Int("partitions", 8, "partitions of keyed topics")
	mix := fs.String("mix", "standard", "standard or realistic")
	seed := fs.Uint64("seed", 1, "generator seed")
	noAnalytics := fs.Bool("no-analytics", false, "do not feed analytics")
	chDSN := clickhouseFlag(fs)
	noVerify := fs.Bool("no-verify", false, "skip Ed25519 verification of inbound messages (results say so)")
	interval := fs.Duration("monitor-interval", time.Second, "monitor sampling interval")
	window := fs.Duration("window", 5*time.Second, "throughput window for the volume-degradation series")
	tables := fs.String("tables", envOr("STE_TABLES", instance.TablesDisk), "where the processor instances keep their tables: disk or memory ($STE_TABLES)")
	if err := fs.parse(args); err != nil {
		return err
	}
	if *tables != instance.TablesMemory && *tables != instance.TablesDisk {
		return usageError{"--tables: want memory or disk"}
	}
	if *trades <= 0 || *instances < 1 || *partitions < 1 {
		return usageError{"--trades, --instances and --partitions must be positive"}
	}
	if *mix != "standard" && *mix != "realistic" {
		return usageError{"--mix must be standard or realistic"}
	}
	if *rate < 0 || *rampTo < 0 || *rampOver < 0 || *interval <= 0 || *window <= 0 {
		return usageError{"--rate, --ramp-to and --ramp-over must not be negative; --monitor-interval and --window must be positive"}
	}
	var k kafkaconn.Config
	if *brokers != "" {
		var err error
		if k, err = kafka(); err != nil {
			return err
		}
	}
	signer, err := utilitySigner("STEUTLSGXXX", "", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	o := bench.Options{Trades: *trades, Rate: *rate, RampTo: *rampTo, RampOver: *rampOver, Kafka: k,
		Instances: *instances, Partitions: *partitions, Mix: workload.Mix(*mix), Seed: *seed, Verify: !*noVerify,
		Interval: *interval, Window: *window, Home: steHome(), Signer: signer, Tables: *tables,
		Progress: func(format string, a ...any) { fmt.Fprintf(os.Stderr, format+"\n", a...) }}
	if !*noAnalytics {
		o.Feed = &benchFeed{dsn: *chDSN}
	}
	res, runErr := bench.Run(ctx, o)
	if res.Namespace == "" {
		return runErr // nothing ran
	}
	out, _ := json.Marshal(res)
	fmt.Println(string(out))
	if *jsonOut != "" {
		pretty, _ := json.MarshalIndent(res, "", "  ")
		if err := os.WriteFile(*jsonOut, append(pretty, '\n'), 0o644); err != nil {
			return err
		}
	}
	return runErr
}

// benchFeed is analytics alongside a bench run.
type benchFeed struct {
	dsn string
	fd  *feed
}

func (f *benchFeed) Start(ctx context.Context, k kafkaconn.Config, ns string) error {
	fd, err := startFeed(ctx, f.dsn, k, ns, slog.New(slog.NewTextHandler(io.Discard, nil)))
	f.fd = fd
	return err
}

func (f *benchFeed) Finish(ctx context.Context, res bench.Result, result []byte, startedAt time.Time) error {
	defer f.fd.close()
	if err := f.fd.finish(ctx); err != nil {
		return err
	}
	run := rows.BenchRun{Namespace: res.Namespace, RunID: res.Namespace, StartedAt: startedAt, Trades: uint64(res.Trades),
		Messages: uint64(res.Messages), CLS: uint64(res.CLS), Exceptions: uint64(res.Exceptions), Seconds: res.Seconds,
		MsgsPerSec: res.MsgsPerSec, LatencyP50ms: res.LatencyMs["p50"], LatencyP99ms: res.LatencyMs["p99"],
		LatencyMaxms: res.LatencyMs["max"], ProcessorInstances: uint32(res.ProcessorInstances),
		Partitions: uint32(res.Partitions), Broker: res.Broker, Analytics: true, VerifySignatures: res.VerifySignatures,
		Result: string(result)}
	if err := f.fd.st.InsertBenchRun(ctx, run); err != nil {
		return err
	}
	// The reports go to stderr: stdout is the one JSON object.
	return analytics.PrintReports(ctx, os.Stderr, f.fd.st, res.Namespace, "counts", "queues", "latency")
}

func runMonitor(ctx context.Context, args []string) error {
	fs := flags("monitor", "[--brokers B] [--namespace NS] [--interval 1s] [--duration D]")
	kafka, ns := kafkaFlags(fs), namespaceFlag(fs)
	interval := fs.Duration("interval", time.Second, "sampling interval (the source used 7 s)")
	duration := fs.Duration("duration", 0, "stop after this long (0: until interrupted)")
	quiet := fs.Bool("quiet", false, "print only the final table")
	if err := fs.parse(args); err != nil {
		return err
	}
	if *interval <= 0 || *duration < 0 {
		return usageError{"--interval must be positive and --duration not negative"}
	}
	if err := validNamespace(*ns); err != nil {
		return err
	}
	k, err := kafka()
	if err != nil {
		return err
	}
	cl, err := topics.Connect(ctx, k)
	if err != nil {
		return err
	}
	defer cl.Close()
	mon := monitor.New(kadm.NewClient(cl), *ns)
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	var samples []schemas.MonitorSample
	t := time.NewTicker(*interval)
	defer t.Stop()
	for {
		ss, err := mon.Sample(ctx)
		if err != nil && ctx.Err() == nil {
			return err
		}
		if err == nil {
			samples = append(samples, ss...)
			monitor.Publish(ctx, cl, *ns, ss)
			if !*quiet {
				var parts []string
				for _, s := range ss {
					parts = append(parts, fmt.Sprintf("%s q=%d +%d -%d", s.Stage, s.Queue, s.Arrivals, s.Completions))
				}
				fmt.Println(time.Now().Format("15:04:05"), strings.Join(parts, " | "))
			}
		}
		select {
		case <-ctx.Done():
			cl.Flush(context.Background())
			printLaws(monitor.Laws(samples))
			return nil
		case <-t.C:
		}
	}
}

// printLaws prints a table like the source's Table 6.
func printLaws(laws []oplaw.Laws) {
	fmt.Printf("%-9s %8s %9s %9s %8s %6s %9s %9s %9s %9s\n", "stage", "T s", "A", "C", "B s", "U", "X msg/s", "S ms", "N", "R ms")
	for _, l := range laws {
		fmt.Printf("%-9s %8.1f %9d %9d %8.1f %6.2f %9.1f %9.3f %9.1f %9.1f\n", l.Stage, l.T, l.A, l.C, l.B, l.U, l.X, l.S*1e3, l.N, l.R*1e3)
	}
}

// feed is analytics ingesting alongside a run (ste demo, ste bench): the
// embedded store under $STE_HOME unless a DSN is given.
type feed struct {
	st *store.Store
	in *ingest.Ingester
}

// startFeed opens the store and starts the ingest of namespace ns. ctx must
// outlive the processors: the ingest catches up after they finish.
func startFeed(ctx context.Context, dsn string, k kafkaconn.Config, ns string, log *slog.Logger) (*feed, error) {
	st, err := analytics.Open(ctx, dsn, steHome(), store.Options{})
	if err != nil {
		return nil, err
	}
	in, err := analytics.StartIngest(ctx, ingest.Options{Kafka: k, Namespace: ns, Store: st, Logger: log})
	if err != nil {
		st.Close()
		return nil, err
	}
	return &feed{st: st, in: in}, nil
}

// finish waits until everything on the namespace's topics is stored, then
// stops the ingest.
func (f *feed) finish(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	err := f.in.CatchUp(cctx)
	if serr := f.in.Stop(); err == nil {
		err = serr
	}
	return err
}

// catchUp waits until everything on the namespace's topics is stored, and
// keeps ingesting.
func (f *feed) catchUp(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	return f.in.CatchUp(cctx)
}

func (f *feed) close() { f.st.Close() }
