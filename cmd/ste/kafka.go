package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/ste-utility/ste/cli"
	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/instance/registry"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/broker"
	"github.com/ste-utility/ste/topics/strimzi"
	"github.com/ste-utility/ste/topology"
)

func init() {
	register(cli.Command{Name: "broker", Summary: "run the embedded Kafka-protocol broker (kfake) until interrupted", Run: runBroker})
	register(cli.Command{Name: "topics create", Summary: "create every topic of a namespace (idempotent)", Run: topicsCreate})
	register(cli.Command{Name: "topics manifest", Summary: "print a namespace's topics as Strimzi KafkaTopic resources (for topics an operator owns)", Run: topicsManifest})
	register(cli.Command{Name: "refdata load", Summary: "publish a reference data directory to <ns>.refdata", Run: refdataLoad})
	register(cli.Command{Name: "process", Summary: "run the processor groups (validate, identity, match) until interrupted", Run: process})
	register(cli.Command{Name: "instances", Summary: "list the running instances of a namespace from the instance registry", Run: listInstances})
	register(cli.Command{Name: "drive", Summary: "send a message set to <ns>.inbound", Run: drive})
}

func runBroker(ctx context.Context, args []string) error {
	fs := cli.Flags("broker", "[--addr 127.0.0.1:9092] [--data DIR] [--partitions N] [--no-auto-create] [--brokers N] [--control ADDR]")
	addr := fs.String("addr", "127.0.0.1:9092", "listen address (port 0 picks a free one); with --brokers N, broker i listens on port+i")
	data := fs.String("data", "", "data directory: the log persists across restarts (default: in memory)")
	parts := fs.Int("partitions", 8, "partitions of auto-created topics")
	noAuto := fs.Bool("no-auto-create", false, "do not create topics on first use (like a production cluster with auto.create.topics.enable=false)")
	brokers := fs.Int("brokers", 1, "brokers in this process (leadership spread over them; the first line printed lists them all)")
	control := fs.String("control", "", "serve the fault controls (leader loss, node back, leader shuffle, below min ISR) on this loopback address")
	fs.LogFlags()
	if err := fs.Read(args); err != nil {
		return err
	}
	if *parts < 1 || *brokers < 1 {
		return cli.UsageError{Msg: "--partitions and --brokers must be positive"}
	}
	return broker.Run(ctx, broker.Options{Addr: *addr, DataDir: *data, Partitions: *parts, NoAutoCreate: *noAuto, Brokers: *brokers},
		*control, os.Stdout, fs.Log)
}

func topicsCreate(ctx context.Context, args []string) error {
	fs := cli.Flags("topics create", "[--brokers B] [--namespace NS] [--partitions N] [--replication N] [--min-insync N] [--deliver-per-participant]")
	kafka, ns := cli.KafkaFlags(fs), cli.Namespace(fs)
	layout := cli.LayoutFlags(fs, 0)
	perBIC := fs.Bool("deliver-per-participant", false, "also create <ns>.out.<BIC> for every participant on <ns>.refdata (load reference data first)")
	fs.LogFlags()
	if err := fs.Read(args); err != nil {
		return err
	}
	o, err := layout()
	if err != nil {
		return err
	}
	o.Log = fs.Log
	k, err := kafka()
	if err != nil {
		return err
	}
	adm, closeFn, err := cli.Admin(ctx, k)
	if err != nil {
		return err
	}
	defer closeFn()
	created, err := topics.Create(ctx, adm, *ns, o)
	if err != nil {
		return err
	}
	fmt.Printf("namespace %s: %d topics created, %d already there\n", *ns, len(created), len(topics.Specs(*ns, topics.Options{}))-len(created))
	if *perBIC {
		created, all, err := topics.CreateDeliveryForRefdata(ctx, k, adm, *ns, o)
		if err != nil {
			return err
		}
		fmt.Printf("namespace %s: %d per-participant topics created, %d already there\n", *ns, len(created), all-len(created))
	}
	return nil
}

