package exceptions

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
)

// Workflow changes a namespace's exceptions — retries and archives, each
// recorded on the states topic with the operator's name — and resolves
// retries whose journeys ended in an ACK. It reads and updates a Book.
type Workflow struct {
	conn  kafkaconn.Config
	names topology.Names
	book  *Book
	cl    *kgo.Client
	now   func() time.Time

	// mu makes each check and the write that follows it one step: two
	// requests of one console never both retry an exception. (Two consoles
	// can, in the moment before each reads the other's state; the record
	// then shows both retries.)
	mu      sync.Mutex
	scanned map[string]int64 // per retried exception: the audit offset read up to
}

// NewWorkflow connects to the cluster for namespace ns, working on book.
func NewWorkflow(ctx context.Context, conn kafkaconn.Config, ns string, book *Book) (*Workflow, error) {
	cl, err := topics.Connect(ctx, conn)
	if err != nil {
		return nil, err
	}
	return &Workflow{conn: conn, names: topology.Names{NS: ns}, book: book, cl: cl, now: time.Now,
		scanned: map[string]int64{}}, nil
}

// Close releases the connection.
func (w *Workflow) Close() { w.cl.Close() }

// Options of a change.
type Options struct {
	// Operator is recorded on every change (required).
	Operator string
	// Role is the operator's role, recorded with the change (a console's
	// token role; "" from the command line).
	Role string
	// Force retries an exception already retried, resolved or archived.
	Force bool
	// DryRun checks and reports, and changes nothing.
	DryRun bool
	// Note is kept with an archive.
	Note string
}

// Outcomes of a change, per exception.
const (
	OutcomeRetried      = "retried"
	OutcomeArchived     = "archived"
	OutcomeWouldRetry   = "would retry"
	OutcomeWouldArchive = "would archive"
	OutcomeRefused      = "refused"
	OutcomeFailed       = "failed"
)

// Result is what became of one exception.
type Result struct {
	ID      string `json:"id"`
	Outcome string `json:"outcome"`
	Detail  string `json:"detail,omitempty"`
	Retry   *Retry `json:"retry,omitempty"`
}

// ErrNoOperator: a change names no operator.
var ErrNoOperator = errors.New("an operator name is required")

// Retry publishes each exception's original record to <ns>.inbound again
// (docs/spec/messages.md §7), keyed as the driver keys it, with the ste-retry-of and
// ste-retry-by headers, and records the retry. An exception already
// retried, resolved or archived is refused unless o.Force.
func (w *Workflow) Retry(ctx context.Context, ids []string, o Options) ([]Result, error) {
	return w.each(ids, o, func(id string) Result { return w.retry(ctx, id, o) })
}

