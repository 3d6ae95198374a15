package instance_test

// Faults an instance must live through in-process: a record that makes a
// callback panic, a partition that stops moving, partitions moving to
// another instance, the broker restarting under it.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lovoo/goka"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/instance/api"
	"github.com/ste-utility/ste/instance/registry"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/processors/envelope"
	"github.com/ste-utility/ste/processors/supervise"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/broker"
	"github.com/ste-utility/ste/topics/lag"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/workload"
)

// env is a broker with a namespace and reference data.
type env struct {
	t       *testing.T
	ctx     context.Context
	brokers kafkaconn.Config
	addr    string // the embedded broker's address
	ns      string
	cl      *kgo.Client
	adm     *kadm.Client
	home    string
	bo      broker.Options
	cluster interface{ Close() }
}

func newEnv(t *testing.T, ns string, timeout time.Duration, bo broker.Options) *env {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a broker and instances")
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	if bo.Addr == "" {
		bo.Addr = "127.0.0.1:0"
	}
	c, err := broker.Start(bo)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, ctx: ctx, brokers: kafkaconn.Plaintext(broker.Addr(c)), addr: broker.Addr(c), ns: ns,
		home: t.TempDir(), cluster: c}
	e.bo.Addr, e.bo.DataDir = e.addr, bo.DataDir
	t.Cleanup(func() { e.cluster.Close() })
	e.connect()
	if _, err := topics.Create(ctx, e.adm, ns, topics.Options{Partitions: 4}); err != nil {
		t.Fatal(err)
	}
	if _, err := topics.PublishRefdata(ctx, e.cl, ns, refdata.Default()); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *env) connect() {
	cl, err := topics.Connect(e.ctx, e.brokers)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(cl.Close)
	e.cl, e.adm = cl, kadm.NewClient(cl)
}

// running is one instance started by start.
type running struct {
	stop context.CancelFunc
	done chan error
	http string
	id   string
}

