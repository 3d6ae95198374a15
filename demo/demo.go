// Package demo is `ste demo`: the guided run of the main job on embedded
// defaults — a broker in the process, topics and reference data, the
// processors, analytics ingest alongside, a realistic set generated and
// driven, the outputs watched until every message is answered, a summary
// read back from the output topics and the analytics reports; with the
// console, all of it kept running behind the operator console until
// interrupted.
//
// It sits at the top of the one-way rule (docs/ARCHITECTURE.md), beside
// the console it serves: nothing imports it but cmd/ste.
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/ste-utility/ste/adapters"
	"github.com/ste-utility/ste/adapters/fixgw"
	"github.com/ste-utility/ste/adapters/iso20022"
	"github.com/ste-utility/ste/analytics"
	"github.com/ste-utility/ste/chendpoint/embedded"
	"github.com/ste-utility/ste/console"
	"github.com/ste-utility/ste/gateway"
	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/instance/lookup"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/measure/monitor"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/broker"
	"github.com/ste-utility/ste/trust"
	"github.com/ste-utility/ste/workload"
)

// Options configure Run.
type Options struct {
	Trades     int    // realistic trades to generate and drive
	ClickHouse string // analytics DSN; "" for the embedded endpoint under Home
	Home       string // $STE_HOME: the demo's state is Home/demo, reset each run
	// Console keeps the broker, processors and ingest running after the
	// summary and serves the operator console on ConsoleAddr until ctx ends;
	// changes made there are recorded under Operator.
	Console     bool
	ConsoleAddr string
	Operator    string
	// Signer builds the utility's signer; what it logs goes to the demo's
	// processor log.
	Signer func(log *slog.Logger) (*schemas.Signer, error)
	// Out is where the demo says what it does; Terminal when Out is a
	// terminal, so that progress is redrawn in place.
	Out      io.Writer
	Terminal bool
}

