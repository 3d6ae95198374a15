// Package e2e is the end-to-end conformance suite: the same scenarios run
// against every broker backend — the embedded kfake broker (`ste broker`)
// and a real Apache Kafka 4 broker (deploy/kafka) — driving the product only
// through its binary and its topics, and holding it to `ste match` on the
// same message set.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/deploy/kafka"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas/ledger"
	"github.com/ste-utility/ste/topics"
)

var steBin, chdbBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ste-e2e-")
	if err != nil {
		panic(err)
	}
	steBin, chdbBin = filepath.Join(dir, "ste"), filepath.Join(dir, "ste-chdb")
	for bin, pkg := range map[string]string{steBin: "../cmd/ste", chdbBin: "../cmd/ste-chdb"} {
		build := exec.Command("go", "build", "-o", bin, pkg)
		build.Stdout, build.Stderr = os.Stdout, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: building", pkg, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	stopBrokers()
	kafka.StopShared()
	os.RemoveAll(dir)
	os.Exit(code)
}

// backend is a broker the suite runs against.
type backend struct {
	name    string
	brokers func(t *testing.T) string
}

var backends = []backend{
	{"kfake", embeddedBroker},
	{"kafka", func(t *testing.T) string { return kafka.Shared(t) }},
}

var kfakeProc struct {
	once sync.Once
	addr string
	cmd  *exec.Cmd
	err  error
}

// embeddedBroker runs `ste broker --data D` once for the test binary.
func embeddedBroker(t *testing.T) string {
	t.Helper()
	kfakeProc.once.Do(func() {
		dir, err := os.MkdirTemp("", "ste-kfake-")
		if err != nil {
			kfakeProc.err = err
			return
		}
		cmd := exec.Command(steBin, "broker", "--addr", "127.0.0.1:0", "--data", dir)
		stdout, _ := cmd.StdoutPipe()
		cmd.Stderr = io.Discard
		if err := cmd.Start(); err != nil {
			kfakeProc.err = err
			return
		}
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil {
			kfakeProc.err = fmt.Errorf("ste broker printed no address: %v", err)
			return
		}
		kfakeProc.addr, kfakeProc.cmd = strings.TrimSpace(line), cmd
	})
	if kfakeProc.err != nil {
		t.Fatal(kfakeProc.err)
	}
	return kfakeProc.addr
}

func stopBrokers() {
	if kfakeProc.cmd != nil {
		kfakeProc.cmd.Process.Signal(syscall.SIGTERM)
		kfakeProc.cmd.Wait()
	}
}

