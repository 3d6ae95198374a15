package broker

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ste-utility/ste/localhttp"
)

// Control is the embedded cluster's fault switchboard, for the cluster chaos
// suite and for an operator rehearsing a failure: kfake runs all its brokers
// in one process, so "the leader's broker dies" cannot be a kill -9 of a
// process as on Kafka; it is kfake's own RemoveNode, and the node's return
// AddNode on its old port. It is served only on loopback (ServeControl
// refuses any other address): anyone who reaches it can take brokers away.
//
//	POST /v1/leader-loss?topic=T&partition=P   remove the node leading T/P; answers {"node":N}
//	POST /v1/node-back?node=N                   bring a removed node back on its port
//	POST /v1/shuffle-leaders                    move every partition's leadership at random
//	POST /v1/min-isr?below=true|false           answer every produce NOT_ENOUGH_REPLICAS (as a
//	                                            cluster with fewer in-sync replicas than
//	                                            min.insync.replicas), or stop doing so
//	GET  /v1/leader?topic=T&partition=P         {"node":N}
type Control struct {
	c *kfake.Cluster

	mu      sync.Mutex
	ports   map[int32]int // every node's port, as the cluster started
	removed []int32
	minISR  *kfake.FaultHandle
}

// NewControl makes the switchboard of c, remembering each node's port so
// that a removed node comes back where clients knew it.
func NewControl(c *kfake.Cluster) (*Control, error) {
	ctl := &Control{c: c, ports: map[int32]int{}}
	for i, a := range c.ListenAddrs() {
		_, p, err := net.SplitHostPort(a)
		if err != nil {
			return nil, err
		}
		port, _ := strconv.Atoi(p)
		ctl.ports[int32(i)] = port // kfake numbers its first brokers 0..n-1 in listen order
	}
	return ctl, nil
}

// LeaderLoss removes the node that leads topic/partition: its listener
// closes, and the partitions it led get new leaders among the others.
func (ctl *Control) LeaderLoss(topic string, partition int32) (int32, error) {
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	n := ctl.c.LeaderFor(topic, partition)
	if n < 0 {
		return -1, fmt.Errorf("no partition %s/%d", topic, partition)
	}
	if err := ctl.c.RemoveNode(n); err != nil {
		return -1, err
	}
	ctl.removed = append(ctl.removed, n)
	return n, nil
}

// NodeBack brings removed node n back on the port it had.
func (ctl *Control) NodeBack(n int32) error {
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	i := slices.Index(ctl.removed, n)
	if i < 0 {
		return fmt.Errorf("node %d was not removed", n)
	}
	if _, _, err := ctl.c.AddNode(n, ctl.ports[n]); err != nil {
		return err
	}
	ctl.removed = slices.Delete(ctl.removed, i, i+1)
	return nil
}

// BelowMinISR makes every produce fail with NOT_ENOUGH_REPLICAS (on) or
// lifts that (off): what producers with acks=all see from a Kafka cluster
// whose in-sync replicas fell below min.insync.replicas. The records are not
// appended, so nothing is half-written.
func (ctl *Control) BelowMinISR(on bool) {
	ctl.mu.Lock()
	defer ctl.mu.Unlock()
	if on && ctl.minISR == nil {
		ctl.minISR = ctl.c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Err: kerr.NotEnoughReplicas, Count: -1})
	}
	if !on && ctl.minISR != nil {
		ctl.minISR.Remove()
		ctl.minISR = nil
	}
}

