package main

// ste replay: sandboxes for backtests (docs/backtests.md).

import (
	"context"
	"fmt"
	"os"

	"github.com/ste-utility/ste/cli"
	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/replay"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics/copier"
	"github.com/ste-utility/ste/trust"
	"github.com/ste-utility/ste/when"
)

func init() {
	register(cli.Command{Name: "replay", Summary: "copy a namespace's inbound (a range) into a sandbox for a backtest, and run it (--run); --delete removes a sandbox", Run: replayCmd})
}

func replayCmd(ctx context.Context, args []string) error {
	fs := cli.Flags("replay", "--from NS --to SANDBOX [--since T] [--until T] [--refdata DIR] [--partitions N] [--append] [--rate R] [--run [--window DUR] [ste process flags]]\n       ste replay --delete SANDBOX --confirm SANDBOX\n\n"+
		"T (--since, --until): a record time — RFC 3339, \"2006-01-02 15:04:05\" (UTC), a date, or a duration before now (30m, 3d) —\n"+
		"or offsets per partition, PARTITION:OFFSET,… (partitions not named are open on that side)")
	kafka := cli.KafkaFlags(fs)
	from := fs.String("from", "", "the namespace replayed (required)")
	to := fs.String("to", "", "the sandbox namespace: new, or a sandbox with --append (required)")
	since := fs.String("since", "", "first record: inbound records received at or after T (default: the oldest kept)")
	until := fs.String("until", "", "end: inbound records received before T (default: all so far)")
	refDir := fs.String("refdata", "", "reference data directory for the sandbox: the change being backtested (default: the source namespace's reference data as it is NOW, not as of --since)")
	parts := fs.Int("partitions", 0, "partitions of the sandbox (default: the source's)")
	appendFlag := fs.Bool("append", false, "copy into a sandbox that already holds inbound records")
	rate := fs.Float64("rate", 0, "copy at most this many records per second (0: as fast as the cluster takes them)")
	run := fs.Bool("run", false, "run the processors on the sandbox while copying, until every group is at lag 0 (ste process flags apply)")
	window := fs.String("window", "", "with --run: copy a window of record time at a time, each processed to lag 0 before the next, so that partitions stay within a window of each other in event time (default: a tenth of --retention; 0: all at once)")
	del := fs.String("delete", "", "remove this sandbox's topics and consumer groups (only a namespace made by ste replay whose inbound holds only what it copied; with --confirm)")
	confirm := fs.String("confirm", "", "with --delete: the sandbox's name again, typed out")
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	pf := cli.AddProcessFlags(fs, "")
	fs.LogFlags()
	if err := fs.Read(args); err != nil {
		return err
	}
	if *del != "" {
		if err := cli.ValidNamespace(*del); err != nil {
			return err
		}
		if *confirm != *del {
			return cli.UsageError{Msg: fmt.Sprintf("--delete removes namespace %s for good: type its name again with --confirm %s", *del, *del)}
		}
		secret, err := pf.Secret()
		if err != nil {
			return err
		}
		return replayDelete(ctx, kafka, *del, secret)
	}
	if *from == "" || *to == "" {
		return cli.UsageError{Msg: "--from and --to are required (or --delete SANDBOX)"}
	}
	for _, ns := range []string{*from, *to} {
		if err := cli.ValidNamespace(ns); err != nil {
			return err
		}
	}
	if *window != "" && !*run {
		return cli.UsageError{Msg: "--window applies to --run"}
	}
	if *parts < 0 || *rate < 0 {
		return cli.UsageError{Msg: "--partitions and --rate must not be negative"}
	}
	o := replay.Options{From: *from, To: *to, Partitions: int32(*parts), Append: *appendFlag, Rate: *rate, RefdataDir: *refDir}
	var err error
	if o.Secret, err = pf.Secret(); err != nil {
		return err
	}
	if o.Since, err = copier.ParseBound(*since); err != nil {
		return cli.UsageError{Msg: "--since: " + err.Error()}
	}
	if o.Until, err = copier.ParseBound(*until); err != nil {
		return cli.UsageError{Msg: "--until: " + err.Error()}
	}
	po, err := pf.Check()
	if err != nil {
		return err
	}
	if *refDir != "" {
		if o.Refdata, err = refdata.LoadDir(*refDir); err != nil {
			return err
		}
	}
	k, err := cli.Reachable(ctx, kafka)
	if err != nil {
		return err
	}
	o.Dial = cli.Dialer(k)
	if cli.IsTerminal(os.Stderr) {
		o.Progress = func(n, total int64) {
			fmt.Fprintf(os.Stderr, "\r%s %d/%d records copied   ", cli.FractionBar(n, total), n, total)
		}
	}
	var res replay.Result
	var ran *replay.Ran
	if !*run {
		res, err = replay.Replay(ctx, o)
	} else {
		w := po.Retention / 10
		if *window != "" {
			if w, err = when.Duration(*window); err != nil {
				return cli.UsageError{Msg: "--window: " + err.Error()}
			}
		}
		var r replay.Ran
		res, r, err = replay.ReplayAndRun(ctx, o, w, func() (instance.Options, func(), error) {
			po, release, err := pf.Instance(po, fs.Log)
			po.Kafka, po.Namespace = k, *to
			return po, release, err
		}, cli.LagProgress())
		ran = &r
	}
	if o.Progress != nil {
		fmt.Fprintln(os.Stderr)
	}
	if err != nil {
		return err
	}
	return replay.Report(os.Stdout, res, ran, *asJSON)
}

func replayDelete(ctx context.Context, kafka func() (kafkaconn.Config, error), ns string, secret *trust.Secret) error {
	k, err := cli.Reachable(ctx, kafka)
	if err != nil {
		return err
	}
	d, err := replay.DeleteSandbox(ctx, cli.Dialer(k), ns, secret, cli.Home())
	if err != nil {
		return err
	}
	d.WriteText(os.Stdout, ns, cli.Home())
	return nil
}
