// Package topology declares the Kafka topology of STE in one place, for one
// namespace: its topics and groups, the streams between them, their tables,
// keys, the partitioner and the size limits. It is a leaf: it links no Kafka
// client, so everything that only needs a name — the console, analytics,
// exceptions, lag, the monitor — can import it without goka, sarama or
// Pebble (a test holds that). processors/pipeline runs the declaration on
// goka. The pipeline is three groups; an `ste process` runs all of them or
// some (--groups):
//
//	<ns>.inbound ──validate──▶ <ns>.v1.verdicts ──identity──▶ <ns>.v1.accepted ──match──▶ <ns>.cls
//	 (any key)    stateless     key Sender|MsgId   table:        key trade key     table:    <ns>.outbound
//	                                               identities                      trades    <ns>.exceptions, <ns>.audit
//
// Inbound is keyed by whoever produced it, so nothing can be co-partitioned
// with it: the stateless validate stage re-keys every message by its
// identity, the identity stage (global exact and conflicting duplicates)
// re-keys accepted messages by trade key, and the match stage holds each
// trade's compact state in a changelog-backed table.
package topology

import (
	"hash"
	"hash/fnv"
)

// StateVersion is in every internal topic and group name, so that a new state
// layout lives beside the old one (a migration replays into it).
const StateVersion = "v1"

// Names are the topic and group names of one namespace.
type Names struct{ NS string }

// Contract topics (docs/spec/messages.md section 1).
func (n Names) Inbound() string    { return n.NS + ".inbound" }
func (n Names) CLS() string        { return n.NS + ".cls" }
func (n Names) Outbound() string   { return n.NS + ".outbound" }
func (n Names) Exceptions() string { return n.NS + ".exceptions" }
func (n Names) Audit() string      { return n.NS + ".audit" }
func (n Names) Refdata() string    { return n.NS + ".refdata" }
func (n Names) Monitor() string    { return n.NS + ".monitor" }

// Instances is the instance registry: every running `ste process` announces
// itself there (compacted, keyed by instance id).
func (n Names) Instances() string { return n.NS + ".instances" }

// Origin says where a namespace's records and state came from: a replay's
// source and range, a migration's cut-over (compacted, keyed by kind and
// source namespace). A namespace made from scratch has none.
func (n Names) Origin() string { return n.NS + ".origin" }

// ExceptionStates holds each exception's operator state — open, retried,
// resolved, archived, with who and when (compacted, keyed by exception id),
// so that every console and `ste exceptions` shows the same.
func (n Names) ExceptionStates() string { return n.NS + ".exception-states" }

// Nonces holds the request nonces `ste gateway` instances accepted (keyed by
// participant BIC, stamped by the gateway that wrote it): an instance accepts a nonce only
// once its record is read back, first by offset wins, so two instances
// shown one nonce accept it once, across restarts too.
func (n Names) Nonces() string { return n.NS + ".gateway-nonces" }

// AdaptersOrigin is <ns>.adapters.origin (docs/spec/adapters.md §2): the
// original bytes of every standard message an adapter translated, keyed by
// their lower-case hex SHA-256 (compacted; retention at least inbound's).
func (n Names) AdaptersOrigin() string { return n.NS + ".adapters.origin" }

// AdaptersJournal is the adapters' journal (docs/spec/adapters.md §1): what
// each adapter translated and what STE answered, the only state the
// adapters share. Compacted, one partition read whole, versioned like every
// internal topic.
func (n Names) AdaptersJournal() string { return n.NS + ".adapters." + StateVersion + ".journal" }

// ISO20022Outbound is <ns>.iso20022.outbound (docs/spec/adapters.md §5.6):
// `ste iso20022`'s translated outputs, keyed by the receiving BIC.
func (n Names) ISO20022Outbound() string { return n.NS + ".iso20022.outbound" }

// ISO20022Group is the consumer group the `ste iso20022` instances share
// the partitions of <ns>.outbound through (docs/spec/adapters.md §5.2).
func (n Names) ISO20022Group() string { return n.NS + ".iso20022." + StateVersion }

// Adapters are the adapters' topics (docs/spec/adapters.md §7), in the
// order `ste topics create` lists them.
func (n Names) Adapters() []string {
	return []string{n.AdaptersOrigin(), n.AdaptersJournal(), n.ISO20022Outbound()}
}

func (n Names) internal(s string) string { return n.NS + "." + StateVersion + "." + s }

// Internal streams.
func (n Names) Verdicts() string { return n.internal("verdicts") }
func (n Names) Accepted() string { return n.internal("accepted") }

// Groups; goka names a group's table "<group>-table" and its loopback
// "<group>-loop".
func (n Names) ValidateGroup() string { return n.internal("validate") }
func (n Names) IdentityGroup() string { return n.internal("identity") }
func (n Names) MatchGroup() string    { return n.internal("match") }

// AnalyticsGroup is the consumer group of `ste analytics ingest`: it reads
// the contract topics into the analytics store.
func (n Names) AnalyticsGroup() string { return n.NS + ".analytics" }

// FollowGroup is the group of `ste migrate --follow` bridging namespace
// from's inbound into this one: named by the target, so that deleting the
// target namespace's groups takes it along.
func (n Names) FollowGroup(from string) string { return n.NS + ".follow." + from }

// Delivery is <ns>.out.<BIC>, the records of <ns>.outbound for one
// participant when per-participant delivery is on (docs/spec/messages.md
// section 1).
func (n Names) Delivery(bic string) string { return n.NS + ".out." + bic }

// DeliveryGroup is the consumer group that copies <ns>.outbound to the
// participants' topics (topics/deliver, outside goka).
func (n Names) DeliveryGroup() string { return n.internal("deliver") }

// Table is the changelog topic goka uses for a group's table.
func Table(group string) string { return group + "-table" }

// Loop is the loopback topic goka uses for a group.
func Loop(group string) string { return group + "-loop" }

// KeyHash is the one partitioner of STE: FNV-1a 32 over the key, modulo the
// partition count — what goka (through sarama) uses. Every franz-go producer
// of records that goka reads must use the same (see topics.Partitioner),
// or a trade's messages and its state land in different partitions.
func KeyHash() hash.Hash32 { return fnv.New32a() }

// Fnv32a is KeyHash as a function, the form franz-go's SaramaCompatHasher
// takes; written out so that a lookup by key (every participant's read of
// its outputs) allocates nothing.
func Fnv32a(b []byte) uint32 {
	const offset32, prime32 = 2166136261, 16777619
	h := uint32(offset32)
	for _, c := range b {
		h ^= uint32(c)
		h *= prime32
	}
	return h
}

// Partition is the partition among n that STE's partitioner gives a key:
// sarama's hash partitioner over KeyHash (the hash as a signed 32-bit
// number, modulo n, made positive). It has the shape of franz-go's
// PartitionerHasher, so topics.Partitioner wraps it as it is.
func Partition(key []byte, n int) int {
	p := int32(Fnv32a(key)) % int32(n)
	if p < 0 {
		p = -p
	}
	return int(p)
}