func topicsManifest(_ context.Context, args []string) error {
	fs := cli.Flags("topics manifest", "--cluster NAME [--namespace NS] [--refdata DIR] [--partitions N] [--replication N] [--min-insync N] [--retention DUR] [--k8s-namespace NS] [--strimzi-api v1|v1beta2]")
	ns := cli.Namespace(fs)
	refDir := fs.String("refdata", "", "reference data directory: each participant in it gets its <ns>.out.<BIC> topic and a KafkaUser (default: the utility's users only)")
	cluster := fs.String("cluster", "", "the Strimzi Kafka cluster (the strimzi.io/cluster label) (required)")
	k8sNS := fs.String("k8s-namespace", "", "Kubernetes namespace of the resources (default: kubectl's)")
	api := fs.String("strimzi-api", "v1", "apiVersion of the resources: v1 (kafka.strimzi.io/v1: Strimzi 0.49 and later, the only one Strimzi 1.x serves) or v1beta2 (Strimzi before 0.49)")
	layout := cli.LayoutFlags(fs, topics.MaxReplication)
	if err := fs.Read(args); err != nil {
		return err
	}
	if *cluster == "" {
		return cli.UsageError{Msg: "--cluster is required (the name of the Strimzi Kafka resource)"}
	}
	o, err := layout()
	if err != nil {
		return err
	}
	var bics []string
	if *refDir != "" {
		set, err := refdata.LoadDir(*refDir)
		if err != nil {
			return err
		}
		bics = topics.DeliveryBICs(set)
	}
	apiVersion, ok := strimzi.APIVersions[*api]
	if !ok {
		return cli.UsageError{Msg: fmt.Sprintf("--strimzi-api %q: want v1 or v1beta2", *api)}
	}
	out, err := strimzi.NamespaceManifest(*ns, o, bics, strimzi.Options{Cluster: *cluster, Namespace: *k8sNS, APIVersion: apiVersion})
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(out)
	return err
}

func refdataLoad(ctx context.Context, args []string) error {
	fs := cli.Flags("refdata load", "--dir DIR [--brokers B] [--namespace NS] [--no-create-topics]")
	dir := fs.String("dir", "", "reference data directory (the five CSV files, and tolerances.csv, markets.csv, affirmation.csv when present; a participants.csv without the signers column keeps the signers stored) (required)")
	kafka, ns := cli.KafkaFlags(fs), cli.Namespace(fs)
	topicOpts := cli.TopicFlags(fs)
	fs.LogFlags()
	if err := fs.Read(args); err != nil {
		return err
	}
	if *dir == "" {
		return cli.UsageError{Msg: "--dir is required"}
	}
	to, err := topicOpts()
	if err != nil {
		return err
	}
	k, err := kafka()
	if err != nil {
		return err
	}
	set, err := refdata.LoadDir(*dir)
	if err != nil {
		return err
	}
	to.Log = fs.Log
	n, err := topics.LoadRefdata(ctx, k, *ns, to, set)
	if err != nil {
		return err
	}
	// Said once it is published: a user error stays stderr's one line.
	refdata.WarnDemoKeys(set, fs.Log)
	fmt.Printf("published %d reference data records to %s\n", n, topology.Names{NS: *ns}.Refdata())
	return nil
}

// processCmd is ste process's command line: its flags, and the instance
// options they make (options, then instance once the cluster answered).
// Every flag --help lists reaches the options it names
// (TestProcessFlagsReachOptions holds each one to it).
type processCmd struct {
	fs        *cli.FlagSet
	kafka     func() (kafkaconn.Config, error)
	ns        *string
	topicOpts func() (topics.Options, error)
	refDir    *string
	pf        *cli.ProcessFlags
}

func newProcessCmd() *processCmd {
	c := &processCmd{fs: cli.Flags("process", "[--brokers B] [--namespace NS] [--groups validate,identity,match] [--instance-id ID] [--refdata DIR] [--retention DUR] [--utility-bic BIC] [--utility-key FILE] [--http ADDR] [--lookup ADDR] [--stall-after DUR] [--deliver-per-participant] [--no-create-topics]")}
	c.kafka, c.ns = cli.KafkaFlags(c.fs), cli.Namespace(c.fs)
	c.topicOpts = cli.TopicFlags(c.fs)
	c.refDir = c.fs.String("refdata", "", "first publish this reference data directory to <ns>.refdata (like ste refdata load)")
	c.pf = cli.AddProcessFlags(c.fs, "127.0.0.1:0")
	c.fs.LogFlags()
	return c
}

// options are the instance's options from the flags read, checked, before
// anything is connected: all but the utility's signer, its secret and the
// instance's identity (instance).
func (c *processCmd) options() (instance.Options, error) {
	to, err := c.topicOpts()
	if err != nil {
		return instance.Options{}, err
	}
	o, err := c.pf.Check()
	if err != nil {
		return o, err
	}
	if o.Kafka, err = c.kafka(); err != nil {
		return o, err
	}
	o.Namespace, o.RefdataDir, o.Topics, o.Logger = *c.ns, *c.refDir, to, c.fs.Log
	return o, nil
}

// instance completes o with the signer, the secret and a claimed identity;
// release gives the identity back.
func (c *processCmd) instance(o instance.Options) (instance.Options, func(), error) {
	return c.pf.Instance(o, c.fs.Log)
}

