// Package stages holds the pipeline's decisions, in pipeline order: what the
// validate, identity and match stages make of one input record
// (validate.go, identity.go, match.go), as functions of the record, its
// key's table value and the reference data, each returning a Result — the
// records to write, the outputs to sign, the journey's end — that one
// writer in the goka runtime writes (processors/pipeline, handle.go). A
// decision changes nothing but its key's table value and the loopback,
// goka's state, through State; it links no Kafka client, so it is tested
// without goka as well as through it.
package stages

import (
	"crypto/ed25519"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/ste-utility/ste/processors/envelope"
	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topology"
)

// Config is what the decisions need.
type Config struct {
	Names     topology.Names
	Validator *validation.Validator
	// UtilityBIC is the utility's own BIC (the CLS and STATUS sender).
	UtilityBIC string
	// Retention of trades past their newest Created (event time). Default 72h.
	Retention time.Duration
	// TombstoneTTL keeps a purged trade's counters. Default 30 days.
	TombstoneTTL time.Duration
	// IdentityMargin is how much longer than the retention an accepted
	// (Sender, MsgId) is remembered by the identity stage. Default 24h.
	IdentityMargin time.Duration
	// Now is the wall clock of exceptions' receive times (default
	// time.Now). Nothing decides by it: retention runs on event time.
	Now func() time.Time
	// Sandbox: the namespace replays recorded inbound records (ste replay).
	// The Created rule then takes the utility's clock from each record's
	// time — when the live utility received it — instead of the wall
	// clock, so a replay decides as the live run did whenever it runs.
	Sandbox bool
	// Inbound reads a record of <ns>.inbound back by partition and offset:
	// the payload of an exception the identity or match stage writes
	// (payload.go). When set, a valid message's record travels decoded
	// only; when nil (the broker-free tests), the record travels along.
	Inbound func(partition int32, offset int64) ([]byte, error)
	// Tolerances the match stage evaluates criteria 7 and 15 with: the
	// reference data the instance has read so far (refdata.Current). Nil:
	// none, values must be equal.
	Tolerances matching.Tolerances
	// Affirmation says which investment managers are AUTO (affirmation.csv,
	// refdata.Current): the match stage then produces the utility's AFF to
	// <ns>.inbound, signed with UtilityKey. Nil: every one MANUAL.
	Affirmation matching.AffirmationModes
	// UtilityKey signs the utility's AFFs (the utility's own key, whose
	// public half is in its row). Nil: no AFF is produced (MANUAL).
	UtilityKey ed25519.PrivateKey
	// AllegementDelay is the quiet time after a trade's last message before
	// its allegements are compared with those sent (messages.md §5a, wall
	// clock): 0 is DefaultAllegementDelay, AllegeEveryMessage after every
	// message.
	AllegementDelay time.Duration
	// Tables gives partition p's table store of stage st, for its clock and
	// due index (nil: none open).
	Tables func(st topology.Stage, p int32) Table
	// Decided, when set, is handed each trade the match stage wrote to
	// partition p's table, after the write, as decided: the work queue's
	// index summarises it without reading the value back
	// (processors/query, Tables.Decided). The trade is not changed after,
	// unless Reclaim gives it back.
	Decided func(p int32, t *matching.Trade)
	// Reclaim, when set, gives back the trade last handed to Decided for
	// key in partition p while the work queue has not summarised it yet
	// (nil otherwise): the value the table holds for key, decoded. The
	// match stage applies the key's next message to it instead of reading
	// and decoding the value (processors/query, Tables.Reclaim).
	Reclaim func(p int32, key schemas.TradeKey) *matching.Trade
	Logger  *slog.Logger // a payload not read back; slog.Default() when nil
}

// DefaultAllegementDelay is ste process's --allegement-delay default.
const DefaultAllegementDelay = 60 * time.Second

// AllegeEveryMessage as Config.AllegementDelay compares a trade's
// allegements after every message (--allegement-delay 0).
const AllegeEveryMessage time.Duration = -1

// Input is one record a stage reads, as goka hands it to the callback.
type Input struct {
	Topic     string
	Key       string
	Partition int32
	Offset    int64
	Timestamp time.Time
	// Headers are the record's headers: an operator's retry on inbound.
	Headers map[string][]byte
	Value   []byte
}

