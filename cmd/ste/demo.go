package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/analytics"
	"github.com/ste-utility/ste/console"
	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/measure/monitor"
	"github.com/ste-utility/ste/processors/pipeline"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/ledger"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/broker"
	"github.com/ste-utility/ste/workload"
)

func init() {
	register(command{"demo", "the main job on embedded defaults: broker, reference data, processors, 10,000 realistic trades, a report", demo})
}

// reasonHelp explains each rejection code to a new user.
var reasonHelp = map[string]string{
	"TOO_LARGE":             "record over 64 KiB",
	"MALFORMED":             "not well-formed XML",
	"SCHEMA":                "a field missing or of the wrong type",
	"UNKNOWN_SENDER":        "sender not an active participant",
	"SIGNATURE":             "signature does not verify",
	"NOT_AUTHORISED":        "sender may not send this message type",
	"UNKNOWN_PARTY":         "broker, investment manager, custodian or CSD unknown",
	"UNKNOWN_SECURITY":      "ISIN unknown, suspended or bad check digit",
	"UNKNOWN_CURRENCY":      "currency not in reference data",
	"BAD_DATE":              "settlement on a holiday or weekend, or Created in the future",
	"BAD_AMOUNT":            "amounts that do not add up",
	"CONFLICTING_DUPLICATE": "MsgId reused with other content",
}