func (e *env) start(id string, o instance.Options) *running {
	e.t.Helper()
	ident, err := instance.Claim(e.home, id)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(ident.Release)
	ictx, stop := context.WithCancel(e.ctx)
	ready := make(chan struct{})
	r := &running{stop: stop, done: make(chan error, 1), id: id}
	o.Kafka, o.Namespace, o.Identity, o.Ready, o.Home = e.brokers, e.ns, ident, ready, e.home
	o.Signer = &schemas.Signer{BIC: "STEUTLSGXXX", Key: refdata.DemoPrivateKey("STEUTLSGXXX")}
	o.Verify, o.HTTPAddr = true, "127.0.0.1:0"
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.LagEvery == 0 {
		o.LagEvery = 200 * time.Millisecond
	}
	o.RegistryEvery = 200 * time.Millisecond
	go func() { r.done <- instance.Run(ictx, o) }()
	select {
	case <-ready:
	case err := <-r.done:
		e.t.Fatalf("instance stopped: %v", err)
	case <-e.ctx.Done():
		e.t.Fatal("instance not ready")
	}
	for r.http == "" {
		list, _ := registry.List(e.ctx, e.brokers, e.ns)
		for _, l := range list {
			if l.ID == id {
				r.http = l.HTTP
			}
		}
		if e.ctx.Err() != nil {
			e.t.Fatal("instance never announced itself")
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.t.Cleanup(func() { stop(); <-r.done })
	return r
}

func (e *env) status(r *running) api.Status {
	e.t.Helper()
	var st api.Status
	e.getJSON(r, "/status", &st)
	return st
}

func (e *env) get(r *running, path string) (int, string) {
	e.t.Helper()
	resp, err := http.Get("http://" + r.http + path)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func (e *env) getJSON(r *running, path string, v any) {
	e.t.Helper()
	_, body := e.get(r, path)
	if err := json.Unmarshal([]byte(body), v); err != nil {
		e.t.Fatalf("%s: %v", path, err)
	}
}

// metric returns the value of one series of /metrics, or -1 without it.
func (e *env) metric(r *running, series string) float64 {
	_, body := e.get(r, "/metrics")
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	return -1
}

// set generates n realistic trades' messages.
func set(t *testing.T, trades int, seed uint64) ([][]byte, *workload.Manifest) {
	var recs [][]byte
	man, err := workload.Generate(workload.Options{Trades: trades, Seed: seed, Ref: refdata.Default()},
		func(b []byte) error { recs = append(recs, bytes.Clone(b)); return nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
	return recs, man
}

func (e *env) drive(recs [][]byte) {
	e.t.Helper()
	var buf bytes.Buffer
	for _, r := range recs {
		buf.Write(r)
		buf.WriteByte('\n')
	}
	src, _ := msgset.NewReader(&buf, "set")
	if _, err := topics.Drive(e.ctx, e.cl, e.ns, src, topics.DriveOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) waitZero() {
	e.t.Helper()
	if _, err := lag.WaitZero(e.ctx, e.adm, lag.Groups(e.ns), lag.WaitOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// exceptions reads the exceptions topic.
func (e *env) exceptions() []schemas.Exception {
	e.t.Helper()
	var out []schemas.Exception
	_, err := topics.Dump(e.ctx, e.brokers, topology.Names{NS: e.ns}.Exceptions(), func(r *kgo.Record) error {
		var x schemas.Exception
		if err := json.Unmarshal(r.Value, &x); err != nil {
			return err
		}
		out = append(out, x)
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

var msgIDRe = regexp.MustCompile(`<MsgId>([^<]+)</MsgId>`)

// A record that makes the match callback panic becomes one INTERNAL
// exception — payload kept, no NACK — and the rest of the set is processed
// without a restart. Without the guard the panic fails the partition, the
// group restarts, reads the same record and fails again: lag never drains.
func TestPanicRecordBecomesInternalException(t *testing.T) {
	e := newEnv(t, "panic", 2*time.Minute, broker.Options{})
	recs, man := set(t, 40, 7)
	victim := msgIDRe.FindSubmatch(recs[5])[1]
	hook := func(st topology.Stage, ctx goka.Context, msg []byte) {
		if st != topology.StageMatch {
			return
		}
		env, err := envelope.Unmarshal(msg)
		if err == nil && env.MsgId == string(victim) && env.Kind != envelope.KindExpire {
			fields := strings.Fields(env.MsgId)
			_ = fields[len(fields)] // an index out of range: the kind of bug a record could trigger
		}
	}
	r := e.start("p", instance.Options{Hook: hook})
	e.drive(recs)
	e.waitZero()

	var internal []schemas.Exception
	for _, x := range e.exceptions() {
		if x.Reason == "INTERNAL" {
			internal = append(internal, x)
		}
	}
	if len(internal) != 1 {
		t.Fatalf("%d INTERNAL exceptions, want 1: %+v", len(internal), internal)
	}
	x := internal[0]
	if x.MsgId != string(victim) || !bytes.Equal(x.Payload, recs[5]) || x.NACK != "" ||
		!strings.Contains(x.Detail, "match stage failed") || !strings.Contains(x.Detail, "index out of range") {
		t.Fatalf("INTERNAL exception %+v", x)
	}
	if x.ID != fmt.Sprintf("%d-%d", x.SourcePartition, x.SourceOffset) || x.SourcePartition < 0 {
		t.Fatalf("exception id %q does not name the inbound record (%d, %d)", x.ID, x.SourcePartition, x.SourceOffset)
	}
	nacks := 0
	topics.Dump(e.ctx, e.brokers, topology.Names{NS: e.ns}.Outbound(), func(rec *kgo.Record) error {
		if bytes.Contains(rec.Value, []byte("NACK:")) && bytes.Contains(rec.Value, victim) {
			nacks++
		}
		return nil
	})
	if nacks != 0 {
		t.Fatalf("%d NACKs for the INTERNAL record, want none", nacks)
	}
	if got := e.metric(r, `ste_internal_errors_total{stage="match"}`); got != 1 {
		t.Fatalf("ste_internal_errors_total{match} = %v, want 1", got)
	}
	if got := e.metric(r, `ste_group_restarts_total{stage="match"}`); got > 0 {
		t.Fatalf("the match group restarted %v times: the panic was not contained", got)
	}
	// The rest went through: every other matched trade has its CLS.
	cls, _ := topics.Dump(e.ctx, e.brokers, topology.Names{NS: e.ns}.CLS(), func(*kgo.Record) error { return nil })
	if cls < man.Matched-1 {
		t.Fatalf("%d CLS of %d matched trades", cls, man.Matched)
	}
}

// A match callback that blocks stalls its partition: /healthz turns
// unhealthy after the stall limit with the partition named, the metric
// counts it, and health returns once the callback is released.
func TestStalledPartitionMakesHealthzUnhealthy(t *testing.T) {
	e := newEnv(t, "stall", 2*time.Minute, broker.Options{})
	recs, _ := set(t, 20, 3)
	// The first match partition to get a record blocks on it; the others
	// go on, so that exactly one partition stalls.
	var (
		victim  atomic.Int32
		blocked = make(chan int32, 1)
		release = make(chan struct{})
	)
	victim.Store(-1)
	hook := func(st topology.Stage, ctx goka.Context, _ []byte) {
		p := ctx.Partition()
		if st == topology.StageMatch && (victim.CompareAndSwap(-1, p) || victim.Load() == p) {
			select {
			case blocked <- p:
			default:
			}
			<-release
		}
	}
	r := e.start("s", instance.Options{Hook: hook, StallAfter: 2 * time.Second})
	var released sync.Once
	unblock := func() { released.Do(func() { close(release) }) }
	// Registered after start, so it runs before the instance is stopped: a
	// failing test must not leave the callback blocked, or the stop waits
	// for it for ever.
	t.Cleanup(unblock)
	if code, body := e.get(r, "/healthz"); code != http.StatusOK {
		t.Fatalf("/healthz before the stall: %d %s", code, body)
	}
	e.drive(recs)
	var p int32
	select {
	case p = <-blocked:
	case <-e.ctx.Done():
		t.Fatal("the match callback never ran")
	}
	start := time.Now()
	want := fmt.Sprintf("stalled: match partition %d of stall.v1.accepted", p)
	for {
		code, body := e.get(r, "/healthz")
		// No lower bound on when: the detector counts from its last sample
		// of progress, which may come before the callback blocked, so how
		// soon the report comes depends on the machine's speed (the limit
		// itself is TestStallDetector's, on a clock it moves).
		if code == http.StatusServiceUnavailable && strings.Contains(body, want) {
			break
		}
		if e.ctx.Err() != nil || time.Since(start) > time.Minute {
			t.Fatalf("/healthz never reported the stall: %d %s", code, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got := e.metric(r, `ste_stalled_partitions{stage="match"}`); got != 1 {
		t.Fatalf("ste_stalled_partitions{match} = %v during the stall of one partition", got)
	}
	if got := e.metric(r, `ste_stalled_partitions{stage="validate"}`); got != 0 {
		t.Fatalf("ste_stalled_partitions{validate} = %v: validate is not stalled", got)
	}
	unblock()
	e.waitZero()
	for {
		code, body := e.get(r, "/healthz")
		if code == http.StatusOK {
			break
		}
		if e.ctx.Err() != nil {
			t.Fatalf("/healthz stays unhealthy after the stall ended: %s", body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got := e.metric(r, `ste_stalled_partitions{stage="match"}`); got != 0 {
		t.Fatalf("ste_stalled_partitions{match} = %v after the stall", got)
	}
}

// openTradePartitions lists the partitions ste_open_trades reports.
func (e *env) openTradePartitions(r *running) []int32 {
	_, body := e.get(r, "/metrics")
	var out []int32
	for _, m := range regexp.MustCompile(`(?m)^ste_open_trades\{partition="(\d+)"\}`).FindAllStringSubmatch(body, -1) {
		p, _ := strconv.Atoi(m[1])
		out = append(out, int32(p))
	}
	slices.Sort(out)
	return out
}

// When a second instance takes half the partitions, the first stops
// reporting (and holding) the tables of the partitions it gave away.
func TestLostPartitionsAreFreed(t *testing.T) {
	e := newEnv(t, "lost", 2*time.Minute, broker.Options{})
	recs, _ := set(t, 200, 5)
	a := e.start("a", instance.Options{})
	e.drive(recs)
	e.waitZero()
	waitFor(e, "the first instance reports open trades on all 4 partitions", func() bool {
		return slices.Equal(e.openTradePartitions(a), []int32{0, 1, 2, 3})
	})
	b := e.start("b", instance.Options{})
	var mine []int32
	waitFor(e, "the partitions are shared", func() bool {
		sa, sb := e.status(a), e.status(b)
		mine = sa.Assigned["match"]
		return len(mine) == 2 && len(sb.Assigned["match"]) == 2
	})
	waitFor(e, "ste_open_trades of the first instance shows only the partitions it kept", func() bool {
		return slices.Equal(e.openTradePartitions(a), mine)
	})
	clock := regexp.MustCompile(`(?m)^ste_event_time_clock_seconds\{partition="(\d+)"\}`)
	_, body := e.get(a, "/metrics")
	for _, m := range clock.FindAllStringSubmatch(body, -1) {
		p, _ := strconv.Atoi(m[1])
		if !slices.Contains(mine, int32(p)) {
			t.Fatalf("the clock of partition %d, given away, is still reported", p)
		}
	}
}

func waitFor(e *env, what string, cond func() bool) {
	e.t.Helper()
	for !cond() {
		if e.ctx.Err() != nil {
			e.t.Fatalf("never: %s", what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// The broker is away for 15 s and comes back on the same address and data:
// the instance's groups lose their sessions and either wait in sarama's
// retries (a coordinator lookup is tried for ~9 s, a JoinGroup once more:
// gokaconf, since issue 52 long enough to outlast a Kafka node's fencing)
// or fail and are restarted in-process; the instance does not exit, and
// what is driven after the restart is processed to the end.
func TestBrokerRestartIsSurvivedInProcess(t *testing.T) {
	e := newEnv(t, "restart", 3*time.Minute, broker.Options{DataDir: t.TempDir()})
	recs, man := set(t, 300, 11)
	half := len(recs) / 2
	r := e.start("r", instance.Options{Restart: supervise.Backoff{Base: 100 * time.Millisecond, Max: time.Second, Reset: time.Minute}})
	e.drive(recs[:half])
	e.waitZero()
	rebalances := func() float64 { return max(0, e.metric(r, "ste_rebalances_total")) }
	before := rebalances()

	e.cluster.Close()
	time.Sleep(15 * time.Second)
	c, err := broker.Start(e.bo)
	if err != nil {
		t.Fatal(err)
	}
	e.cluster = c
	e.connect()
	e.drive(recs[half:])
	e.waitZero()
	select {
	case err := <-r.done:
		t.Fatalf("the instance exited on its own: %v", err)
	default:
	}
	cls, err := topics.Dump(e.ctx, e.brokers, topology.Names{NS: e.ns}.CLS(), func(*kgo.Record) error { return nil })
	if err != nil || cls < man.Matched {
		t.Fatalf("%d CLS of %d matched trades after the broker restart (%v)", cls, man.Matched, err)
	}
	restarts := 0.0
	for _, st := range topology.Stages {
		restarts += max(0, e.metric(r, `ste_group_restarts_total{stage="`+st.String()+`"}`))
	}
	rejoined := rebalances() - before
	if restarts == 0 && rejoined == 0 {
		t.Fatal("no group restarted or rejoined: the outage did not test the recovery")
	}
	t.Logf("%v group restarts, %v generations joined after the outage", restarts, rejoined)
}

// TestBelowMinISRIsReportedWithTheBrokersReason: a cluster below
// min.insync.replicas refuses every acks=all produce with NOT_ENOUGH_REPLICAS
// (here kfake's produce fault on the topic the validate stage writes). The
// instance neither exits nor skips anything: /healthz turns unhealthy naming
// the broker's reason, and once the replicas are back every record goes
// through and /healthz is healthy again. Nothing here waits on a clock
// except the deadline of the whole test.
func TestBelowMinISRIsReportedWithTheBrokersReason(t *testing.T) {
	e := newEnv(t, "minisr", 3*time.Minute, broker.Options{})
	recs, man := set(t, 40, 5)
	r := e.start("m", instance.Options{})
	if code, body := e.get(r, "/healthz"); code != http.StatusOK {
		t.Fatalf("/healthz before the fault: %d %s", code, body)
	}
	names := topology.Names{NS: e.ns}
	fault := e.cluster.(*kfake.Cluster).Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: names.Verdicts(),
		Err: kerr.NotEnoughReplicas, Count: -1})
	removed := false
	defer func() {
		if !removed {
			fault.Remove()
		}
	}()
	e.drive(recs)
	var body string
	waitFor(e, "/healthz naming NOT_ENOUGH_REPLICAS", func() bool {
		var code int
		code, body = e.get(r, "/healthz")
		return code == http.StatusServiceUnavailable && strings.Contains(body, "NOT_ENOUGH_REPLICAS")
	})
	t.Logf("below min ISR: /healthz %s", strings.TrimSpace(body))
	if !strings.Contains(body, names.Verdicts()) {
		t.Errorf("/healthz does not name the refused topic %s: %s", names.Verdicts(), body)
	}
	select {
	case err := <-r.done:
		t.Fatalf("the instance exited below min ISR: %v", err)
	default:
	}
	fault.Remove()
	removed = true
	e.waitZero()
	waitFor(e, "/healthz healthy again", func() bool { code, _ := e.get(r, "/healthz"); return code == http.StatusOK })
	cls, err := topics.Dump(e.ctx, e.brokers, names.CLS(), func(*kgo.Record) error { return nil })
	if err != nil || cls < man.Matched {
		t.Fatalf("%d CLS of %d matched trades after the cluster was below min ISR (%v)", cls, man.Matched, err)
	}
}
