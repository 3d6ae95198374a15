// Package e2e is the end-to-end conformance suite: the same scenarios run
// against every broker backend — the embedded kfake broker (`ste broker`)
// and a real Apache Kafka 4 broker (internal/testing/kafka) — driving the product only
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
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/e2e/v3set"
	"github.com/ste-utility/ste/internal/testing/kafka"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas/outcome"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/lag"
)

var steBin, chdbBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ste-e2e-")
	if err != nil {
		panic(err)
	}
	steBin, chdbBin = filepath.Join(dir, "ste"), filepath.Join(dir, "ste-chdb")
	// Every ste the suite starts keeps its state (instance slots, disk
	// tables) under this run's directory, not the user's $STE_HOME; a test
	// that needs a home of its own sets STE_HOME in its env, which wins.
	os.Setenv("STE_HOME", filepath.Join(dir, "home"))
	for bin, pkg := range map[string]string{steBin: "../cmd/ste", chdbBin: "../chendpoint/cmd/ste-chdb"} {
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
	dir  string // the broker's data, removed by stopBrokers
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
		kfakeProc.dir = dir
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

// stopBrokers stops the embedded broker and removes its data: one run of
// the suite leaves 0.4–0.9 GB there; 140 runs' worth, left behind, had
// filled a development machine's disk to 89 % (3 December).
func stopBrokers() {
	if kfakeProc.cmd != nil {
		kfakeProc.cmd.Process.Signal(syscall.SIGTERM)
		kfakeProc.cmd.Wait()
	}
	if kfakeProc.dir != "" {
		os.RemoveAll(kfakeProc.dir)
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
	expected *outcome.Set
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
	f := newFixtureDir(t, brokers)
	ste(t, nil, "gen", "--trades", fmt.Sprint(trades), "--mix", "realistic", "--seed", "5", "--refdata", f.refdata, "--out", f.set)
	f.expect()
	return f
}

// newFixtureDir makes a namespace name and generated reference data; the
// processes it starts allege after allegementDelay.
func newFixtureDir(t *testing.T, brokers string) *fixture {
	t.Helper()
	nsSeq.Lock()
	nsSeq.n++
	ns := fmt.Sprintf("e2e%d%d", time.Now().UnixNano()%1e6, nsSeq.n)
	nsSeq.Unlock()
	dir := t.TempDir()
	f := &fixture{t: t, brokers: brokers, conn: kafkaconn.Plaintext(brokers), ns: ns, set: filepath.Join(dir, "set.xml"), refdata: filepath.Join(dir, "ref"),
		env: []string{"STE_BROKERS=" + brokers, "STE_NAMESPACE=" + ns, "STE_ALLEGEMENT_DELAY=" + allegementDelay.String()}}
	ste(t, nil, "refdata", "gen", "--out", f.refdata, "--seed", "3")
	return f
}

// allegementDelay is the processes' --allegement-delay in the suite: the
// standing allegements are compared once it has passed.
const allegementDelay = time.Second

// expect runs ste match on the fixture's set: the expected outcome.
func (f *fixture) expect() {
	t := f.t
	t.Helper()
	out := filepath.Join(filepath.Dir(f.set), "match")
	var sum struct {
		Accepted   int `json:"accepted"`
		Auto       int `json:"auto"`
		Exceptions int `json:"exceptions"`
	}
	if err := json.Unmarshal([]byte(ste(t, nil, "match", "--in", f.set, "--refdata", f.refdata, "--out", out)), &sum); err != nil {
		t.Fatal(err)
	}
	f.accepted = sum.Accepted
	var err error
	f.expected, err = outcome.FromMatchDir(out)
	must(t, err)
	if c := f.expected.Counts(); c.ACKs != sum.Accepted+sum.Auto || c.Exceptions != sum.Exceptions {
		t.Fatalf("ste match wrote %d ACKs and %d exceptions, summary says %d (and %d of the utility's AFFs) and %d",
			c.ACKs, c.Exceptions, sum.Accepted, sum.Auto, sum.Exceptions)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// compare holds the observed outputs to ste match's: the contract's
// standing outputs (docs/spec/messages.md §6) — each receiver's last
// STATUS, CNF, BLK and ALG of every trade, the CLS — and every ACK and
// NACK.
func (f *fixture) compare(o *outcome.Set) *outcome.Diff {
	return outcome.Compare(f.expected, o, outcome.Options{A: "ste match", B: "topics", Standing: true})
}

// waitComplete polls the outputs until every accepted message has its ACK,
// every rejected one its exception, and the final outcomes settle.
func (f *fixture) waitComplete(timeout time.Duration) *outcome.Set {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cl, err := topics.Connect(ctx, f.conn)
	must(f.t, err)
	defer cl.Close()
	// Every group at lag 0: everything driven has been processed and its
	// outputs written. What the topics hold then is the final outcome.
	if _, err := lag.WaitZero(ctx, kadm.NewClient(cl), lag.Groups(f.ns), lag.WaitOptions{}); err != nil {
		o, rerr := topics.ReadOutcome(context.Background(), f.conn, f.ns)
		if rerr != nil {
			f.t.Fatalf("%v; no outputs readable: %v", err, rerr)
		}
		got, want := o.Counts(), f.expected.Counts()
		f.t.Fatalf("not processed after %v (%v): ACKs %d/%d, exceptions %d/%d, settled trades %d/%d\n%s",
			timeout, err, got.ACKs, want.ACKs, got.Exceptions, want.Exceptions,
			got.Settled, want.Settled, f.compare(o).Report(5))
	}
	// Allegements stand once the delay has passed with no message: the
	// timers' loopbacks come after lag 0.
	deadline := time.Now().Add(allegementDelay + time.Minute)
	for {
		o, err := topics.ReadOutcome(ctx, f.conn, f.ns)
		must(f.t, err)
		if f.compare(o).Equal() || time.Now().After(deadline) {
			return o
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// check holds the observed outputs to ste match's.
func (f *fixture) check(o *outcome.Set) {
	f.t.Helper()
	if d := f.compare(o); !d.Equal() {
		f.t.Fatalf("outputs differ from ste match: %s", d.Report(5))
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
			t.Run("v3 set shuffled: two instances match ste match", func(t *testing.T) {
				f := newV3Fixture(t, b, 200)
				p1 := startProcess(t, f.env)
				p2 := startProcess(t, f.env)
				f.drive(0)
				f.check(f.waitComplete(3 * time.Minute))
				must(t, p1.stop(t, syscall.SIGTERM))
				must(t, p2.stop(t, syscall.SIGTERM))
			})
			t.Run("v3 set shuffled: groups apart", func(t *testing.T) {
				f := newV3Fixture(t, b, 150)
				procs := []*proc{
					startProcess(t, f.env, "--groups", "validate"),
					startProcess(t, f.env, "--groups", "identity"),
					startProcess(t, f.env, "--groups", "match"),
				}
				f.drive(0)
				f.check(f.waitComplete(3 * time.Minute))
				for _, p := range procs {
					must(t, p.stop(t, syscall.SIGTERM))
				}
			})
			t.Run("v3 set shuffled: kill -9 mid-stream", func(t *testing.T) {
				f := newV3Fixture(t, b, 200)
				p := startProcess(t, f.env)
				driven := make(chan struct{})
				go func() { defer close(driven); f.drive(600) }()
				f.waitProgress(0.4, p)
				p.stop(t, syscall.SIGKILL)
				startProcess(t, f.env)
				<-driven
				f.check(f.waitComplete(3 * time.Minute))
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

// newV3Fixture prepares a scenario of a version 3 set (e2e/v3set: AUTO and
// MANUAL affirmation, a rejection, an amendment, cancellations, rogue
// SETs), shuffled, against generated reference data with its investment
// managers' affirmation modes, and loads them with ste topics create and
// ste refdata load.
func newV3Fixture(t *testing.T, b backend, trades int) *fixture {
	t.Helper()
	f := newFixtureDir(t, b.brokers(t))
	ref, err := refdata.LoadDir(f.refdata)
	must(t, err)
	s, err := v3set.Build(v3set.Options{Trades: trades, Seed: 13, Ref: ref})
	must(t, err)
	must(t, os.WriteFile(f.set, append(bytes.Join(s.Records, []byte("\n")), '\n'), 0o644))
	af, err := os.OpenFile(filepath.Join(f.refdata, refdata.AffirmationFile), os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	for _, im := range s.Auto {
		fmt.Fprintf(af, "%s,AUTO\n", im)
	}
	must(t, af.Close())
	f.expect()
	ste(t, f.env, "topics", "create")
	ste(t, f.env, "refdata", "load", "--dir", f.refdata)
	t.Logf("v3 set: %d records, %d AUTO investment managers, cases %v", len(s.Records), len(s.Auto), s.Cases)
	return f
}