func process(ctx context.Context, args []string) error {
	c := newProcessCmd()
	if err := c.fs.Read(args); err != nil {
		return err
	}
	o, err := c.options()
	if err != nil {
		return err
	}
	// The cluster first: a refused login or certificate, or a topic the
	// operator has not made, is the one line the operator sees, not
	// preceded by warnings about the key.
	if _, err := cli.Reachable(ctx, func() (kafkaconn.Config, error) { return o.Kafka, nil }); err != nil {
		return err
	}
	if o.Topics.NoCreate {
		if err := topics.CheckOn(ctx, o.Kafka, o.Namespace); err != nil {
			return err
		}
	}
	o, release, err := c.instance(o)
	if err != nil {
		return err
	}
	defer release()
	return instance.Run(ctx, o)
}

func drive(ctx context.Context, args []string) error {
	fs := cli.Flags("drive", "--in FILE [--brokers B] [--namespace NS] [--rate MSG_PER_S] [--no-create-topics]")
	in := fs.String("in", "", "message set file (.gz/.zst allowed) (required)")
	kafka, ns := cli.KafkaFlags(fs), cli.Namespace(fs)
	topicOpts := cli.TopicFlags(fs)
	rate := fs.Float64("rate", 0, "messages per second (0: full speed)")
	fs.LogFlags()
	if err := fs.Read(args); err != nil {
		return err
	}
	if *in == "" {
		return cli.UsageError{Msg: "--in is required"}
	}
	if *rate < 0 {
		return cli.UsageError{Msg: "--rate must be 0 (full speed) or positive"}
	}
	to, err := topicOpts()
	if err != nil {
		return err
	}
	k, err := kafka()
	if err != nil {
		return err
	}
	src, err := msgset.Open(*in)
	if err != nil {
		return err
	}
	defer src.Close()
	cl, err := topics.Connect(ctx, k)
	if err != nil {
		return err
	}
	defer cl.Close()
	to.Log = fs.Log
	if err := topics.Ensure(ctx, kadm.NewClient(cl), *ns, to); err != nil {
		return err
	}
	progress := cli.SendProgress()
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

func init() {
	register(cli.Command{Name: "topics dump", Summary: "write a topic's records, from its start to its current end, one per line", Run: topicsDump})
}

func topicsDump(ctx context.Context, args []string) error {
	fs := cli.Flags("topics dump", "--topic NAME [--out FILE] [--brokers B]")
	kafka := cli.KafkaFlags(fs)
	topic := fs.String("topic", "", "topic name, e.g. ste.cls (required)")
	out := fs.String("out", "-", "output file (.gz/.zst compresses), the records' exact bytes; - for stdout, with control and bidi characters escaped (\\uXXXX)")
	if err := fs.Read(args); err != nil {
		return err
	}
	if *topic == "" {
		return cli.UsageError{Msg: "--topic is required"}
	}
	k, err := kafka()
	if err != nil {
		return err
	}
	// To standard output — a terminal, or a pipe into one — the records'
	// control and bidi characters are escaped (topics.DumpTo); --out FILE
	// keeps their exact bytes.
	n, err := topics.DumpTo(ctx, k, *topic, *out, os.Stdout)
	if err != nil {
		return err
	}
	if *out != "-" {
		fmt.Fprintf(os.Stderr, "%d records from %s\n", n, *topic)
	}
	return nil
}

func listInstances(ctx context.Context, args []string) error {
	fs := cli.Flags("instances", "[--brokers B] [--namespace NS] [--json]")
	kafka, ns, secret := cli.KafkaFlags(fs), cli.Namespace(fs), cli.SecretFlag(fs)
	asJSON := fs.Bool("json", false, "one JSON array instead of a table")
	if err := fs.Read(args); err != nil {
		return err
	}
	k, err := cli.Reachable(ctx, kafka)
	if err != nil {
		return err
	}
	sec, err := secret()
	if err != nil {
		return err
	}
	list, err := registry.ListProven(ctx, k, *ns, sec)
	if err != nil {
		return err
	}
	if *asJSON {
		if list == nil {
			list = []registry.Entry{}
		}
		b, _ := json.MarshalIndent(list, "", "  ")
		fmt.Fprintln(cli.Untrusted, string(b))
		return nil
	}
	if len(list) == 0 {
		fmt.Printf("no instances of namespace %s have announced themselves\n", *ns)
		return nil
	}
	// A registry entry is written by whoever can write the topic.
	return registry.WriteTable(cli.Untrusted, list, time.Now())
}
