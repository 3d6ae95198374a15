package topics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/topology"
)

// DefaultPartitions of keyed topics (docs/spec/cli.md: default 8).
const DefaultPartitions = 8

// MaxReplication is the replication factor topics get by default, on a
// cluster with that many brokers or more.
const MaxReplication = 3

// Spec is one topic to create.
type Spec struct {
	Name        string
	Partitions  int32
	Replication int16
	Keyed       bool // partition count follows the request and may never change
	Configs     map[string]string
}

// Options select partitions, retention and replication of a namespace's
// topics.
type Options struct {
	// Partitions of keyed topics. Default DefaultPartitions; Ensure
	// follows an existing inbound topic instead.
	Partitions int32
	// Retention of inbound and other non-compacted topics, long enough to
	// replay. Default 7 days.
	Retention time.Duration
	// Replication factor. Default: Create asks the cluster and uses
	// min(MaxReplication, brokers); Specs alone (no cluster) uses
	// MaxReplication.
	Replication int16
	// MinInsync is min.insync.replicas: with acks=all, a write succeeds
	// once this many replicas have it. Default DefaultMinInsync.
	MinInsync int
	// ProducerTime: inbound keeps the record times its producer sets
	// (CreateTime) instead of the broker's arrival time. A sandbox's inbound
	// is written by ste replay with the original records' times, which
	// retention, the monitor and the Created rule read back.
	ProducerTime bool
	// NoCreate: the topics belong to an operator (Strimzi, a platform
	// team); Ensure only checks them and creates nothing.
	NoCreate bool
	// Log receives warnings (topics created without redundancy); nil
	// stays silent.
	Log *slog.Logger
}

// DefaultMinInsync is min.insync.replicas for a replication factor: one
// replica may be down without stopping writes, and with three or more a
// write is on two brokers before it is acknowledged.
func DefaultMinInsync(replication int16) int {
	return max(1, min(2, int(replication)-1))
}

func (o *Options) defaults() {
	if o.Partitions <= 0 {
		o.Partitions = DefaultPartitions
	}
	if o.Retention <= 0 {
		o.Retention = 7 * 24 * time.Hour
	}
	if o.Replication <= 0 {
		o.Replication = MaxReplication
	}
	if o.MinInsync <= 0 {
		o.MinInsync = DefaultMinInsync(o.Replication)
	}
}

// Validate refuses options no cluster can satisfy.
func (o Options) Validate() error {
	switch {
	case o.Partitions < 0:
		return errors.New("partitions must be positive")
	case o.Replication < 0:
		return errors.New("replication factor must be positive")
	case o.MinInsync < 0:
		return errors.New("min.insync.replicas must be positive")
	case o.Replication > 0 && o.MinInsync > int(o.Replication):
		return fmt.Errorf("min.insync.replicas %d is above the replication factor %d: no write could succeed", o.MinInsync, o.Replication)
	}
	return nil
}

// JournalGrace is how much longer than the namespace's retention the
// adapters' journal keeps a record (docs/spec/adapters.md §1: "older than
// the utility's retention plus 7 days may be deleted").
const JournalGrace = 7 * 24 * time.Hour

// Specs lists every topic of namespace ns, derived from the topology
// (topology.Describe): a stream or table changelog has the namespace's
// partition count, a shared topic one partition; tables and shared state
// are compacted, streams kept for the retention (the replay window).
func Specs(ns string, o Options) []Spec {
	o.defaults()
	ret := strconv.FormatInt(o.Retention.Milliseconds(), 10)
	// Every topic takes any batch our producers build (topology.TopicMaxBytes).
	maxBytes := strconv.Itoa(topology.TopicMaxBytes)
	minISR := strconv.Itoa(o.MinInsync)
	var specs []Spec
	journal := topology.Names{NS: ns}.AdaptersJournal()
	for _, t := range topology.Describe(ns).Topics {
		cfg := map[string]string{"cleanup.policy": "delete", "retention.ms": ret, "max.message.bytes": maxBytes}
		if t.Compacted {
			cfg = map[string]string{"cleanup.policy": "compact", "max.message.bytes": maxBytes,
				"min.cleanable.dirty.ratio": "0.1", "segment.ms": "3600000"}
		}
		if t.Name == journal {
			// The adapters' journal: compacted, and its records deleted
			// once older than the namespace's retention plus 7 days
			// (docs/spec/adapters.md §1) — read whole by every adapter at
			// start, it would otherwise grow with every message ever
			// translated (docs/operations.md, "The adapters' journal").
			cfg["cleanup.policy"] = "compact,delete"
			cfg["retention.ms"] = strconv.FormatInt((o.Retention + JournalGrace).Milliseconds(), 10)
		}
		cfg["min.insync.replicas"] = minISR
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
		keyed := t.Kind != topology.KindShared
		parts := int32(1)
		if keyed {
			parts = o.Partitions
		}
		specs = append(specs, Spec{Name: t.Name, Partitions: parts, Replication: o.Replication, Keyed: keyed, Configs: cfg})
	}
	return specs
}