// ServeHTTP answers the requests listed on Control.
func (ctl *Control) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	fail := func(code int, err error) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
	}
	ok := func(v any) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	}
	partition := func() (int32, error) {
		p, err := strconv.ParseInt(q.Get("partition"), 10, 32)
		if err != nil || p < 0 {
			return 0, fmt.Errorf("partition %q: want a partition number", q.Get("partition"))
		}
		return int32(p), nil
	}
	want := http.MethodPost
	if r.URL.Path == "/v1/leader" {
		want = http.MethodGet
	}
	if r.Method != want {
		fail(http.StatusMethodNotAllowed, fmt.Errorf("%s wants %s", r.URL.Path, want))
		return
	}
	switch r.URL.Path {
	case "/v1/leader-loss":
		p, err := partition()
		if err != nil {
			fail(http.StatusBadRequest, err)
			return
		}
		n, err := ctl.LeaderLoss(q.Get("topic"), p)
		if err != nil {
			fail(http.StatusConflict, err)
			return
		}
		ok(map[string]int32{"node": n})
	case "/v1/node-back":
		n, err := strconv.ParseInt(q.Get("node"), 10, 32)
		if err != nil {
			fail(http.StatusBadRequest, fmt.Errorf("node %q: want a node id", q.Get("node")))
			return
		}
		if err := ctl.NodeBack(int32(n)); err != nil {
			fail(http.StatusConflict, err)
			return
		}
		ok(map[string]int64{"node": n})
	case "/v1/shuffle-leaders":
		ctl.c.ShufflePartitionLeaders()
		ok(map[string]bool{"shuffled": true})
	case "/v1/min-isr":
		below, err := strconv.ParseBool(q.Get("below"))
		if err != nil {
			fail(http.StatusBadRequest, fmt.Errorf("below %q: want true or false", q.Get("below")))
			return
		}
		ctl.BelowMinISR(below)
		ok(map[string]bool{"below": below})
	case "/v1/leader":
		p, err := partition()
		if err != nil {
			fail(http.StatusBadRequest, err)
			return
		}
		n := ctl.c.LeaderFor(q.Get("topic"), p)
		if n < 0 {
			fail(http.StatusNotFound, fmt.Errorf("no partition %s/%d", q.Get("topic"), p))
			return
		}
		ok(map[string]int32{"node": n})
	default:
		fail(http.StatusNotFound, fmt.Errorf("no such control %s", r.URL.Path))
	}
}

// ControlHandler is the switchboard as served: unauthenticated by design,
// so no page in a browser may drive it (issue 45, finding 9): Host, Origin
// and Sec-Fetch-Site are checked (localhttp).
func ControlHandler(ctl *Control) http.Handler { return localhttp.Guard(ctl) }

// ListenControl listens for the switchboard on addr, which must be a
// loopback address: the controls are unauthenticated by design (a test's
// and a rehearsal's tool), so they are never reachable from another host.
func ListenControl(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--control %q: %v", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("--control %q: the broker controls are served on loopback only", addr)
	}
	return net.Listen("tcp", addr)
}

// Run serves the cluster until ctx ends, as `ste broker` does: it prints the
// brokers' addresses (comma-separated, a seed list) as the first line of out,
// and, when control is set, serves the switchboard there.
func Run(ctx context.Context, o Options, control string, out io.Writer, log *slog.Logger) error {
	var ln net.Listener
	if control != "" {
		var err error
		if ln, err = ListenControl(control); err != nil {
			return err
		}
		defer ln.Close()
	}
	if o.DataDir != "" {
		// This process is the broker: what it writes is the running
		// user's alone (files 0600, directories 0700).
		syscall.Umask(0o077)
	}
	c, err := Start(o)
	if err != nil {
		return err
	}
	defer c.Close()
	mode := "in memory"
	if o.DataDir != "" {
		mode = "data " + o.DataDir
	}
	log.Info("embedded broker listening", "addrs", Addrs(c), "brokers", len(c.ListenAddrs()), "mode", mode)
	if ln != nil {
		ctl, err := NewControl(c)
		if err != nil {
			return err
		}
		// Unauthenticated by design, so no browser page may drive it
		// (issue 45, finding 9): Host, Origin and Sec-Fetch-Site checked.
		srv := &http.Server{Handler: ControlHandler(ctl), ReadHeaderTimeout: 5 * time.Second}
		go srv.Serve(ln)
		defer srv.Close()
		log.Warn("broker controls served on loopback, unauthenticated: whoever reaches them can take brokers away",
			"addr", ln.Addr().String(), "paths", "/v1/leader-loss /v1/node-back /v1/shuffle-leaders /v1/min-isr /v1/leader")
	}
	fmt.Fprintln(out, Addrs(c))
	<-ctx.Done()
	log.Info("embedded broker stopping")
	return nil
}
