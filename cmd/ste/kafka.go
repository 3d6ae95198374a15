package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/processors/pipeline"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/broker"
)

func init() {
	register(command{"broker", "run the embedded Kafka-protocol broker (kfake) until interrupted", runBroker})
	register(command{"topics create", "create every topic of a namespace (idempotent)", topicsCreate})
	register(command{"refdata load", "publish a reference data directory to <ns>.refdata", refdataLoad})
	register(command{"process", "run the processor groups (validate, identity, match) until interrupted", process})
	register(command{"drive", "send a message set to <ns>.inbound", drive})
}

// steHome is where embedded defaults live.
func steHome() string {
	if h := os.Getenv("STE_HOME"); h != "" {
		return h
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ".ste"
	}
	return filepath.Join(home, ".local", "share", "ste")
}

func brokersFlag(fs *flagSet) *string {
	return fs.String("brokers", envOr("STE_BROKERS", "127.0.0.1:9092"), "Kafka bootstrap brokers, comma-separated ($STE_BROKERS)")
}

func namespaceFlag(fs *flagSet) *string {
	return fs.String("namespace", envOr("STE_NAMESPACE", "ste"), "topic namespace ($STE_NAMESPACE)")
}

func validNamespace(ns string) error {
	if ns == "" || len(ns) > 100 {
		return usageError{"--namespace must be 1 to 100 characters"}
	}
	for _, c := range ns {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return usageError{fmt.Sprintf("--namespace %q: use letters, digits, - and _", ns)}
		}
	}
	return nil
}

// admin connects and checks the cluster answers.
func admin(ctx context.Context, brokers string) (*kadm.Client, func(), error) {
	cl, err := topics.Connect(ctx, brokers)
	if err != nil {
		return nil, nil, err
	}
	return kadm.NewClient(cl), cl.Close, nil
}

func runBroker(ctx context.Context, args []string) error {
	fs := flags("broker", "[--addr 127.0.0.1:9092] [--data DIR] [--partitions N]")
	addr := fs.String("addr", "127.0.0.1:9092", "listen address (port 0 picks a free one)")
	data := fs.String("data", "", "data directory: the log persists across restarts (default: in memory)")
	parts := fs.Int("partitions", 8, "partitions of auto-created topics")
	if err := fs.parse(args); err != nil {
		return err
	}
	if *parts < 1 {
		return usageError{"--partitions must be positive"}
	}
	c, err := broker.Start(broker.Options{Addr: *addr, DataDir: *data, Partitions: *parts})
	if err != nil {
		return err
	}
	defer c.Close()
	log := logger()
	mode := "in memory"
	if *data != "" {
		mode = "data " + *data
	}
	log.Info("embedded broker listening", "addr", broker.Addr(c), "mode", mode)
	fmt.Println(broker.Addr(c))
	<-ctx.Done()
	log.Info("embedded broker stopping")
	return nil
}

func topicsCreate(ctx context.Context, args []string) error {
	fs := flags("topics create", "[--brokers B] [--namespace NS] [--partitions N]")
	brokers, ns := brokersFlag(fs), namespaceFlag(fs)
	parts := fs.Int("partitions", topics.DefaultPartitions, "partitions of keyed topics")
	retention := addRetentionFlag(fs, "7d", "retention of inbound and other streams (replay window)")
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := validNamespace(*ns); err != nil {
		return err
	}
	ret, err := retention.get()
	if err != nil {
		return err
	}
	if *parts < 1 {
		return usageError{"--partitions must be positive"}
	}
	adm, closeFn, err := admin(ctx, *brokers)
	if err != nil {
		return err
	}
	defer closeFn()
	created, err := topics.Create(ctx, adm, *ns, topics.Options{Partitions: int32(*parts), Retention: ret})
	if err != nil {
		return err
	}
	fmt.Printf("namespace %s: %d topics created, %d already there\n", *ns, len(created), len(topics.Specs(*ns, topics.Options{}))-len(created))
	return nil
}