func demo(ctx context.Context, args []string) error {
	fs := flags("demo", "[--trades N] [--clickhouse DSN] [--console [--console-addr ADDR]]")
	trades := fs.Int("trades", 10000, "realistic trades to generate and drive")
	chDSN := clickhouseFlag(fs)
	withConsole := fs.Bool("console", false, "after the summary, keep the broker and processors running and serve the operator console until interrupted")
	consoleAddr := fs.String("console-addr", console.DefaultAddr, "where --console serves")
	if err := fs.parse(args); err != nil {
		return err
	}
	if *trades < 1 {
		return usageError{"--trades must be positive"}
	}
	home := filepath.Join(steHome(), "demo")
	// Every run starts from empty state: the demo's broker data is reset.
	if err := os.RemoveAll(filepath.Join(home, "broker")); err != nil {
		return err
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	logPath := filepath.Join(home, "process.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logFile.Close()
	log := slog.New(slog.NewTextHandler(logFile, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ns := "demo" + time.Now().UTC().Format("20060102t150405")
	say := func(format string, a ...any) { fmt.Printf(format+"\n", a...) }

	say("STE demo — post-trade matching of %d realistic trades on an embedded Kafka broker", *trades)
	say("  state: %s (reset each run); processor log: %s", home, logPath)
	start := time.Now()

	// 1. Broker.
	c, err := broker.Start(broker.Options{Addr: "127.0.0.1:0", DataDir: filepath.Join(home, "broker")})
	if err != nil {
		return err
	}
	defer c.Close()
	brokers := kafkaconn.Plaintext(broker.Addr(c))
	say("1. embedded broker (kfake) listening on %s", brokers)

	// 2. Topics and reference data.
	cl, err := topics.Client(brokers)
	if err != nil {
		return err
	}
	defer cl.Close()
	if _, err := topics.Create(ctx, kadm.NewClient(cl), ns, topics.Options{}); err != nil {
		return err
	}
	ref := refdata.Default()
	n, err := topics.PublishRefdata(ctx, cl, ns, ref)
	if err != nil {
		return err
	}
	say("2. namespace %s: topics created, %d reference data records loaded (%d securities, %d participants)",
		ns, n, len(ref.Securities()), len(ref.Participants()))

	// 3. Processors, in this process.
	signer, err := utilitySigner("STEUTLSGXXX", "", log)
	if err != nil {
		return err
	}
	pctx, stopProc := context.WithCancel(ctx)
	defer stopProc()
	ready := make(chan struct{})
	procDone := make(chan error, 1)
	go func() {
		procDone <- instance.Run(pctx, instance.Options{Kafka: brokers, Namespace: ns, Retention: 72 * time.Hour,
			Signer: signer, HTTPAddr: "127.0.0.1:0", Verify: true, Home: steHome(), Logger: log, Ready: ready,
			BrokerInProcess: true, DropTables: true})
	}()
	select {
	case <-ready:
	case err := <-procDone:
		return fmt.Errorf("processors failed to start: %v (see %s)", err, logPath)
	case <-ctx.Done():
		return ctx.Err()
	}
	say("3. processors running: validate → identity → match (signing outputs with the public demo key)")
	// Analytics ingest alongside; without it the demo still shows matching.
	fd, err := startFeed(ctx, *chDSN, brokers, ns, log)
	if err != nil {
		say("   analytics skipped: %v", err)
		fd = nil
	} else {
		defer fd.close()
	}

	// 4. Generate.
	setPath := filepath.Join(home, "set.xml")
	w, err := msgset.Create(setPath)
	if err != nil {
		return err
	}
	man, err := workload.Generate(workload.Options{Trades: *trades, Mix: workload.Realistic, Ref: ref}, w.Write, nil)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	say("4. generated %d signed messages for %d trades in %.1fs (%s)", man.Messages, man.Trades, man.Seconds, setPath)

	// 5. Watch the outputs and sample the queues while driving.
	mctx, stopMon := context.WithCancel(ctx)
	defer stopMon()
	monDone := monitor.Loop(mctx, monitor.New(kadm.NewClient(cl), ns), cl, ns, time.Second, nil)
	watch := newWatcher(brokers, ns)
	defer watch.close()
	go watch.run(ctx)
	src, err := msgset.Open(setPath)
	if err != nil {
		return err
	}
	defer src.Close()
	driveStart := time.Now()
	res, err := topics.Drive(ctx, cl, ns, src, topics.DriveOptions{})
	if err != nil {
		return err
	}
	say("5. drove %d messages to %s.inbound in %.1fs", res.Sent, ns, res.Seconds)

	accepted := man.Messages - man.Duplicates - man.Exceptions
	deadline := time.Now().Add(5 * time.Minute)
	for {
		acks, excs, cls := watch.progress()
		if isTerminal(os.Stdout) {
			fmt.Printf("\r   processing: %d/%d ACKs, %d/%d exceptions, %d CLS   ", acks, accepted, excs, man.Exceptions, cls)
		}
		if acks >= accepted && excs >= man.Exceptions && cls >= man.Matched {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("outputs incomplete after 5 minutes: %d/%d ACKs, %d/%d exceptions (see %s)", acks, accepted, excs, man.Exceptions, logPath)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-procDone:
			return fmt.Errorf("processors stopped: %v (see %s)", err, logPath)
		case <-time.After(200 * time.Millisecond):
		}
	}
	elapsed := time.Since(driveStart)
	stopMon()
	<-monDone
	if isTerminal(os.Stdout) {
		fmt.Print("\r" + strings.Repeat(" ", 70) + "\r")
	}
	say("6. every message answered %.1fs after the first was sent: %.0f messages/s end to end", elapsed.Seconds(),
		float64(man.Messages)/elapsed.Seconds())
	watch.report(os.Stdout, man)
	if !*withConsole {
		stopProc()
		<-procDone
	}
	if fd != nil {
		// With the console, ingest goes on: retries show in its history.
		finish := fd.finish
		if *withConsole {
			finish = fd.catchUp
		}
		if err := finish(ctx); err != nil {
			return fmt.Errorf("analytics: %v", err)
		}
		say("\n7. analytics: every CLS, audit record and exception is in ClickHouse (%s)", analyticsWhere(*chDSN))
		if err := analytics.PrintReports(ctx, os.Stdout, fd.st, ns, "counts", "queues", "latency"); err != nil {
			return fmt.Errorf("analytics: %v", err)
		}
	}
	if *withConsole {
		return demoConsole(ctx, console.Options{Kafka: brokers, Namespace: ns, Addr: *consoleAddr, Logger: log,
			LocalOperator: localOperator(), Analytics: analyticsOpener(*chDSN)}, stopProc, procDone, fd, say)
	}
	say("\ndone in %.0fs. Next:", time.Since(start).Seconds())
	say("  ste report throughput|degradation|queues|latency|exceptions [--plot FILE.png]   reports on this run")
	say("  ste match --in %s --out DIR                          the same set offline", setPath)
	say("  ste demo --console                                    the same, then keep it running with the operator console")
	say("  docs/ARCHITECTURE.md (topology), docs/matching.md (the 17 criteria), docs/analytics.md (SQL)")
	say("\nStopped with the demo: the embedded broker (its data stays in %s) and the processors.", filepath.Join(home, "broker"))
	if s := leftRunning(ctx, steHome()); s != "" {
		say("Still running: %s.", s)
	} else {
		say("Nothing keeps running.")
	}
	return nil
}

// demoConsole serves the console on the demo's namespace, with its broker,
// processors and ingest running, until interrupted; then it stops the
// processors and the ingest.
func demoConsole(ctx context.Context, o console.Options, stopProc func(), procDone <-chan error, fd *feed, say func(string, ...any)) error {
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	procErr := make(chan error, 1)
	go func() {
		err := <-procDone
		procErr <- err
		if cctx.Err() == nil { // the processors stopped by themselves
			say("processors stopped: %v", err)
			stop()
		}
	}()
	err := serveConsole(cctx, o, func(url string) {
		b := strings.Join(o.Kafka.Brokers, ",")
		say("\n8. console: %s  (namespace %s, broker %s)", url, o.Namespace, b)
		say("   the broker, the processors, analytics and the console keep running until Ctrl-C;")
		say("   from a terminal: ste exceptions list --brokers %s --namespace %s", b, o.Namespace)
	})
	stop()
	stopProc()
	<-procErr
	if fd != nil {
		fd.in.Stop()
	}
	say("stopped: the console, the processors and the demo's broker")
	return err
}

func analyticsWhere(dsn string) string {
	if dsn != "" {
		return dsn
	}
	return "embedded, " + filepath.Join(steHome(), "analytics")
}

// watcher folds the output topics into a ledger as they arrive.
type watcher struct {
	cl  *kgo.Client
	ns  string
	led *ledger.Ledger
	ch  chan func()
}

func newWatcher(brokers kafkaconn.Config, ns string) *watcher {
	n := pipeline.Names{NS: ns}
	cl, _ := topics.Client(brokers, kgo.ConsumeTopics(n.CLS(), n.Outbound(), n.Exceptions()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	return &watcher{cl: cl, ns: ns, led: ledger.New(), ch: make(chan func())}
}

func (w *watcher) close() { w.cl.Close() }

func (w *watcher) run(ctx context.Context) {
	exc := pipeline.Names{NS: w.ns}.Exceptions()
	seen := map[string]bool{}
	for {
		fs := w.cl.PollFetches(ctx)
		if ctx.Err() != nil || w.cl == nil {
			return
		}
		recs := fs.Records()
		w.ch <- func() {
			for _, r := range recs {
				if r.Topic == exc {
					id := fmt.Sprintf("%d-%d", r.Partition, r.Offset)
					if !seen[id] {
						seen[id] = true
						w.led.AddException(r.Value)
					}
					continue
				}
				w.led.Add(r.Value)
			}
		}
	}
}

// progress applies what arrived and returns distinct ACKs, exceptions and CLS NEW.
func (w *watcher) progress() (acks, excs, cls int) {
	for {
		select {
		case f := <-w.ch:
			f()
			continue
		default:
		}
		break
	}
	n := 0
	for _, c := range w.led.Reasons {
		n += c
	}
	matched := 0
	for _, t := range w.led.Trades() {
		if t.CLS != nil {
			matched++
		}
	}
	return w.led.Count["ACK NEW"], n, matched
}

func (w *watcher) report(out io.Writer, man *workload.Manifest) {
	var matched, mismatched int
	for _, t := range w.led.Trades() {
		switch {
		case t.CLS != nil:
			matched++
		case t.Status == schemas.Mismatched.String():
			mismatched++
		}
	}
	fmt.Fprintf(out, "\nResult (read back from the output topics; the generator's intent in brackets)\n")
	fmt.Fprintf(out, "  trades matched, one CLS each ........ %6d  [%d]\n", matched, man.Matched)
	fmt.Fprintf(out, "  trades mismatched (STATUS) .......... %6d  [%d]\n", mismatched, man.Mismatched)
	fmt.Fprintf(out, "  trades incomplete (waiting) ......... %6d  [%d]\n", man.Trades-matched-mismatched, man.Incomplete)
	fmt.Fprintf(out, "  messages accepted (ACK) ............. %6d\n", w.led.Count["ACK NEW"])
	fmt.Fprintf(out, "  exact duplicates (answered again) ... %6d  [%d]\n", man.Duplicates, man.Duplicates)
	fmt.Fprintf(out, "  CLS corrections (CANCEL + new version) %5d\n", w.led.Count["CLS CANCEL"])
	total := 0
	var codes []string
	for c, n := range w.led.Reasons {
		codes = append(codes, c)
		total += n
	}
	sort.Strings(codes)
	fmt.Fprintf(out, "  messages rejected to %s.exceptions: %d  [%d]\n", w.ns, total, man.Exceptions)
	for _, c := range codes {
		fmt.Fprintf(out, "    %-22s %5d  %s\n", c, w.led.Reasons[c], reasonHelp[c])
	}
	if matched != man.Matched || mismatched != man.Mismatched || total != man.Exceptions {
		fmt.Fprintf(out, "  WARNING: the outcome differs from what the generator built\n")
	}
}
