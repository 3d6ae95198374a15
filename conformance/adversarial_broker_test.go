package conformance

// The adversarial suite, broker half (issue 15): `ste process` on the
// embedded broker (`ste broker`) takes the hostile records of
// adversarial_records_test.go, records with no value, garbage on every
// internal topic and on <ns>.refdata, and a corrupt identity-table entry —
// and must answer each inbound record with the contract's code, lose none
// (every inbound record has its audit journey), log what it skipped, and
// still match a valid trade afterwards.
//
// Internal topics are the project's: they are found as the namespace's topics
// that docs/spec/messages.md §1 does not list. The identity table's key (Sender:MsgId)
// and its partitioning (FNV-1a 32, as sarama) are the project's too, written
// down in docs/ARCHITECTURE.md; the poisoned-entry probe depends on them.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// syncBuffer is a log both the process and the test touch.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// steBroker runs `ste broker` (in memory) for one test.
func steBroker(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(steBin, "broker", "--addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "STE_HOME="+t.TempDir())
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("ste broker printed no address: %v", err)
	}
	return strings.TrimSpace(line)
}

// steProcess is a running `ste process`.
type steProcess struct {
	cmd  *exec.Cmd
	log  *syncBuffer
	done chan error
}

func startSteProcess(t *testing.T, args ...string) *steProcess {
	t.Helper()
	cmd := exec.Command(steBin, append([]string{"process"}, args...)...)
	cmd.Env = append(os.Environ(), "STE_HOME="+t.TempDir())
	p := &steProcess{cmd: cmd, log: &syncBuffer{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = p.log, p.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// waitLog waits for a line of the process log, or for the process to end.
func (p *steProcess) waitLog(t *testing.T, what string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !strings.Contains(p.log.String(), what) {
		select {
		case err := <-p.done:
			p.done <- err
			t.Fatalf("ste process ended (%v) before %q:\n%s", err, what, p.log)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the process log within %v:\n%s", what, within, p.log)
		}
	}
}

// sarama's partitioner, which the project's internal topics follow.
func saramaPartition(key string, n int32) int32 {
	h := fnv.New32a()
	h.Write([]byte(key))
	p := int32(h.Sum32()) % n
	if p < 0 {
		p = -p
	}
	return p
}

// dumpTopic reads a topic from its start to the end it has now.
func dumpTopic(ctx context.Context, brokers, topic string) ([]*kgo.Record, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err != nil {
		return nil, err
	}
	left := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			left[o.Partition] = o.Offset
		}
	})
	var out []*kgo.Record
	for len(left) > 0 {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		fs.EachRecord(func(r *kgo.Record) {
			if end, ok := left[r.Partition]; ok && r.Offset < end {
				out = append(out, r)
				if r.Offset+1 >= end {
					delete(left, r.Partition)
				}
			}
		})
	}
	return out, nil
}

type brokerProbe struct {
	probe
	partition int32
	offset    int64
}

func (b brokerProbe) id() string { return fmt.Sprintf("%d-%d", b.partition, b.offset) }

