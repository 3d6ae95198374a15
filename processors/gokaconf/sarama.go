// Package gokaconf is goka's configuration for STE: its sarama clients
// (protocol, offsets, the group's timeouts and static membership, TLS and
// SASL, the retries while a leader or a coordinator moves; its producer is
// franz-go's, processors/produce), the topic manager (on franz-go) that
// creates nothing, the rejoin wait, and where goka's and sarama's logs go.
// Measured against Apache Kafka 4 and kfake (docs/ARCHITECTURE.md,
// "Failure behaviour").
package gokaconf

import (
	"context"
	"time"

	"github.com/IBM/sarama"
	"github.com/lovoo/goka"
	"github.com/twmb/franz-go/pkg/sasl"

	"github.com/ste-utility/ste/kafkaconn"
)

// SaramaConfig is goka's client configuration for STE, measured against
// Apache Kafka 4 and kfake: protocol version 4.0 (Kafka 4 dropped the old
// versions goka's default asks for), streams from the oldest offset so that a
// backlog produced before the first start is processed. goka's producer is
// not sarama's: processors/produce.Builder, on topics.ProducerOpts.
func SaramaConfig() *sarama.Config {
	cfg := goka.DefaultConfig()
	// goka's default config is one shared value; every client gets its own.
	cp := *cfg
	cfg = &cp
	cfg.Version = sarama.V4_0_0_0
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	// Offsets are committed twice a second: a partition taken over shows
	// its progress (lag going down) that much sooner, and a crash leaves
	// half a second less to process again, for two small requests a
	// second per group.
	cfg.Consumer.Offsets.AutoCommit.Interval = 500 * time.Millisecond
	// No sarama producer runs: goka's producer is franz-go's, on
	// topics.ProducerOpts (processors/produce.Builder), the one producer
	// option list. One request in flight per connection, as measured since
	// the sarama producer's idempotence first required it.
	cfg.Net.MaxOpenRequests = 1
	cfg.Consumer.Fetch.Default = FetchPartitionBytes
	cfg.Consumer.Fetch.MaxBytes = FetchResponseBytes
	// A partition's fetch grows up to this only to take a batch larger than
	// Fetch.Default (the largest a producer of ours writes, and then some).
	cfg.Consumer.Fetch.Max = 64 << 20
	cfg.ChannelBufferSize = ChannelBuffer
	// How long a fetch waits for data. Measured on kfake at 1,500 msg/s: with
	// sarama's default 500 ms each hop of the pipeline took ~13 ms, with 50 ms
	// ~3 ms (10 ms was no better: more empty fetches). A real broker answers
	// as soon as data arrives either way.
	cfg.Consumer.MaxWaitTime = 50 * time.Millisecond
	// Group timeouts (docs/ARCHITECTURE.md, "Failure behaviour"). The
	// session timeout is how long a killed instance keeps its partitions
	// before the others take them over; 10 s rides out a GC pause or a busy
	// core without false expiries. Heartbeats every half second tell a
	// member of a rebalance within half a second (a third of the session
	// timeout or less, as Kafka advises). The rebalance timeout is how long the
	// coordinator waits for members to rejoin: goka needs ~1 s to notice,
	// the time to stop its partitions, then waits RejoinWait — 20 s leaves
	// room under load (a member stalled longer is left out of the
	// generation and joins the next).
	cfg.Consumer.Group.Session.Timeout = 10 * time.Second
	cfg.Consumer.Group.Heartbeat.Interval = 500 * time.Millisecond
	cfg.Consumer.Group.Rebalance.Timeout = 20 * time.Second
	// A JoinGroup legitimately blocks until every member has rejoined, up to
	// the rebalance timeout, but sarama reads its answer under the plain
	// Net.ReadTimeout (sarama issue 2820): the read timeout must exceed the
	// rebalance timeout, or a slow rebalance ends in "i/o timeout".
	cfg.Net.ReadTimeout = cfg.Consumer.Group.Rebalance.Timeout + 10*time.Second
	// A broker's controlled shutdown (a rolling restart) or its loss moves
	// leaderships and group coordinators (docs/operations.md, "Broker
	// settings"). sarama's defaults waited 2 s before a partition consumer
	// looked for its partition's new leader, 2 s between JoinGroup tries
	// while a coordinator moved, and gave a claim, a coordinator lookup or
	// a metadata refresh 3 tries 250 ms apart — less than a lost broker
	// takes to be fenced (broker.session.timeout.ms), so the group's session
	// ended and goka rebuilt the group, often more than once. Now retries
	// start after 250 ms and back off to 1 s, and lookups keep trying for
	// ~9 s, longer than the fencing; a group whose cluster does not answer
	// at all fails after ~19 s (a lookup, 500 ms, a lookup) and is rebuilt
	// by the supervisor.
	cfg.Consumer.Retry.BackoffFunc = RetryBackoff
	cfg.Metadata.Retry.Max = 10
	// sarama passes the tries made so far (0 before the first retry).
	cfg.Metadata.Retry.BackoffFunc = func(tried, _ int) time.Duration { return RetryBackoff(tried + 1) }
	// A JoinGroup answered "not coordinator" (or whose coordinator lookup
	// failed) is tried once more, 500 ms later: each try's lookup already
	// outlasts a fencing, and sarama's 4 tries would keep a group waiting in
	// its join for ~40 s of a cluster that does not answer, where the
	// supervisor rebuilds it.
	cfg.Consumer.Group.Rebalance.Retry.Max = 1
	cfg.Consumer.Group.Rebalance.Retry.Backoff = 500 * time.Millisecond
	return cfg
}

