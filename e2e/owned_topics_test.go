package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"go.yaml.in/yaml/v3"

	"github.com/ste-utility/ste/internal/testing/kafka"
	"github.com/ste-utility/ste/topics"
)

// noAutoCreateBackends are brokers that create a topic only when asked to
// (CreateTopics), never on first use: `ste broker --no-auto-create`, and
// Kafka 4 as internal/testing/kafka configures it (auto.create.topics.enable=false).
var noAutoCreateBackends = []backend{
	{"kfake", func(t *testing.T) string {
		cmd := exec.Command(steBin, "broker", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--no-auto-create")
		stdout, _ := cmd.StdoutPipe()
		cmd.Stderr = io.Discard
		must(t, cmd.Start())
		t.Cleanup(func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() })
		line, err := bufio.NewReader(stdout).ReadString('\n')
		must(t, err)
		return strings.TrimSpace(line)
	}},
	{"kafka", func(t *testing.T) string { return kafka.Shared(t) }},
}

// manifestTopic is what the test reads of a KafkaTopic resource.
type manifestTopic struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name   string            `yaml:"name"`
		Labels map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Spec struct {
		TopicName  string            `yaml:"topicName"`
		Partitions int32             `yaml:"partitions"`
		Replicas   int16             `yaml:"replicas"`
		Config     map[string]string `yaml:"config"`
	} `yaml:"spec"`
}

// manifest runs ste topics manifest and parses the YAML stream.
func manifest(t *testing.T, ns string, partitions int) []manifestTopic {
	t.Helper()
	out := ste(t, nil, "topics", "manifest", "--cluster", "e2e-cluster", "--namespace", ns,
		"--partitions", fmt.Sprint(partitions), "--replication", "1")
	dec := yaml.NewDecoder(strings.NewReader(out))
	var res []manifestTopic
	for {
		var m manifestTopic
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		must(t, err)
		if m.Kind == "KafkaUser" {
			continue // the principals' users (topics/access), beside the topics
		}
		if m.APIVersion != "kafka.strimzi.io/v1" || m.Kind != "KafkaTopic" || m.Metadata.Labels["strimzi.io/cluster"] != "e2e-cluster" ||
			m.Metadata.Name == "" || m.Metadata.Name != strings.ToLower(m.Metadata.Name) {
			t.Fatalf("not a Strimzi KafkaTopic of cluster e2e-cluster: %+v", m)
		}
		res = append(res, m)
	}
	return res
}