// each applies a change to each id, one at a time, under the workflow's
// lock; every change names its operator.
func (w *Workflow) each(ids []string, o Options, change func(id string) Result) ([]Result, error) {
	if strings.TrimSpace(o.Operator) == "" {
		return nil, ErrNoOperator
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []Result
	for _, id := range ids {
		out = append(out, change(id))
	}
	return out, nil
}

func (w *Workflow) retry(ctx context.Context, id string, o Options) Result {
	res := Result{ID: id}
	e, ok := w.book.Get(id)
	if !ok {
		res.Outcome, res.Detail = OutcomeFailed, "no such exception"
		return res
	}
	if st := e.State; st.State != Open && !o.Force {
		res.Outcome, res.Detail = OutcomeRefused, already(st)+" (force to retry again)"
		return res
	}
	payload, err := w.Payload(ctx, e, true)
	if err != nil {
		res.Outcome, res.Detail = OutcomeFailed, err.Error()
		return res
	}
	key := topics.InboundKeyOf(payload)
	if o.DryRun {
		res.Outcome = OutcomeWouldRetry
		res.Detail = fmt.Sprintf("%d bytes to %s, key %q", len(payload), w.names.Inbound(), key)
		return res
	}
	rec := &kgo.Record{Topic: w.names.Inbound(), Key: key, Value: payload, Headers: []kgo.RecordHeader{
		{Key: schemas.RetryOfHeader, Value: []byte(id)}, {Key: schemas.RetryByHeader, Value: []byte(o.Operator)}}}
	if err := w.cl.ProduceSync(ctx, rec).FirstErr(); err != nil {
		res.Outcome, res.Detail = OutcomeFailed, fmt.Sprintf("publish to %s: %v", w.names.Inbound(), err)
		return res
	}
	r := Retry{By: o.Operator, Role: o.Role, At: w.now().UTC(), Forced: e.State.State != Open, Partition: rec.Partition, Offset: rec.Offset}
	st := Record{ID: id, State: Retried, By: o.Operator, Role: o.Role, At: r.At, Note: e.State.Note,
		Retries: append(e.State.Retries, r)}
	res.Retry = &r
	if err := w.record(ctx, st); err != nil {
		res.Outcome = OutcomeFailed
		res.Detail = fmt.Sprintf("the retry was published to %s partition %d offset %d, but its state was not recorded: %v",
			w.names.Inbound(), r.Partition, r.Offset, err)
		return res
	}
	res.Outcome = OutcomeRetried
	res.Detail = fmt.Sprintf("%s partition %d offset %d", w.names.Inbound(), r.Partition, r.Offset)
	return res
}

// Archive closes exceptions that need no retry (the sender resent the
// message, or it was wrong). Archived and resolved ones are refused.
func (w *Workflow) Archive(ctx context.Context, ids []string, o Options) ([]Result, error) {
	return w.each(ids, o, func(id string) Result { return w.archive(ctx, id, o) })
}

func (w *Workflow) archive(ctx context.Context, id string, o Options) Result {
	res := Result{ID: id}
	e, ok := w.book.Get(id)
	switch {
	case !ok:
		res.Outcome, res.Detail = OutcomeFailed, "no such exception"
	case e.State.State == Archived || e.State.State == Resolved:
		res.Outcome, res.Detail = OutcomeRefused, already(e.State)
	case o.DryRun:
		res.Outcome = OutcomeWouldArchive
	default:
		st := Record{ID: id, State: Archived, By: o.Operator, Role: o.Role, At: w.now().UTC(), Note: o.Note, Retries: e.State.Retries}
		if err := w.record(ctx, st); err != nil {
			res.Outcome, res.Detail = OutcomeFailed, err.Error()
		} else {
			res.Outcome = OutcomeArchived
		}
	}
	return res
}

// already says what was done to an exception, why a change is refused.
func already(st Record) string {
	return fmt.Sprintf("already %s by %s at %s", st.State, st.By, st.At.UTC().Format(time.RFC3339))
}

// record writes a state and applies it to the book at once (the book's own
// reading of the topic follows).
func (w *Workflow) record(ctx context.Context, st Record) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	rec := &kgo.Record{Topic: w.names.ExceptionStates(), Key: []byte(st.ID), Value: b}
	topics.Prove(w.book.secret, rec)
	err = w.cl.ProduceSync(ctx, rec).FirstErr()
	if errors.Is(err, kerr.UnknownTopicOrPartition) {
		return fmt.Errorf("topic %s is missing: create it with ste topics create --namespace %s (it only adds missing topics)",
			w.names.ExceptionStates(), w.names.NS)
	}
	if err != nil {
		return fmt.Errorf("record state on %s: %w", w.names.ExceptionStates(), err)
	}
	w.book.setState(st)
	return nil
}

// Payload is the exception's record as received: the payload, read back
// from the exceptions topic when the book dropped it, and — when whole is
// set and the payload was truncated (TOO_LARGE) — the whole record from
// <ns>.inbound by its partition and offset.
func (w *Workflow) Payload(ctx context.Context, e Exception, whole bool) ([]byte, error) {
	switch {
	case e.PayloadTruncated && whole:
		if e.SourcePartition < 0 {
			return nil, errors.New("the payload was truncated and the record has no source on the inbound topic")
		}
		r, err := topics.ReadRecord(ctx, w.conn, w.names.Inbound(), e.SourcePartition, e.SourceOffset)
		if err != nil {
			return nil, fmt.Errorf("the payload was truncated (TOO_LARGE) and the whole record could not be read from %s: %w",
				w.names.Inbound(), err)
		}
		return r.Value, nil
	case e.PayloadDropped:
		r, err := topics.ReadRecord(ctx, w.conn, w.names.Exceptions(), e.Partition, e.Offset)
		if err != nil {
			return nil, err
		}
		if !topics.Proven(w.book.secret, r) {
			// Never publish bytes the utility did not write.
			return nil, fmt.Errorf("exception record %s at %s partition %d offset %d lacks the utility's proof",
				e.ID, w.names.Exceptions(), e.Partition, e.Offset)
		}
		var full schemas.Exception
		if err := json.Unmarshal(r.Value, &full); err != nil {
			return nil, fmt.Errorf("exception record %s: %w", e.ID, err)
		}
		return full.Payload, nil
	}
	return e.Payload, nil
}

// auditScanMargin is how long before a retry its audit record is looked
// for: the processors' clocks may run behind the operator's.
const auditScanMargin = 5 * time.Minute