func refdataLoad(ctx context.Context, args []string) error {
	fs := flags("refdata load", "--dir DIR [--brokers B] [--namespace NS]")
	dir := fs.String("dir", "", "reference data directory (the five CSV files) (required)")
	brokers, ns := brokersFlag(fs), namespaceFlag(fs)
	if err := fs.parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return usageError{"--dir is required"}
	}
	if err := validNamespace(*ns); err != nil {
		return err
	}
	set, err := refdata.LoadDir(*dir)
	if err != nil {
		return err
	}
	n, err := publishRefdata(ctx, *brokers, *ns, set)
	if err != nil {
		return err
	}
	fmt.Printf("published %d reference data records to %s.refdata\n", n, *ns)
	return nil
}

func publishRefdata(ctx context.Context, brokers, ns string, set *refdata.Set) (int, error) {
	cl, err := topics.Connect(ctx, brokers)
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if err := ensureTopics(ctx, adm, ns, 0); err != nil {
		return 0, err
	}
	return topics.PublishRefdata(ctx, cl, ns, set)
}

// ensureTopics creates a namespace's missing topics. With partitions 0 it
// follows an existing inbound topic, so that a process started against topics
// made by `ste topics create --partitions N` never disagrees with them.
func ensureTopics(ctx context.Context, adm *kadm.Client, ns string, partitions int32) error {
	if partitions == 0 {
		partitions = topics.DefaultPartitions
		if td, err := adm.ListTopics(ctx, pipeline.Names{NS: ns}.Inbound()); err == nil {
			if d, ok := td[pipeline.Names{NS: ns}.Inbound()]; ok && d.Err == nil && len(d.Partitions) > 0 {
				partitions = int32(len(d.Partitions))
			}
		}
	}
	_, err := topics.Create(ctx, adm, ns, topics.Options{Partitions: partitions})
	return err
}

func process(ctx context.Context, args []string) error {
	fs := flags("process", "[--brokers B] [--namespace NS] [--refdata DIR] [--retention DUR] [--utility-bic BIC] [--utility-key FILE]")
	brokers, ns := brokersFlag(fs), namespaceFlag(fs)
	refDir := fs.String("refdata", "", "first publish this reference data directory to <ns>.refdata (like ste refdata load)")
	retention := addRetentionFlag(fs, "72h", "event-time retention of trades past their newest Created (e.g. 72h, 3d)")
	bic := fs.String("utility-bic", envOr("STE_UTILITY_BIC", "STEUTLSGXXX"), "the utility's own BIC")
	keyFile := fs.String("utility-key", os.Getenv("STE_UTILITY_KEY"), "the utility's Ed25519 signing key file; default: the public demo key, with a warning")
	httpAddr := fs.String("http", "127.0.0.1:0", "address of /healthz, /readyz and /metrics (\"\" turns it off)")
	noVerify := fs.Bool("no-verify", false, "skip Ed25519 verification of inbound signatures (benchmarking only)")
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := validNamespace(*ns); err != nil {
		return err
	}
	ret, err := retention.get()
	if err != nil {
		return err
	}
	log := logger()
	signer, err := utilitySigner(*bic, *keyFile, log)
	if err != nil {
		return err
	}
	return runProcess(ctx, processOptions{brokers: *brokers, ns: *ns, refDir: *refDir, retention: ret,
		signer: signer, httpAddr: *httpAddr, verify: !*noVerify, log: log})
}

type processOptions struct {
	brokers, ns, refDir string
	retention           time.Duration
	signer              *schemas.Signer
	httpAddr            string
	verify              bool
	log                 *slog.Logger
	ready               chan<- struct{} // closed when ready (demo, bench)
}

