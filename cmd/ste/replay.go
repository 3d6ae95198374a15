package main

// ste replay: sandboxes for backtests (docs/backtests.md).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/replay"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/copier"
	"github.com/ste-utility/ste/topics/lag"
	"github.com/ste-utility/ste/trust"
	"github.com/ste-utility/ste/when"
)

func init() {
	register(command{"replay", "copy a namespace's inbound (a range) into a sandbox for a backtest, and run it (--run); --delete removes a sandbox", replayCmd})
}

// dialer opens clients on brokers for the copy path.
func dialer(k kafkaconn.Config) copier.Dial {
	return func(opts ...kgo.Opt) (*kgo.Client, error) { return topics.Client(k, opts...) }
}

func replayCmd(ctx context.Context, args []string) error {
	fs := flags("replay", "--from NS --to SANDBOX [--since T] [--until T] [--refdata DIR] [--partitions N] [--append] [--rate R] [--run [--window DUR] [ste process flags]]\n       ste replay --delete SANDBOX --confirm SANDBOX\n\n"+
		"T (--since, --until): a record time — RFC 3339, \"2006-01-02 15:04:05\" (UTC), a date, or a duration before now (30m, 3d) —\n"+
		"or offsets per partition, PARTITION:OFFSET,… (partitions not named are open on that side)")
	kafka := kafkaFlags(fs)
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
	pf := addProcessFlags(fs, "")
	fs.logFlags()
	if err := fs.parse(args); err != nil {
		return err
	}
	if *del != "" {
		if err := validNamespace(*del); err != nil {
			return err
		}
		if *confirm != *del {
			return usageError{fmt.Sprintf("--delete removes namespace %s for good: type its name again with --confirm %s", *del, *del)}
		}
		secret, err := pf.secret()
		if err != nil {
			return err
		}
		return replayDelete(ctx, kafka, *del, secret)
	}
	if *from == "" || *to == "" {
		return usageError{"--from and --to are required (or --delete SANDBOX)"}
	}
	for _, ns := range []string{*from, *to} {
		if err := validNamespace(ns); err != nil {
			return err
		}
	}
	if *window != "" && !*run {
		return usageError{"--window applies to --run"}
	}
	if *parts < 0 || *rate < 0 {
		return usageError{"--partitions and --rate must not be negative"}
	}
	o := replay.Options{From: *from, To: *to, Partitions: int32(*parts), Append: *appendFlag, Rate: *rate, RefdataDir: *refDir}
	var err error
	if o.Secret, err = pf.secret(); err != nil {
		return err
	}
	if o.Since, err = parseBound(*since); err != nil {
		return usageError{"--since: " + err.Error()}
	}
	if o.Until, err = parseBound(*until); err != nil {
		return usageError{"--until: " + err.Error()}
	}
	po, err := pf.check()
	if err != nil {
		return err
	}
	if *refDir != "" {
		if o.Refdata, err = refdata.LoadDir(*refDir); err != nil {
			return err
		}
	}
	k, err := reachable(ctx, kafka)
	if err != nil {
		return err
	}
	cl, err := topics.Connect(ctx, k)
	if err != nil {
		return err
	}
	defer cl.Close()
	o.Dial = dialer(k)
	if isTerminal(os.Stderr) {
		o.Progress = func(n, total int64) {
			fmt.Fprintf(os.Stderr, "\r%s %d/%d records copied   ", fractionBar(n, total), n, total)
		}
	}
	var res replay.Result
	var ran replay.Ran
	if !*run {
		res, err = replay.Replay(ctx, o)
	} else {
		w := po.Retention / 10
		if *window != "" {
			if w, err = when.Duration(*window); err != nil {
				return usageError{"--window: " + err.Error()}
			}
		}
		var p *replay.Prepared
		if p, err = replay.Prepare(ctx, o); err != nil {
			return err
		}
		var release func()
		if po, release, err = pf.instance(po, fs.log); err != nil {
			return err
		}
		defer release()
		po.Kafka, po.Namespace = k, *to
		progress := lagProgress()
		ran, err = replay.Run(ctx, kadm.NewClient(cl), po, progress, func(ctx context.Context, settle func(context.Context) error) error {
			res, err = p.Copy(ctx, w, settle)
			return err
		})
	}
	if o.Progress != nil {
		fmt.Fprintln(os.Stderr)
	}
	if err != nil {
		return err
	}
	out := map[string]any{"from": res.From, "to": res.To, "partitions": res.Partitions, "copied": res.Copied,
		"refdata": res.Refdata, "seconds": round3(res.Seconds), "msgs_per_sec": int64(res.MsgPerSec), "windows": res.Windows}
	if *run {
		out["run_seconds"], out["ready_seconds"] = round3(ran.Seconds), round3(ran.Ready)
	}
	if *asJSON {
		return json.NewEncoder(os.Stdout).Encode(out)
	}
	fmt.Printf("replayed %d inbound records of %s into sandbox %s (%d partitions, reference data: %s), copied at %d msg/s\n",
		res.Copied, res.From, res.To, res.Partitions, res.Refdata, int64(res.MsgPerSec))
	if *run {
		windows := fmt.Sprintf("%d windows", res.Windows)
		if res.Windows == 1 {
			windows = "one window"
		}
		fmt.Printf("processed to lag 0 in %.1fs (%s of record time); compare with: ste diff %s %s\n", out["run_seconds"], windows, res.From, res.To)
	} else {
		fmt.Printf("run its processors with: ste replay … --run, or ste process --namespace %s\n", res.To)
	}
	return nil
}