// RetryBackoff is the wait before retry n (1-based) of a request to a
// partition's leader or a group's coordinator: 250 ms, 500 ms, then 1 s.
// A moved leader is found at the first retry; a lost one within a second
// of its fencing.
func RetryBackoff(n int) time.Duration {
	return min(250*time.Millisecond<<max(n-1, 0), time.Second)
}

// What the consumers may hold (docs/ARCHITECTURE.md, "Memory"). sarama
// reads a fetch response into one buffer and hands out each record's key and
// value as slices of it, so a record waiting in a partition consumer's
// channel keeps its whole response alive. With 4 MiB a partition, 50 MiB a
// request and 4,096 records a channel, an instance draining a backlog of
// 250,000 trades held ~500 MB of fetch responses (half its heap, a profile
// in docs/benchmarks.md, "Memory: 250,000 trades in 600 MB"). At sarama's
// channels of 256 records (sarama's default: ~130 ms of a partition's work
// at 15,000 msg/s over 8 partitions) and responses of at most 1 MiB (the
// broker still returns a first batch larger than that: KIP-74), what a
// record in flight keeps alive is at most a MiB: with 8 MiB responses the
// same drain still held ~300 MB of them — records of one response finish
// at different times (the batch verification's queue, the producer's
// acknowledgements, partitions drained unevenly), and the last one keeps
// it. A fetch of 1 MiB is ~700 records; a local broker answers it in a
// millisecond or two.
const (
	FetchPartitionBytes = 256 << 10
	FetchResponseBytes  = 1 << 20
	ChannelBuffer       = 256
)

// RejoinWait is how long a group waits after a rebalance ended its session
// before it joins again (goka's WithRejoinWait, third_party/goka patch 1;
// upstream waits a fixed 5 s). A rebalance completes only when every
// surviving member has rejoined, so the wait is part of every failover; it
// only keeps a group that keeps being rebalanced from spinning, which a
// quarter of a second does.
const RejoinWait = 250 * time.Millisecond

