// Package iso20022 is `ste iso20022` (docs/spec/adapters.md §5): an HTTPS
// endpoint for custodians' ISO 20022 messages. POST /v1/iso20022/messages
// takes a sese.023 (→ an STE SET NEW) or a sese.020 (→ a SET CANCEL),
// authenticated exactly as the gateway authenticates (gateway.Front: RFC
// 9421 under the participant's own key, the gateway's nonce space), signed
// by the adapter as the participant's delegated signer, and answered 202
// only once the brokers acknowledged every record (adapters.Publisher); a
// profile rejection is a synchronous 422 carrying a sese.024 or sese.027.
// GET /v1/iso20022/outputs serves <ns>.iso20022.outbound as the gateway
// serves outputs, which every instance fills from <ns>.outbound through the
// consumer group <ns>.iso20022.v1 (Translator). It keeps nothing local:
// the journal is its only state, so any number of instances run.
package iso20022

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/adapters"
	"github.com/ste-utility/ste/adapters/journal"
	"github.com/ste-utility/ste/adapters/msgid"
	"github.com/ste-utility/ste/adapters/stexml"
	"github.com/ste-utility/ste/gateway"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
)

// DefaultAddr is where `ste iso20022` listens unless told otherwise.
const DefaultAddr = "127.0.0.1:8444"

// Headers of <ns>.iso20022.outbound records (the value is the document).
const (
	HeaderSourceMsgId = "ste-source-msg-id"
	HeaderMsgDef      = "ste-msg-def"
	HeaderTxId        = "ste-tx-id"
)

// Options configure one instance.
type Options struct {
	Kafka           kafkaconn.Config
	Namespace       string
	Addr            string
	PublicURL       string
	TLSCert, TLSKey string
	InsecureHTTP    bool
	Signer          *adapters.Signer
	ProduceTimeout  time.Duration
	// MetricsAddr, if set, serves GET /metrics (Prometheus; no
	// authentication: loopback unless only monitoring reaches it).
	MetricsAddr string
	Logger      *slog.Logger
	Now         func() time.Time
}

// Validate checks the options (as the gateway checks its own).
func (o *Options) Validate() error {
	if o.Addr == "" {
		o.Addr = DefaultAddr
	}
	if o.ProduceTimeout <= 0 {
		o.ProduceTimeout = 10 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Signer == nil {
		return errors.New("a signer is needed: --signer-key FILE or --demo-key")
	}
	g := gateway.Options{Addr: o.Addr, PublicURL: o.PublicURL, TLSCert: o.TLSCert, TLSKey: o.TLSKey, InsecureHTTP: o.InsecureHTTP}
	return g.Validate()
}

// Server is one `ste iso20022` instance.
type Server struct {
	o       Options
	names   topology.Names
	log     *slog.Logger
	cl      *kgo.Client
	j       *journal.Journal
	pub     *adapters.Publisher
	front   *gateway.Front
	ref     atomic.Pointer[refdata.Set]
	synced  atomic.Bool // the journal was read to its end once
	fatal   chan error
	metrics *metrics
}

// Serve runs an instance until ctx ends; ready gets its URL once it listens.
func Serve(ctx context.Context, o Options, ready func(url string)) error {
	if err := o.Validate(); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &Server{o: o, names: topology.Names{NS: o.Namespace}, log: o.Logger, fatal: make(chan error, 1), metrics: newMetrics()}
	if o.MetricsAddr != "" {
		ml, err := net.Listen("tcp", o.MetricsAddr)
		if err != nil {
			return fmt.Errorf("iso20022: --metrics-addr %s: %w", o.MetricsAddr, err)
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", s.metrics.handler())
		ms := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
		go ms.Serve(ml)
		defer ms.Close()
		if !gateway.IsLoopback(ml.Addr().String()) {
			s.log.Warn("ste iso20022 serves /metrics beyond loopback, without authentication: only monitoring may reach it", "addr", ml.Addr().String())
		}
		s.log.Info("ste iso20022 metrics", "url", "http://"+ml.Addr().String()+"/metrics")
	}
	cl, err := topics.Client(o.Kafka, kgo.ProducerLinger(0))
	if err != nil {
		return err
	}
	defer cl.Close()
	s.cl = cl
	s.j = journal.Open(ctx, o.Kafka, s.names.AdaptersJournal(), cl, s.log)
	s.pub = &adapters.Publisher{Names: s.names, Client: cl, Journal: s.j, Timeout: o.ProduceTimeout}
	s.front, err = gateway.NewFront(ctx, gateway.FrontOptions{Kafka: o.Kafka, Namespace: o.Namespace, PublicURL: o.PublicURL,
		TLS: o.TLSCert != "", OutputsTopic: s.names.ISO20022Outbound(), Item: item, Page: page},
		gateway.Options{Logger: s.log, Now: o.Now})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return fmt.Errorf("iso20022: listen on %s: %w", o.Addr, err)
	}
	scheme := "http"
	if o.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(o.TLSCert, o.TLSKey)
		if err != nil {
			ln.Close()
			return fmt.Errorf("--tls-cert/--tls-key: %v", err)
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
		scheme = "https"
	} else if !gateway.IsLoopback(o.Addr) {
		s.log.Warn("ste iso20022 serves plain HTTP beyond loopback (--insecure-http): only a TLS-terminating proxy may stand in front of it", "addr", ln.Addr().String())
	}
	go s.followRefdata(ctx)
	go s.syncOnce(ctx)
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute,
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelDebug)}
	u := scheme + "://" + ln.Addr().String()
	s.log.Info("ste iso20022 listening", "url", u, "namespace", o.Namespace, "signer", o.Signer.BIC, "public_url", o.PublicURL)
	if ready != nil {
		ready(u)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	shutdown := func() {
		sctx, c := context.WithTimeout(context.Background(), 5*time.Second)
		defer c()
		srv.Shutdown(sctx)
	}
	select {
	case <-ctx.Done():
		shutdown()
		return nil
	case err := <-s.fatal:
		shutdown()
		return err
	case err := <-errc:
		return err
	}
}