// Resolve looks for the journeys of retried exceptions and marks each whose
// retry was accepted (ACKed) resolved, by the retry's operator. A journey
// is found on <ns>.audit in the partition of the message's trade key, from
// the retry's time on, by the inbound record it came from. It returns the
// ids resolved.
func (w *Workflow) Resolve(ctx context.Context) ([]string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	pending := w.book.List(Filter{States: []State{Retried}})
	if len(pending) == 0 {
		return nil, nil
	}
	adm := kadm.NewClient(w.cl)
	n, err := topics.Partitions(ctx, adm, w.names.Audit())
	if err != nil || n == 0 {
		return nil, errors.Join(errors.New("no audit topic"), err)
	}
	var resolved []string
	for _, e := range pending {
		r, ok := e.State.LastRetry()
		if !ok || w.Outcome(e.ID).RejectedAs != "" {
			continue // rejected again: the new exception is the one to work on
		}
		payload, err := w.Payload(ctx, e, false)
		if err != nil {
			continue
		}
		var dec schemas.Decoder
		m, _ := dec.Decode(payload)
		if m == nil || m.Key.TradeRef == "" {
			continue // a message without a trade cannot be accepted: a retry of it is rejected again
		}
		key := m.Key.TradeKey().String()
		part := topics.PartitionOf(key, n)
		scan := func(rec *kgo.Record) bool { return w.journeyEnded(rec, e, r) }
		if from, ok := w.scanned[e.ID]; ok {
			err = topics.ReadPartition(ctx, w.conn, w.names.Audit(), part, from, scan)
		} else {
			err = topics.ReadPartitionSince(ctx, w.conn, w.names.Audit(), part, r.At.Add(-auditScanMargin), scan)
		}
		if err != nil {
			return resolved, err
		}
		if st, ok := w.book.Get(e.ID); ok && st.State.State == Resolved {
			resolved = append(resolved, e.ID)
		}
	}
	return resolved, nil
}

// journeyEnded reads one audit record while looking for the journey of
// retry r of e: when it is that journey, accepted, it records e resolved.
// It returns whether to read on.
func (w *Workflow) journeyEnded(rec *kgo.Record, e Exception, r Retry) bool {
	w.scanned[e.ID] = rec.Offset + 1
	if !bytes.Contains(rec.Value, []byte(`"retry_of":`+strconv.Quote(e.ID))) {
		return true
	}
	// A record is one event or a batch of them (schemas.EachAuditEvent).
	var a schemas.AuditEvent
	found := errors.New("found")
	err := schemas.EachAuditEvent(rec.Value, func(ev schemas.AuditEvent) error {
		if ev.RetryOf == e.ID && ev.Partition == r.Partition && ev.Offset == r.Offset {
			a = ev
			return found
		}
		return nil
	})
	if !errors.Is(err, found) {
		return true
	}
	if a.Outcome != "accepted" && a.Outcome != "duplicate" {
		return false // rejected again: a new exception names it
	}
	st := Record{ID: e.ID, State: Resolved, By: r.By, At: rec.Timestamp.UTC(), Note: e.State.Note, Retries: e.State.Retries}
	for _, o := range a.Outputs {
		if strings.HasPrefix(o, "ACK:") {
			st.ACK = o
		}
	}
	if len(a.Steps) > 0 {
		if t, err := time.Parse(time.RFC3339Nano, a.Steps[len(a.Steps)-1].At); err == nil {
			st.At = t
		}
	}
	if err := w.record(context.Background(), st); err != nil {
		return false
	}
	delete(w.scanned, e.ID)
	return false
}

// RetryOutcome says where an exception's latest retry stands.
type RetryOutcome struct {
	ID    string `json:"id"`
	State State  `json:"state"`
	ACK   string `json:"ack,omitempty"`
	// RejectedAs is the new exception the retry gave, with its reason.
	RejectedAs string `json:"rejected_as,omitempty"`
	Reason     string `json:"reason,omitempty"`
}

// Done reports whether the retry has an answer: an ACK or a new exception.
func (o RetryOutcome) Done() bool { return o.State == Resolved || o.RejectedAs != "" }

// Outcome says what became of an exception's latest retry, from the book.
func (w *Workflow) Outcome(id string) RetryOutcome {
	e, ok := w.book.Get(id)
	if !ok {
		return RetryOutcome{ID: id}
	}
	out := RetryOutcome{ID: id, State: e.State.State, ACK: e.State.ACK}
	r, ok := e.State.LastRetry()
	if !ok {
		return out
	}
	for _, nid := range e.RetriedAs {
		if ne, ok := w.book.Get(nid); ok && ne.SourcePartition == r.Partition && ne.SourceOffset == r.Offset {
			out.RejectedAs, out.Reason = nid, ne.Reason
		}
	}
	return out
}

// LocalOperator is whom a change is recorded under when no one is named:
// $STE_OPERATOR, else the user's name (ste exceptions, a loopback console).
func LocalOperator() string {
	if name := os.Getenv("STE_OPERATOR"); name != "" {
		return name
	}
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "local"
}