// State is what a decision may change besides what it returns: its key's
// value in the stage's table, and the loopback — goka's state, not output.
// The goka runtime gives the callback's context; a test, a map.
type State interface {
	Value() []byte // nil: none
	SetValue(value []byte)
	Delete()
	Loopback(key string, value []byte)
}

// Table is what the decisions read of a partition's table store besides
// its values: the event-time clock and the due index (processors/memstore,
// processors/diskstore).
type Table interface {
	Clock() int64
	Due(now int64) []string
	DropDue(now int64) int
}

// Decider makes the three stages' decisions.
type Decider struct {
	cfg      Config
	engine   matching.Config
	decoders sync.Pool
	interns  sync.Pool
	// verdicts and accepted are the internal streams' names, built once
	// (a name is a concatenation: one was an allocation a message).
	verdicts, accepted string
}

// New makes the decider of cfg, its zero fields given their defaults.
func New(cfg Config) *Decider {
	if cfg.Retention <= 0 {
		cfg.Retention = 72 * time.Hour
	}
	if cfg.TombstoneTTL <= 0 {
		cfg.TombstoneTTL = 30 * 24 * time.Hour
	}
	if cfg.IdentityMargin <= 0 {
		cfg.IdentityMargin = 24 * time.Hour
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Tables == nil {
		cfg.Tables = func(topology.Stage, int32) Table { return nil }
	}
	if cfg.AllegementDelay == 0 {
		cfg.AllegementDelay = DefaultAllegementDelay
	}
	d := &Decider{cfg: cfg, verdicts: cfg.Names.Verdicts(), accepted: cfg.Names.Accepted()}
	// Duplicates re-emit everything a message may have caused: after a crash
	// goka's state can be ahead of the outputs (field notes), and a replayed
	// message is indistinguishable from a duplicate.
	d.engine = matching.Config{UtilityBIC: cfg.UtilityBIC, ReemitHistory: true, Tolerances: cfg.Tolerances}
	if cfg.UtilityKey != nil {
		d.engine.Affirmation = cfg.Affirmation
	}
	d.decoders.New = func() any { return new(schemas.Decoder) }
	d.interns.New = func() any { return matching.Interner{} }
	return d
}

func (d *Decider) now() int64 { return d.cfg.Now().UnixMicro() }

// Retention is the retention the decisions hold trades to (Config's, or
// its default).
func (d *Decider) Retention() time.Duration { return d.cfg.Retention }

// Step stamps the envelope's journey with stage st's event, now.
func (d *Decider) Step(e *envelope.Envelope, st topology.Stage, ev envelope.Event) {
	e.Steps = append(e.Steps, envelope.Step{Stage: st, At: d.now(), Event: ev})
}

// forward passes the envelope on to the next stage.
func forward(e *envelope.Envelope, topic, key string) *Result {
	r := &Result{Envelope: e}
	r.one[0] = Record{topic, key, e.Marshal()}
	r.Records = r.one[:]
	return r
}

// reject decides the exception, the NACK where one is due, and the end of
// the journey.
func (d *Decider) reject(st topology.Stage, e *envelope.Envelope, m *schemas.Message, rej *schemas.Rejection) *Result {
	if m == nil {
		m = &schemas.Message{Sender: e.Sender, MsgId: e.MsgId}
	}
	note := d.payload(st, e)
	vd := validation.Verdict{Msg: m, Rej: rej, Digest: e.Digest, Hash16: e.Hash16(), SenderKnown: e.SenderKnown}
	id := strconv.Itoa(int(e.Partition)) + "-" + strconv.FormatInt(e.Offset, 10)
	exc, nack := vd.Rejected(id, e.Raw, e.Partition, e.Offset, d.cfg.Now())
	if note != "" {
		// The note on a record that could not be read back is the
		// operator's (the exception's detail). The participant's NACK
		// stays as the rejection made it: a message applied again
		// answers the same NACK whether or not the read-back worked.
		exc.Detail = schemas.EchoDetail(rej.Detail + note)
	}
	exc.RetryOf = e.RetryOf
	key := ""
	if schemas.IsBIC(m.Sender) {
		key = m.Sender
	}
	r := &Result{Envelope: e, Records: []Record{{d.cfg.Names.Exceptions(), key, exc.Marshal()}},
		End: envelope.EventRejected, Outcome: "rejected", Reason: rej.Reason.String(), Rejected: rej.Reason}
	if nack != nil {
		r.Outputs = []schemas.Output{*nack}
	}
	return r
}
