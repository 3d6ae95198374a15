package gateway

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/schemas/xmltext"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
)

// A Front is the gateway's participant-facing machinery for another HTTPS
// service of the utility — `ste iso20022` (docs/spec/adapters.md §5.2) —
// so that it authenticates exactly as the gateway does and serves outputs
// exactly as GET /v1/outputs does, with the same code:
//
//   - VerifyHeaders and Spend run gateway.md §1's checks in their order —
//     the headers' before a byte of the body is read, then the digest and
//     the nonce, spent in the gateway's shared nonce space
//     (<ns>.gateway-nonces): a nonce used at the gateway is replayed at the
//     Front, and the reverse;
//   - ServeOutputs is gateway.md §3 (cursors, limits, long polls,
//     isolation, errors) over another topic keyed by BIC, with the Front's
//     own items.
type Front struct {
	s *Server
}

// FrontItem is one output a Front serves: the record's fields its Item
// function chose. Cursor is the gateway's.
type FrontItem struct {
	Cursor, MsgId, MsgType, Extra, XML string
}

// FrontOptions configure a Front.
type FrontOptions struct {
	Kafka     kafkaconn.Config
	Namespace string
	// PublicURL and TLS: where participants reach the service (as the
	// gateway's --public-url; TLS true when it serves HTTPS itself).
	PublicURL string
	TLS       bool
	// OutputsTopic is the topic ServeOutputs reads (keyed by BIC).
	OutputsTopic string
	// Item reads a record of OutputsTopic as an output of bic: false when it
	// is not one (the record's key must be bic; the Front checks that first).
	Item func(rec *kgo.Record, bic string) (FrontItem, bool)
	// Page is the answer of a read: the items and the next cursor.
	Page func(items []FrontItem, next string) any
}

type frontParts struct {
	topic string
	item  func(rec *kgo.Record, bic string) (FrontItem, bool)
	page  func(outs []outputJSON, next string) any
}

// NewFront starts a Front's Kafka parts (the nonce follower, the outputs
// tails) until ctx ends. opts are the gateway's options the Front uses:
// Logger, Now, RatePerSecond and Burst (its Kafka, Namespace and PublicURL
// are o's).
func NewFront(ctx context.Context, o FrontOptions, opts Options) (*Front, error) {
	opts.Kafka, opts.Namespace = o.Kafka, o.Namespace
	opts.PublicURL = o.PublicURL
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	s := &Server{o: opts, names: topology.Names{NS: o.Namespace}, log: opts.Logger, tls: o.TLS}
	s.metrics = newMetrics()
	s.limiter = newLimiter(opts.RatePerSecond, opts.Burst, opts.Now)
	if o.PublicURL != "" {
		u, _ := url.Parse(o.PublicURL)
		s.origin = &origin{scheme: u.Scheme, authority: u.Host}
	}
	cl, err := topics.Client(o.Kafka, kgo.ProducerLinger(0))
	if err != nil {
		return nil, err
	}
	s.cl, s.single, s.adm = cl, cl, kadm.NewClient(cl)
	s.nonces = newNonces(s.names.Nonces(), cl, s.log)
	s.front = &frontParts{topic: o.OutputsTopic, item: o.Item}
	if o.Page != nil {
		s.front.page = func(outs []outputJSON, next string) any {
			items := make([]FrontItem, len(outs))
			for i, x := range outs {
				items[i] = FrontItem{Cursor: x.Cursor, MsgId: x.MsgId, MsgType: x.MsgType, Extra: x.Extra, XML: x.XML}
			}
			return o.Page(items, next)
		}
	}
	s.tails = newTails(ctx, o.Kafka, o.OutputsTopic, s.adm, s.log)
	go s.nonces.follow(ctx, o.Kafka)
	go func() {
		<-ctx.Done()
		cl.Close()
	}()
	return &Front{s: s}, nil
}

// Verified is a request whose signature verified on its headers alone:
// gateway.md §1's checks up to bad_signature (the signature covers the
// Content-Digest header, not the body). Only then is its body read (no
// stranger's body is read or buffered), and Spend holds it to that header
// and spends the nonce.
type Verified struct {
	f  *Front
	sg *signed
	p  refdata.Participant
}

