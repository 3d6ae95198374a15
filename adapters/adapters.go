// Package adapters is the layer the standard-format adapters share
// (docs/spec/adapters.md §1–§3): the delegated signer (Signer, §2), the
// record headers and the origin audit topic (§2), and the ack point
// (Publisher: the original bytes, then the journal entries, then the STE
// records, each acknowledged by the brokers before the next is written; the
// participant is answered only after the last); and ReadOutput, the one
// reader of the STE outputs both adapters translate (§4.7, §5.6). Its
// subpackages:
//
//   - adapters/msgid: the MsgId transform of §3.2;
//   - adapters/stexml: the byte-exact STE record writer of §3.1 and the
//     values of §3.3;
//   - adapters/journal: the journal of §1, read-your-writes;
//   - adapters/iso20022: `ste iso20022` (§5), built on the above.
//
// The FIX adapter (§4) plugs in the same way: it translates into
// stexml.Records, describes them as journal.Translations, and hands both to
// Publisher.Publish with its origin bytes and reference.
package adapters

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/adapters/journal"
	"github.com/ste-utility/ste/adapters/stexml"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
)

// Record headers of §2, on every record an adapter writes to <ns>.inbound.
const (
	HeaderParticipant = "ste-participant"
	HeaderAdapter     = "ste-adapter"
	HeaderOriginSHA   = "ste-origin-sha256"
	HeaderOriginRef   = "ste-origin-ref"
	HeaderPossDup     = "ste-origin-possdup"
)

// Signer is an adapter's delegated signer (§2): the BIC it signs as
// (--signer-bic) and its Ed25519 key.
type Signer struct {
	BIC  string
	Key  ed25519.PrivateKey
	Demo bool
}

// LoadSigner is the signer of --signer-bic with --signer-key FILE, or with
// --demo-key the public demo key of the contract (messages.md §2), said in
// the log: anyone can forge with it.
func LoadSigner(bic, keyFile string, demo bool, log *slog.Logger) (*Signer, error) {
	switch {
	case keyFile != "" && demo:
		return nil, errors.New("--signer-key and --demo-key exclude each other")
	case keyFile == "" && !demo:
		return nil, errors.New("a signing key is needed: --signer-key FILE, or --demo-key for demos and tests")
	case demo:
		log.Warn("signing as the delegated signer with its PUBLIC DEMO KEY: anyone can forge with it; for demos and tests only — give --signer-key FILE in production", "signer", bic)
		return &Signer{BIC: bic, Key: refdata.DemoPrivateKey(bic), Demo: true}, nil
	}
	k, err := schemas.LoadUtilityKey(keyFile)
	if err != nil {
		return nil, fmt.Errorf("--signer-key: %v", err)
	}
	log.Info("delegated signer key loaded", "file", keyFile, "signer", bic)
	return &Signer{BIC: bic, Key: k}, nil
}

// Check is the start check of §4.1 and §5.2: the signer's row in reference
// data is an ACTIVE SIGNER holding the key's public half.
func (s *Signer) Check(set *refdata.Set) error {
	return refdata.CheckDelegateSigner(set, s.BIC, s.Key.Public().(ed25519.PublicKey))
}

// KeepRefdata keeps an adapter's participant reference data in ref as
// topics.KeepRefdata reads it, each set checked against the signer's row
// (Check). A first set that fails the check is sent to fatal and kept
// out: the process refuses to start (§4.1, §5.2); a later one that fails
// is logged and applied (the messages signed meanwhile are NACKed
// SIGNATURE). first runs once, when ref is first set. Until ctx ends.
func (s *Signer) KeepRefdata(ctx context.Context, k kafkaconn.Config, ns string, ref *atomic.Pointer[refdata.Set],
	fatal chan<- error, log *slog.Logger, first func(*refdata.Set)) {
	var checked bool // only this goroutine's set calls touch it
	topics.KeepRefdata(ctx, k, ns, func(r *refdata.Set) {
		if err := s.Check(r); err != nil {
			if !checked {
				select {
				case fatal <- err:
				default:
				}
				return
			}
			log.Error("the signer's row no longer holds its key: messages signed now will be NACKed SIGNATURE", "err", err)
		}
		checked = true
		if ref.Swap(r) == nil {
			first(r)
		}
	}, log)
}

// Retry runs f, each try bounded by 30 s and a second after the last,
// until it succeeds (a transient fault is survived): false when ctx ended
// first. A failure is logged to log as "<what>; trying again".
func Retry(ctx context.Context, log *slog.Logger, what string, f func(context.Context) error) bool {
	for ctx.Err() == nil {
		fctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := f(fctx)
		cancel()
		if err == nil {
			return true
		}
		log.Warn(what+"; trying again", "err", err)
		Sleep(ctx, time.Second)
	}
	return false
}

// Sleep waits d, or until ctx ends.
func Sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// Enabled says whether participant p lists the signer in its signers
// (messages.md §8): only then may the adapter sign for it.
func (s *Signer) Enabled(p refdata.Participant) bool { return p.HasSigner(s.BIC) }

// Build writes and signs a record as this signer (stexml.Build with
// Header.Signer set).
func (s *Signer) Build(h stexml.Header, body []stexml.Field) (*stexml.Record, error) {
	h.Signer = s.BIC
	return stexml.Build(h, body, s.Key)
}

// Origin is the standard message as received: its exact bytes and its
// reference (§2: FIX SenderCompID:TargetCompID:MsgSeqNum; ISO keyid:nonce).
type Origin struct {
	Bytes   []byte
	Ref     string
	PossDup bool
}

