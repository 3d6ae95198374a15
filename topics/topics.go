// Package topics is STE's side of Kafka administration and clients: every
// topic of a namespace with its partitions and configs, idempotent creation
// through kadm, and franz-go clients whose partitioner agrees with goka's.
package topics

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/processors/pipeline"
	"github.com/ste-utility/ste/topics/copier"
)

// DefaultPartitions of keyed topics (cli.md: default 8).
const DefaultPartitions = 8

// Spec is one topic to create.
type Spec struct {
	Name       string
	Partitions int32
	Keyed      bool // partition count follows the request and may never change
	Configs    map[string]string
}

// Options select partitions and retention of a namespace's topics.
type Options struct {
	// Partitions of keyed topics. Default DefaultPartitions.
	Partitions int32
	// Retention of inbound and other non-compacted topics, long enough to
	// replay. Default 7 days.
	Retention time.Duration
	// Replication factor. Default 1 (single broker); use 3 on a real cluster.
	Replication int16
	// ProducerTime: inbound keeps the record times its producer sets
	// (CreateTime) instead of the broker's arrival time. A sandbox's inbound
	// is written by ste replay with the original records' times, which
	// retention, the monitor and the Created rule read back.
	ProducerTime bool
}

func (o *Options) defaults() {
	if o.Partitions <= 0 {
		o.Partitions = DefaultPartitions
	}
	if o.Retention <= 0 {
		o.Retention = 7 * 24 * time.Hour
	}
	if o.Replication <= 0 {
		o.Replication = 1
	}
}

// Specs lists every topic of namespace ns, derived from the topology
// (pipeline.Describe): a stream or table changelog has the namespace's
// partition count, a shared topic one partition; tables and shared state
// are compacted, streams kept for the retention (the replay window).
func Specs(ns string, o Options) []Spec {
	o.defaults()
	ret := strconv.FormatInt(o.Retention.Milliseconds(), 10)
	// Every topic takes any batch our producers build (pipeline.TopicMaxBytes).
	maxBytes := strconv.Itoa(pipeline.TopicMaxBytes)
	var specs []Spec
	for _, t := range pipeline.Describe(ns).Topics {
		cfg := map[string]string{"cleanup.policy": "delete", "retention.ms": ret, "max.message.bytes": maxBytes}
		if t.Compacted {
			cfg = map[string]string{"cleanup.policy": "compact", "max.message.bytes": maxBytes,
				"min.cleanable.dirty.ratio": "0.1", "segment.ms": "3600000"}
		}
		// Inbound records are stamped by the broker: a message's time in the
		// system starts when the utility received it, whatever the sender's
		// clock says (critical time, audit and the monitor agree on it).
		switch {
		case t.BrokerTime && o.ProducerTime:
			// Said explicitly: a cluster may default to LogAppendTime.
			cfg["message.timestamp.type"] = "CreateTime"
		case t.BrokerTime:
			cfg["message.timestamp.type"] = "LogAppendTime"
		}
		keyed := t.Kind != pipeline.KindShared
		parts := int32(1)
		if keyed {
			parts = o.Partitions
		}
		specs = append(specs, Spec{Name: t.Name, Partitions: parts, Keyed: keyed, Configs: cfg})
	}
	return specs
}

// Create creates the namespace's topics. It is idempotent: existing topics are
// left as they are, and a keyed topic whose partition count differs from the
// request is an error, never changed — changing it would split trades from
// their state. It returns the names it created.
func Create(ctx context.Context, adm *kadm.Client, ns string, o Options) ([]string, error) {
	o.defaults()
	specs := Specs(ns, o)
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	existing, err := adm.ListTopics(ctx, names...)
	if err != nil {
		return nil, fmt.Errorf("list topics: %w", err)
	}
	var created, mismatched []string
	for _, s := range specs {
		if d, ok := existing[s.Name]; ok && d.Err == nil {
			if got := int32(len(d.Partitions)); s.Keyed && got != s.Partitions {
				mismatched = append(mismatched, fmt.Sprintf("%s has %d partitions", s.Name, got))
			}
			continue
		}
		cfg := map[string]*string{}
		for k, v := range s.Configs {
			cfg[k] = kadm.StringPtr(v)
		}
		resp, err := adm.CreateTopic(ctx, s.Partitions, o.Replication, cfg, s.Name)
		if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) && !errors.Is(resp.Err, kerr.TopicAlreadyExists) {
			return created, fmt.Errorf("create %s: %w", s.Name, err)
		}
		created = append(created, s.Name)
	}
	if len(created) > 0 {
		// A real cluster answers CreateTopics before every broker knows the
		// topics; producing at once fails with UNKNOWN_TOPIC_OR_PARTITION.
		if err := waitLeaders(ctx, adm, names, 30*time.Second); err != nil {
			return created, err
		}
	}
	if len(mismatched) > 0 {
		sort.Strings(mismatched)
		return created, fmt.Errorf("requested %d partitions but %s; a keyed topic's partition count is never changed in place (scaling beyond it is a migration to a new namespace)",
			o.Partitions, strings.Join(mismatched, ", "))
	}
	return created, nil
}

