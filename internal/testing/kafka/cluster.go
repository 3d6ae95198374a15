package kafka

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Cluster is several KRaft nodes started together by `kafka.sh
// cluster-start` in Dir (each node combined broker and controller, in
// Dir/node1..N): replication min(N, 3) and min.insync.replicas one less, so
// that a node's loss leaves the partitions writable and two losses do not.
type Cluster struct {
	Bootstrap string // every node's "127.0.0.1:PORT", comma-separated
	Dir       string
	Nodes     []*Broker // Nodes[i] is node id i+1: Kill and Restart it alone
	script    string
}

// LaunchCluster fetches the broker (if not cached) and starts n nodes in dir.
// They are stopped by Stop or, should this process die first, by kafka.sh's
// watchdog (KAFKA_WATCH_PID of each node).
func LaunchCluster(ctx context.Context, dir string, n int) (*Cluster, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	c := &Cluster{Dir: dir, script: filepath.Join(dir, "kafka.sh")}
	if err := os.WriteFile(c.script, script, 0o755); err != nil {
		return nil, err
	}
	fctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	if _, err := runScript(fctx, c.script, nil, "fetch"); err != nil {
		return nil, err
	}
	sctx, cancel2 := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel2()
	out, err := runScript(sctx, c.script, []string{"KAFKA_START_TIMEOUT=240"}, "cluster-start", dir, fmt.Sprint(n))
	if err != nil {
		return nil, err
	}
	c.Bootstrap = strings.TrimSpace(out)
	addrs := strings.Split(c.Bootstrap, ",")
	if len(addrs) != n {
		_ = c.Stop()
		return nil, fmt.Errorf("kafka.sh cluster-start printed %q, want %d addresses", out, n)
	}
	for i, a := range addrs {
		// A node restarted while the other two and their clients are busy
		// took over 60 s to answer on a loaded 2-core machine: the same
		// allowance as the cluster's start.
		c.Nodes = append(c.Nodes, &Broker{Bootstrap: a, Dir: filepath.Join(dir, fmt.Sprintf("node%d", i+1)), script: c.script,
			env: []string{"KAFKA_START_TIMEOUT=240"}})
	}
	return c, nil
}

// Node is the node with Kafka node id id (1-based).
func (c *Cluster) Node(id int32) *Broker {
	if id < 1 || int(id) > len(c.Nodes) {
		return nil
	}
	return c.Nodes[id-1]
}

// Stop stops every node.
func (c *Cluster) Stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err := runScript(ctx, c.script, nil, "cluster-stop", c.Dir)
	return err
}
