// Package broker is STE's embedded Kafka-protocol broker: franz-go's kfake
// with a data directory, so that a fresh machine runs the whole pipeline with
// no Kafka install, and its log survives restarts.
package broker

import (
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

// Options configure Start.
type Options struct {
	// Addr is host:port to listen on. Default 127.0.0.1:9092; port 0 picks one.
	// With several brokers, broker i listens on port+i (each on a free port
	// of its own when port is 0).
	Addr string
	// Brokers is the number of brokers, all in this process (kfake's
	// cluster): leadership of partitions is spread over them and moves when
	// one is removed (Control). Default 1.
	Brokers int
	// DataDir persists the log; empty keeps everything in memory (tests only:
	// ~2 GB RSS per 0.75 GB of log).
	DataDir string
	// Partitions of auto-created topics. Default 8.
	Partitions int
	// NoAutoCreate: a topic is created only by CreateTopics, never by a
	// client's first produce or fetch, as on a production cluster with
	// auto.create.topics.enable=false.
	NoAutoCreate bool
	// TLS, when set, serves TLS only; SASL users, when given, are required
	// (mechanism → user → password).
	TLS  *tls.Config
	SASL map[string]map[string]string
}

// Start runs the cluster: one broker unless Options.Brokers says more.
func Start(o Options) (*kfake.Cluster, error) {
	if o.Addr == "" {
		o.Addr = "127.0.0.1:9092"
	}
	if o.Partitions <= 0 {
		o.Partitions = 8
	}
	if o.Brokers <= 0 {
		o.Brokers = 1
	}
	host, portStr, err := net.SplitHostPort(o.Addr)
	if err != nil {
		return nil, fmt.Errorf("--addr %q: %v", o.Addr, err)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port < 0 || port > 65535 {
		return nil, fmt.Errorf("--addr %q: bad port", o.Addr)
	}
	ports := make([]int, o.Brokers)
	for i := range ports {
		if port != 0 {
			ports[i] = port + i
		}
	}
	opts := []kfake.Opt{
		kfake.NumBrokers(o.Brokers),
		kfake.Ports(ports...),
		// kfake listens on 127.0.0.1 at the port it picked; bind the
		// requested host instead.
		kfake.ListenFn(func(network, addr string) (net.Listener, error) {
			_, p, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			return net.Listen(network, net.JoinHostPort(host, p))
		}),
		kfake.DefaultNumPartitions(o.Partitions),
		kfake.GroupMinSessionTimeout(time.Second),
		kfake.BrokerConfigs(map[string]string{
			"message.max.bytes": strconv.Itoa(32 << 20),
			// Compaction holds kfake's single request loop while it rewrites a
			// changelog: every minute it stalled a saturated run for seconds.
			// Kafka's own default is an hour.
			"log.cleaner.backoff.ms":           "3600000",
			"group.initial.rebalance.delay.ms": "0",
		}),
	}
	if !o.NoAutoCreate {
		opts = append(opts, kfake.AllowAutoTopicCreation())
	}
	if o.TLS != nil {
		opts = append(opts, kfake.TLS(o.TLS))
	}
	if len(o.SASL) > 0 {
		opts = append(opts, kfake.EnableSASL())
		for mech, users := range o.SASL {
			for user, pass := range users {
				opts = append(opts, kfake.Superuser(mech, user, pass))
			}
		}
	}
	if o.DataDir != "" {
		// The log is the participants' messages: the directory is the
		// running user's alone (0700), whatever modes the broker gives the
		// files inside (issue 45, finding 13; `ste broker` also makes them
		// 0600, see Run).
		if err := os.MkdirAll(o.DataDir, 0o700); err != nil {
			return nil, fmt.Errorf("embedded broker: %w", err)
		}
		if err := os.Chmod(o.DataDir, 0o700); err != nil {
			return nil, fmt.Errorf("embedded broker: %w", err)
		}
		opts = append(opts, kfake.DataDir(o.DataDir))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		return nil, fmt.Errorf("embedded broker on %s: %w", o.Addr, err)
	}
	return c, nil
}

// Addr is the address clients should use (the first broker's: clients learn
// the others from its metadata).
func Addr(c *kfake.Cluster) string { return c.ListenAddrs()[0] }

// Addrs is every broker's address, joined by commas: a seed list that still
// works when one broker is gone.
func Addrs(c *kfake.Cluster) string { return strings.Join(c.ListenAddrs(), ",") }