// operate creates the manifest's topics as the Strimzi topic operator
// would: name, partitions, replicas and config as written, and waits, as
// the operator does before it reports them ready, until every broker knows
// them (Kafka answers CreateTopics before its metadata has them).
// override sets the partition count of a topic (to get it wrong).
func operate(t *testing.T, adm *kadm.Client, res []manifestTopic, override map[string]int32) {
	t.Helper()
	var names []string
	for _, m := range res {
		names = append(names, m.Spec.TopicName)
		cfg := map[string]*string{}
		for k, v := range m.Spec.Config {
			cfg[k] = kadm.StringPtr(v)
		}
		parts := m.Spec.Partitions
		if p, ok := override[m.Spec.TopicName]; ok {
			parts = p
		}
		r, err := adm.CreateTopic(context.Background(), parts, m.Spec.Replicas, cfg, m.Spec.TopicName)
		if err == nil {
			err = r.Err
		}
		must(t, err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		td, err := adm.ListTopics(context.Background(), names...)
		ready := err == nil
		for _, n := range names {
			if d, ok := td[n]; !ok || d.Err != nil || len(d.Partitions) == 0 {
				ready = false
			}
		}
		if ready {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("topics %v not known to the cluster after 30 s", names)
		}
	}
}

// TestOperatorOwnedTopics: on brokers that never create topics on their
// own, process, drive and refdata load with --no-create-topics create
// nothing and refuse, naming the topic, when one is missing or has the wrong
// partition count; on the topics of `ste topics manifest`, created as
// written, the pipeline gives ste match's outcomes and the namespace holds
// exactly the manifest's topics.
func TestOperatorOwnedTopics(t *testing.T) {
	if testing.Short() {
		t.Skip("runs brokers and processes")
	}
	for _, b := range noAutoCreateBackends {
		t.Run(b.name, func(t *testing.T) {
			addr := b.brokers(t)
			f := prepareFixture(t, addr, 100)
			ctx := context.Background()
			cl, err := topics.Connect(ctx, f.conn)
			must(t, err)
			defer cl.Close()
			adm := kadm.NewClient(cl)
			// The broker really does not create topics on use.
			pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			err = cl.ProduceSync(pctx, &kgo.Record{Topic: f.ns + ".not-created", Value: []byte("x")}).FirstErr()
			cancel()
			if err == nil {
				t.Fatal("the broker created a topic on first produce")
			}

			owned := func(args ...string) []string { return append(args, "--no-create-topics") }
			res := manifest(t, f.ns, 4)
			var names []string
			for _, m := range res {
				names = append(names, m.Spec.TopicName)
			}
			table := f.ns + ".v1.match-table"
			if !slices.Contains(names, table) || !slices.Contains(names, f.ns+".inbound") {
				t.Fatalf("manifest lacks topics: %v", names)
			}

			// Nothing there yet: each command names what is missing.
			for _, args := range [][]string{owned("process", "--http", ""), owned("drive", "--in", f.set), owned("refdata", "load", "--dir", f.refdata)} {
				out := steAll(t, f.env, 1, args...)
				if !strings.Contains(out, f.ns+".inbound") || strings.Count(strings.TrimSpace(out), "\n") > 0 {
					t.Fatalf("ste %s on an empty namespace: %s", args[0], out)
				}
			}
			// Every topic but the match table: that one is named.
			operate(t, adm, slices.DeleteFunc(slices.Clone(res), func(m manifestTopic) bool { return m.Spec.TopicName == table }), nil)
			out := steAll(t, f.env, 1, owned("process", "--http", "")...)
			if !strings.Contains(out, "missing topic(s) "+table+" ") {
				t.Fatalf("want the missing match table named: %s", out)
			}
			// The match table with 3 partitions instead of 4: named with both counts.
			operate(t, adm, slices.DeleteFunc(slices.Clone(res), func(m manifestTopic) bool { return m.Spec.TopicName != table }),
				map[string]int32{table: 3})
			out = steAll(t, f.env, 1, owned("process", "--http", "")...)
			if !strings.Contains(out, table+" has 3 partitions, want 4") {
				t.Fatalf("want the mis-partitioned match table named: %s", out)
			}

			// A second namespace, made exactly from its manifest, runs.
			g := prepareFixture(t, addr, 100)
			res = manifest(t, g.ns, 4)
			operate(t, adm, res, nil)
			ste(t, g.env, owned("refdata", "load", "--dir", g.refdata)...)
			p := startProcess(t, g.env, "--no-create-topics")
			ste(t, g.env, owned("drive", "--in", g.set)...)
			g.check(g.waitComplete(3 * time.Minute))
			must(t, p.stop(t, syscall.SIGTERM))
			if bytes.Contains(p.log.Bytes(), []byte("replication factor 1")) {
				t.Fatalf("a process that creates no topics warned about creating some:\n%s", p.log)
			}

			// Exactly the manifest's topics exist in that namespace.
			var want []string
			for _, m := range res {
				want = append(want, m.Spec.TopicName)
			}
			td, err := adm.ListTopics(ctx)
			must(t, err)
			var got []string
			for _, name := range td.Names() {
				if strings.HasPrefix(name, g.ns+".") {
					got = append(got, name)
				}
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("namespace %s holds %v, the manifest %v", g.ns, got, want)
			}
		})
	}
}