// ste runs a ste command to completion and returns its stdout.
func ste(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(steBin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("ste %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

// proc is a running `ste process`.
type proc struct {
	cmd  *exec.Cmd
	log  *bytes.Buffer
	done chan error
}

func startProcess(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	return startCmd(t, exec.Command(steBin, append([]string{"process", "--http", ""}, args...)...), env)
}

// startCmd starts a long-running ste command (process) and stops it with
// SIGKILL at the end of the test if it still runs.
func startCmd(t *testing.T, cmd *exec.Cmd, env []string) *proc {
	t.Helper()
	cmd.Env = append(os.Environ(), env...)
	p := &proc{cmd: cmd, log: &bytes.Buffer{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = p.log, p.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() { p.stop(t, syscall.SIGKILL) })
	return p
}

// stop sends sig and waits; a graceful stop must exit 0.
func (p *proc) stop(t *testing.T, sig syscall.Signal) error {
	if p.cmd.ProcessState != nil {
		return nil
	}
	p.cmd.Process.Signal(sig)
	select {
	case err := <-p.done:
		p.done <- err
		return err
	case <-time.After(60 * time.Second):
		p.cmd.Process.Kill()
		return fmt.Errorf("ste process did not stop within 60 s after %v", sig)
	}
}

// fixture is one scenario's namespace, message set and expected outcome.
type fixture struct {
	t        *testing.T
	brokers  string
	conn     kafkaconn.Config // how the test itself reads the topics
	ns       string
	env      []string
	set      string
	refdata  string
	expected *ledger.Ledger
	excs     []string // expected exceptions, normalised
	accepted int
}

var nsSeq struct {
	sync.Mutex
	n int
}

// newFixture prepares a scenario on backend b and creates its topics and
// reference data with ste topics create and ste refdata load.
func newFixture(t *testing.T, b backend, trades int) *fixture {
	t.Helper()
	f := prepareFixture(t, b.brokers(t), trades)
	ste(t, f.env, "topics", "create")
	ste(t, f.env, "refdata", "load", "--dir", f.refdata)
	return f
}

// prepareFixture makes a namespace name, a message set and its expected
// outcome (ste match), and touches no broker.
func prepareFixture(t *testing.T, brokers string, trades int) *fixture {
	t.Helper()
	nsSeq.Lock()
	nsSeq.n++
	ns := fmt.Sprintf("e2e%d%d", time.Now().UnixNano()%1e6, nsSeq.n)
	nsSeq.Unlock()
	dir := t.TempDir()
	f := &fixture{t: t, brokers: brokers, conn: kafkaconn.Plaintext(brokers), ns: ns, set: filepath.Join(dir, "set.xml"), refdata: filepath.Join(dir, "ref"),
		env: []string{"STE_BROKERS=" + brokers, "STE_NAMESPACE=" + ns}}
	ste(t, nil, "refdata", "gen", "--out", f.refdata, "--seed", "3")
	ste(t, nil, "gen", "--trades", fmt.Sprint(trades), "--mix", "realistic", "--seed", "5", "--refdata", f.refdata, "--out", f.set)
	out := filepath.Join(dir, "match")
	var sum struct {
		Accepted   int `json:"accepted"`
		Exceptions int `json:"exceptions"`
	}
	if err := json.Unmarshal([]byte(ste(t, nil, "match", "--in", f.set, "--refdata", f.refdata, "--out", out)), &sum); err != nil {
		t.Fatal(err)
	}
	f.accepted = sum.Accepted
	f.expected = ledger.New()
	for _, name := range []string{"cls.xml", "outbound.xml"} {
		forLines(t, filepath.Join(out, name), func(b []byte) { must(t, f.expected.Add(b)) })
	}
	forLines(t, filepath.Join(out, "exceptions.jsonl"), func(b []byte) { f.excs = append(f.excs, normaliseException(t, b)) })
	slices.Sort(f.excs)
	if len(f.excs) != sum.Exceptions {
		t.Fatalf("ste match wrote %d exceptions, summary says %d", len(f.excs), sum.Exceptions)
	}
	return f
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func forLines(t *testing.T, path string, fn func([]byte)) {
	t.Helper()
	fh, err := os.Open(path)
	must(t, err)
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		fn(sc.Bytes())
	}
	must(t, sc.Err())
}

// normaliseException keeps what must agree between ste match and Kafka:
// everything but ids, offsets, partitions and times.
func normaliseException(t *testing.T, b []byte) string {
	var e map[string]any
	must(t, json.Unmarshal(b, &e))
	for _, k := range []string{"id", "received_at", "source_partition", "source_offset"} {
		delete(e, k)
	}
	out, _ := json.Marshal(e)
	return string(out)
}

// observed reads the namespace's output topics.
type observed struct {
	led     *ledger.Ledger
	excs    []string // normalised, deduplicated by record id
	excIDs  int
	records int
}

func (f *fixture) observe(ctx context.Context) (*observed, error) {
	o := &observed{led: ledger.New()}
	for _, tp := range []string{f.ns + ".cls", f.ns + ".outbound"} {
		n, err := topics.Dump(ctx, f.conn, tp, func(r *kgo.Record) error { return o.led.Add(r.Value) })
		if err != nil {
			return nil, err
		}
		o.records += n
	}
	seen := map[string]bool{}
	_, err := topics.Dump(ctx, f.conn, f.ns+".exceptions", func(r *kgo.Record) error {
		var e struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(r.Value, &e); err != nil {
			return err
		}
		if seen[e.ID] { // a replayed record dedupes by its id
			return nil
		}
		seen[e.ID] = true
		o.excs = append(o.excs, normaliseException(f.t, r.Value))
		return nil
	})
	slices.Sort(o.excs)
	o.excIDs = len(seen)
	return o, err
}

// waitComplete polls the outputs until every accepted message has its ACK,
// every rejected one its exception, and the final outcomes settle.
func (f *fixture) waitComplete(timeout time.Duration) *observed {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	want := f.expected.Outcomes()
	var last *observed
	for {
		o, err := f.observe(ctx)
		if err == nil {
			last = o
			if o.led.Count["ACK NEW"] >= f.accepted && o.excIDs >= len(f.excs) && slices.Equal(o.led.Outcomes(), want) {
				return o
			}
		}
		select {
		case <-ctx.Done():
			if last == nil {
				f.t.Fatalf("no outputs readable: %v", err)
			}
			f.t.Fatalf("not complete after %v: ACKs %d/%d, exceptions %d/%d, settled trades %d/%d\n%s",
				timeout, last.led.Count["ACK NEW"], f.accepted, last.excIDs, len(f.excs),
				len(last.led.Outcomes()), len(want), firstDifference(last.led.Outcomes(), want))
		case <-time.After(time.Second):
		}
	}
}

func firstDifference(got, want []string) string {
	for i := 0; i < min(len(got), len(want)); i++ {
		if got[i] != want[i] {
			return "first difference:\n got  " + trunc(got[i]) + "\n want " + trunc(want[i])
		}
	}
	return ""
}

func trunc(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// check holds the observed outputs to ste match's.
func (f *fixture) check(o *observed) {
	f.t.Helper()
	if len(o.led.Conflicts) > 0 {
		f.t.Fatalf("MsgIds with two contents: %v", o.led.Conflicts[:min(5, len(o.led.Conflicts))])
	}
	if !slices.Equal(o.excs, f.excs) {
		f.t.Fatalf("exceptions differ from ste match: %d vs %d", len(o.excs), len(f.excs))
	}
	if got, want := o.led.Outcomes(), f.expected.Outcomes(); !slices.Equal(got, want) {
		f.t.Fatalf("final outcomes differ from ste match\n%s", firstDifference(got, want))
	}
}

// waitProgress waits until a share of the accepted messages has its ACK, so
// that a stop lands mid-stream and not before processing began.
func (f *fixture) waitProgress(share float64, p *proc) {
	f.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		n := 0
		topics.Dump(context.Background(), f.conn, f.ns+".outbound", func(r *kgo.Record) error {
			if bytes.Contains(r.Value, []byte("<MsgType>ACK</MsgType>")) {
				n++
			}
			return nil
		})
		if float64(n) >= share*float64(f.accepted) {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	f.t.Fatalf("no progress within 2 minutes; process log:\n%s", p.log)
}

func (f *fixture) drive(rate int) {
	f.t.Helper()
	args := []string{"drive", "--in", f.set}
	if rate > 0 {
		args = append(args, "--rate", fmt.Sprint(rate))
	}
	ste(f.t, f.env, args...)
}

// TestConformance runs every scenario against every backend.
func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end suite: brokers and processes (drop -short to run)")
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Run("two instances match ste match", func(t *testing.T) {
				f := newFixture(t, b, 300)
				p1 := startProcess(t, f.env)
				p2 := startProcess(t, f.env)
				f.drive(0)
				f.check(f.waitComplete(3 * time.Minute))
				must(t, p1.stop(t, syscall.SIGTERM))
				must(t, p2.stop(t, syscall.SIGTERM))
			})
			t.Run("groups apart: two validate, one identity+match", func(t *testing.T) {
				f := newFixture(t, b, 200)
				procs := []*proc{
					startProcess(t, f.env, "--groups", "validate", "--http", "127.0.0.1:0"),
					startProcess(t, f.env, "--groups", "validate", "--http", "127.0.0.1:0"),
					startProcess(t, f.env, "--groups", "identity,match", "--http", "127.0.0.1:0"),
				}
				f.drive(0)
				f.check(f.waitComplete(3 * time.Minute))
				f.checkGroupsApart(procs)
				for _, p := range procs {
					must(t, p.stop(t, syscall.SIGTERM))
				}
			})
			t.Run("graceful restart mid-stream", func(t *testing.T) {
				f := newFixture(t, b, 300)
				p := startProcess(t, f.env)
				driven := make(chan struct{})
				go func() { defer close(driven); f.drive(600) }() // ~5 s of traffic
				f.waitProgress(0.3, p)
				if err := p.stop(t, syscall.SIGTERM); err != nil {
					t.Fatalf("SIGTERM must drain and exit 0: %v\n%s", err, p.log)
				}
				startProcess(t, f.env)
				<-driven
				f.check(f.waitComplete(3 * time.Minute))
			})
			t.Run("kill -9 mid-stream", func(t *testing.T) {
				f := newFixture(t, b, 300)
				p := startProcess(t, f.env)
				driven := make(chan struct{})
				go func() { defer close(driven); f.drive(600) }()
				f.waitProgress(0.3, p)
				p.stop(t, syscall.SIGKILL)
				startProcess(t, f.env)
				<-driven
				f.check(f.waitComplete(3 * time.Minute))
			})
		})
	}
}
