package chaos

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/ste-utility/ste/internal/testing/kafka"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/testgate"
	"github.com/ste-utility/ste/topics/lag"
	"github.com/ste-utility/ste/topology"
)

// clusterPlan is the size of one cluster chaos run.
type clusterPlan struct {
	trades, instances, leaderLosses, kills, rate int
	dupShare                                     float64
	converge                                     time.Duration
	// faults bounds the run from the instances' start to the rolling
	// restart's end: on Kafka each leader loss restarts a JVM, which took
	// over a minute on the loaded machine.
	faults time.Duration
}

// reducedCluster is the run of `make test` (kfake, under 2 minutes: 105 s
// on a loaded machine); fullCluster is `make chaos-cluster`. The seed
// 1796180246868686429 once lost the outputs of 87 trades here: goka marked
// a message consumed past an earlier one whose outputs waited on a moved
// leader (processors/produce, producer.go: promises now complete in emit
// order).
var (
	// converge is a gross bound on the wait for lag 0 after the last fault
	// (measured and logged; see plan.converge).
	reducedCluster = clusterPlan{trades: 1000, instances: 3, leaderLosses: 4, kills: 2, rate: 600, dupShare: 0.1, converge: 10 * time.Minute, faults: 2 * time.Minute}
	fullCluster    = clusterPlan{trades: 20000, instances: 3, leaderLosses: 10, kills: 5, rate: 3000, dupShare: 0.1, converge: 10 * time.Minute, faults: 30 * time.Minute}
)

// TestChaosCluster: a realistic set through three instances on three
// brokers (topics of replication 3, min.insync.replicas 2, producers
// acks=all and idempotent) while the leader of a busy partition is taken
// away and brought back again and again (seeded: STE_CHAOS_SEED replays the
// schedule) and instances are killed with kill -9; then a tenth of the set
// is driven again as exact duplicates. At lag 0 the outputs must equal
// `ste match`. Each leader loss logs how long produce (the partition's end)
// and consume (its group's committed offset) stalled.
//
// kfake runs its brokers in one process: a leader's loss there is kfake's
// RemoveNode of the leading node through `ste broker --control`, its return
// AddNode on the same port. On Kafka 4 (STE_CHAOS=full, `make chaos-cluster`)
// three KRaft nodes from `kafka.sh cluster-start`: a leader's loss is kill -9
// of its JVM and a restart, below min ISR two nodes killed; and after the
// instances' rolling restart the brokers' own (each node in turn SIGTERM —
// Kafka's controlled shutdown —, started again, the next one once every
// partition is fully replicated), while the second half of the duplicates
// is driven. Each rolling restart logs the longest time a partition with
// work waiting went without progress (goal ≤ 10 s).
func TestChaosCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("chaos: brokers, processes and faults (drop -short to run)")
	}
	full := testgate.Enabled("chaos-cluster") // STE_CHAOS=full, as chaos-cluster-kafka's
	p := reducedCluster
	if full {
		p = fullCluster
	}
	if n, err := strconv.Atoi(os.Getenv("STE_CHAOS_TRADES")); err == nil && n > 0 {
		p.trades = n // a smaller or larger run of the same schedule
	}
	s := seed(t)
	t.Logf("cluster chaos seed %d (replay the schedule: STE_CHAOS_SEED=%d)", s, s)
	backends := []string{"kfake"}
	if full {
		backends = append(backends, "kafka")
	}
	for _, b := range backends {
		t.Run(b, func(t *testing.T) { runChaosCluster(t, b, p, s) })
	}
}