func runProcess(ctx context.Context, o processOptions) error {
	log := o.log.With("namespace", o.ns)
	tuneGC()
	adm, closeAdm, err := admin(ctx, o.brokers)
	if err != nil {
		return err
	}
	defer closeAdm()
	if err := ensureTopics(ctx, adm, o.ns, 0); err != nil {
		return err
	}
	if o.refDir != "" {
		set, err := refdata.LoadDir(o.refDir)
		if err != nil {
			return err
		}
		if _, err := publishRefdata(ctx, o.brokers, o.ns, set); err != nil {
			return err
		}
		log.Info("reference data published", "dir", o.refDir)
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	metrics := pipeline.NewMetrics(reg)
	var ready, failed atomic.Bool
	if o.httpAddr != "" {
		ln, err := net.Listen("tcp", o.httpAddr)
		if err != nil {
			return fmt.Errorf("--http %s: %v", o.httpAddr, err)
		}
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
		mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
			if failed.Load() {
				http.Error(w, "failed", http.StatusServiceUnavailable)
				return
			}
			fmt.Fprintln(w, "ok")
		})
		mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
			if !ready.Load() {
				http.Error(w, "not ready: reading reference data or recovering tables", http.StatusServiceUnavailable)
				return
			}
			fmt.Fprintln(w, "ready")
		})
		srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
		go srv.Serve(ln)
		defer srv.Close()
		log.Info("http endpoints", "addr", ln.Addr().String(), "paths", "/healthz /readyz /metrics")
		pipeline.WarnIfExposed(log, ln.Addr().String())
	}

	// Reference data first: no inbound message is consumed before it is read
	// to its end.
	var vopts []validation.Option
	if !o.verify {
		vopts = append(vopts, validation.WithoutSignatureVerification())
		log.Warn("signature verification is OFF (benchmarking only)")
	}
	loaded := make(chan *refdata.Set, 1)
	var validator atomic.Pointer[validation.Validator]
	rctx, stopRef := context.WithCancel(ctx)
	defer stopRef()
	refErr := make(chan error, 1)
	go func() {
		refErr <- topics.FollowRefdata(rctx, o.brokers, o.ns,
			func(s *refdata.Set) { loaded <- s },
			func(s *refdata.Set) {
				if v := validator.Load(); v != nil {
					v.SetRefdata(s)
					log.Info("reference data updated", "participants", len(s.Participants()), "securities", len(s.Securities()))
				}
			},
			func(key []byte, err error) {
				log.Warn("bad reference data record skipped", "key", string(key), "err", err)
			})
	}()
	var set *refdata.Set
	select {
	case set = <-loaded:
	case err := <-refErr:
		if err == nil {
			err = ctx.Err()
		}
		return err
	case <-ctx.Done():
		return nil
	}
	if len(set.Participants()) == 0 {
		log.Warn("reference data topic is empty: every message will be rejected (load it with ste refdata load)")
	}
	v := validation.New(set, vopts...)
	validator.Store(v)
	log.Info("reference data loaded", "participants", len(set.Participants()), "securities", len(set.Securities()))

	procReady := make(chan struct{})
	go func() {
		select {
		case <-procReady:
			ready.Store(true)
			if o.ready != nil {
				close(o.ready)
			}
		case <-ctx.Done():
		}
	}()
	go reportLag(ctx, adm, o.ns, metrics)
	err = pipeline.Run(ctx, pipeline.Options{
		Brokers: topics.SplitBrokers(o.brokers),
		Config: pipeline.Config{Names: pipeline.Names{NS: o.ns}, Validator: v, Signer: o.signer,
			Retention: o.retention, Metrics: metrics},
		Logger: log,
		Ready:  procReady,
	})
	if err != nil {
		failed.Store(true)
		return err
	}
	log.Info("processors stopped cleanly")
	return nil
}

// tuneGC trades memory for CPU unless the operator chose: profiles of a
// saturated run spent ~14 % in the collector at GOGC=100; at 400 a run drained
// ~10 % faster. The soft limit keeps large runs from growing without bound;
// at three quarters of the machine's memory it stays out of the way of a
// 7 M-message run (a collector working near its limit is what makes
// throughput fall as stored volume grows).
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(max(memTotal()/4*3, 2<<30))
	}
}

// memTotal is the machine's memory from /proc/meminfo (0 if unknown).
func memTotal() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	var kb int64
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "MemTotal:") {
			fmt.Sscan(strings.TrimSpace(strings.TrimPrefix(line, "MemTotal:")), &kb)
		}
	}
	return kb << 10
}