// waitLeaders waits until every partition of the topics has a leader.
func waitLeaders(ctx context.Context, adm *kadm.Client, names []string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		td, err := adm.ListTopics(ctx, names...)
		ready := err == nil
		for _, n := range names {
			d, ok := td[n]
			if !ready || !ok || d.Err != nil || len(d.Partitions) == 0 {
				ready = false
				break
			}
			for _, p := range d.Partitions {
				if p.Leader < 0 || p.Err != nil {
					ready = false
				}
			}
		}
		if ready {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("topics not ready after %v", timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Partitioner is pipeline.Partitioner, the one partitioner of STE.
func Partitioner() kgo.Partitioner { return pipeline.Partitioner() }

// ProducerOpts are the options of every STE producer: the shared partitioner,
// acks from all in-sync replicas and idempotence (franz-go's default, kept
// explicit), and batches large enough for the biggest record we accept.
func ProducerOpts() []kgo.Opt {
	return []kgo.Opt{
		kgo.RecordPartitioner(Partitioner()),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.ProducerBatchMaxBytes(pipeline.MaxBatchBytes),
		kgo.ProducerLinger(time.Millisecond),
		kgo.ProducerBatchCompression(kgo.NoCompression()),
	}
}

// Client opens a franz-go client on brokers (comma-separated) with the
// producer options and extra ones.
func Client(brokers string, extra ...kgo.Opt) (*kgo.Client, error) {
	opts := append([]kgo.Opt{kgo.SeedBrokers(SplitBrokers(brokers)...),
		kgo.FetchMaxBytes(64 << 20), kgo.FetchMaxPartitionBytes(16 << 20),
		// Topics created a moment ago may not be known to every broker yet.
		kgo.UnknownTopicRetries(20),
		// kadm answers metadata (ListTopics, waiting for new topics' leaders)
		// from the client's cache, kept for MetadataMinAge (default 5 s): a
		// namespace created just after a lookup that found nothing looked
		// absent for 5 s, and every `ste topics create` or first
		// `ste process` waited that long.
		kgo.MetadataMinAge(250 * time.Millisecond)}, ProducerOpts()...)
	return kgo.NewClient(append(opts, extra...)...)
}

// SplitBrokers splits a comma-separated broker list.
func SplitBrokers(s string) []string {
	var out []string
	for _, b := range strings.Split(s, ",") {
		if b = strings.TrimSpace(b); b != "" {
			out = append(out, b)
		}
	}
	return out
}

// Connect opens a client and checks that the cluster answers (see Ping).
func Connect(ctx context.Context, brokers string, extra ...kgo.Opt) (*kgo.Client, error) {
	cl, err := Client(brokers, extra...)
	if err != nil {
		return nil, err
	}
	if err := Ping(ctx, cl, brokers); err != nil {
		cl.Close()
		return nil, err
	}
	return cl, nil
}

// Ping checks that the cluster answers within the context's deadline, for a
// one-line "unreachable" error instead of a hang.
func Ping(ctx context.Context, cl *kgo.Client, brokers string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := cl.Ping(ctx); err != nil {
		return fmt.Errorf("brokers %s unreachable: %v", brokers, err)
	}
	return nil
}

// Dump reads a topic from its start to the end offsets it has when called
// and hands every record value to fn, partition by partition in offset order.
func Dump(ctx context.Context, brokers, topic string, fn func(r *kgo.Record) error) (int, error) {
	cl, err := Client(brokers)
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	spans, err := copier.EndSpans(ctx, kadm.NewClient(cl), topic)
	if err != nil {
		return 0, err
	}
	n, err := copier.Read(ctx, func(opts ...kgo.Opt) (*kgo.Client, error) { return Client(brokers, opts...) }, topic, spans, fn)
	return int(n), err
}

// Ensure creates a namespace's missing topics. With partitions 0 it follows
// an existing inbound topic, so that a process started against topics made
// by `ste topics create --partitions N` never disagrees with them.
func Ensure(ctx context.Context, adm *kadm.Client, ns string, partitions int32) error {
	if partitions == 0 {
		partitions = DefaultPartitions
		inbound := pipeline.Names{NS: ns}.Inbound()
		if td, err := adm.ListTopics(ctx, inbound); err == nil {
			if d, ok := td[inbound]; ok && d.Err == nil && len(d.Partitions) > 0 {
				partitions = int32(len(d.Partitions))
			}
		}
	}
	_, err := Create(ctx, adm, ns, Options{Partitions: partitions})
	return err
}