// SHA256 is the ste-origin-sha256 value: lower-case hex.
func (o Origin) SHA256() string {
	s := sha256.Sum256(o.Bytes)
	return hex.EncodeToString(s[:])
}

// Submission is what one standard message became: its origin, the journal
// entries describing its records, and the records in the order they are
// produced.
type Submission struct {
	Adapter     string // journal.ISO20022 or journal.FIX44
	Participant string // the authenticated BIC: the records' key and ste-participant
	Origin      Origin
	Journal     []journal.Entry
	Records     []*stexml.Record
}

// Published is where a record landed on <ns>.inbound.
type Published struct {
	Partition int32 `json:"partition"`
	Offset    int64 `json:"offset"`
}

// ErrUnavailable: the brokers did not acknowledge within the produce timeout.
var ErrUnavailable = errors.New("the brokers did not acknowledge in time")

// Publisher produces submissions to the namespace's topics at the ack
// point of §4.4 and §5.2.
type Publisher struct {
	Names   topology.Names
	Client  *kgo.Client // acks=all, idempotent (topics.Client)
	Journal *journal.Journal
	// Timeout is --produce-timeout (default 10 s).
	Timeout time.Duration
}

// Publish writes, in this order and each acknowledged before the next is
// written: the original bytes on <ns>.adapters.origin (key: their digest),
// the journal entries, then the records on <ns>.inbound keyed by the
// participant with the headers of §2. It returns once the brokers
// acknowledged every record — the ack point — or ErrUnavailable past the
// timeout (then something may have been published; the same message again
// yields the same bytes, an exact duplicate).
func (p *Publisher) Publish(ctx context.Context, s Submission) ([]Published, error) {
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	digest := s.Origin.SHA256()
	first := append([]*kgo.Record{{Topic: p.Names.AdaptersOrigin(), Key: []byte(digest), Value: s.Origin.Bytes}},
		p.Journal.Records(s.Journal...)...)
	// The origin first, then the journal: the one produce request carries
	// both, and nothing of the STE records leaves before both are acknowledged.
	if err := produceWait(ctx, p.Client, first); err != nil {
		return nil, fmt.Errorf("%w: origin and journal: %v", ErrUnavailable, err)
	}
	headers := []kgo.RecordHeader{
		{Key: HeaderParticipant, Value: []byte(s.Participant)},
		{Key: HeaderAdapter, Value: []byte(s.Adapter)},
		{Key: HeaderOriginSHA, Value: []byte(digest)},
		{Key: HeaderOriginRef, Value: []byte(s.Origin.Ref)},
	}
	if s.Origin.PossDup {
		headers = append(headers, kgo.RecordHeader{Key: HeaderPossDup, Value: []byte("Y")})
	}
	recs := make([]*kgo.Record, len(s.Records))
	for i, r := range s.Records {
		recs[i] = &kgo.Record{Topic: p.Names.Inbound(), Key: []byte(s.Participant), Value: r.Bytes, Headers: headers}
	}
	if err := produceWait(ctx, p.Client, recs); err != nil {
		return nil, fmt.Errorf("%w: inbound: %v", ErrUnavailable, err)
	}
	out := make([]Published, len(recs))
	for i, r := range recs {
		out[i] = Published{Partition: r.Partition, Offset: r.Offset}
	}
	return out, nil
}

// produceWait produces recs and waits for every acknowledgement, or for ctx
// to end — whichever comes first: an idempotent producer keeps a record it
// may have sent until the brokers answer (franz-go does not fail it when
// its context ends), and the participant's answer cannot wait for that.
// Records not acknowledged in time may still be written later: the same
// message again is an exact duplicate.
func produceWait(ctx context.Context, cl *kgo.Client, recs []*kgo.Record) error {
	var mu sync.Mutex
	var first error
	left := len(recs)
	done := make(chan struct{})
	for _, r := range recs {
		cl.Produce(ctx, r, func(_ *kgo.Record, err error) {
			mu.Lock()
			defer mu.Unlock()
			if err != nil && first == nil {
				first = err
			}
			if left--; left == 0 {
				close(done)
			}
		})
	}
	select {
	case <-done:
		mu.Lock()
		defer mu.Unlock()
		return first
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Translation describes a record for the journal: what the adapter made it
// from (§1). Its digests are the record's own.
func Translation(adapter, participant string, rec *stexml.Record, h stexml.Header, body []stexml.Field, originalIDs []string, origin Origin) *journal.Translation {
	k := stexml.Key(body)
	rs := sha256.Sum256(rec.Bytes)
	t := &journal.Translation{
		Adapter: adapter, Participant: participant, MsgId: h.MsgId, MsgType: h.MsgType, Function: h.Function,
		RelatedMsgId: h.RelatedMsgId, Created: h.Created, OriginalIDs: originalIDs,
		TradeKey: k.TradeKey().String(),
		Key: journal.KeyFields{TradeRef: k.TradeRef, TradeDate: k.TradeDate, ISIN: k.ISIN, Side: k.Side,
			Broker: k.Broker, InvMgr: k.InvMgr},
		SignedSHA256: hex.EncodeToString(rec.SignedSHA256[:]),
		RecordSHA256: hex.EncodeToString(rs[:]),
		OriginSHA256: origin.SHA256(),
	}
	if a := stexml.Get(body, "Account"); a != "" {
		t.Accounts = []string{a}
	}
	return t
}
