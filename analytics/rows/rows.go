// Package rows is what STE's analytics store holds: one Go type per table row,
// and the decoders that turn the records of the contract topics (<ns>.cls,
// <ns>.audit, <ns>.exceptions, <ns>.outbound, <ns>.monitor) into those rows.
//
// Why a package of its own: decoding is pure (bytes in, rows out), so it is
// tested without Kafka or ClickHouse, and both the ingest (which reads the
// topics) and the store (which writes the rows) depend on it without
// depending on each other's machinery.
//
// Every row carries its Source: the namespace, the Kafka topic's ID, the
// partition and offset of the record it came from, and the record's
// timestamp. The offsets are what make the ingest idempotent across crashes
// (it resumes after the highest offset already stored, see
// analytics/ingest), the topic ID keeps a namespace whose topics were deleted
// and re-created from being mistaken for the old one (its offsets start at 0
// again), and the record timestamp is what partitions and expires rows (it is
// the time the record was written, unlike the messages' own Created, which a
// replay can set years in the past).
package rows

import (
	"errors"
	"time"

	"github.com/google/uuid"
)

// Source identifies the Kafka record a row was decoded from.
type Source struct {
	Namespace string
	TopicID   uuid.UUID // the topic's Kafka ID; zero when the broker has none
	Partition int32
	Offset    int64
	Time      time.Time // the record's timestamp (ms precision)
}

// Audit is one step of one audit record: a message's journey through the
// stages is stored as one row per stage it reached, so that per-stage
// throughput and latency are plain aggregations.
type Audit struct {
	Source
	Step             uint8     // index of the step in its record, from 0
	Steps            uint8     // number of steps of the record (at least 1)
	At               time.Time // when the stage handled the message (µs)
	Stage            string    // validate, identity, match ("" for a record without steps)
	Event            string    // valid, invalid, rejected, accepted, duplicate, applied, reemitted, expired
	Outcome          string    // the record's: accepted, duplicate, rejected, expired
	Reason           string    // rejection code, if rejected
	TradeKey         string
	Sender           string
	MsgId            string
	MsgType          string
	Function         string
	InboundPartition int32     // -1 for a retention purge
	InboundOffset    int64     // -1 for a retention purge
	InboundAt        time.Time // the inbound record's timestamp: when the broker took it (zero for a purge)
	Outputs          []string  // MsgIds the message caused; on the last step's row only
	Market           string    // the trade's market when the match stage applied the message ("" otherwise)
	Cutoff           time.Time // and its cutoff (zero otherwise): docs/timeliness.md
}

// CLS is one CLS record (NEW or CANCEL) as it appeared on <ns>.cls. A record
// re-emitted after a crash or for a duplicate is a row of its own; readers
// deduplicate by MsgId.
type CLS struct {
	Source
	MsgId        string
	Function     string // NEW or CANCEL
	TradeKey     string
	Version      uint32
	RelatedMsgId string
	Created      time.Time // header Created: the wall clock at emission
	TradeRef     string
	TradeDate    time.Time // zero for a CANCEL
	ISIN         string
	Side         string
	Broker       string
	InvMgr       string
	Quantity     int64
	Price        string // decimal as written ("" for a CANCEL)
	TradeCcy     string
	SettleDate   time.Time
	MatchedAt    time.Time
	Legs         uint16
	Body         string // the content: the inner bytes of <Body>
}

// Outbound is one record of <ns>.outbound: an ACK, NACK or STATUS as a
// participant received it. With the CLS rows and the exceptions it is a
// run's whole outcome: ste diff --clickhouse folds them as it folds the
// topics. A record re-emitted after a crash or for a duplicate is a row of
// its own; readers deduplicate by MsgId.
type Outbound struct {
	Source
	MsgId        string
	MsgType      string // ACK, NACK (Function NEW), STATUS; version 3: CNF, BLK, ALG
	Function     string
	Receiver     string
	RelatedMsgId string
	TradeKey     string  // STATUS, CNF, BLK, ALG
	Status       string  // STATUS: MATCHED, MISMATCHED, UNMATCHED, EXPIRED (version 3 also AFFIRMED, AFFIRM_REJECTED, CHANGE_PENDING, CANCEL_PENDING, CANCELLED); BLK: BLOCK_*
	Reason       string  // NACK
	Criteria     []uint8 // STATUS MISMATCHED: the failing criteria, in order
	Body         string  // the content: the inner bytes of <Body>
	Lifecycle
}

// Lifecycle is what a version 3 output says of the trade's lifecycle
// (messages.md §6), read from its Body: the key fields a CNF NEW and an
// ALG NEW carry (TradeRef also on STATUS, BLK, ALG CANCEL), the MatchDigest
// of a CNF or of a STATUS with a version 3 value, and the STATUS elements
// and allegement items as lists (schema migration 4).
type Lifecycle struct {
	TradeRef       string
	Broker         string
	InvMgr         string
	MatchDigest    string
	ProposalDigest string   // STATUS CHANGE_PENDING with a proposal
	RejectReasons  []string // STATUS AFFIRM_REJECTED
	Pending        []string // STATUS: the pending changes' tokens
	CancelRequests []string // STATUS: "STATE Sender:MsgId", one per CXL not accepted
	CancelledBy    []string // STATUS CANCELLED: the accepted CXLs and the CXAs accepting them
	Owed           []string // ALG NEW: "NOE", "ALC", "ALC <count>", "NPR <account>", "SET <account>", in the Body's order
}

// Exception is one record of <ns>.exceptions (docs/spec/messages.md section 7).
type Exception struct {
	Source
	ID               string // names the inbound record: "<partition>-<offset>"
	Reason           string
	Detail           string
	Sender           string
	MsgId            string
	ReceivedAt       time.Time
	SourcePartition  int32
	SourceOffset     int64
	Payload          string
	PayloadTruncated bool
	NACK             string
}

// Monitor is one queue sample of one stage (schemas.MonitorSample).
type Monitor struct {
	Source
	At            time.Time
	Stage         string
	Interval      float64 // seconds covered by the sample, ending at At
	Arrivals      int64
	Completions   int64
	Queue         int64
	Partitions    []int32
	PartEnd       []int64
	PartCommitted []int64
	PartLag       []int64
}

// BenchRun is one `ste bench` result. Bench runs are written by the bench
// itself, not ingested from a topic.
type BenchRun struct {
	Namespace          string
	RunID              string // unique per run; also the insert's deduplication token
	StartedAt          time.Time
	Trades             uint64
	Messages           uint64
	CLS                uint64
	Exceptions         uint64
	Seconds            float64
	MsgsPerSec         float64
	LatencyP50ms       float64
	LatencyP99ms       float64
	LatencyMaxms       float64
	ProcessorInstances uint32
	Partitions         uint32
	Broker             string // embedded or kafka
	Analytics          bool
	VerifySignatures   bool
	Result             string // the bench's whole JSON object
}

// errEmpty is the error of a record without a value (a tombstone or an
// empty record): nothing to store.
var errEmpty = errors.New("empty record")