// reportLag samples each group's lag into the metrics.
func reportLag(ctx context.Context, adm *kadm.Client, ns string, m *pipeline.Metrics) {
	n := pipeline.Names{NS: ns}
	groups := map[string]string{n.ValidateGroup(): "validate", n.IdentityGroup(): "identity", n.MatchGroup(): "match"}
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		names := make([]string, 0, len(groups))
		for g := range groups {
			names = append(names, g)
		}
		lags, err := adm.Lag(ctx, names...)
		if err != nil {
			continue
		}
		lags.Each(func(l kadm.DescribedGroupLag) {
			for _, ps := range l.Lag {
				for p, ml := range ps {
					m.Lag.WithLabelValues(groups[l.Group], fmt.Sprint(p)).Set(float64(ml.Lag))
				}
			}
		})
	}
}

func drive(ctx context.Context, args []string) error {
	fs := flags("drive", "--in FILE [--brokers B] [--namespace NS] [--rate MSG_PER_S]")
	in := fs.String("in", "", "message set file (.gz/.zst allowed) (required)")
	brokers, ns := brokersFlag(fs), namespaceFlag(fs)
	rate := fs.Float64("rate", 0, "messages per second (0: full speed)")
	if err := fs.parse(args); err != nil {
		return err
	}
	if *in == "" {
		return usageError{"--in is required"}
	}
	if *rate < 0 {
		return usageError{"--rate must be 0 (full speed) or positive"}
	}
	if err := validNamespace(*ns); err != nil {
		return err
	}
	src, err := msgset.Open(*in)
	if err != nil {
		return err
	}
	defer src.Close()
	cl, err := topics.Connect(ctx, *brokers)
	if err != nil {
		return err
	}
	defer cl.Close()
	if err := ensureTopics(ctx, kadm.NewClient(cl), *ns, 0); err != nil {
		return err
	}
	var progress func(int64, time.Duration)
	if isTerminal(os.Stderr) {
		progress = func(n int64, d time.Duration) {
			fmt.Fprintf(os.Stderr, "\r%s %d sent, %.0f msg/s   ", bar(n), n, float64(n)/max(d.Seconds(), 1e-9))
		}
	}
	res, err := topics.Drive(ctx, cl, *ns, src, topics.DriveOptions{Rate: *rate, Progress: progress})
	if progress != nil {
		fmt.Fprintln(os.Stderr)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	fmt.Printf("{\"sent\":%d,\"seconds\":%.3f,\"msgs_per_sec\":%.0f}\n", res.Sent, res.Seconds, float64(res.Sent)/max(res.Seconds, 1e-9))
	return nil
}

// bar is a spinner-like bar: the total is unknown while streaming a file.
func bar(n int64) string {
	const width = 20
	pos := int(n/1000) % width
	return "[" + strings.Repeat("=", pos) + ">" + strings.Repeat(" ", width-pos) + "]"
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func init() {
	register(command{"topics dump", "write a topic's records, from its start to its current end, one per line", topicsDump})
}

func topicsDump(ctx context.Context, args []string) error {
	fs := flags("topics dump", "--topic NAME [--out FILE] [--brokers B]")
	brokers := brokersFlag(fs)
	topic := fs.String("topic", "", "topic name, e.g. ste.cls (required)")
	out := fs.String("out", "-", "output file (.gz/.zst compresses); - for stdout")
	if err := fs.parse(args); err != nil {
		return err
	}
	if *topic == "" {
		return usageError{"--topic is required"}
	}
	write := func(b []byte) error { _, err := os.Stdout.Write(append(b, '\n')); return err }
	if *out != "-" {
		w, err := msgset.Create(*out)
		if err != nil {
			return err
		}
		defer w.Close()
		write = w.Write
	}
	n, err := topics.Dump(ctx, *brokers, *topic, func(r *kgo.Record) error { return write(r.Value) })
	if err != nil {
		return err
	}
	if *out != "-" {
		fmt.Fprintf(os.Stderr, "%d records from %s\n", n, *topic)
	}
	return nil
}
