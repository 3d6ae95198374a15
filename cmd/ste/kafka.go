package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/instance/registry"
	"github.com/ste-utility/ste/processors/pipeline"
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
	register(command{"instances", "list the running instances of a namespace from the instance registry", listInstances})
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
	retention := fs.String("retention", "7d", "retention of inbound and other streams (replay window)")
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := validNamespace(*ns); err != nil {
		return err
	}
	ret, err := parseDuration(*retention)
	if err != nil {
		return usageError{"--retention: " + err.Error()}
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
	if err := topics.Ensure(ctx, kadm.NewClient(cl), ns, 0); err != nil {
		return 0, err
	}
	return topics.PublishRefdata(ctx, cl, ns, set)
}

func process(ctx context.Context, args []string) error {
	fs := flags("process", "[--brokers B] [--namespace NS] [--groups validate,identity,match] [--instance-id ID] [--refdata DIR] [--retention DUR] [--utility-bic BIC] [--utility-key FILE] [--http ADDR] [--stall-after DUR]")
	brokers, ns := brokersFlag(fs), namespaceFlag(fs)
	groups := fs.String("groups", envOr("STE_GROUPS", "all"), "processor groups to run, comma-separated: validate, identity, match, or all ($STE_GROUPS)")
	instanceID := fs.String("instance-id", os.Getenv("STE_INSTANCE_ID"), "this instance's id ($STE_INSTANCE_ID); default: a stable id from a free slot under $STE_HOME")
	refDir := fs.String("refdata", "", "first publish this reference data directory to <ns>.refdata (like ste refdata load)")
	retention := fs.String("retention", "72h", "event-time retention of trades past their newest Created (e.g. 72h, 3d)")
	bic := fs.String("utility-bic", envOr("STE_UTILITY_BIC", "STEUTLSGXXX"), "the utility's own BIC")
	keyFile := fs.String("utility-key", os.Getenv("STE_UTILITY_KEY"), "the utility's Ed25519 signing key file; default: the public demo key, with a warning")
	httpAddr := fs.String("http", envOr("STE_HTTP", "127.0.0.1:0"), "address of /healthz, /readyz, /metrics and /status ($STE_HTTP; \"\" turns it off; the address taken is in the log and the registry)")
	noVerify := fs.Bool("no-verify", false, "skip Ed25519 verification of inbound signatures (benchmarking only)")
	stallAfter := fs.String("stall-after", "60s", "/healthz turns unhealthy when a partition this instance owns is behind and makes no progress for this long (table recovery included)")
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := validNamespace(*ns); err != nil {
		return err
	}
	stall, err := parseDuration(*stallAfter)
	if err != nil || stall <= 0 {
		return usageError{"--stall-after must be a positive duration (e.g. 60s, 5m)"}
	}
	stages, err := pipeline.ParseStages(*groups)
	if err != nil {
		return usageError{"--groups: " + err.Error()}
	}
	if *instanceID != "" {
		if err := instance.ValidID(*instanceID); err != nil {
			return usageError{"--instance-id: " + err.Error()}
		}
	}
	ret, err := parseDuration(*retention)
	if err != nil {
		return usageError{"--retention: " + err.Error()}
	}
	log := logger()
	signer, err := utilitySigner(*bic, *keyFile, log)
	if err != nil {
		return err
	}
	id, err := instance.Claim(steHome(), *instanceID)
	if err != nil {
		return err
	}
	defer id.Release()
	return instance.Run(ctx, instance.Options{Brokers: *brokers, Namespace: *ns, Stages: stages, RefdataDir: *refDir,
		Retention: ret, Signer: signer, Verify: !*noVerify, HTTPAddr: *httpAddr, Identity: id, Logger: log,
		StallAfter: stall})
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
	if err := topics.Ensure(ctx, kadm.NewClient(cl), *ns, 0); err != nil {
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

func listInstances(ctx context.Context, args []string) error {
	fs := flags("instances", "[--brokers B] [--namespace NS] [--json]")
	brokers, ns := brokersFlag(fs), namespaceFlag(fs)
	asJSON := fs.Bool("json", false, "one JSON array instead of a table")
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := validNamespace(*ns); err != nil {
		return err
	}
	cl, err := topics.Connect(ctx, *brokers)
	if err != nil {
		return err
	}
	cl.Close()
	list, err := registry.List(ctx, *brokers, *ns)
	if err != nil {
		return err
	}
	if *asJSON {
		if list == nil {
			list = []registry.Entry{}
		}
		b, _ := json.MarshalIndent(list, "", "  ")
		fmt.Println(string(b))
		return nil
	}
	if len(list) == 0 {
		fmt.Printf("no instances of namespace %s have announced themselves\n", *ns)
		return nil
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tGROUPS\tHTTP\tREADY\tHEALTH\tVERSION\tHOST\tPID\tLAST SEEN")
	for _, e := range list {
		seen := fmt.Sprintf("%.0fs ago", time.Since(e.LastSeen).Seconds())
		if e.Stale {
			seen += " (stale)"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%v\t%s\t%s\t%s\t%d\t%s\n", e.ID, strings.Join(e.Groups, ","), e.HTTP, e.Ready,
			e.Health, e.Version, e.Host, e.PID, seen)
	}
	return w.Flush()
}