// followRefdata keeps the reference data; the first read also checks the
// signer's row (§5.2: the process refuses to start without it).
func (s *Server) followRefdata(ctx context.Context) {
	s.o.Signer.KeepRefdata(ctx, s.o.Kafka, s.o.Namespace, &s.ref, s.fatal, s.log, func(r *refdata.Set) {
		s.log.Info("ste iso20022: participant reference data read", "participants", len(r.Participants()))
		if s.ready() {
			s.metrics.ready.Set(1)
		}
		// Only an instance whose signer checked out joins the outputs
		// group: one refusing to start takes no partition.
		go s.translateOutputs(ctx)
	})
}

// syncOnce reads the journal to its end once: then the instance is ready.
func (s *Server) syncOnce(ctx context.Context) {
	if adapters.Retry(ctx, s.log, "reading the journal", s.j.Sync) {
		s.synced.Store(true)
		s.log.Info("ste iso20022: journal read to its end")
		if s.ready() {
			s.metrics.ready.Set(1)
		}
	}
}

func (s *Server) ready() bool { return s.ref.Load() != nil && s.synced.Load() }

type errorBody struct {
	Error  string `json:"error"`
	Reason string `json:"reason,omitempty"`
}

func answerJSON(w http.ResponseWriter, status int, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

func answerXML(w http.ResponseWriter, status int, doc string) {
	h := w.Header()
	h.Set("Content-Type", "application/xml")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(doc)))
	w.WriteHeader(status)
	io.WriteString(w, doc)
}

// ServeHTTP routes first (404, 405), then authenticates (401), then checks
// the body (413, 415, 400, 403, 422), as gateway.md §1 and adapters.md §5.2.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sw := &statusWriter{ResponseWriter: w}
	route := s.serveHTTP(sw, r)
	s.metrics.answered(route, sw.code)
}

// serveHTTP answers r and says under which route it counts.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) (route string) {
	var methods string
	switch r.URL.Path {
	case "/v1/health":
		route, methods = "health", "GET, HEAD"
	case "/v1/iso20022/messages":
		route, methods = "messages", "POST"
	case "/v1/iso20022/outputs":
		route, methods = "outputs", "GET, HEAD"
	default:
		answerJSON(w, http.StatusNotFound, errorBody{Error: "not_found"})
		return "other"
	}
	if !bytes.Contains([]byte(methods), []byte(r.Method)) {
		w.Header().Set("Allow", methods)
		answerJSON(w, http.StatusMethodNotAllowed, errorBody{Error: "method_not_allowed"})
		return route
	}
	if route == "health" {
		if !s.ready() {
			answerJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "starting"})
			return route
		}
		answerJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		return route
	}
	set := s.ref.Load()
	if set == nil || !s.synced.Load() {
		answerJSON(w, http.StatusServiceUnavailable, errorBody{Error: "unavailable"})
		return route
	}
	// gateway.md §1 with the gateway's own code: the headers first (no byte
	// of a stranger's body is read), the rate, the body within a deadline
	// against the budget of bodies in flight, its digest, the nonce.
	req, ok := s.front.Authenticate(w, r, set, route, MaxBody)
	if !ok {
		return route
	}
	bic, body := req.BIC, req.Body
	nonce := req.Nonce
	if route == "outputs" {
		s.front.ServeOutputs(w, r, bic)
		return route
	}
	s.serveMessage(w, r, set, bic, nonce, body)
	return route
}

