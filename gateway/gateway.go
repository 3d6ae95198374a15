// Package gateway is `ste gateway`, the participants' HTTPS interface
// (docs/spec/gateway.md): requests signed with RFC 9421 HTTP Message Signatures under
// the participant's own Ed25519 key from reference data; submit (to
// <ns>.inbound), receive its own outputs (from <ns>.outbound, by cursor,
// with long polls), ask its trades' state and what is missing, fetch the
// utility's keys. It holds no state of its own: nonces are shared through
// <ns>.gateway-nonces and cursors are positions on <ns>.outbound, so any
// number of instances serve behind a load balancer.
package gateway

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/trust"
)

// DefaultAddr is where the gateway listens unless told otherwise: loopback,
// where plain HTTP is allowed.
const DefaultAddr = "127.0.0.1:8443"

// DefaultMetricsAddr serves /metrics, on loopback unless told otherwise
// (participants never see it on the gateway's own port).
const DefaultMetricsAddr = "127.0.0.1:9465"

// DefaultAtRiskLead is how long before its market's cutoff an unlocked
// trade is at risk (gateway.md §4, --at-risk-lead).
const DefaultAtRiskLead = 2 * time.Hour

// Limits of docs/spec/gateway.md §2 and §5.
const (
	MaxBody      = 8 << 20
	MaxMessages  = 1000
	submitWait   = 10 * time.Second
	maxLongPoll  = 30
	defaultLimit = 100
)

// Options configure one gateway instance; Validate checks them once.
type Options struct {
	Kafka     kafkaconn.Config
	Namespace string
	Addr      string
	// PublicURL is the scheme and authority participants reach the gateway
	// at, when a TLS-terminating proxy changes them ("" = the request's
	// own scheme and Host header).
	PublicURL       string
	TLSCert, TLSKey string
	// InsecureHTTP serves plain HTTP beyond loopback (behind a TLS proxy).
	InsecureHTTP bool
	MetricsAddr  string // "" = no metrics listener
	UtilityBIC   string
	// RatePerSecond and Burst bound each participant's authenticated
	// requests on this instance (a token bucket).
	RatePerSecond float64
	Burst         int
	// Trades answers trade lookups; nil: the lookup through the instances
	// that own the match partitions (instance/lookup, with LookupToken, the
	// utility's lookup token: trust.Secret.Token(lookup.TokenPurpose)).
	Trades      TradeLookup
	LookupToken string
	// LookupSecret is the utility's shared secret: with it the lookup
	// believes only registry entries the utility proved (an instance's
	// announcement forged on <ns>.instances is never asked).
	LookupSecret *trust.Secret
	// AtRiskLead: an unlocked trade is at risk from this long before its
	// market's cutoff (gateway.md §4; default DefaultAtRiskLead).
	AtRiskLead time.Duration
	Logger     *slog.Logger
	Now        func() time.Time
	// BodyReadTimeout bounds the reading of a request's body, counted from
	// the moment its handling starts (default 10 s; a long poll's wait is
	// not counted: the deadline is lifted once the body is read).
	BodyReadTimeout time.Duration
	// MaxBodyBytesInFlight bounds the bodies read at once, by their
	// declared length (a body of unknown length counts as MaxBody):
	// default 64 MiB. A request waits for room up to BodyReadTimeout, then
	// gets 503.
	MaxBodyBytesInFlight int64
}

// Validate checks the options and says which one is wrong.
func (o *Options) Validate() error {
	if o.Addr == "" {
		o.Addr = DefaultAddr
	}
	if o.UtilityBIC == "" {
		o.UtilityBIC = refdata.DefaultUtilityBIC
	}
	if o.RatePerSecond <= 0 {
		o.RatePerSecond = 50
	}
	if o.Burst <= 0 {
		o.Burst = 100
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.AtRiskLead < 0 {
		return errors.New("--at-risk-lead must be a positive duration (e.g. 2h, 90m)")
	}
	if o.AtRiskLead == 0 {
		o.AtRiskLead = DefaultAtRiskLead
	}
	if o.BodyReadTimeout <= 0 {
		o.BodyReadTimeout = 10 * time.Second
	}
	if o.MaxBodyBytesInFlight <= 0 {
		o.MaxBodyBytesInFlight = 64 << 20
	}
	if (o.TLSCert == "") != (o.TLSKey == "") {
		return errors.New("--tls-cert and --tls-key go together")
	}
	if _, _, err := net.SplitHostPort(o.Addr); err != nil {
		return fmt.Errorf("--addr %q: want host:port", o.Addr)
	}
	if !IsLoopback(o.Addr) && o.TLSCert == "" && !o.InsecureHTTP {
		return fmt.Errorf("--addr %s is not a loopback address: plain HTTP is served on loopback only; give --tls-cert and --tls-key, or --insecure-http behind a TLS-terminating proxy", o.Addr)
	}
	if o.PublicURL != "" {
		u, err := url.Parse(o.PublicURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" ||
			(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil || u.Fragment != "" {
			return fmt.Errorf("--public-url %q: want scheme://host[:port] (http or https, no path)", o.PublicURL)
		}
	}
	return nil
}

// IsLoopback reports whether addr (host:port) names a loopback address.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// Server is one gateway instance.
type Server struct {
	o       Options
	names   topology.Names
	log     *slog.Logger
	cl      *kgo.Client // producer of batches to inbound, admin
	single  *kgo.Client // producer of nonce records and single messages
	adm     *kadm.Client
	nonces  *nonces
	ref     atomic.Pointer[refdata.Set]
	limiter *limiter
	metrics *metrics
	// inflight is the room left for bodies being read (Options.MaxBodyBytesInFlight).
	inflight *bodyBudget
	// demoKeyed: participants holding their public demo keys, last warned of.
	demoKeyed atomic.Int32
	origin    *origin // fixed by --public-url, else per request
	tls       bool
	trades    TradeLookup
	parts     atomic.Int32 // partitions of <ns>.outbound, once known
	tails     *tails       // one consumer per partition of <ns>.outbound read
	starts    atomic.Pointer[startOffsets]
	// refreshing: a refresh of starts runs beside the reads.
	refreshing atomic.Bool

	// front is set for an adapter's Front (front.go): its outputs topic and
	// answer; nil for the gateway.
	front *frontParts
}

// newServer is a Server of validated options, without its Kafka parts.
func newServer(o Options) *Server {
	s := &Server{o: o, names: topology.Names{NS: o.Namespace}, log: o.Logger, tls: o.TLSCert != ""}
	s.metrics = newMetrics()
	s.limiter = newLimiter(o.RatePerSecond, o.Burst, o.Now)
	s.inflight = newBodyBudget(o.MaxBodyBytesInFlight)
	return s
}

// Serve runs the gateway until ctx ends. ready, when set, gets the URL it
// serves at once it listens.
func Serve(ctx context.Context, o Options, ready func(url string)) error {
	if err := o.Validate(); err != nil {
		return err
	}
	s := newServer(o)
	if o.PublicURL != "" {
		u, _ := url.Parse(o.PublicURL)
		s.origin = &origin{scheme: u.Scheme, authority: u.Host}
	}
	// Producers that do not linger: a nonce record and a single-message
	// submit are one record each, waited for; a batch's records are
	// produced in one loop that does not block, so with one core (--procs
	// 1, the default) they are all buffered before the producer's
	// goroutine runs and leave in one produce request, with no timer to
	// wait for (with more cores a batch may leave in two). Batches go
	// through a client of their own: a broker answers a connection's
	// requests in order, so a nonce record sent behind a batch of 100
	// would wait for the batch's acknowledgement.
	cl, err := topics.Client(o.Kafka, kgo.ProducerLinger(0))
	if err != nil {
		return err
	}
	defer cl.Close()
	s.cl, s.adm = cl, kadm.NewClient(cl)
	ncl, err := topics.Client(o.Kafka, kgo.ProducerLinger(0))
	if err != nil {
		return err
	}
	defer ncl.Close()
	s.single = ncl
	s.nonces = newNonces(s.names.Nonces(), ncl, s.log)
	s.trades = o.Trades
	if s.trades == nil {
		lc, err := newInstanceLookup(o.Kafka, o.Namespace, o.LookupToken, o.LookupSecret, s.log)
		if err != nil {
			return err
		}
		defer lc.Close()
		s.trades = lc
	}

	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return fmt.Errorf("gateway: listen on %s: %w", o.Addr, err)
	}
	scheme := "http"
	if s.tls {
		cert, err := tls.LoadX509KeyPair(o.TLSCert, o.TLSKey)
		if err != nil {
			ln.Close()
			return fmt.Errorf("--tls-cert/--tls-key: %v", err)
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
		scheme = "https"
	} else if !IsLoopback(o.Addr) {
		s.log.Warn("the gateway serves plain HTTP beyond loopback (--insecure-http): only a TLS-terminating proxy may stand in front of it", "addr", ln.Addr().String())
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.tails = newTails(ctx, o.Kafka, s.names.Outbound(), s.adm, s.log)
	go s.followRefdata(ctx)
	go s.nonces.follow(ctx, o.Kafka)

	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelDebug)}
	var msrv *http.Server
	metricsAt := ""
	if o.MetricsAddr != "" {
		mln, err := net.Listen("tcp", o.MetricsAddr)
		if err != nil {
			ln.Close()
			return fmt.Errorf("gateway: --metrics-addr %s: %w", o.MetricsAddr, err)
		}
		if !IsLoopback(o.MetricsAddr) {
			s.log.Warn("the gateway's /metrics is served beyond loopback without authentication: make sure only monitoring can reach it", "addr", mln.Addr().String())
		}
		metricsAt = mln.Addr().String()
		mux := http.NewServeMux()
		mux.Handle("/metrics", s.metrics.handler())
		msrv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go msrv.Serve(mln)
		defer msrv.Close()
	}
	u := scheme + "://" + ln.Addr().String()
	s.log.Info("gateway listening", "url", u, "namespace", o.Namespace, "public_url", o.PublicURL, "metrics", metricsAt)
	if ready != nil {
		ready(u)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, c := context.WithTimeout(context.Background(), 5*time.Second)
		defer c()
		srv.Shutdown(sctx)
		return nil
	case err := <-errc:
		return err
	}
}

// followRefdata keeps the participants' reference data, retrying while the
// brokers are away: the gateway is ready once it has read it, and changes
// apply as they are read.
func (s *Server) followRefdata(ctx context.Context) {
	topics.KeepRefdata(ctx, s.o.Kafka, s.o.Namespace, s.setRefdata, s.log)
}

// setRefdata applies reference data read: the gateway is ready with the
// first; participants holding their public demo keys are warned of, at the
// first and whenever their number changes.
func (s *Server) setRefdata(r *refdata.Set) {
	if n := len(refdata.DemoKeyed(r)); n != int(s.demoKeyed.Swap(int32(n))) || s.ref.Load() == nil {
		refdata.WarnDemoKeys(r, s.log)
	}
	if s.ref.Swap(r) == nil {
		s.metrics.ready.Set(1)
		s.log.Info("gateway ready: participant reference data read", "participants", len(r.Participants()))
	}
}

// ServeHTTP routes first (404, 405), then authenticates (401), then the
// route checks its body (docs/spec/gateway.md §1).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	route, methods := routeOf(r.URL.Path)
	if route == "" {
		s.answer(w, "none", http.StatusNotFound, errorBody{Error: "not_found"})
		return
	}
	if !strings.Contains(methods, r.Method) {
		w.Header().Set("Allow", methods)
		s.answer(w, route, http.StatusMethodNotAllowed, errorBody{Error: "method_not_allowed"})
		return
	}
	switch route {
	case "health":
		if s.ref.Load() == nil {
			s.answer(w, route, http.StatusServiceUnavailable, map[string]string{"status": "starting"})
			return
		}
		s.answer(w, route, http.StatusOK, map[string]string{"status": "ok"})
		return
	case "keys":
		s.serveKeys(w, r)
		return
	}
	set := s.ref.Load()
	if set == nil {
		s.answer(w, route, http.StatusServiceUnavailable, errorBody{Error: "unavailable"})
		return
	}
	if overlapsSpend(route, r) {
		s.serveSpending(w, r, route, set)
		return
	}
	bic, _, b, ok := s.authenticate(w, r, route, set, MaxBody)
	if !ok {
		return
	}
	defer b.release()
	switch route {
	case "messages":
		s.serveSubmit(w, r, bic, b)
	case "outputs":
		s.serveOutputs(w, r, bic)
	case "trade", "trades":
		s.serveTrades(w, r, route, bic, set)
	}
}

// serveSpending answers a work queue question (overlapsSpend) while its
// nonce is spent (overlap.go): nothing is written before it is.
func (s *Server) serveSpending(w http.ResponseWriter, r *http.Request, route string, set *refdata.Set) {
	bic, sg, p, b, ok := s.admit(w, r, route, set, MaxBody)
	if !ok {
		return
	}
	defer b.release()
	type spent struct {
		reason string
		err    error
	}
	ch := make(chan spent, 1)
	go func() {
		reason, err := s.spend(r, sg, p, b)
		ch <- spent{reason, err}
	}()
	aw := &afterSpend{w: w, h: http.Header{}, settle: func(w http.ResponseWriter) bool {
		x := <-ch
		return s.settled(w, route, x.reason, x.err)
	}}
	defer aw.confirm() // the spend is waited for, whatever was written
	s.serveTrades(aw, r, route, bic, set)
}

// authenticate runs gateway.md §1 on a request, answering it itself when
// it is refused. Everything the headers decide is decided before a byte of
// the body is read (issue 45): the signature — over the covered
// Content-Digest header, not the body — the participant, the window, its
// rate, and a declared length over limit. A stranger's body is never read,
// buffered or hashed. The body is then read within a deadline, against a
// budget of bodies in flight, through the digests its header names, and
// the nonce spent. ok is false when the request was answered; otherwise
// the caller releases b. The gateway and a Front (ste iso20022) run this
// one sequence.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request, route string, set *refdata.Set,
	limit int64) (bic, nonce string, b *body, ok bool) {
	bic, sg, p, b, ok := s.admit(w, r, route, set, limit)
	if !ok {
		return "", "", nil, false
	}
	reason, err := s.spend(r, sg, p, b)
	if !s.settled(w, route, reason, err) {
		b.release()
		return "", "", nil, false
	}
	return bic, sg.nonce, b, true
}

// admit is authenticate up to the nonce: the request's signature,
// participant, window, rate and body. ok is false when the request was
// answered; otherwise the caller spends the nonce (spend, then settled)
// and releases b.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, route string, set *refdata.Set,
	limit int64) (bic string, sg *signed, p refdata.Participant, b *body, ok bool) {
	fail := func() (string, *signed, refdata.Participant, *body, bool) {
		return "", nil, refdata.Participant{}, nil, false
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(s.o.BodyReadTimeout))
	sg, p, reason := s.verifyHeaders(r, set)
	if reason != "" {
		s.metrics.refusals.WithLabelValues(reason).Inc()
		unread(w, r)
		s.answer(w, route, http.StatusUnauthorized, errorBody{Error: "unauthenticated", Reason: reason})
		return fail()
	}
	bic = p.BIC
	// The rate is the participant's (its signature verified) and is taken
	// before its nonce is spent: a request refused 429 writes no nonce record.
	if wait, ok := s.limiter.allow(bic); !ok {
		w.Header().Set("Retry-After", fmt.Sprint(wait))
		unread(w, r)
		s.answer(w, route, http.StatusTooManyRequests, errorBody{Error: "rate_limited"})
		return fail()
	}
	if r.ContentLength > limit {
		unread(w, r)
		s.answer(w, route, http.StatusRequestEntityTooLarge, errorBody{Error: "too_large"})
		return fail()
	}
	weight := r.ContentLength
	if weight < 0 {
		weight = limit
	}
	if !s.inflight.acquire(r.Context(), weight, s.o.BodyReadTimeout, s.metrics.bodiesWaiting) {
		unread(w, r)
		s.answer(w, route, http.StatusServiceUnavailable, errorBody{Error: "unavailable"})
		return fail()
	}
	b, err := readBody(r.Body, r.ContentLength, r.Header, limit)
	s.inflight.release(weight)
	if err != nil {
		b.release()
		unread(w, r)
		s.answer(w, route, http.StatusBadRequest, errorBody{Error: "bad_request"})
		return fail()
	}
	if b.size > limit {
		// A body of undeclared length over the limit: not read further, so
		// its digest is not checked; refused by size.
		b.release()
		unread(w, r)
		s.answer(w, route, http.StatusRequestEntityTooLarge, errorBody{Error: "too_large"})
		return fail()
	}
	// Read: a long poll's wait must not be cut by the body's deadline.
	_ = rc.SetReadDeadline(time.Time{})
	return bic, sg, p, b, true
}

// settled answers a request whose nonce was not spent (reason and err from
// spend) as §1 wants, and says whether it may be answered.
func (s *Server) settled(w http.ResponseWriter, route, reason string, err error) bool {
	if err != nil {
		s.log.Warn("nonce check failed: brokers unavailable", "err", err)
		s.answer(w, route, http.StatusServiceUnavailable, errorBody{Error: "unavailable"})
		return false
	}
	if reason != "" {
		s.metrics.refusals.WithLabelValues(reason).Inc()
		s.answer(w, route, http.StatusUnauthorized, errorBody{Error: "unauthenticated", Reason: reason})
		return false
	}
	return true
}

// routeOf names the route of a path and the methods it takes.
func routeOf(path string) (route, methods string) {
	switch path {
	case "/v1/health":
		return "health", "GET, HEAD"
	case "/v1/keys":
		return "keys", "GET, HEAD"
	case "/v1/messages":
		return "messages", "POST"
	case "/v1/outputs":
		return "outputs", "GET, HEAD"
	case "/v1/trades":
		return "trades", "GET, HEAD"
	}
	if k, ok := strings.CutPrefix(path, "/v1/trades/"); ok && k != "" && !strings.Contains(k, "/") {
		return "trade", "GET, HEAD"
	}
	return "", ""
}