// BIC is the participant whose signature verified.
func (v *Verified) BIC() string { return v.p.BIC }

// Nonce is the signature's nonce (an adapter's ste-origin-ref, adapters.md §2).
func (v *Verified) Nonce() string { return v.sg.nonce }

// VerifyHeaders runs gateway.md §1's checks that the headers decide, in
// their order: missing_signature, malformed, components, unknown_participant,
// stale, bad_signature; the reason of the first that fails, or the request
// verified so far. (The same checks as Server.authenticate, whose
// sequence this follows up to the digest.)
func (f *Front) VerifyHeaders(r *http.Request, set *refdata.Set) (*Verified, string) {
	v, reason := f.verifyHeaders(r, set)
	if reason != "" {
		f.s.metrics.refusals.WithLabelValues(reason).Inc()
	}
	return v, reason
}

func (f *Front) verifyHeaders(r *http.Request, set *refdata.Set) (*Verified, string) {
	s := f.s
	sg, reason := parseSignature(r.Header)
	if reason != "" {
		return nil, reason
	}
	// A body of unknown length (chunked) counts as a body: content-digest
	// must be covered.
	n := r.ContentLength
	if n < 0 {
		n = 1
	}
	if reason := sg.componentsReason(r, n); reason != "" {
		return nil, reason
	}
	p, ok := set.Participant(sg.keyid)
	if !ok || p.Status != refdata.Active {
		return nil, ReasonUnknownParticipant
	}
	now := s.o.Now().Unix()
	if d := now - sg.created; d > int64(createdWindow/time.Second) || d < -int64(createdWindow/time.Second) ||
		sg.hasExpires && now > sg.expires {
		return nil, ReasonStale
	}
	msg, ok := sg.base(r, s.originOf(r))
	if !ok || !verifies(p, msg, sg.sig) {
		return nil, ReasonBadSignature
	}
	return &Verified{f: f, sg: sg, p: p}, ""
}

// Spend runs the last checks of §1 on the body read: digest_mismatch, then
// replayed — the nonce spent in the gateway's nonce space, once signature
// and digest verified. err is a broker fault while spending it (503).
func (v *Verified) Spend(r *http.Request, data []byte) (reason string, err error) {
	if reason := digestReason(r.Header, &body{data: data, size: int64(len(data))}); reason != "" {
		v.f.s.metrics.refusals.WithLabelValues(reason).Inc()
		return reason, nil
	}
	fresh, err := v.f.s.nonces.use(r.Context(), v.p.BIC, v.sg.nonce)
	if err != nil {
		return "", err
	}
	if !fresh {
		v.f.s.metrics.refusals.WithLabelValues(ReasonReplayed).Inc()
		return ReasonReplayed, nil
	}
	return "", nil
}

// Allow is the gateway's per-participant rate limit: the seconds to wait
// (Retry-After) when the request is over it.
func (f *Front) Allow(bic string) (int, bool) { return f.s.limiter.allow(bic) }

// ServeOutputs answers a read of bic's outputs as GET /v1/outputs does.
func (f *Front) ServeOutputs(w http.ResponseWriter, r *http.Request, bic string) {
	f.s.serveOutputs(w, r, bic)
}

// outputsTopic is the topic GET /v1/outputs reads: <ns>.outbound, or a
// Front's.
func (s *Server) outputsTopic() string {
	if s.front != nil {
		return s.front.topic
	}
	return s.names.Outbound()
}

// outputOf is rec as an output of bic: the gateway's (output), or a
// Front's item.
func (s *Server) outputOf(doc *xmltext.Document, rec *kgo.Record, bic string, n int32) (outputJSON, bool) {
	if s.front == nil {
		return s.output(doc, rec, bic, n)
	}
	if string(rec.Key) != bic {
		return outputJSON{}, false
	}
	it, ok := s.front.item(rec, bic)
	if !ok {
		return outputJSON{}, false
	}
	return outputJSON{Cursor: cursor{parts: n, part: rec.Partition, off: rec.Offset + 1}.String(),
		MsgId: it.MsgId, MsgType: it.MsgType, Extra: it.Extra, XML: it.XML}, true
}