// Accepted is the 202's body.
type Accepted struct {
	Accepted []adapters.Published `json:"accepted"`
	MsgIds   []string             `json:"msg_ids"`
}

// serveMessage is POST /v1/iso20022/messages after authentication: the
// rows of §5.2 in order.
func (s *Server) serveMessage(w http.ResponseWriter, r *http.Request, set *refdata.Set, bic, nonce string, body []byte) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/xml" {
		answerJSON(w, http.StatusUnsupportedMediaType, errorBody{Error: "unsupported_media_type"})
		return
	}
	d, problem := ParseDocument(body)
	if problem != nil {
		answerJSON(w, problem.Status, errorBody{Error: problem.Code})
		return
	}
	def := "sese.020"
	if d.Inst {
		def = "sese.023"
	}
	p, _ := set.Participant(bic)
	if !s.o.Signer.Enabled(p) {
		answerJSON(w, http.StatusForbidden, errorBody{Error: "not_enabled"})
		return
	}
	origin := adapters.Origin{Bytes: body, Ref: bic + ":" + nonce}
	var sub adapters.Submission
	var rejection string
	if d.Inst {
		sub, rejection = s.instruction(d, bic, origin)
	} else {
		var err error
		sub, rejection, err = s.cancellation(r.Context(), d, bic, origin)
		if err != nil {
			s.log.Warn("reading the journal", "err", err)
			answerJSON(w, http.StatusServiceUnavailable, errorBody{Error: "unavailable"})
			return
		}
	}
	if rejection != "" {
		s.log.Info("access", "what", "iso20022 rejected", "participant", bic, "status", 422)
		answerXML(w, http.StatusUnprocessableEntity, rejection)
		s.metrics.documents.WithLabelValues(def, "rejected").Inc()
		return
	}
	t0 := time.Now()
	pubs, err := s.pub.Publish(r.Context(), sub)
	if err != nil {
		s.log.Warn("publish: brokers unavailable", "participant", bic, "err", err)
		answerJSON(w, http.StatusServiceUnavailable, errorBody{Error: "unavailable"})
		return
	}
	s.metrics.publish.Observe(time.Since(t0).Seconds())
	s.metrics.published.Add(float64(len(sub.Records)))
	s.metrics.documents.WithLabelValues(def, "accepted").Inc()
	var ids []string
	for _, e := range sub.Journal {
		if e.Translation != nil {
			ids = append(ids, e.Translation.MsgId)
		}
	}
	s.log.Info("access", "what", "iso20022 accepted", "participant", bic, "msg_ids", ids)
	answerJSON(w, http.StatusAccepted, Accepted{Accepted: pubs, MsgIds: ids})
}

// instruction is a sese.023's submission, or its 422 body.
func (s *Server) instruction(d *Doc, bic string, origin adapters.Origin) (adapters.Submission, string) {
	in := Translate023(d, bic, s.o.Signer.BIC)
	reject := func(rs []Reason) string {
		return Sese024(StatusId{AcctOwnrTxId: in.TxId}, Status024{Processing: "Rjctd", Reasons: rs})
	}
	if len(in.Failures) > 0 {
		return adapters.Submission{}, reject(in.Failures)
	}
	rec, err := s.o.Signer.Build(in.Header, in.Body)
	if err != nil {
		return adapters.Submission{}, reject([]Reason{P14Reason(err)})
	}
	t := adapters.Translation(journal.ISO20022, bic, rec, in.Header, in.Body, []string{in.TxId}, origin)
	return adapters.Submission{Adapter: journal.ISO20022, Participant: bic, Origin: origin,
		Journal: []journal.Entry{{Translation: t}}, Records: []*stexml.Record{rec}}, ""
}