func replayDelete(ctx context.Context, kafka func() (kafkaconn.Config, error), ns string, secret *trust.Secret) error {
	k, err := reachable(ctx, kafka)
	if err != nil {
		return err
	}
	d, err := replay.Delete(ctx, dialer(k), ns, secret)
	if err != nil {
		return err
	}
	removed, busy, err := instance.RemoveTables(steHome(), ns)
	if err != nil {
		return err
	}
	fmt.Printf("sandbox %s deleted: %d topics, %d consumer groups, the tables of %d instances under %s\n",
		ns, len(d.Topics), len(d.Groups), len(removed), steHome())
	for _, b := range busy {
		fmt.Printf("  kept %s: its instance is running (stop it, then delete again)\n", b)
	}
	return nil
}

var offsetsForm = regexp.MustCompile(`^\s*\d+:\d+(\s*,\s*\d+:\d+)*\s*$`)

// parseBound reads --since/--until: a time (when.Time) or PARTITION:OFFSET
// pairs.
func parseBound(s string) (copier.Bound, error) {
	if strings.TrimSpace(s) == "" {
		return copier.Bound{}, nil
	}
	if offsetsForm.MatchString(s) {
		b := copier.Bound{Offsets: map[int32]int64{}}
		for _, pair := range strings.Split(s, ",") {
			p, o, _ := strings.Cut(strings.TrimSpace(pair), ":")
			pn, err1 := strconv.ParseInt(p, 10, 32)
			on, err2 := strconv.ParseInt(o, 10, 64)
			if err := errors.Join(err1, err2); err != nil {
				return b, err
			}
			if _, dup := b.Offsets[int32(pn)]; dup {
				return b, fmt.Errorf("partition %d given twice", pn)
			}
			b.Offsets[int32(pn)] = on
		}
		return b, nil
	}
	t, err := when.Time(s)
	if err != nil {
		return copier.Bound{}, fmt.Errorf("%v, or PARTITION:OFFSET,…", err)
	}
	return copier.Bound{Time: t}, nil
}

// fractionBar is a progress bar of n out of total.
func fractionBar(n, total int64) string {
	const width = 20
	pos := width
	if total > 0 {
		pos = int(min(n, total) * width / total)
	}
	return "[" + strings.Repeat("=", pos) + ">" + strings.Repeat(" ", width-pos) + "]"
}

// lagProgress draws "processed so far" from lag samples on a terminal: the
// bar runs from the largest lag seen to zero.
func lagProgress() func(lag.Sample) {
	if !isTerminal(os.Stderr) {
		return nil
	}
	var most int64
	return func(s lag.Sample) {
		n := s.Sum()
		most = max(most, n)
		fmt.Fprintf(os.Stderr, "\r%s %d records behind   ", fractionBar(most-n, most), n)
		if n == 0 && len(s.Partitions) > 0 {
			fmt.Fprintln(os.Stderr)
		}
	}
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }
