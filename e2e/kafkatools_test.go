package e2e

// Kafka's own command-line tools (the kafka-tools jar of the Kafka release
// internal/testing/kafka runs) against both brokers: what an operator sees of a
// namespace must not depend on which broker STE runs on.

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/internal/testing/kafka"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
)

// toolView is what the tools showed of one namespace, with the namespace
// written as "<ns>" and broker-specific details (ids, hosts, leaders' node
// ids) left out.
type toolView struct {
	Topics     []string              // kafka-topics --list
	Described  map[string]topicShape // kafka-topics --describe
	Configs    map[string][]string   // kafka-configs --describe, per topic: key=value, sorted
	Groups     []string              // kafka-consumer-groups --list
	Members    map[string]groupShape // --describe --members, while ste process runs
	Reset      []string              // --reset-offsets --to-earliest --execute of the match group: group topic partition new-offset
	Lag        []string              // --describe of the other stopped groups: group topic partition lag
	AfterReset []string              // --describe of the match group after the reset: group topic partition current-offset
	// kafka-console-consumer printed every record of <ns>.cls, the MsgIds
	// franz-go reads there (which CLS versions a run writes depends on the
	// order messages met in, so the records themselves are not compared).
	ConsoleReadAll bool
}

// Offsets and log-end offsets themselves are not compared between brokers:
// at-least-once processing may write a record twice on one run and once on
// another (docs/ARCHITECTURE.md). Each broker's table is held to what the
// broker itself answers instead (checkOffsets).

type topicShape struct {
	Partitions  int
	Replication int
	Configs     string // the Configs column
	Led         int    // partitions with a leader, as many replicas and in-sync replicas
}

type groupShape struct {
	Members    int
	Partitions int
	// ClientIDs differ between runs (they carry the instance id); each must
	// name its own group: ste-<instance id>-<stage> (Kafka 4 once showed the
	// validate group's client id on every group).
	ClientIDs []string
}

// TestKafkaTools runs one scenario per broker — a namespace created by `ste
// topics create`, a small message set through `ste process`, the processors
// stopped — looks at it with Kafka's tools, and compares the two views.
func TestKafkaTools(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Kafka's tools against both brokers")
	}
	kafka.RequireTools(t)
	views := map[string]*toolView{}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { views[b.name] = toolsScenario(t, b) })
	}
	kf, k4 := views["kfake"], views["kafka"]
	if kf == nil || k4 == nil {
		t.Fatal("a backend gave no view")
	}
	for _, f := range []struct {
		name     string
		got, ref any
	}{
		{"kafka-topics --list", kf.Topics, k4.Topics},
		{"kafka-topics --describe", kf.Described, k4.Described},
		{"kafka-configs --describe", kf.Configs, k4.Configs},
		{"kafka-consumer-groups --list", kf.Groups, k4.Groups},
		{"kafka-consumer-groups --describe --members (members, partitions)", shapesOnly(kf.Members), shapesOnly(k4.Members)},
		{"kafka-consumer-groups --reset-offsets", kf.Reset, k4.Reset},
		{"kafka-consumer-groups --describe (lag)", kf.Lag, k4.Lag},
		{"kafka-consumer-groups --describe after the reset", kf.AfterReset, k4.AfterReset},
		{"kafka-console-consumer", kf.ConsoleReadAll, k4.ConsoleReadAll},
	} {
		if !reflect.DeepEqual(f.got, f.ref) {
			t.Errorf("%s differs:\n ste broker: %v\n Kafka 4:    %v", f.name, f.got, f.ref)
		}
	}
	for name, v := range views {
		for group, s := range v.Members {
			stage, isStage := topology.ParseStage(group[strings.LastIndex(group, ".")+1:])
			for _, id := range s.ClientIDs {
				if _, ok := topology.InstanceOf(id, stage); !ok || !isStage {
					t.Errorf("%s: a member of %s has client id %q, want ste-<instance id>-%s", name, group, id, stage)
				}
			}
			if len(s.ClientIDs) == 0 {
				t.Errorf("%s: no member of %s seen", name, group)
			}
		}
	}
}

func shapesOnly(m map[string]groupShape) map[string]groupShape {
	out := map[string]groupShape{}
	for g, s := range m {
		s.ClientIDs = nil
		out[g] = s
	}
	return out
}

func toolsScenario(t *testing.T, b backend) *toolView {
	f := newFixture(t, b, 40)
	n := topology.Names{NS: f.ns}
	groups := []string{n.ValidateGroup(), n.IdentityGroup(), n.MatchGroup()}
	tool := func(name string, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		out, err := kafka.Tool(ctx, name, append([]string{"--bootstrap-server", f.brokers}, args...)...)
		if err != nil {
			t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
		}
		return strings.ReplaceAll(out, f.ns, "<ns>")
	}
	groupArgs := func(extra ...string) []string {
		args := []string{"--describe"}
		for _, g := range groups {
			args = append(args, "--group", g)
		}
		return append(args, extra...)
	}
	v := &toolView{}

	p := startProcess(t, f.env)
	f.drive(0)
	f.waitComplete(2 * time.Minute)
	v.Members = members(tool("kafka-consumer-groups", groupArgs("--members")...))
	must(t, p.stop(t, syscall.SIGTERM))
	waitEmpty(t, f.brokers, groups)

	v.Topics = namespaced(strings.Fields(tool("kafka-topics", "--list")))
	v.Described = described(t, tool("kafka-topics", "--describe", "--topic", regexp.QuoteMeta(f.ns)+`\..*`))
	v.Configs = configs(tool("kafka-configs", "--describe", "--entity-type", "topics"))
	v.Groups = namespaced(strings.Fields(tool("kafka-consumer-groups", "--list")))
	// The match group goes back to the start of its input; the other two
	// have read everything. One --describe then shows lag both ways.
	v.Reset = columns(tool("kafka-consumer-groups", "--reset-offsets", "--group", n.MatchGroup(),
		"--topic", n.Accepted(), "--to-earliest", "--execute"), 4)
	rows := offsetTable(t, tool("kafka-consumer-groups", groupArgs()...))
	checkOffsets(t, f.brokers, f.ns, rows)
	match := strings.ReplaceAll(n.MatchGroup(), f.ns, "<ns>")
	for _, r := range rows {
		if r.group == match {
			v.AfterReset = append(v.AfterReset, fmt.Sprintf("%s %s %d %d", r.group, r.topic, r.partition, r.current))
		} else {
			v.Lag = append(v.Lag, fmt.Sprintf("%s %s %d %d", r.group, r.topic, r.partition, r.lag))
		}
	}

	// Every CLS record, read with the console consumer's own (random) group.
	want := map[string]int{}
	records, err := topics.Dump(context.Background(), f.conn, n.CLS(), func(r *kgo.Record) error {
		m := msgID.FindSubmatch(r.Value)
		if m == nil {
			return fmt.Errorf("a record of %s without MsgId: %.200s", n.CLS(), r.Value)
		}
		want[string(m[1])]++
		return nil
	})
	must(t, err)
	out := tool("kafka-console-consumer", "--topic", n.CLS(), "--from-beginning",
		"--max-messages", strconv.Itoa(records), "--timeout-ms", "30000")
	got := map[string]int{}
	for _, m := range msgID.FindAllStringSubmatch(out, -1) {
		got[m[1]]++
	}
	if v.ConsoleReadAll = maps.Equal(got, want); !v.ConsoleReadAll {
		t.Errorf("kafka-console-consumer printed %d records of %s with %d MsgIds; franz-go reads %d records with %d",
			strings.Count(out, "\n"), n.CLS(), len(got), records, len(want))
	}

	if records == 0 || len(v.Lag) == 0 || len(v.Reset) == 0 || len(v.AfterReset) == 0 {
		t.Fatalf("the scenario left nothing to compare: %+v", v)
	}
	return v
}

var msgID = regexp.MustCompile(`<MsgId>([^<]*)</MsgId>`)

type offsetRow struct {
	group, topic      string
	partition         int32
	current, end, lag int64
}

// offsetTable reads the table of kafka-consumer-groups --describe: GROUP
// TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID.
func offsetTable(t *testing.T, out string) []offsetRow {
	t.Helper()
	var rows []offsetRow
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) != 9 || !strings.HasPrefix(f[0], "<ns>.") {
			continue
		}
		var n [4]int64
		for i, s := range f[2:6] {
			v, err := strconv.ParseInt(s, 10, 64)
			if s == "-" { // no committed offset
				v, err = -1, nil
			}
			if err != nil {
				t.Fatalf("kafka-consumer-groups --describe: %q in %q", s, line)
			}
			n[i] = v
		}
		rows = append(rows, offsetRow{f[0], f[1], int32(n[0]), n[1], n[2], n[3]})
	}
	slices.SortFunc(rows, func(a, b offsetRow) int {
		return strings.Compare(fmt.Sprint(a.group, a.topic, a.partition), fmt.Sprint(b.group, b.topic, b.partition))
	})
	return rows
}

// checkOffsets holds the tool's table to what the broker answers franz-go:
// the group's committed offset (-1: none), the partition's end offset, their
// difference.
func checkOffsets(t *testing.T, brokers, ns string, rows []offsetRow) {
	t.Helper()
	cl, err := topics.Client(kafkaconn.Plaintext(brokers))
	must(t, err)
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	real := func(name string) string { return strings.ReplaceAll(name, "<ns>", ns) }
	committed := map[string]kadm.OffsetResponses{}
	end := map[string]kadm.ListedOffsets{}
	for _, r := range rows {
		group, topic := real(r.group), real(r.topic)
		if committed[group] == nil {
			committed[group], err = adm.FetchOffsets(ctx, group)
			must(t, err)
		}
		if end[topic] == nil {
			end[topic], err = adm.ListEndOffsets(ctx, topic)
			must(t, err)
			must(t, end[topic].Error())
		}
		c, ok := committed[group].Lookup(topic, r.partition)
		if !ok {
			c.At = -1
		}
		e, _ := end[topic].Lookup(topic, r.partition)
		if r.current != c.At || r.end != e.Offset || (r.current >= 0 && r.lag != r.end-r.current) {
			t.Errorf("%s %s[%d]: the tool shows offset %d, end %d, lag %d; the broker: committed %d, end %d",
				r.group, r.topic, r.partition, r.current, r.end, r.lag, c.At, e.Offset)
		}
	}
}

// waitEmpty waits until the groups have no members: --reset-offsets refuses
// a group that has.
func waitEmpty(t *testing.T, brokers string, groups []string) {
	t.Helper()
	cl, err := topics.Client(kafkaconn.Plaintext(brokers))
	must(t, err)
	defer cl.Close()
	adm := kadm.NewClient(cl)
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		dg, err := adm.DescribeGroups(ctx, groups...)
		cancel()
		busy := err != nil
		for _, g := range dg {
			busy = busy || len(g.Members) > 0
		}
		if !busy {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("groups still have members a minute after ste process stopped: %v %v", dg, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// namespaced keeps the names of the namespace (Kafka 4 also lists
// __consumer_offsets; kfake keeps offsets without a topic).
func namespaced(names []string) []string {
	var out []string
	for _, s := range names {
		if strings.HasPrefix(s, "<ns>.") {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// fields splits a tab-separated "Key: value" line of kafka-topics --describe.
func fields(line string) map[string]string {
	m := map[string]string{}
	for _, f := range strings.Split(strings.TrimSpace(line), "\t") {
		if k, v, ok := strings.Cut(f, ": "); ok {
			m[k] = strings.TrimSpace(v)
		} else if k, ok := strings.CutSuffix(f, ":"); ok {
			m[k] = ""
		}
	}
	return m
}

func described(t *testing.T, out string) map[string]topicShape {
	t.Helper()
	shapes := map[string]topicShape{}
	for _, line := range strings.Split(out, "\n") {
		m := fields(line)
		name := m["Topic"]
		switch {
		case name == "":
		case m["PartitionCount"] != "":
			s := shapes[name]
			s.Partitions, _ = strconv.Atoi(m["PartitionCount"])
			s.Replication, _ = strconv.Atoi(m["ReplicationFactor"])
			var cs []string
			for _, c := range strings.Split(m["Configs"], ",") {
				// internal/testing/kafka's server.properties sets it, so Kafka lists
				// it on every topic as a (static) broker setting.
				if c != "" && c != "min.insync.replicas=1" {
					cs = append(cs, c)
				}
			}
			slices.Sort(cs)
			s.Configs = strings.Join(cs, ",")
			shapes[name] = s
		case m["Partition"] != "":
			s := shapes[name]
			if m["Leader"] != "none" && m["Leader"] != "-1" && m["Replicas"] == m["Leader"] && m["Isr"] == m["Leader"] {
				s.Led++
			}
			shapes[name] = s
		default:
			t.Fatalf("kafka-topics --describe: unexpected line %q", line)
		}
	}
	return shapes
}

// configs reads kafka-configs --describe: "Dynamic configs for topic T are:"
// followed by "  key=value sensitive=… synonyms={…}" lines.
func configs(out string) map[string][]string {
	m := map[string][]string{}
	topic := ""
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "Dynamic configs for topic "); ok {
			topic = strings.TrimSuffix(rest, " are:")
			continue
		}
		if kv, _, ok := strings.Cut(strings.TrimSpace(line), " sensitive="); ok && strings.HasPrefix(topic, "<ns>.") {
			m[topic] = append(m[topic], kv)
		}
	}
	for _, kvs := range m {
		slices.Sort(kvs)
	}
	return m
}

// columns keeps the first n columns of the rows of a consumer-groups table
// that belong to the namespace, sorted.
func columns(out string, n int) []string {
	var rows []string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= n && strings.HasPrefix(f[0], "<ns>.") {
			rows = append(rows, strings.Join(f[:n], " "))
		}
	}
	slices.Sort(rows)
	return rows
}

// members reads --describe --members: GROUP CONSUMER-ID HOST CLIENT-ID #PARTITIONS.
func members(out string) map[string]groupShape {
	m := map[string]groupShape{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) != 5 || !strings.HasPrefix(f[0], "<ns>.") {
			continue
		}
		s := m[f[0]]
		s.Members++
		n, _ := strconv.Atoi(f[4])
		s.Partitions += n
		s.ClientIDs = append(s.ClientIDs, f[3])
		m[f[0]] = s
	}
	return m
}