// Replication is the replication factor Create uses when none is asked
// for: min(MaxReplication, brokers in the cluster).
func Replication(ctx context.Context, adm *kadm.Client) (int16, error) {
	bs, err := adm.ListBrokers(ctx)
	if err != nil {
		return 0, fmt.Errorf("list brokers: %w", err)
	}
	return int16(max(1, min(MaxReplication, len(bs)))), nil
}

// Create creates the namespace's topics. It is idempotent: existing topics are
// left as they are, and a keyed topic whose partition count differs from the
// request is an error, never changed — changing it would split trades from
// their state. It returns the names it created.
func Create(ctx context.Context, adm *kadm.Client, ns string, o Options) ([]string, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Replication == 0 {
		rf, err := Replication(ctx, adm)
		if err != nil {
			return nil, err
		}
		o.Replication = rf
	}
	o.defaults()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	return createSpecs(ctx, adm, ns, o, Specs(ns, o))
}

// createSpecs creates the topics of specs that do not exist (o complete).
func createSpecs(ctx context.Context, adm *kadm.Client, ns string, o Options, specs []Spec) ([]string, error) {
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
		resp, err := adm.CreateTopic(ctx, s.Partitions, s.Replication, cfg, s.Name)
		if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) && !errors.Is(resp.Err, kerr.TopicAlreadyExists) {
			return created, fmt.Errorf("create %s: %w", s.Name, err)
		}
		created = append(created, s.Name)
	}
	if len(created) > 0 {
		if o.Replication == 1 && o.Log != nil {
			o.Log.Warn("topics created with replication factor 1: a broker lost is data lost (a cluster of 3 or more brokers gets 3 by default)",
				"namespace", ns, "topics", len(created))
		}
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

// Ensure makes sure a namespace's topics are there: it creates the missing
// ones, or with o.NoCreate only checks them (Check). With o.Partitions 0 it
// follows an existing inbound topic, so that a process started against
// topics made by `ste topics create --partitions N` never disagrees with
// them.
func Ensure(ctx context.Context, adm *kadm.Client, ns string, o Options) error {
	if o.NoCreate {
		return Check(ctx, adm, ns, o.Partitions)
	}
	if o.Partitions == 0 {
		o.Partitions = DefaultPartitions
		if n, err := inboundPartitions(ctx, adm, ns); err == nil && n > 0 {
			o.Partitions = n
		}
	}
	_, err := Create(ctx, adm, ns, o)
	return err
}

// inboundPartitions is the partition count of ns's inbound topic, 0 when
// it does not exist.
func inboundPartitions(ctx context.Context, adm *kadm.Client, ns string) (int32, error) {
	inbound := topology.Names{NS: ns}.Inbound()
	td, err := adm.ListTopics(ctx, inbound)
	if err != nil {
		return 0, fmt.Errorf("list topics: %w", err)
	}
	if d, ok := td[inbound]; ok && d.Err == nil {
		return int32(len(d.Partitions)), nil
	}
	return 0, nil
}

// CheckOn is Check on the cluster c: a process that creates no topics
// (ste process --no-create-topics) finds a missing one or a wrong layout
// before it starts.
func CheckOn(ctx context.Context, c kafkaconn.Config, ns string) error {
	cl, err := Connect(ctx, c)
	if err != nil {
		return err
	}
	defer cl.Close()
	return Check(ctx, kadm.NewClient(cl), ns, 0)
}

// Check verifies, without creating anything, that every topic of ns exists
// with the partitions the topology needs: keyed topics all with the same
// count (partitions, or when 0 that of the inbound topic), shared topics
// with one. The error is one line naming each topic that is missing or
// wrong.
func Check(ctx context.Context, adm *kadm.Client, ns string, partitions int32) error {
	if partitions == 0 {
		n, err := inboundPartitions(ctx, adm, ns)
		if err != nil {
			return err
		}
		partitions = n // 0: inbound is missing, reported below
	}
	specs := Specs(ns, Options{Partitions: max(partitions, 1)})
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	td, err := adm.ListTopics(ctx, names...)
	if err != nil {
		return fmt.Errorf("list topics: %w", err)
	}
	var missing, wrong []string
	for _, s := range specs {
		d, ok := td[s.Name]
		switch {
		case !ok || errors.Is(d.Err, kerr.UnknownTopicOrPartition):
			missing = append(missing, s.Name)
		case d.Err != nil:
			wrong = append(wrong, fmt.Sprintf("%s: %v", s.Name, d.Err))
		case s.Keyed && partitions == 0:
			// No inbound to follow: only its absence is reported.
		case int32(len(d.Partitions)) != s.Partitions:
			wrong = append(wrong, fmt.Sprintf("%s has %d partitions, want %d", s.Name, len(d.Partitions), s.Partitions))
		}
	}
	var problems []string
	if len(missing) > 0 {
		problems = append(problems, "missing topic(s) "+strings.Join(missing, ", "))
	}
	problems = append(problems, wrong...)
	if len(problems) > 0 {
		return fmt.Errorf("--no-create-topics: %s (the operator creates them: ste topics manifest)", strings.Join(problems, "; "))
	}
	return nil
}