// cancellation is a sese.020's submission (§5.5), or its 422 body.
func (s *Server) cancellation(ctx context.Context, d *Doc, bic string, origin adapters.Origin) (adapters.Submission, string, error) {
	txid, _ := d.TxId()
	sctx, cancel := context.WithTimeout(ctx, s.o.ProduceTimeout)
	err := s.j.Sync(sctx)
	cancel()
	if err != nil {
		return adapters.Submission{}, "", err
	}
	var set *journal.Translation
	if id, err := msgid.Make(msgid.ISOInstruction, txid); err == nil {
		for _, t := range s.j.Translations(bic, id) {
			if t.Adapter == journal.ISO20022 && t.MsgType == "SET" && t.Function == "NEW" && !s.j.NACKed(t) {
				set = t // the earliest not NACKed
				break
			}
		}
	}
	if set == nil {
		var owner *CancelId
		mv, pmt := d.Code("AcctOwnrTxId/SctiesSttlmTxId/SctiesMvmntTp"), d.Code("AcctOwnrTxId/SctiesSttlmTxId/Pmt")
		if (mv == "RECE" || mv == "DELI") && (pmt == "APMT" || pmt == "FREE") {
			owner = &CancelId{Owner: &SttlmTxId{TxId: txid, Mvmnt: mv, Pmt: pmt}}
		}
		return adapters.Submission{}, Sese027(txid, owner, "Rjctd", []Reason{{"NRGN", "unknown TxId"}}), nil
	}
	h := cancelHeader(set)
	h.Sender, h.Signer = bic, s.o.Signer.BIC
	body := cancelBody(set)
	rec, err := s.o.Signer.Build(h, body)
	if err != nil {
		r := P14Reason(err)
		return adapters.Submission{}, Sese027(txid, nil, "Rjctd", []Reason{r}), nil
	}
	t := adapters.Translation(journal.ISO20022, bic, rec, h, body, []string{txid}, origin)
	t.Accounts = set.Accounts
	return adapters.Submission{Adapter: journal.ISO20022, Participant: bic, Origin: origin,
		Journal: []journal.Entry{{Translation: t}}, Records: []*stexml.Record{rec}}, "", nil
}

// item reads a record of <ns>.iso20022.outbound as an output.
func item(rec *kgo.Record, bic string) (gateway.FrontItem, bool) {
	var it gateway.FrontItem
	for _, h := range rec.Headers {
		switch h.Key {
		case HeaderSourceMsgId:
			it.MsgId = string(h.Value)
		case HeaderMsgDef:
			it.MsgType = string(h.Value)
		case HeaderTxId:
			it.Extra = string(h.Value)
		}
	}
	it.XML = string(rec.Value)
	return it, it.MsgType != ""
}

// OutputJSON is one item of GET /v1/iso20022/outputs (§5.2).
type OutputJSON struct {
	Cursor      string `json:"cursor"`
	SourceMsgId string `json:"source_msg_id"`
	MsgDef      string `json:"msg_def"`
	TxId        string `json:"tx_id"`
	XML         string `json:"xml"`
}

func page(items []gateway.FrontItem, next string) any {
	outs := make([]OutputJSON, len(items))
	for i, it := range items {
		outs[i] = OutputJSON{Cursor: it.Cursor, SourceMsgId: it.MsgId, MsgDef: it.MsgType, TxId: it.Extra, XML: it.XML}
	}
	return struct {
		Outputs []OutputJSON `json:"outputs"`
		Next    string       `json:"next"`
	}{outs, next}
}

func sleep(ctx context.Context, d time.Duration) { adapters.Sleep(ctx, d) }

// cancelHeader is the Header of the SET CANCEL of set (§5.5): MsgId
// MsgId(X1, TxId), RelatedMsgId the SET's, Created the SET's.
func cancelHeader(set *journal.Translation) stexml.Header {
	return stexml.Header{MsgId: msgid.MustMake(msgid.ISOCancellation, txIdOf(set)), MsgType: "SET", Function: "CANCEL",
		Sender: set.Participant, Signer: refdata.ISOSignerBIC, Created: set.Created, RelatedMsgId: set.MsgId}
}

// cancelBody is its Body: the SET's six key fields and Custodian.
func cancelBody(set *journal.Translation) []stexml.Field {
	k := set.Key
	return []stexml.Field{stexml.F("TradeRef", k.TradeRef), stexml.F("TradeDate", k.TradeDate), stexml.F("ISIN", k.ISIN),
		stexml.F("Side", k.Side), stexml.F("Broker", k.Broker), stexml.F("InvMgr", k.InvMgr), stexml.F("Custodian", set.Participant)}
}
