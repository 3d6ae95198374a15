package gokaconf

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/IBM/sarama"
	"github.com/lovoo/goka"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/topics"
)

// TopicManagerBuilder is goka's topic manager for STE on franz-go: it
// creates nothing (topics.Create does, or the operator) and answers what
// goka asks of it — whether a topic is there, its partitions, a partition's
// oldest and newest offsets — from whichever broker answers.
//
// goka's own (on sarama) failed the group whenever one broker of the
// cluster was down but not yet fenced: it opened a connection to one broker
// of the metadata picked at random and failed if that one was down, read
// every topic's configuration from another random broker (only to ignore a
// mismatch, as STE's configuration asks), and asked a partition's offsets
// of its leader with a single retry, so a leader moving (a broker's
// controlled shutdown) or lost failed the table's setup. Each failure
// restarted the group with backoff: on Kafka 4, leader losses stalled
// groups for 20 s and more, and a rolling restart of the brokers for up to
// 17 s (docs/benchmarks.md, "Kafka 4: the brokers' rolling restart").
// franz-go sends each request to a broker that answers, and retries a moved
// leader after refreshing its metadata.
func TopicManagerBuilder(k kafkaconn.Config) goka.TopicManagerBuilder {
	tmc := TopicManager()
	return func(brokers []string) (goka.TopicManager, error) {
		opts := append(k.Opts(), kgo.SeedBrokers(brokers...),
			kgo.MetadataMinAge(topics.MetadataMinAge), kgo.RetryBackoffFn(topics.RetryBackoff))
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			return nil, err
		}
		return &topicManager{cl: cl, adm: kadm.NewClient(cl), cfg: tmc}, nil
	}
}

// topicRequestTimeout bounds one of goka's questions (its interface has no
// context): longer than a lost broker takes to be fenced and its
// partitions' leadership to move (broker.session.timeout.ms, 6 s in
// deploy/kafka/kafka.sh).
const topicRequestTimeout = 10 * time.Second

type topicManager struct {
	cl  *kgo.Client
	adm *kadm.Client
	cfg *goka.TopicManagerConfig
}

func (m *topicManager) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), topicRequestTimeout)
}

// Partitions lists every partition of topic (goka checks them for gaps and
// co-partitioning).
func (m *topicManager) Partitions(topic string) ([]int32, error) {
	ctx, cancel := m.ctx()
	defer cancel()
	var md kadm.Metadata
	err := kafkaconn.Retry(ctx, nil, "", func() (err error) {
		md, err = m.adm.Metadata(ctx, topic)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("metadata of topic %s: %w", topic, err)
	}
	t, ok := md.Topics[topic]
	if !ok || errors.Is(t.Err, kerr.UnknownTopicOrPartition) {
		return nil, fmt.Errorf("topic %s does not exist (STE creates its topics with `ste topics create`, and goka none)", topic)
	}
	if t.Err != nil {
		return nil, fmt.Errorf("metadata of topic %s: %w", topic, t.Err)
	}
	parts := make([]int32, 0, len(t.Partitions))
	for p := range t.Partitions {
		parts = append(parts, p)
	}
	slices.Sort(parts)
	return parts, nil
}

func (m *topicManager) EnsureStreamExists(topic string, npar int) error {
	return m.ensure(topic, npar)
}

func (m *topicManager) EnsureTableExists(topic string, npar int) error {
	return m.ensure(topic, npar)
}

func (m *topicManager) EnsureTopicExists(topic string, npar, _ int, _ map[string]string) error {
	return m.ensure(topic, npar)
}

// ensure checks that topic exists; a partition count other than npar is
// treated as the configuration's MismatchBehavior says (goka's rule; STE's
// is goka's default, ignore: topics.Create and `ste topics check` own the
// topics' shape). Configurations and replication are not read.
func (m *topicManager) ensure(topic string, npar int) error {
	parts, err := m.Partitions(topic)
	if err != nil {
		return err
	}
	if len(parts) == npar {
		return nil
	}
	msg := fmt.Sprintf("partition count mismatch for topic '%s'. Need %d, but existing topic has %d", topic, npar, len(parts))
	switch m.cfg.MismatchBehavior {
	case goka.TMConfigMismatchBehaviorFail:
		return errors.New(msg)
	case goka.TMConfigMismatchBehaviorWarn:
		m.cfg.Logger.Printf("Warning: %s", msg)
	}
	return nil
}

// GetOffset is a partition's oldest offset (sarama.OffsetOldest), its
// newest (sarama.OffsetNewest), or the first at or after a time in
// milliseconds, from its leader.
func (m *topicManager) GetOffset(topic string, partition int32, at int64) (int64, error) {
	ctx, cancel := m.ctx()
	defer cancel()
	var offset int64
	// What a healing cluster answers is tried again (kafkaconn.Retry): a
	// leader not answering until it is fenced, another partition's leader
	// down (its shard of the request fails; this one's answer may be there
	// all the same).
	err := kafkaconn.Retry(ctx, nil, "", func() error {
		var (
			listed kadm.ListedOffsets
			err    error
		)
		switch at {
		case sarama.OffsetOldest:
			listed, err = m.adm.ListStartOffsets(ctx, topic)
		case sarama.OffsetNewest:
			listed, err = m.adm.ListEndOffsets(ctx, topic)
		default:
			listed, err = m.adm.ListOffsetsAfterMilli(ctx, at, topic)
		}
		if o, ok := listed.Lookup(topic, partition); ok {
			offset = o.Offset
			return o.Err
		}
		if err == nil {
			err = errors.New("no answer for the partition")
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("offset of %s/%d: %w", topic, partition, err)
	}
	return offset, nil
}

func (m *topicManager) Close() error {
	m.cl.Close()
	return nil
}