// verifyHeaders runs the checks of docs/spec/gateway.md §1 that the headers
// decide, in their order — missing_signature, malformed, components,
// unknown_participant, stale, bad_signature — and returns the first that
// fails ("" when the signature is the participant's). The signature covers
// the Content-Digest header, so it is checked before the body is read; the
// body is then held to that header (spend).
func (s *Server) verifyHeaders(r *http.Request, set *refdata.Set) (*signed, refdata.Participant, string) {
	sg, reason := parseSignature(r.Header)
	if reason != "" {
		return nil, refdata.Participant{}, reason
	}
	// A body of unknown length (chunked) counts as a body: it needs
	// content-digest covered, like any other.
	if reason := sg.componentsReason(r, r.ContentLength); reason != "" {
		return nil, refdata.Participant{}, reason
	}
	p, ok := set.Participant(sg.keyid)
	if !ok || p.Status != refdata.Active {
		return nil, refdata.Participant{}, ReasonUnknownParticipant
	}
	if !createdInWindow(s.o.Now(), sg.created) || sg.hasExpires && s.o.Now().Unix() > sg.expires {
		return nil, refdata.Participant{}, ReasonStale
	}
	msg, ok := sg.base(r, s.originOf(r))
	if !ok || !verifies(p, msg, sg.sig) {
		return nil, refdata.Participant{}, ReasonBadSignature
	}
	return sg, p, ""
}

// spend runs the last checks of §1 on the body read: digest_mismatch, then
// replayed (the nonce is spent here, once signature and digest verified).
// err is a broker fault while spending the nonce.
func (s *Server) spend(r *http.Request, sg *signed, p refdata.Participant, b *body) (reason string, err error) {
	if reason := digestReason(r.Header, b); reason != "" {
		return reason, nil
	}
	fresh, err := s.nonces.use(r.Context(), p.BIC, sg.nonce)
	if err != nil {
		return "", err
	}
	if !fresh {
		return ReasonReplayed, nil
	}
	return "", nil
}

// unread marks an answer given without reading a body the request has: the
// connection is closed after it rather than drained for the next request.
func unread(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength != 0 {
		w.Header().Set("Connection", "close")
	}
}