// startKfakeCluster runs `ste broker --brokers N --control ADDR` as a
// process and returns its seed list and control address.
func startKfakeCluster(t *testing.T, dir string, brokers int) (addrs, control string) {
	t.Helper()
	control = freeAddr(t)
	logf, err := os.Create(filepath.Join(dir, "broker.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := execCommand(nil, "broker", "--addr", "127.0.0.1:0", "--brokers", fmt.Sprint(brokers),
		"--control", control, "--data", filepath.Join(dir, "kfake"))
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); logf.Close(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || strings.Count(line, ",") != brokers-1 {
		t.Fatalf("ste broker --brokers %d printed %q (%v)", brokers, line, err)
	}
	go io.Copy(io.Discard, stdout)
	return strings.TrimSpace(line), control
}

// controlPost calls one of the broker's controls and decodes its answer.
func controlPost(control, path string) (map[string]any, error) {
	resp, err := httpClient.Post("http://"+control+path, "", nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var v map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %d %v", path, resp.StatusCode, v)
	}
	return v, nil
}

func runChaosCluster(t *testing.T, backend string, p clusterPlan, seed uint64) {
	dir := workDir(t, "ste-chaos-cluster-"+backend+"-")
	rng := rand.New(rand.NewPCG(seed, 0xc1))

	ref, set, dups, nSet, nDups, expected := chaosSet(t, dir, rng, p.trades, p.dupShare, seed)

	cb := startClusterBackend(t, backend, dir)
	addrs := cb.addrs()
	ns := "chaoscl"
	env := []string{"STE_BROKERS=" + addrs, "STE_NAMESPACE=" + ns, "STE_HOME=" + filepath.Join(dir, "home"),
		"STE_ALLEGEMENT_DELAY=" + allegementDelay.String()}
	ste(t, env, "topics", "create", "--replication", "3", "--min-insync", "2")
	ste(t, env, "refdata", "load", "--dir", ref)
	adm := connect(t, addrs)
	var insts []*instance
	for i := range p.instances {
		in := newInstance(i, env, dir)
		if err := in.start(); err != nil {
			t.Fatal(err)
		}
		insts = append(insts, in)
	}
	t.Cleanup(func() {
		for _, in := range insts {
			in.stop()
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), p.faults)
	defer cancel()
	if err := waitMembers(ctx, adm, ns, p.instances); err != nil {
		t.Fatal(err)
	}
	groups := lag.Groups(ns)

	driveFor := time.Duration(float64(nSet) / float64(p.rate) * float64(time.Second))
	t.Logf("%s x3: %d trades, %d messages + %d duplicates at %d msg/s, %d instances, %d leader losses, %d kills over ~%v",
		backend, p.trades, nSet, nDups, p.rate, p.instances, p.leaderLosses, p.kills, driveFor.Round(time.Second))
	driven := make(chan error, 1)
	start := time.Now()
	var driveEnded atomic.Int64 // when the drive of the set ended, since start
	go func() {
		err := steErr(env, "drive", "--in", set, "--rate", fmt.Sprint(p.rate))
		driveEnded.Store(int64(time.Since(start)))
		driven <- err
	}()

	// The faults, spread over the drive: leader losses of a busy partition
	// (inbound, where the driver writes and the first group reads), each
	// node back 1–3 s later, and instance kills with a restart 0.5–3 s later.
	type event struct {
		at     time.Duration
		leader bool
		down   time.Duration
	}
	var evs []event
	for range p.leaderLosses {
		evs = append(evs, event{at: time.Duration(rng.Int64N(int64(driveFor))), leader: true,
			down: time.Second + time.Duration(rng.Int64N(int64(2*time.Second)))})
	}
	for range p.kills {
		evs = append(evs, event{at: time.Duration(rng.Int64N(int64(driveFor))),
			down: 500*time.Millisecond + time.Duration(rng.Int64N(int64(2500*time.Millisecond)))})
	}
	slices.SortFunc(evs, func(a, b event) int { return int(a.at - b.at) })

	inbound := topology.Names{NS: ns}.Inbound()
	var (
		lossMu sync.Mutex
		losses []time.Duration // when each leader loss came, since start
	)
	var wg sync.WaitGroup
	var lastFault time.Time
	var faultMu sync.Mutex
	mark := func() { faultMu.Lock(); lastFault = time.Now(); faultMu.Unlock() }
	for _, ev := range evs {
		time.Sleep(time.Until(start.Add(ev.at)))
		if !ev.leader {
			var up []*instance
			for _, in := range insts {
				if in.running() {
					up = append(up, in)
				}
			}
			if len(up) == 0 {
				continue
			}
			in := up[rng.IntN(len(up))]
			in.kill()
			mark()
			t.Logf("%6.1fs kill -9 instance %d, restart in %v", time.Since(start).Seconds(), in.n, ev.down.Round(time.Millisecond))
			wg.Add(1)
			go func(in *instance, d time.Duration) {
				defer wg.Done()
				time.Sleep(d)
				if err := in.start(); err != nil {
					t.Errorf("restarting instance %d: %v", in.n, err)
				}
				mark()
			}(in, ev.down)
			continue
		}
		part := int32(rng.IntN(8))
		// Where the partition stands is read just before the loss: a loss
		// waits until the previous node is back in sync (leaderLoss), and
		// a position read before that wait, with the drive going on, made
		// the partition's first move after the loss look like progress.
		if err := cb.noneAway(ctx); err != nil {
			t.Fatalf("leader loss: %v", err)
		}
		before, _ := lag.Read(ctx, adm, groups)
		node, err := cb.leaderLoss(ctx, inbound, part)
		if err != nil {
			t.Fatalf("leader loss: %v", err)
		}
		mark()
		at := time.Since(start)
		lossMu.Lock()
		losses = append(losses, at)
		lossMu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			prod, cons := stalls(ctx, adm, groups, inbound, part, before, 20*time.Second)
			// A stall that lasted into the next loss is not this loss's
			// alone (its coordinator or leader may be the next node).
			next := ""
			lossMu.Lock()
			for _, l := range losses {
				if l > at && l-at < 20*time.Second {
					next = fmt.Sprintf(" (the next loss %.1f s after this one)", (l - at).Seconds())
					break
				}
			}
			lossMu.Unlock()
			t.Logf("%6.1fs leader of %s/%d (node %d) lost, back %v later: produce stalled %s, consume stalled %s%s",
				at.Seconds(), inbound, part, node, ev.down.Round(time.Millisecond), prod, cons, next)
		}()
		wg.Add(1)
		go func(node int32, d time.Duration) {
			defer wg.Done()
			time.Sleep(d)
			if err := cb.nodeBack(ctx, node); err != nil {
				t.Errorf("node back: %v", err)
			}
			mark()
		}(node, ev.down)
	}
	wg.Wait()
	if err := <-driven; err != nil {
		t.Fatalf("driving: %v", err)
	}
	t.Logf("%6.1fs the drive of the set ended (a leader lost after it had nothing more produced there)", time.Duration(driveEnded.Load()).Seconds())

	// Phase 2, while the duplicates are driven slowly: the cluster below
	// min ISR for a while (every produce refused NOT_ENOUGH_REPLICAS), then a
	// rolling restart, SIGTERM of each instance in turn as Kubernetes does on
	// an upgrade, each started again once it has exited and the groups are
	// stable again. On Kafka the duplicates are driven in two halves: the
	// second while the brokers are restarted one by one (phase 3).
	roller, rolls := cb.(brokerRoller)
	dupsNow, nNow, dupsLater, nLater := dups, nDups, "", 0
	if rolls {
		dupsLater = filepath.Join(dir, "dups-broker-roll.xml")
		nNow, nLater = splitLines(t, dups, filepath.Join(dir, "dups-first.xml"), dupsLater)
		dupsNow = filepath.Join(dir, "dups-first.xml")
	}
	dupRate := max(50, nNow/20)
	go func() { driven <- steErr(env, "drive", "--in", dupsNow, "--rate", fmt.Sprint(dupRate)) }()
	progress := watchProgress(ctx, adm, groups)
	time.Sleep(2 * time.Second)
	if err := cb.belowMinISR(ctx, true); err != nil {
		t.Fatal(err)
	}
	mark()
	t.Logf("below min ISR for 5 s: every produce answered NOT_ENOUGH_REPLICAS")
	time.Sleep(5 * time.Second)
	for _, in := range insts {
		if !in.running() {
			t.Errorf("instance %d is not running below min ISR", in.n)
		}
	}
	if err := cb.belowMinISR(ctx, false); err != nil {
		t.Fatal(err)
	}
	mark()
	progress.reset()
	for _, in := range insts {
		t0 := time.Now()
		in.stop()
		stopped := time.Since(t0)
		if err := in.start(); err != nil {
			t.Fatal(err)
		}
		sctx, scancel := context.WithTimeout(ctx, time.Minute)
		_, err := instanceID(sctx, addrs, ns, in.pid()) // announced: its groups are joining
		if err == nil {
			err = waitMembers(sctx, adm, ns, p.instances)
		}
		scancel()
		if err != nil {
			t.Fatalf("after the rolling restart of instance %d: %v", in.n, err)
		}
		mark()
		t.Logf("rolling restart: instance %d stopped in %v, back, announced and groups stable %v after SIGTERM",
			in.n, stopped.Round(10*time.Millisecond), time.Since(t0).Round(100*time.Millisecond))
	}
	instGap := progress.take()
	t.Logf("rolling restart of the instances: the longest time a partition with work waiting went without progress: %v", instGap)
	if err := <-driven; err != nil {
		t.Fatalf("driving the duplicates: %v", err)
	}

	// Phase 3 (Kafka): a rolling restart of the brokers, as an operator's
	// upgrade does it — each node in turn told to stop (SIGTERM: a
	// controlled shutdown, its leaderships moved first), started again, and
	// the next one only once every partition is fully replicated again —
	// while the rest of the duplicates are driven.
	var brokerGap gap
	if rolls {
		// One rolling operation at a time, as an operator runs them: the
		// instances' restart settled (every group stable, caught up) first.
		sctx, scancel := context.WithTimeout(ctx, 2*time.Minute)
		err := waitMembers(sctx, adm, ns, p.instances)
		if err == nil {
			_, err = lag.WaitZero(sctx, adm, groups, lag.WaitOptions{Poll: 500 * time.Millisecond})
		}
		scancel()
		if err != nil {
			t.Fatalf("before the brokers' rolling restart: %v", err)
		}
		rate := max(20, nLater/int(brokerRollDrive/time.Second))
		go func() { driven <- steErr(env, "drive", "--in", dupsLater, "--rate", fmt.Sprint(rate)) }()
		time.Sleep(2 * time.Second)
		progress.reset()
		t0 := time.Now()
		var took time.Duration
		for _, id := range roller.nodes() {
			r, err := roller.restartNode(ctx, id)
			if err != nil {
				t.Fatalf("rolling restart of the brokers, node %d: %v", id, err)
			}
			mark()
			g := progress.take()
			brokerGap = brokerGap.max(g)
			t.Logf("%6.1fs broker rolling restart: node %d stopped in %v (SIGTERM), answering %v and every partition fully replicated %v after it; longest without progress meanwhile %v",
				time.Since(start).Seconds(), id, r.stopped.Round(10*time.Millisecond), r.answered.Round(100*time.Millisecond), r.inSync.Round(100*time.Millisecond), g)
		}
		took = time.Since(t0)
		if err := <-driven; err != nil {
			t.Fatalf("driving the duplicates during the brokers' rolling restart: %v", err)
		}
		mark() // lag 0 is counted from the drive's end
		g := progress.take()
		brokerGap = brokerGap.max(g)
		t.Logf("broker rolling restart: %v for the three nodes; from the last one back to the drive's end (%v later), longest without progress %v",
			took.Round(100*time.Millisecond), (time.Since(t0) - took).Round(100*time.Millisecond), g)
		t.Logf("BROKER ROLLING RESTART %s seed %d: the longest time a partition with work waiting went without progress: %v (goal ≤ 10 s); lag sampling: %s",
			backend, seed, brokerGap, progress.reads())
	}

	wctx, wcancel := context.WithTimeout(context.Background(), p.converge)
	defer wcancel()
	_, err := lag.WaitZero(wctx, adm, groups, lag.WaitOptions{Poll: 500 * time.Millisecond})
	faultMu.Lock()
	converged := time.Since(lastFault)
	faultMu.Unlock()
	for _, in := range insts {
		for _, e := range in.exitedOnItsOwn() {
			t.Error(e)
		}
		if n := in.supervisedRestarts(); n > 0 {
			t.Logf("instance %d: started %d times while no broker answered, and restarted", in.n, n)
		}
	}
	if err != nil {
		t.Fatalf("not at lag 0 %v after the last fault: %v (replay the schedule: STE_CHAOS_SEED=%d)", p.converge, err, seed)
	}
	got, d := settle(wctx, t, kafkaconn.Plaintext(addrs), ns, expected, backend+" x3")
	if !d.Equal() {
		t.Fatalf("outputs differ from ste match after the cluster chaos (replay the schedule: STE_CHAOS_SEED=%d): %s", seed, d.Report(10))
	}
	if err := journeysAndIdentitiesKept(wctx, kafkaconn.Plaintext(addrs), ns); err != nil {
		t.Fatal(err)
	}
	progress.stop()
	n := got.Counts()
	roll := ""
	if rolls {
		roll = fmt.Sprintf(", brokers' rolling restart %v", brokerGap.d.Round(100*time.Millisecond))
	}
	t.Logf("CHAOS-CLUSTER %s seed %d: %d leader losses, %d kills, converged %.1f s after the last fault (or the last drive's end); longest without progress: instances' rolling restart %v%s; outputs equal ste match (%d ACKs, %d exceptions, %d settled trades)",
		backend, seed, p.leaderLosses, p.kills, converged.Seconds(), instGap.d.Round(100*time.Millisecond), roll, n.ACKs, n.Exceptions, n.Settled)
}

// stalls watches topic/partition after its leader was lost: how long until
// its end offset moves (produce) and until a group reading it commits past
// where it was (consume). "idle" when nothing was left to do there.
func stalls(ctx context.Context, adm *kadm.Client, groups []lag.Group, topic string, part int32, before lag.Sample, limit time.Duration) (string, string) {
	var end, committed int64 = -1, -1
	pending := false
	for _, p := range before.Partitions {
		if p.Topic == topic && p.Partition == part {
			end = max(end, p.End)
			committed = max(committed, p.Committed)
			pending = pending || p.Lag > 0
		}
	}
	t0 := time.Now()
	prod, cons := "", ""
	if !pending {
		cons = "idle"
	}
	for time.Since(t0) < limit && (prod == "" || cons == "") {
		s, err := lag.Read(ctx, adm, groups)
		if err == nil {
			for _, p := range s.Partitions {
				if p.Topic != topic || p.Partition != part {
					continue
				}
				if prod == "" && p.End > end {
					prod = time.Since(t0).Round(100 * time.Millisecond).String()
				}
				if cons == "" && p.Committed > committed {
					cons = time.Since(t0).Round(100 * time.Millisecond).String()
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if prod == "" {
		prod = fmt.Sprintf("> %v (or nothing produced)", limit)
	}
	if cons == "" {
		cons = fmt.Sprintf("> %v", limit)
	}
	return prod, cons
}

// progressWatch samples the groups' committed offsets and keeps, per
// partition with work waiting (lag > 0), how long it went without its
// committed offset moving; the longest such gap since the last reset or
// take. A partition whose commit or end could not be read in a sample (its
// group's coordinator or its leader moving) is left as it was: neither
// progress nor standstill is assumed, and the longest such blind stretch
// of a partition with work waiting is kept beside the gap, so that a gap
// hidden by it can be told from none.
type progressWatch struct {
	mu       sync.Mutex
	longest  gap
	since    map[string]time.Time // partition → when it last moved (or when work appeared)
	last     map[string]int64
	seen     map[string]time.Time // partition → when it was last read
	waiting  map[string]bool      // partition → lag > 0 when last read
	blind    time.Duration
	done     chan struct{}
	stopped  chan struct{}
	failures int // samples that failed as a whole
	// slowestRead is the longest a sample took (bounded at 2 s).
	slowestRead time.Duration
}

// gap is the longest time a partition with work waiting went without
// progress: which partition, and the longest blind stretch beside it. d is
// seen: the partition read twice, work waiting, its commit where it was.
// upper also counts the time from the last read that saw it standing to
// the read that saw it moved (it may have moved just before that read): one
// sampling interval, or an unread stretch.
type gap struct {
	d     time.Duration
	key   string // group/topic/partition
	blind time.Duration
	upper time.Duration
}

func (g gap) max(o gap) gap {
	r := g
	if o.d > g.d {
		r.d, r.key = o.d, o.key
	}
	r.blind = max(g.blind, o.blind)
	r.upper = max(g.upper, o.upper)
	return r
}

func (g gap) String() string {
	s := g.d.Round(100 * time.Millisecond).String()
	if g.key != "" {
		s += " (" + g.key + ")"
	}
	s += fmt.Sprintf(", at most %v", max(g.upper, g.d).Round(100*time.Millisecond))
	if g.blind >= 2*time.Second {
		s += fmt.Sprintf(" (a partition with work waiting unread for up to %v)", g.blind.Round(100*time.Millisecond))
	}
	return s
}

func watchProgress(ctx context.Context, adm *kadm.Client, groups []lag.Group) *progressWatch {
	w := &progressWatch{since: map[string]time.Time{}, last: map[string]int64{}, seen: map[string]time.Time{},
		waiting: map[string]bool{}, done: make(chan struct{}), stopped: make(chan struct{})}
	go func() {
		defer close(w.stopped)
		for {
			select {
			case <-w.done:
				return
			case <-ctx.Done():
				return
			case <-time.After(200 * time.Millisecond):
			}
			// A read is bounded, so that one blocked on a broker going
			// down does not stop the sampling of the others.
			t0 := time.Now()
			rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			s, err := lag.Read(rctx, adm, groups)
			cancel()
			w.mu.Lock()
			w.slowestRead = max(w.slowestRead, time.Since(t0))
			if err != nil {
				w.failures++
			}
			w.mu.Unlock()
			if err == nil {
				w.observe(s, time.Now())
			}
		}
	}()
	return w
}

// observe folds one sample taken at now.
func (w *progressWatch) observe(s lag.Sample, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range s.Partitions {
		k := fmt.Sprintf("%s/%s/%d", p.Group, p.Topic, p.Partition)
		c, known := w.last[k]
		if known && p.Committed < 0 {
			continue // the commit could not be read: unknown, not moved
		}
		wasWaiting := w.waiting[k]
		if wasWaiting {
			w.blind = max(w.blind, now.Sub(w.seen[k]))
		}
		w.seen[k], w.waiting[k] = now, p.Lag > 0
		if !known || p.Committed != c || p.Lag == 0 {
			if known && p.Committed != c && wasWaiting {
				w.longest.upper = max(w.longest.upper, now.Sub(w.since[k]))
			}
			w.last[k], w.since[k] = p.Committed, now
			continue
		}
		if d := now.Sub(w.since[k]); d > w.longest.d {
			w.longest.d, w.longest.key = d, k
		}
	}
	w.longest.blind = max(w.longest.blind, w.blind)
}

// reset starts a new measurement: gaps count from now.
func (w *progressWatch) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.longest, w.blind = gap{}, 0
	now := time.Now()
	for k := range w.since {
		w.since[k], w.seen[k] = now, now
	}
}

// take returns the longest gap since the last reset or take and starts
// over; a gap still open goes on counting from where it began.
func (w *progressWatch) take() gap {
	w.mu.Lock()
	defer w.mu.Unlock()
	g := w.longest
	w.longest, w.blind = gap{}, 0
	return g
}

// reads says how the sampling went: samples that failed, the slowest.
func (w *progressWatch) reads() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return fmt.Sprintf("%d samples failed, the slowest took %v", w.failures, w.slowestRead.Round(10*time.Millisecond))
}

func (w *progressWatch) stop() gap {
	close(w.done)
	<-w.stopped
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.longest
}

// splitLines writes the first half of in's lines to a, the rest to b, and
// returns how many each got.
func splitLines(t *testing.T, in, a, b string) (int, int) {
	t.Helper()
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for l := range strings.Lines(string(data)) {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	h := len(lines) / 2
	if err := os.WriteFile(a, []byte(strings.Join(lines[:h], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte(strings.Join(lines[h:], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	return h, len(lines) - h
}

// brokerRollDrive is how long the second half of the duplicates is driven
// for during the brokers' rolling restart: longer than the restart of three
// JVMs takes on this machine, so that work is waiting throughout it.
const brokerRollDrive = 150 * time.Second

// brokerRoller is a cluster whose nodes can be restarted one at a time.
type brokerRoller interface {
	nodes() []int32
	// restartNode stops node as an operator's rolling restart does (a
	// controlled shutdown), starts it again, and returns once every
	// partition is fully replicated again.
	restartNode(ctx context.Context, node int32) (nodeRestart, error)
}

// nodeRestart is the time one node's restart took, from its SIGTERM.
type nodeRestart struct{ stopped, answered, inSync time.Duration }

// clusterBackend is three brokers the suite can take a leader from.
type clusterBackend interface {
	addrs() string
	// leaderLoss takes away the node leading topic/partition and says which.
	leaderLoss(ctx context.Context, topic string, partition int32) (int32, error)
	// noneAway returns once no node a leader loss took is still away.
	noneAway(ctx context.Context) error
	nodeBack(ctx context.Context, node int32) error
	// belowMinISR drops the cluster below min.insync.replicas, or lifts it.
	belowMinISR(ctx context.Context, on bool) error
}

func startClusterBackend(t *testing.T, name, dir string) clusterBackend {
	t.Helper()
	if name == "kfake" {
		a, c := startKfakeCluster(t, dir, 3)
		return &kfakeBackend{a: a, control: c}
	}
	if run, _ := kafka.Enabled(); !run {
		testgate.Opt(t, "chaos-cluster-kafka") // its variables without STE_KAFKA=1: skipped, recorded
		t.Skipf("the Kafka 4 run needs %s=1 (and Java)", kafka.EnvEnable)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	c, err := kafka.LaunchCluster(ctx, filepath.Join(dir, "kafka"), 3)
	if err != nil {
		t.Fatalf("kafka cluster: %v", err)
	}
	t.Cleanup(func() { c.Stop() })
	return &kafkaBackend{c: c, adm: connect(t, c.Bootstrap)}
}

// lockWhenNoneAway waits until away says no node a leader loss took is
// still away, and returns with mu held (nil), or ctx's error.
func lockWhenNoneAway(ctx context.Context, mu *sync.Mutex, away func() bool) error {
	for {
		mu.Lock()
		if !away() {
			return nil
		}
		mu.Unlock()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// kfakeBackend: the brokers share one process; `ste broker --control`.
type kfakeBackend struct {
	a, control string

	mu   sync.Mutex
	away bool // a leader loss's node is not back yet
}

func (k *kfakeBackend) addrs() string { return k.a }
func (k *kfakeBackend) noneAway(ctx context.Context) error {
	if err := lockWhenNoneAway(ctx, &k.mu, func() bool { return k.away }); err != nil {
		return err
	}
	k.mu.Unlock()
	return nil
}
func (k *kfakeBackend) leaderLoss(ctx context.Context, topic string, part int32) (int32, error) {
	// One node away at a time, as on Kafka: on a loaded machine the
	// schedule falls behind and losses bunch up, and two nodes away is the
	// min ISR case (kfake then refuses to remove the last one).
	if err := lockWhenNoneAway(ctx, &k.mu, func() bool { return k.away }); err != nil {
		return -1, err
	}
	defer k.mu.Unlock()
	v, err := controlPost(k.control, fmt.Sprintf("/v1/leader-loss?topic=%s&partition=%d", topic, part))
	if err != nil {
		return -1, err
	}
	k.away = true
	return int32(v["node"].(float64)), nil
}
func (k *kfakeBackend) nodeBack(_ context.Context, node int32) error {
	_, err := controlPost(k.control, fmt.Sprintf("/v1/node-back?node=%d", node))
	k.mu.Lock()
	k.away = false
	k.mu.Unlock()
	return err
}
func (k *kfakeBackend) belowMinISR(_ context.Context, on bool) error {
	_, err := controlPost(k.control, fmt.Sprintf("/v1/min-isr?below=%v", on))
	return err
}

// kafkaBackend: three KRaft nodes; a leader's loss is kill -9 of its JVM,
// below min ISR two nodes killed.
type kafkaBackend struct {
	c    *kafka.Cluster
	adm  *kadm.Client
	down []int32

	mu   sync.Mutex
	lost int32 // the node a leader loss took and not yet back (0: none)
}

func (k *kafkaBackend) addrs() string { return k.c.Bootstrap }
func (k *kafkaBackend) noneAway(ctx context.Context) error {
	if err := lockWhenNoneAway(ctx, &k.mu, func() bool { return k.lost != 0 }); err != nil {
		return err
	}
	k.mu.Unlock()
	return nil
}
func (k *kafkaBackend) leaderLoss(ctx context.Context, topic string, part int32) (int32, error) {
	// One node away at a time: a JVM takes seconds to come back, and two
	// losses at once are the min ISR case, not this one.
	if err := lockWhenNoneAway(ctx, &k.mu, func() bool { return k.lost != 0 }); err != nil {
		return -1, err
	}
	defer k.mu.Unlock()
	md, err := k.adm.Metadata(ctx, topic)
	if err != nil {
		return -1, err
	}
	p, ok := md.Topics[topic].Partitions[part]
	if !ok {
		return -1, fmt.Errorf("no partition %s/%d", topic, part)
	}
	n := k.c.Node(p.Leader)
	if n == nil {
		return -1, fmt.Errorf("%s/%d has no leader (%d)", topic, part, p.Leader)
	}
	if err := n.Kill(); err != nil {
		return -1, err
	}
	k.lost = p.Leader
	return p.Leader, nil
}
func (k *kafkaBackend) nodeBack(ctx context.Context, node int32) error {
	err := k.c.Node(node).Restart(ctx)
	if err == nil {
		// Back means in sync again: a node that answers but has not yet
		// caught up is not in the ISR, and losing another leader then is
		// the cluster below min ISR (produce refused until the first one
		// catches up: 15–21 s "leader losses" in a run that did not wait),
		// not one leader's loss.
		err = waitFullyReplicated(ctx, k.adm)
	}
	k.mu.Lock()
	k.lost = 0
	k.mu.Unlock()
	return err
}
func (k *kafkaBackend) belowMinISR(ctx context.Context, on bool) error {
	if on {
		for _, id := range []int32{2, 3} {
			if err := k.c.Node(id).Kill(); err != nil {
				return err
			}
			k.down = append(k.down, id)
		}
		return nil
	}
	for _, id := range k.down {
		if err := k.c.Node(id).Restart(ctx); err != nil {
			return err
		}
	}
	k.down = nil
	return nil
}

func (k *kafkaBackend) nodes() []int32 {
	var ids []int32
	for i := range k.c.Nodes {
		ids = append(ids, int32(i+1))
	}
	return ids
}

func (k *kafkaBackend) restartNode(ctx context.Context, id int32) (nodeRestart, error) {
	var r nodeRestart
	n := k.c.Node(id)
	t0 := time.Now()
	if err := n.Stop(); err != nil { // SIGTERM: Kafka's controlled shutdown
		return r, err
	}
	r.stopped = time.Since(t0)
	if err := n.Restart(ctx); err != nil {
		return r, err
	}
	r.answered = time.Since(t0)
	if err := waitFullyReplicated(ctx, k.adm); err != nil {
		return r, fmt.Errorf("node %d back: %w", id, err)
	}
	r.inSync = time.Since(t0)
	return r, nil
}

// waitFullyReplicated waits until every partition has all its replicas in
// sync (3 minutes at most).
func waitFullyReplicated(ctx context.Context, adm *kadm.Client) error {
	wctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	for {
		under, err := underReplicated(wctx, adm)
		if err == nil && under == 0 {
			return nil
		}
		select {
		case <-wctx.Done():
			return fmt.Errorf("%d partitions not fully replicated 3 minutes later (%v)", under, err)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// underReplicated counts the partitions of every topic whose in-sync
// replicas are fewer than their replicas, or that have no leader.
func underReplicated(ctx context.Context, adm *kadm.Client) (int, error) {
	md, err := adm.Metadata(ctx)
	if err != nil {
		return -1, err
	}
	n := 0
	for _, t := range md.Topics {
		if t.Err != nil {
			return -1, t.Err
		}
		for _, p := range t.Partitions {
			if p.Err != nil || p.Leader < 0 || len(p.ISR) < len(p.Replicas) {
				n++
			}
		}
	}
	return n, nil
}