// Run runs the demo until its summary is said or, with Console, until ctx
// ends.
func Run(ctx context.Context, o Options) error {
	// The console's address first: a busy port is said now, in one line
	// naming the flag, not after the whole run.
	var consoleLn net.Listener
	if o.Console {
		ln, err := net.Listen("tcp", o.ConsoleAddr)
		if err != nil {
			why := err
			var se *os.SyscallError
			if errors.As(err, &se) {
				why = se.Err // "address already in use", without the syscall's name
			}
			return fmt.Errorf("--console-addr %s: %v: another console or program listens there; give a free address with --console-addr (127.0.0.1:0 picks one)", o.ConsoleAddr, why)
		}
		consoleLn = ln
		defer ln.Close()
	}
	home := filepath.Join(o.Home, "demo")
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
	say := func(format string, a ...any) { fmt.Fprintf(o.Out, format+"\n", a...) }

	say("STE demo — post-trade matching of %d realistic trades on an embedded Kafka broker", o.Trades)
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
	// The committed set with mixed affirmation modes (affirmation.csv: a row
	// per investment manager, two in three AUTO): the lifecycle's both
	// kinds of investment manager. The contract's default set has none.
	ref := refdata.WithAffirmation(refdata.Default(), refdata.AffirmationMixed)
	n, err := topics.PublishRefdata(ctx, cl, ns, ref)
	if err != nil {
		return err
	}
	auto := 0
	for _, a := range ref.Affirmations() {
		if a.Mode == refdata.AffirmAuto {
			auto++
		}
	}
	say("2. namespace %s: topics created, %d reference data records loaded (%d securities, %d participants; %d of %d investment managers AUTO-affirmed)",
		ns, n, len(ref.Securities()), len(ref.Participants()), auto, len(ref.Affirmations()))

	// 3. Processors, in this process.
	signer, err := o.Signer(log)
	if err != nil {
		return err
	}
	// The utility's shared secret: the console's trade lookups carry its
	// token to the processors' lookup listener.
	secret, err := trust.LoadOrCreate(trust.DefaultPath(o.Home))
	if err != nil {
		return err
	}
	pctx, stopProc := context.WithCancel(ctx)
	defer stopProc()
	ready := make(chan struct{})
	procDone := make(chan error, 1)
	go func() {
		procDone <- instance.Run(pctx, instance.Options{Kafka: brokers, Namespace: ns, Retention: 72 * time.Hour,
			Signer: signer, HTTPAddr: "127.0.0.1:0", LookupAddr: "127.0.0.1:0", Secret: secret, Verify: true, Home: o.Home, Logger: log, Ready: ready,
			BrokerInProcess: true, DropTables: true,
			// Allegements after half a second without a message, not the
			// production default of a minute: the demo's run is over in
			// seconds, and its report shows what is outstanding.
			AllegementDelay: 500 * time.Millisecond})
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
	fd, err := analytics.StartFeed(ctx, o.ClickHouse, o.Home, brokers, ns, secret, log)
	if err != nil {
		say("   analytics skipped: %v", err)
		fd = nil
	} else {
		defer fd.Close()
	}

	// 4. Generate.
	setPath := filepath.Join(home, "set.xml")
	w, err := msgset.Create(setPath)
	if err != nil {
		return err
	}
	man, err := workload.Generate(workload.Options{Trades: o.Trades, Mix: workload.Realistic, Ref: ref, TradeDate: workload.Today()}, w.Write, nil)
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
	// Four samples a second: a short run (ste demo --trades 300 is done in
	// about a second) still has a queue history to draw.
	monDone := monitor.Loop(mctx, monitor.New(cl, ns), cl, ns, 250*time.Millisecond, nil)
	watch := newWatcher(brokers, ns, signer.BIC)
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
		if o.Terminal {
			fmt.Fprintf(o.Out, "\r   processing: %d/%d ACKs, %d/%d exceptions, %d CLS   ", acks, accepted, excs, man.Exceptions, cls)
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
	// Every message is answered; what the utility's own AFFs (AUTO
	// investment managers) cause comes after: wait until no output has
	// arrived for a second, at most 30 s.
	for last, quiet, until := watch.settled(), time.Now(), time.Now().Add(30*time.Second); time.Since(quiet) < time.Second && time.Now().Before(until); {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if n := watch.settled(); n != last {
			last, quiet = n, time.Now()
		}
	}
	stopMon()
	<-monDone
	if o.Terminal {
		fmt.Fprint(o.Out, "\r"+strings.Repeat(" ", 70)+"\r")
	}
	say("6. every message answered %.1fs after the first was sent: %.0f messages/s end to end", elapsed.Seconds(),
		float64(man.Messages)/elapsed.Seconds())
	watch.report(o.Out, man)
	if !o.Console {
		stopProc()
		<-procDone
	}
	if fd != nil {
		// With the console, ingest goes on: retries show in its history.
		finish := fd.Finish
		if o.Console {
			finish = fd.CatchUp
		}
		if err := finish(ctx); err != nil {
			return fmt.Errorf("analytics: %v", err)
		}
		say("\n7. analytics: every CLS, audit record and exception is in ClickHouse (%s)", analyticsWhere(o.ClickHouse, o.Home))
		if err := analytics.PrintReports(ctx, o.Out, fd.Store, ns, "counts", "queues", "latency"); err != nil {
			return fmt.Errorf("analytics: %v", err)
		}
	}
	if o.Console {
		ictx, istop := context.WithCancel(ctx)
		defer istop()
		go serveISO(ictx, brokers, ns, home, log, say)
		go serveFIX(ictx, brokers, ns, home, log, say)
		gw := gateway.Options{Kafka: brokers, Namespace: ns, Addr: gateway.DefaultAddr, MetricsAddr: "", Logger: log,
			LookupToken: secret.Token(lookup.TokenPurpose), LookupSecret: secret}
		return serveConsole(ctx, console.Options{Kafka: brokers, Namespace: ns, Listener: consoleLn, Logger: log, Secret: secret,
			LocalOperator: o.Operator, Analytics: analytics.Opener(o.ClickHouse, o.Home)}, gw, participantOf(setPath, ref), stopProc, procDone, fd, say)
	}
	say("\ndone in %.0fs. Next:", time.Since(start).Seconds())
	say("  ste report throughput|degradation|queues|latency|exceptions [--plot FILE.png]   reports on this run")
	say("  ste report timeliness|allegements [--plot FILE.png]   the share affirmed by the cutoff; who answers allegements late")
	say("  ste match --in %s --refdata DIR --out DIR2   with DIR from ste refdata gen --affirmation mixed: the same set offline,", setPath)
	say("                                               the utility affirming for the AUTO investment managers")
	say("  ste demo --console                                    the same, then keep it running with the operator console")
	say("  docs/ARCHITECTURE.md (topology), docs/matching.md (the 17 criteria), docs/participants.md §11 (after the match),")
	say("  docs/analytics.md (SQL)")
	say("\nStopped with the demo: the embedded broker (its data stays in %s) and the processors.", filepath.Join(home, "broker"))
	if s := leftRunning(ctx, o.Home); s != "" {
		say("Still running: %s.", s)
	} else {
		say("Nothing keeps running.")
	}
	return nil
}

// serveConsole serves the console on the demo's namespace, with its broker,
// processors and ingest running, until interrupted; then it stops the
// processors and the ingest.
func serveConsole(ctx context.Context, o console.Options, gw gateway.Options, who string, stopProc func(), procDone <-chan error, fd *analytics.Feed, say func(string, ...any)) error {
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	gwDone := make(chan struct{})
	go func() {
		defer close(gwDone)
		serveGateway(cctx, gw, who, say)
	}()
	defer func() { stop(); <-gwDone }()
	procErr := make(chan error, 1)
	go func() {
		err := <-procDone
		procErr <- err
		if cctx.Err() == nil { // the processors stopped by themselves
			say("processors stopped: %v", err)
			stop()
		}
	}()
	err := console.Serve(cctx, o, func(url string) {
		b := strings.Join(o.Kafka.Brokers, ",")
		say("\n8. console: %s  (namespace %s, broker %s)", url, o.Namespace, b)
		say("   the broker, the processors, analytics and the console keep running until Ctrl-C;")
		say("   from a terminal: ste exceptions list --brokers %s --namespace %s", b, o.Namespace)
	})
	stop()
	stopProc()
	<-procErr
	if fd != nil {
		fd.Stop()
	}
	say("stopped: the console, the processors and the demo's broker")
	return err
}

// serveGateway serves the participants' gateway beside the console (on
// 127.0.0.1:8443, or another free loopback port when that one is taken) and
// prints its address and a request signed as the participant who signs
// first in the demo's set, ready to run once within 5 minutes.
func serveGateway(ctx context.Context, o gateway.Options, who string, say func(string, ...any)) {
	ready := func(url string) {
		say("\n9. participants' gateway (gateway.md, docs/participants.md): %s", url)
		if who == "" {
			return
		}
		target := url + "/v1/outputs?limit=3"
		h := gateway.SignedHeaders("GET", target, nil, who, refdata.DemoPrivateKey(who), time.Now())
		say("   %s's outputs, signed with its demo key (valid once, for 5 minutes):", who)
		say("   curl -s '%s' -H 'Signature-Input: %s' -H 'Signature: %s'", target, h.Get("Signature-Input"), h.Get("Signature"))
		say("   (after=end reads from now on instead of from the oldest output.) The demo's trades are dated today:")
		say("   send messages dated now too. Retention runs on event time: a message dated days ahead expires every")
		say("   older trade of its partition, one dated weeks back expires at once (docs/participants.md, \"Dates and retention\").")
	}
	err := gateway.Serve(ctx, o, ready)
	if err != nil && ctx.Err() == nil {
		o.Addr = "127.0.0.1:0"
		err = gateway.Serve(ctx, o, ready)
	}
	if err != nil && ctx.Err() == nil {
		say("   the gateway did not start: %v", err)
	}
}

// serveISO serves the custodians' ISO 20022 adapter beside the gateway
// (on 127.0.0.1:8444, or another free loopback port), signing with the
// public demo key of STEUTLSGISO, and prints how to post the worked
// example of adapters.md §5.4 as its custodian.
func serveISO(ctx context.Context, k kafkaconn.Config, ns, dir string, log *slog.Logger, say func(string, ...any)) {
	const who = "AFKZSGSGXXX"
	file := filepath.Join(dir, "sese.023-example.xml")
	body := []byte(iso20022.ExampleInstruction)
	if err := os.WriteFile(file, body, 0o644); err != nil {
		return
	}
	o := iso20022.Options{Kafka: k, Namespace: ns, Addr: iso20022.DefaultAddr, Logger: log,
		Signer: &adapters.Signer{BIC: refdata.ISOSignerBIC, Key: refdata.DemoPrivateKey(refdata.ISOSignerBIC), Demo: true}}
	ready := func(url string) {
		say("\n10. custodians' ISO 20022 adapter (adapters.md §5, docs/participants.md §10): %s", url)
		target := url + "/v1/iso20022/messages"
		h := gateway.SignedHeaders("POST", target, body, who, refdata.DemoPrivateKey(who), time.Now())
		say("   the worked example %s posted as %s, signed with its demo key (valid once, for 5 minutes):", file, who)
		say("   curl -s '%s' -H 'Content-Type: application/xml' -H 'Content-Digest: %s' -H 'Signature-Input: %s' -H 'Signature: %s' --data-binary @%s",
			target, h.Get("Content-Digest"), h.Get("Signature-Input"), h.Get("Signature"), file)
		say("   then read its sese.024 at %s/v1/iso20022/outputs, signed the same way", url)
	}
	err := iso20022.Serve(ctx, o, ready)
	if err != nil && ctx.Err() == nil {
		o.Addr = "127.0.0.1:0"
		err = iso20022.Serve(ctx, o, ready)
	}
	if err != nil && ctx.Err() == nil {
		say("   the ISO 20022 adapter did not start: %v", err)
	}
}

// serveFIX serves the FIX 4.4 adapter beside the gateway (on
// 127.0.0.1:9880, or another free loopback port), signing with the public
// demo key of STEUTLSGFIX and taking the demo passwords, its session store
// under the demo's home for this namespace (every run starts afresh), and
// prints the session settings a FIX engine needs.
func serveFIX(ctx context.Context, k kafkaconn.Config, ns, dir string, log *slog.Logger, say func(string, ...any)) {
	const who = "AQGOSGSG"
	o := fixgw.Options{Kafka: k, Namespace: ns, Addr: fixgw.DefaultAddr, HealthAddr: "", Logger: log,
		Store:       filepath.Join(dir, "fixgw", ns),
		Credentials: fixgw.DemoCredentials(),
		Signer:      &adapters.Signer{BIC: refdata.FIXSignerBIC, Key: refdata.DemoPrivateKey(refdata.FIXSignerBIC), Demo: true}}
	ready := func(addr string) {
		say("\n11. investment managers' and brokers' FIX 4.4 adapter (adapters.md §4, docs/participants.md \"FIX\"): %s", addr)
		say("   a FIX 4.4 initiator connects there (plain TCP on loopback) with BeginString FIX.4.4, SenderCompID %s,", who)
		say("   TargetCompID %s, HeartBtInt 30, and in its Logon Username(553)=%s Password(554)=%s", refdata.DefaultUtilityBIC, who, fixgw.DemoPassword(who))
		say("   (any participant: its demo password hex(sha256(\"ste-demo-fix:\"+BIC))); then send the J of adapters.md §4.9")
	}
	err := fixgw.Serve(ctx, o, ready)
	if err != nil && ctx.Err() == nil {
		o.Addr = "127.0.0.1:0"
		err = fixgw.Serve(ctx, o, ready)
	}
	if err != nil && ctx.Err() == nil {
		say("   the FIX adapter did not start: %v", err)
	}
}

// participantOf is the Sender of the first message of the set that is an
// ACTIVE participant's ("" when none).
func participantOf(setPath string, ref *refdata.Set) string {
	src, err := msgset.Open(setPath)
	if err != nil {
		return ""
	}
	defer src.Close()
	d := &schemas.Decoder{}
	for i := 0; i < 1000; i++ {
		rec, _, err := src.Next()
		if err != nil {
			return ""
		}
		if m, _ := d.Decode(rec); m != nil {
			if p, ok := ref.Participant(m.Sender); ok && p.Status == refdata.Active {
				return m.Sender
			}
		}
	}
	return ""
}

// analyticsWhere names the store the demo fed.
func analyticsWhere(dsn, home string) string {
	if dsn != "" {
		return dsn
	}
	return "embedded, " + filepath.Join(home, "analytics")
}

// leftRunning says what the demo leaves running under home when it ends,
// and how it ends; "" if nothing.
func leftRunning(ctx context.Context, home string) string {
	ep, ok := embedded.Running(ctx, home)
	if !ok {
		return ""
	}
	when := "it runs until: ste stop"
	if ep.IdleTimeout > 0 {
		when = fmt.Sprintf("it stops by itself after %v without queries, or now with: ste stop", ep.IdleTimeout)
	}
	return fmt.Sprintf("ste-chdb, the analytics endpoint (pid %d, data %s), for ste report; %s", ep.PID, ep.DataDir, when)
}