func (s *Server) originOf(r *http.Request) origin {
	if s.origin != nil {
		return *s.origin
	}
	scheme := "http"
	if s.tls {
		scheme = "https"
	}
	return origin{scheme: scheme, authority: r.Host}
}

// readBody reads a request body after its signature verified: at most
// limit+1 bytes (one more tells it is over), into a buffer that grows as
// bytes arrive — never allocated from the declared length — and through the
// digests its Content-Digest header names (sha-256, sha-512), computed as
// it streams by.
func readBody(rc io.Reader, length int64, h http.Header, limit int64) (*body, error) {
	b := &body{}
	for _, alg := range digestAlgs(h) {
		switch alg {
		case "sha-256":
			b.h256 = sha256.New()
		case "sha-512":
			b.h512 = sha512.New()
		}
	}
	first := int64(firstRead)
	if length >= 0 && length+1 < first {
		first = length + 1
	}
	b.data = b.buffer(int(first))
	for b.size <= limit {
		if len(b.data) == cap(b.data) {
			b.data = slices.Grow(b.data, int(min(int64(cap(b.data)), limit+1-int64(len(b.data)))))
		}
		room := b.data[len(b.data):min(cap(b.data), int(limit+1))]
		n, err := rc.Read(room)
		if n > 0 {
			chunk := room[:n]
			b.data = b.data[:len(b.data)+n]
			b.size += int64(n)
			if b.h256 != nil {
				b.h256.Write(chunk)
			}
			if b.h512 != nil {
				b.h512.Write(chunk)
			}
		}
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
	return b, nil
}

// firstRead is the first buffer's size for a body of unknown or larger
// length; it doubles as bytes arrive.
const firstRead = 64 << 10

// bodies are buffers of request bodies up to pooledBody bytes, used again
// once a request is answered: a batch's ~150 KB was the largest allocation
// of every submit, and the garbage collector's work with it.
var bodies sync.Pool

const pooledBody = 1 << 20

// buffer is an empty buffer of capacity n, pooled when small enough.
func (b *body) buffer(n int) []byte {
	if n <= pooledBody {
		if p, ok := bodies.Get().(*[]byte); ok && cap(*p) >= n {
			b.pooled = p
			return (*p)[:0]
		} else if ok {
			bodies.Put(p)
		}
		buf := make([]byte, 0, max(n, firstRead))
		b.pooled = &buf
		return buf
	}
	return make([]byte, 0, n)
}

// release gives the buffer back unless something still reads it (records
// of a submit the brokers have not acknowledged: kept).
func (b *body) release() {
	if b == nil || b.pooled == nil || b.inUse || cap(b.data) > pooledBody {
		return
	}
	*b.pooled = b.data[:0]
	bodies.Put(b.pooled)
	b.pooled, b.data = nil, nil
}

type errorBody struct {
	Error  string `json:"error"`
	Reason string `json:"reason,omitempty"`
	Line   int    `json:"line,omitempty"`
}

// answer writes a JSON answer and counts it.
func (s *Server) answer(w http.ResponseWriter, route string, status int, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	s.answerJSON(w, route, status, b.Bytes())
}

// answerJSON writes an encoded JSON answer and counts it: with its length,
// in one write (an answer written piecemeal past net/http's 2 KB buffer
// went out chunked, in more writes).
func (s *Server) answerJSON(w http.ResponseWriter, route string, status int, body []byte) {
	if !confirmed(w) {
		return // refused when its nonce was spent, and answered so
	}
	s.metrics.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

// serveKeys answers GET /v1/keys: the utility's public key(s) from its row.
func (s *Server) serveKeys(w http.ResponseWriter, _ *http.Request) {
	set := s.ref.Load()
	if set == nil {
		s.answer(w, "keys", http.StatusServiceUnavailable, errorBody{Error: "unavailable"})
		return
	}
	keys := []string{}
	if p, ok := set.Participant(s.o.UtilityBIC); ok {
		for _, k := range p.Keys {
			keys = append(keys, base64Std(k))
		}
	}
	s.answer(w, "keys", http.StatusOK, struct {
		Utility string   `json:"utility"`
		Keys    []string `json:"keys"`
	}{s.o.UtilityBIC, keys})
}
