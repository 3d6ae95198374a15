package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/ste-utility/ste/analytics"
	"github.com/ste-utility/ste/cli"
	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/measure/bench"
	"github.com/ste-utility/ste/measure/monitor"
	"github.com/ste-utility/ste/measure/oplaw"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/workload"
)

func init() {
	register(cli.Command{Name: "bench", Summary: "run a measured experiment: generator → driver → processors → sink, with the monitor", Run: runBench})
	register(cli.Command{Name: "monitor", Summary: "sample every stage's queue, publish to <ns>.monitor, print operational laws", Run: runMonitor})
}

func runBench(ctx context.Context, args []string) error {
	fs := cli.Flags("bench", "--trades N [--json FILE] [--rate R] [--brokers B] [--instances N] [--partitions N] [--mix M] [--forged SHARE] [--tables memory|disk]")
	trades := fs.Int("trades", 0, "trades to generate and drive (required)")
	jsonOut := fs.String("json", "", "also write the result to this file")
	rate := fs.Float64("rate", 0, "paced driver rate in msg/s (0: full speed)")
	rampTo := fs.Float64("ramp-to", 0, "raise the paced rate linearly to this over --ramp-over")
	rampOver := fs.Duration("ramp-over", time.Minute, "duration of the ramp")
	brokers := fs.String("brokers", "", "use this cluster instead of the embedded broker")
	kafka := cli.KafkaSecurityFlags(fs, brokers)
	instances := fs.Int("instances", 1, "processor instances sharing the partitions")
	partitions := fs.Int("partitions", 8, "partitions of keyed topics")
	mix := fs.String("mix", "standard", "standard or realistic")
	seed := fs.Uint64("seed", 1, "generator seed")
	forged := fs.Float64("forged", 0, "share of inbound messages that are forgeries: bad signatures from three senders (adversarial load; 0 ≤ share < 0.5)")
	noAnalytics := fs.Bool("no-analytics", false, "do not feed analytics")
	chDSN := cli.ClickHouse(fs)
	noVerify := fs.Bool("no-verify", false, "skip Ed25519 verification of inbound messages (results say so)")
	interval := fs.Duration("monitor-interval", time.Second, "monitor sampling interval")
	window := fs.Duration("window", 5*time.Second, "throughput window for the volume-degradation series")
	tables := fs.String("tables", cli.EnvOr("STE_TABLES", instance.TablesDisk), "where the processor instances keep their tables: disk or memory ($STE_TABLES)")
	if err := fs.Read(args); err != nil {
		return err
	}
	if *tables != instance.TablesMemory && *tables != instance.TablesDisk {
		return cli.UsageError{Msg: "--tables: want memory or disk"}
	}
	if *trades <= 0 || *instances < 1 || *partitions < 1 {
		return cli.UsageError{Msg: "--trades, --instances and --partitions must be positive"}
	}
	if *mix != "standard" && *mix != "realistic" {
		return cli.UsageError{Msg: "--mix must be standard or realistic"}
	}
	if *forged < 0 || *forged >= 0.5 {
		return cli.UsageError{Msg: "--forged must be at least 0 and below 0.5"}
	}
	if *rate < 0 || *rampTo < 0 || *rampOver < 0 || *interval <= 0 || *window <= 0 {
		return cli.UsageError{Msg: "--rate, --ramp-to and --ramp-over must not be negative; --monitor-interval and --window must be positive"}
	}
	var k kafkaconn.Config
	if *brokers != "" {
		var err error
		if k, err = kafka(); err != nil {
			return err
		}
	}
	signer, err := cli.UtilitySigner(refdata.DefaultUtilityBIC, "", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	o := bench.Options{Trades: *trades, Rate: *rate, RampTo: *rampTo, RampOver: *rampOver, Kafka: k,
		Instances: *instances, Partitions: *partitions, Mix: workload.Mix(*mix), Seed: *seed, Forged: *forged, Verify: !*noVerify,
		Interval: *interval, Window: *window, Home: cli.Home(), Signer: signer, Tables: *tables,
		Progress: func(format string, a ...any) { fmt.Fprintf(os.Stderr, format+"\n", a...) }}
	if cli.IsTerminal(os.Stderr) {
		// Bars on a terminal, as ste drive draws: the set's generation (a
		// large one takes minutes) and the processing, up to its last CLS.
		var gen *cli.ProgressBar
		o.Generating = func(n int, bytes int64) {
			if gen == nil {
				gen = cli.NewProgressBar(os.Stderr, int64(*trades), "trades")
			}
			gen.Set(int64(n), cli.Bytes(bytes)+" written")
			if n >= *trades {
				gen.Done()
			}
		}
		var proc *cli.ProgressBar
		o.Processing = func(cls, expected int, done bool) {
			if proc == nil {
				fmt.Fprintln(os.Stderr, "bench: processing, until every expected CLS has arrived")
				proc = cli.NewProgressBar(os.Stderr, int64(expected), "CLS")
			}
			proc.Set(int64(cls), "")
			if done {
				proc.Done()
			}
		}
	}
	if !*noAnalytics {
		// The reports go to stderr: stdout is the one JSON object.
		o.Feed = &analytics.BenchFeed{DSN: *chDSN, Home: cli.Home(), Reports: os.Stderr}
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

func runMonitor(ctx context.Context, args []string) error {
	fs := cli.Flags("monitor", "[--brokers B] [--namespace NS] [--interval 1s] [--duration D]")
	kafka, ns := cli.KafkaFlags(fs), cli.Namespace(fs)
	interval := fs.Duration("interval", time.Second, "sampling interval (the source used 7 s)")
	duration := fs.Duration("duration", 0, "stop after this long (0: until interrupted)")
	quiet := fs.Bool("quiet", false, "print only the final table")
	if err := fs.Read(args); err != nil {
		return err
	}
	if *interval <= 0 || *duration < 0 {
		return cli.UsageError{Msg: "--interval must be positive and --duration not negative"}
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
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	var each func([]schemas.MonitorSample)
	if !*quiet {
		each = cli.SampleLine
	}
	samples, err := monitor.Run(ctx, monitor.New(cl, *ns), cl, *ns, *interval, each)
	if err != nil {
		return err
	}
	oplaw.WriteTable(os.Stdout, monitor.Laws(samples))
	return nil
}
