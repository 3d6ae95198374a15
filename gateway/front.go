package gateway

import (
	"context"
	"net/http"
	"net/url"
	"slices"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/schemas/xmltext"
	"github.com/ste-utility/ste/topics"
)

// A Front is the gateway's participant-facing machinery for another HTTPS
// service of the utility — `ste iso20022` (docs/spec/adapters.md §5.2) —
// so that it authenticates exactly as the gateway does and serves outputs
// exactly as GET /v1/outputs does, with the same code:
//
//   - Authenticate runs gateway.md §1's checks in their order, with the
//     gateway's own code — the headers' before a byte of the body is read,
//     then the digest and the nonce, spent in the gateway's shared nonce
//     space (<ns>.gateway-nonces): a nonce used at the gateway is replayed
//     at the Front, and the reverse;
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
// Logger, Now, RatePerSecond, Burst, BodyReadTimeout and
// MaxBodyBytesInFlight (its Kafka, Namespace and PublicURL are o's).
func NewFront(ctx context.Context, o FrontOptions, opts Options) (*Front, error) {
	opts.Kafka, opts.Namespace = o.Kafka, o.Namespace
	opts.PublicURL = o.PublicURL
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	s := newServer(opts)
	s.tls = o.TLS
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

// Request is a request that passed gateway.md §1: its participant, the
// signature's nonce and its body, read as the gateway reads one.
type Request struct {
	BIC   string // the participant whose signature verified
	Nonce string // the signature's nonce (an adapter's ste-origin-ref, adapters.md §2)
	Body  []byte
}

// Authenticate runs gateway.md §1 on r exactly as the gateway does — the
// same code (Server.authenticate): every check the headers decide before a
// byte of the body is read, the participant's rate, the body read within a
// deadline against the budget of bodies in flight and held to its
// Content-Digest, then the nonce spent in the gateway's nonce space — with
// limit the largest body the service takes. A refused request is answered
// here (ok false), as the gateway answers it, counted under route.
func (f *Front) Authenticate(w http.ResponseWriter, r *http.Request, set *refdata.Set, route string,
	limit int64) (req Request, ok bool) {
	bic, nonce, b, ok := f.s.authenticate(w, r, route, set, limit)
	if !ok {
		return Request{}, false
	}
	defer b.release()
	return Request{BIC: bic, Nonce: nonce, Body: slices.Clone(b.data[:b.size])}, true
}

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