func TestAdversarial_Broker(t *testing.T) {
	if testing.Short() {
		t.Skip("starts ste broker and ste process")
	}
	brokers := steBroker(t)
	ns := fmt.Sprintf("adv%d", time.Now().UnixNano()%1e9)
	run := func(args ...string) {
		t.Helper()
		r := execSteEnv(t, nil, time.Minute, append(args, "--brokers", brokers, "--namespace", ns)...)
		if r.code != 0 {
			t.Fatalf("ste %s: exit %d\n%s", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	run("topics", "create")
	run("refdata", "load", "--dir", refDir)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerBatchMaxBytes(2<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	produce := func(topic, key string, partition int32, value []byte) *kgo.Record {
		t.Helper()
		r, err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Key: []byte(key), Value: value, Partition: partition}).First()
		if err != nil {
			t.Fatalf("produce to %s: %v", topic, err)
		}
		return r
	}

	// Garbage on every internal topic and on <ns>.refdata, before the start:
	// streams are read from their oldest record, tables recovered from their
	// changelogs.
	adm := kadm.NewClient(cl)
	listed, err := adm.ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	contract := map[string]bool{}
	for _, s := range []string{"inbound", "cls", "outbound", "exceptions", "audit", "refdata", "monitor"} {
		contract[ns+"."+s] = true
	}
	partitions := int32(len(listed[ns+".inbound"].Partitions))
	var internal []string
	for name, d := range listed {
		if !strings.HasPrefix(name, ns+".") || contract[name] {
			continue
		}
		internal = append(internal, name)
		// One partition each: the process logs at most 20 corrupt records a
		// minute, and each topic's must show.
		p := int32(len(internal)) % int32(len(d.Partitions))
		for _, v := range [][]byte{nil, {}, []byte("garbage"), {1, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}} {
			produce(name, "0123456789abcdef", p, v)
		}
	}
	if len(internal) == 0 {
		t.Fatal("no internal topics found")
	}
	for _, v := range [][]byte{[]byte("garbage"), {0}, []byte(`{"kind":"participant"}`)} {
		produce(ns+".refdata", "JUNK", 0, v)
	}
	// A corrupt identity-table entry for a message that then arrives: its
	// trade never held it, so it cannot be decided (docs/matching.md).
	poison := oneAllocTrade("ADVK-POISON").NOE()
	poisonKey := BRK + ":" + poison.ID()
	produce(ns+".v1.identity-table", poisonKey, saramaPartition(poisonKey, partitions), []byte("corrupt"))

	// The hostile records, two with no value, and the poisoned identity's
	// message, in one inbound partition: a replay must come after its
	// original.
	probes, valid := hostileRecords("ADVK-")
	probes = append(probes, probe{"record with no value", "", "MALFORMED"}, probe{"record of zero bytes", "", "MALFORMED"},
		probe{"message under a corrupt identity entry", poison.Line(), "INTERNAL"})
	var sent []brokerProbe
	for _, p := range probes {
		var v []byte
		if p.name != "record with no value" {
			v = []byte(p.line)
		}
		r := produce(ns+".inbound", "ADV", 0, v)
		sent = append(sent, brokerProbe{p, r.Partition, r.Offset})
	}

	keyFile := writeFile(t, filepath.Join(t.TempDir(), "key"), []byte(base64.StdEncoding.EncodeToString(utilitySeed())))
	proc := startSteProcess(t, "--brokers", brokers, "--namespace", ns, "--utility-key", keyFile, "--http", "0.0.0.0:0")
	proc.waitLog(t, "processors ready", time.Minute)

	// Every inbound record ends in an audit journey: nothing is dropped.
	journeys := map[string]map[string]any{}
	for deadline := time.Now().Add(90 * time.Second); ; {
		recs, err := dumpTopic(ctx, brokers, ns+".audit")
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			// A record holds a batch of events, one JSON object a line
			// (docs/ARCHITECTURE.md, "Audit batches").
			for _, line := range bytes.Split(r.Value, []byte("\n")) {
				var a map[string]any
				if json.Unmarshal(line, &a) == nil {
					journeys[fmt.Sprintf("%v-%v", a["partition"], a["offset"])] = a
				}
			}
		}
		missing := 0
		for _, s := range sent {
			if journeys[s.id()] == nil {
				missing++
			}
		}
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d inbound records have no audit event after 90 s:\n%s", missing, len(sent), proc.log)
		}
		time.Sleep(300 * time.Millisecond)
	}
	excRecs, err := dumpTopic(ctx, brokers, ns+".exceptions")
	if err != nil {
		t.Fatal(err)
	}
	outRecs, err := dumpTopic(ctx, brokers, ns+".outbound")
	if err != nil {
		t.Fatal(err)
	}
	excs := map[string]map[string]any{}
	var excLines, outLines strings.Builder
	for _, r := range excRecs {
		var e map[string]any
		if err := json.Unmarshal(r.Value, &e); err != nil {
			t.Fatalf("exception is not JSON: %.200s", r.Value)
		}
		excs[e["id"].(string)] = e
		excLines.Write(append(r.Value, '\n'))
	}
	outIDs := map[string]bool{}
	for _, r := range outRecs {
		outLines.Write(append(r.Value, '\n'))
		if m := reMsgID.FindSubmatch(r.Value); m != nil {
			outIDs[string(m[1])] = true
		}
	}
	for _, s := range sent {
		e := excs[s.id()]
		got := ""
		if e != nil {
			got, _ = e["reason"].(string)
		}
		want := s.reason
		if want == "DUP" {
			want = ""
			if o := journeys[s.id()]["outcome"]; o != "duplicate" {
				t.Errorf("%s: audit outcome %v, want duplicate", s.name, o)
			}
		}
		if got != want {
			t.Errorf("%s (record %s): code %q, want %q", s.name, s.id(), got, want)
			continue
		}
		if want == "" {
			sender, id := reSender.FindStringSubmatch(s.line), reMsgID.FindStringSubmatch(s.line)
			if !outIDs["ACK:"+sender[1]+":"+id[1]] {
				t.Errorf("%s: accepted without an ACK", s.name)
			}
		}
		if strings.HasPrefix(s.name, "record ") && (e["payload"] != "" || e["sender"] != "" || e["msg_id"] != "") {
			t.Errorf("%s: exception %v", s.name, e)
		}
		if want == "INTERNAL" && e["nack_msg_id"] != nil {
			t.Errorf("%s: an INTERNAL exception got a NACK", s.name)
		}
	}
	if outIDs["ACK:"+BRK+":"+poison.ID()] {
		t.Error("the message under a corrupt identity entry was ACKed")
	}
	checkBoundedEchoes(t, excLines.String(), outLines.String())

	// What was skipped is in the log, with its place.
	log := proc.log.String()
	for _, topic := range []string{ns + ".v1.verdicts", ns + ".v1.accepted", ns + ".v1.match-loop"} {
		if !strings.Contains(log, "topic="+topic+" partition=") {
			t.Errorf("no corrupt-record line for %s in the log", topic)
		}
	}
	for _, want := range []string{"table=" + ns + ".v1.identity-table", "bad reference data record skipped", "EVERY network interface"} {
		if !strings.Contains(log, want) {
			t.Errorf("no %q in the log", want)
		}
	}

	// And a valid trade sent afterwards still matches.
	for i, m := range valid.All() {
		produce(ns+".inbound", "ADV", int32(i)%partitions, []byte(m.Line()))
	}
	for deadline := time.Now().Add(90 * time.Second); ; {
		recs, err := dumpTopic(ctx, brokers, ns+".cls")
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, r := range recs {
			found = found || bytes.Contains(r.Value, []byte("<MsgId>CLS-"+valid.Key()+"-1</MsgId>"))
		}
		if found {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the valid trade sent after the probes did not match within 90 s:\n%s", proc.log)
		}
		time.Sleep(300 * time.Millisecond)
	}
	proc.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-proc.done:
		if err != nil {
			t.Fatalf("ste process did not stop cleanly after the probes: %v\n%s", err, proc.log)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("ste process did not stop within 60 s of SIGTERM")
	}
}