// Sarama is one client's configuration on cluster k: SaramaConfig with k's
// TLS and SASL. goka's builders write the client id into the configuration
// they are given, so every client gets one of its own.
func Sarama(k kafkaconn.Config) *sarama.Config {
	cfg := SaramaConfig()
	SaramaSecurity(k, cfg)
	// goka's default sets the deprecated single Strategy, which sarama
	// warns about on every client; the same strategy as the one-element
	// list it prefers (Strategy wins over GroupStrategies, so this is the
	// same assignment).
	if r := &cfg.Consumer.Group.Rebalance; r.Strategy != nil {
		r.GroupStrategies, r.Strategy = []sarama.BalanceStrategy{r.Strategy}, nil
	}
	return cfg
}

// Group is the consumer group configuration of one group of an instance
// on cluster k: static membership (KIP-345) under the instance id, so that
// an instance restarted within the session timeout takes its partitions
// back without a rebalance of the others. Without an id (several anonymous
// instances in one process) membership stays dynamic: two members with one
// static id would fence each other.
func Group(k kafkaconn.Config, instanceID string) *sarama.Config {
	cfg := Sarama(k)
	if instanceID != "" {
		cfg.Consumer.Group.InstanceId = instanceID
	}
	return cfg
}

// TopicManager is goka's topic manager configuration (TopicManagerBuilder's
// mismatch rule; goka's own manager in tests): topics are made in
// one place, topics.Create, with the operator's replication and configs
// (or by the operator: --no-create-topics); a topic goka created would have
// its defaults, so it creates none.
func TopicManager() *goka.TopicManagerConfig {
	tmc := goka.NewTopicManagerConfig()
	tmc.Table.Replication = 1
	tmc.Stream.Replication = 1
	tmc.NoCreate = true
	return tmc
}

// SaramaSecurity applies the TLS and SASL of k to a sarama configuration
// (goka's consumers and topic manager). SCRAM runs on franz-go's
// implementation, so both clients authenticate with the same code.
func SaramaSecurity(k kafkaconn.Config, cfg *sarama.Config) {
	cr := k.Credentials()
	if cr.TLS != nil {
		cfg.Net.TLS.Enable = true
		cfg.Net.TLS.Config = cr.TLS
	}
	if cr.Mechanism == "" {
		return
	}
	cfg.Net.SASL.Enable = true
	cfg.Net.SASL.Handshake = true
	cfg.Net.SASL.Version = sarama.SASLHandshakeV1
	cfg.Net.SASL.User = cr.User
	cfg.Net.SASL.Password = string(cr.Password)
	switch cr.Mechanism {
	case kafkaconn.Plain:
		cfg.Net.SASL.Mechanism = sarama.SASLTypePlaintext
	case kafkaconn.ScramSHA256:
		cfg.Net.SASL.Mechanism = sarama.SASLTypeSCRAMSHA256
	case kafkaconn.ScramSHA512:
		cfg.Net.SASL.Mechanism = sarama.SASLTypeSCRAMSHA512
	}
	if mech := cr.SCRAM; mech != nil {
		cfg.Net.SASL.SCRAMClientGeneratorFunc = func() sarama.SCRAMClient { return &scramClient{mech: mech} }
	}
}

// scramClient is sarama's SCRAMClient on a franz-go SASL mechanism. sarama
// calls Begin, Step("") for the client-first message, then Step with each
// server message until Done.
type scramClient struct {
	mech    sasl.Mechanism
	session sasl.Session
	done    bool
}

func (s *scramClient) Begin(_, _, _ string) error { return nil }

func (s *scramClient) Step(challenge string) (string, error) {
	if s.session == nil {
		sess, first, err := s.mech.Authenticate(context.Background(), "")
		if err != nil {
			return "", err
		}
		s.session = sess
		return string(first), nil
	}
	done, msg, err := s.session.Challenge([]byte(challenge))
	if err != nil {
		return "", err
	}
	s.done = done
	return string(msg), nil
}

func (s *scramClient) Done() bool { return s.done }
