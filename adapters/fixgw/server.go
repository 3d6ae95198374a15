package fixgw

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/quickfixgo/quickfix"
	"github.com/quickfixgo/quickfix/config"
	"github.com/quickfixgo/quickfix/datadictionary"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/adapters"
	"github.com/ste-utility/ste/adapters/journal"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/fix"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
)

// Defaults of docs/spec/adapters.md §4.1.
const (
	DefaultAddr           = "127.0.0.1:9880"
	DefaultHealthAddr     = "127.0.0.1:9881"
	DefaultMaxMessageSize = 1 << 20
)

// Options configure `ste fixgw`.
type Options struct {
	Kafka     kafkaconn.Config
	Namespace string
	// Addr is where participants connect (--addr). Plain TCP only on
	// loopback or with InsecurePlain; else TLSCert/TLSKey.
	Addr                         string
	CompID                       string
	Signer                       *adapters.Signer
	Credentials                  *Credentials
	Store                        string
	TLSCert, TLSKey, TLSClientCA string
	InsecurePlain                bool
	ProduceTimeout               time.Duration
	MaxMessageSize               int
	// HealthAddr serves GET /health and GET /metrics ("" serves neither).
	HealthAddr string
	Logger     *slog.Logger
	Now        func() time.Time
}

// IsLoopback says whether addr's host is a loopback address or localhost.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Validate checks the options and fills the defaults.
func (o *Options) Validate() error {
	if o.Addr == "" {
		o.Addr = DefaultAddr
	}
	if o.CompID == "" {
		o.CompID = refdata.DefaultUtilityBIC
	}
	if !schemas.IsBIC(o.CompID) {
		return fmt.Errorf("--comp-id %q is not a BIC", o.CompID)
	}
	if o.ProduceTimeout <= 0 {
		o.ProduceTimeout = 10 * time.Second
	}
	if o.MaxMessageSize <= 0 {
		o.MaxMessageSize = DefaultMaxMessageSize
	}
	if o.MaxMessageSize < 1024 {
		return errors.New("--max-message-size: at least 1024 bytes")
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Store == "" {
		return errors.New("--store: a directory is needed")
	}
	if (o.TLSCert == "") != (o.TLSKey == "") {
		return errors.New("--tls-cert and --tls-key go together")
	}
	if o.TLSClientCA != "" && o.TLSCert == "" {
		return errors.New("--tls-client-ca needs --tls-cert and --tls-key")
	}
	if o.TLSCert == "" && !IsLoopback(o.Addr) && !o.InsecurePlain {
		return fmt.Errorf("--addr %s is not loopback: give --tls-cert and --tls-key (or --insecure-plain behind a TLS-terminating proxy)", o.Addr)
	}
	if o.HealthAddr != "" && !IsLoopback(o.HealthAddr) {
		o.Logger.Warn("ste fixgw serves /health and /metrics beyond loopback: they need no authentication and say nothing about participants", "addr", o.HealthAddr)
	}
	if o.Signer == nil {
		return errors.New("a signer is needed: --signer-key FILE or --demo-key")
	}
	if o.Credentials == nil {
		return errors.New("credentials are needed: --credentials FILE or --demo-credentials")
	}
	return nil
}

// Server is one running `ste fixgw`.
type Server struct {
	o           Options
	ctx         context.Context
	names       topology.Names
	log         *slog.Logger
	cl          *kgo.Client
	adm         *kadm.Client
	j           *journal.Journal
	pub         *adapters.Publisher
	dd          *datadictionary.DataDictionary
	validator   quickfix.Validator
	ref         atomic.Pointer[refdata.Set]
	synced      atomic.Bool
	front       *front
	app         *app
	factory     *storeFactory
	placeholder quickfix.SessionID
	lock        *lockout
	metrics     *metrics
	fatal       chan error
	readersMu   sync.Mutex
	readers     map[int32]*partReader
	// deliveries are the sessions' output deliveries running: Serve
	// returns once they have stopped and saved their cursors (a cursor
	// written after Serve returned raced whoever removed the store next).
	deliveries sync.WaitGroup
	// stuck are the BICs whose last message the brokers did not
	// acknowledge in time: no Logon is accepted for one while the producer
	// still holds records the brokers have not answered (§4.4).
	stuck sync.Map
}

// testHook, when set, sees the server once it is built (tests).
var testHook func(*Server)

// watchEvery is how often the credentials file and the sessions'
// eligibility are checked (within 30 s of a change, §4.1, §4.2).
var watchEvery = 10 * time.Second

// Ready says whether the process is ready (§4.1): reference data read, the
// journal read to its end, the store locked.
func (s *Server) Ready() bool { return s.ref.Load() != nil && s.synced.Load() }

// Serve runs `ste fixgw` until ctx ends; ready gets the address
// participants connect to once it listens.
func Serve(ctx context.Context, o Options, ready func(addr string)) error {
	if err := o.Validate(); err != nil {
		return err
	}
	lock, err := LockStore(o.Store)
	if err != nil {
		return err
	}
	defer lock.Release()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &Server{o: o, ctx: ctx, names: topology.Names{NS: o.Namespace}, log: o.Logger, lock: newLockout(), metrics: newMetrics(),
		fatal: make(chan error, 1), readers: map[int32]*partReader{}}
	if s.dd, err = fix.Parsed(); err != nil {
		return fmt.Errorf("the FIX dictionary: %v", err)
	}
	s.validator = newValidator(s.dd)
	if o.Credentials.Demo() {
		s.log.Warn("ste fixgw accepts the PUBLIC DEMO PASSWORDS (--demo-credentials): anyone can log on as any participant; for demos and tests only")
	}
	// An unreachable cluster at start is a one-line error (cli.md); once
	// running, a broker fault is waited out (§4.4).
	cl, err := topics.Connect(ctx, o.Kafka, kgo.ProducerLinger(0))
	if err != nil {
		return err
	}
	defer cl.Close()
	s.cl, s.adm = cl, kadm.NewClient(cl)
	s.j = journal.Open(ctx, o.Kafka, s.names.AdaptersJournal(), cl, s.log)
	s.pub = &adapters.Publisher{Names: s.names, Client: cl, Journal: s.j, Timeout: o.ProduceTimeout}
	go s.followRefdata(ctx)
	go s.syncOnce(ctx)

	// The health and metrics endpoint first: readiness is observable while
	// the rest starts.
	if o.HealthAddr != "" {
		hl, err := net.Listen("tcp", o.HealthAddr)
		if err != nil {
			return fmt.Errorf("--health-addr %s: %v", o.HealthAddr, err)
		}
		hs := &http.Server{Handler: s.healthHandler(), ReadHeaderTimeout: 5 * time.Second}
		go hs.Serve(hl)
		defer hs.Close()
		s.log.Info("ste fixgw health and metrics", "url", "http://"+hl.Addr().String()+"/health")
	}

	// The FIX engine listens on loopback only; participants reach it
	// through the front, whose connections its validator recognises.
	s.placeholder = quickfix.SessionID{BeginString: quickfix.BeginStringFIX44, SenderCompID: o.CompID, TargetCompID: "STE-FIXGW-LISTENER"}
	s.factory = newStoreFactory(o.Store, s.placeholder)
	defer s.factory.closeAll()
	s.app = &app{s: s, sessions: map[string]*session{}}
	var tlsCfg *tls.Config
	if o.TLSCert != "" {
		if tlsCfg, err = serverTLS(o); err != nil {
			return err
		}
	} else if !IsLoopback(o.Addr) {
		s.log.Warn("ste fixgw takes plain TCP beyond loopback (--insecure-plain): only a TLS-terminating proxy may stand in front of it", "addr", o.Addr)
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %v", o.Addr, err)
	}
	acc, engineAddr, err := s.startEngine()
	if err != nil {
		ln.Close()
		return err
	}
	s.front = &front{compID: o.CompID, maxSize: o.MaxMessageSize, tls: tlsCfg, needCert: o.TLSClientCA != "", creds: o.Credentials,
		engine: engineAddr, log: s.log, claims: map[string]*fconn{}, byLocal: map[string]*fconn{}, onUnsupported: s.logoutUnsupported}
	acc.SetConnectionValidator(validator{s})
	go s.watch(ctx)
	if testHook != nil {
		testHook(s)
	}
	frontDone := make(chan struct{})
	go func() {
		defer close(frontDone)
		s.front.serve(ctx, ln)
	}()
	s.log.Info("ste fixgw listening", "addr", ln.Addr().String(), "tls", tlsCfg != nil, "client_certificates", o.TLSClientCA != "",
		"comp_id", o.CompID, "signer", o.Signer.BIC, "namespace", o.Namespace, "store", o.Store)
	if ready != nil {
		ready(ln.Addr().String())
	}
	var ferr error
	select {
	case <-ctx.Done():
	case ferr = <-s.fatal:
		cancel()
	}
	<-frontDone
	acc.Stop()
	s.front.wg.Wait()
	s.deliveries.Wait() // ctx is done: each saves its cursor and returns
	return ferr
}

func serverTLS(o Options) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(o.TLSCert, o.TLSKey)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert/--tls-key: %v", err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if o.TLSClientCA != "" {
		pem, err := os.ReadFile(o.TLSClientCA)
		if err != nil {
			return nil, fmt.Errorf("--tls-client-ca: %v", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--tls-client-ca %s: no PEM certificate", o.TLSClientCA)
		}
		cfg.ClientCAs, cfg.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	return cfg, nil
}

// engineSettings are the session settings of §4.2 (quickfixgo names):
// dynamic sessions, sequence numbers and messages persisted and never reset
// on a schedule, logon, logout or disconnect (no StartTime/EndTime: no
// daily reset).
func (s *Server) engineSettings(port int) (*quickfix.Settings, error) {
	st := quickfix.NewSettings()
	g := st.GlobalSettings()
	for k, v := range map[string]string{
		config.SocketAcceptHost: "127.0.0.1",
		config.SocketAcceptPort: strconv.Itoa(port),
		config.DynamicSessions:  "Y",
		// No DataDictionary: the adapter validates (Server.validator),
		// see validation below.
		config.CheckLatency:                "N", // checked by the adapter: not for PossDupFlag=Y (§4.2)
		config.MaxLatency:                  "120",
		config.PersistMessages:             "Y",
		config.EnableNextExpectedMsgSeqNum: "N",
		config.ResetOnLogon:                "N",
		config.ResetOnLogout:               "N",
		config.ResetOnDisconnect:           "N",
		config.TimeStampPrecision:          "MILLIS",
	} {
		g.Set(k, v)
	}
	ps := quickfix.NewSessionSettings()
	ps.Set(config.BeginString, s.placeholder.BeginString)
	ps.Set(config.SenderCompID, s.placeholder.SenderCompID)
	ps.Set(config.TargetCompID, s.placeholder.TargetCompID)
	if _, err := st.AddSession(ps); err != nil {
		return nil, err
	}
	return st, nil
}

// newValidator is the validation of §4.2 (quickfixgo's own Validator on
// FIX44-ste.xml, ValidateFieldsOutOfOrder=N, ValidateUserDefinedFields=N,
// AllowUnknownMsgFields=N, RejectInvalidMessage=Y), which the adapter runs
// first in its callbacks instead of the engine: quickfixgo v0.9.10's
// dictionary-aware parser files the top-level fields that follow a group
// nested in a group (NestedParties in a J's NoAllocs, Parties in an AE's
// NoSides) inside the next top-level group — which quickfixgo's own
// initiator, writing body fields in tag order, always sends — and its
// required-field check then refuses the message (373=1 on AllocType(626)).
// Parsed flat (the engine without a dictionary), the message keeps every
// field where it was sent, and the Validator walks the fields in order with
// the dictionary: the same rejects, reasons and RefTagIDs.
func newValidator(dd *datadictionary.DataDictionary) quickfix.Validator {
	return quickfix.NewValidator(quickfix.ValidatorSettings{RejectInvalidMessage: true}, dd, nil)
}

// startEngine starts the FIX engine on a free loopback port.
func (s *Server) startEngine() (*quickfix.Acceptor, string, error) {
	var last error
	for range 10 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, "", err
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		st, err := s.engineSettings(port)
		if err != nil {
			return nil, "", err
		}
		acc, err := quickfix.NewAcceptor(s.app, s.factory, st, slogFactory{s.log, s.app})
		if err != nil {
			return nil, "", fmt.Errorf("the FIX engine: %v", err)
		}
		if err := acc.Start(); err != nil {
			last = err
			acc.Stop()
			continue
		}
		return acc, "127.0.0.1:" + strconv.Itoa(port), nil
	}
	return nil, "", fmt.Errorf("the FIX engine did not start: %v", last)
}

// validator lets the engine take only the front's own connections, each
// for the BIC the front authenticated it as.
type validator struct{ s *Server }

func (v validator) Validate(c net.Conn, id quickfix.SessionID) error {
	fc := v.s.front.engineConn(c.RemoteAddr().String())
	switch {
	case fc == nil:
		return errors.New("not a connection of the front")
	case id.BeginString != quickfix.BeginStringFIX44 || id.SenderCompID != v.s.o.CompID || id.TargetCompID != fc.bic:
		return fmt.Errorf("session %v is not the front's %s", id, fc.bic)
	}
	return nil
}

// logoutUnsupported ends bic's session after a message of another
// BeginString (§4.2 Version).
func (s *Server) logoutUnsupported(bic string) {
	if sess := s.app.sessionOf(bic); sess != nil {
		s.logout(sess, "unsupported BeginString")
	}
}

// logout sends Logout with text on the session, then closes its connection
// once the client answered, or after a second.
func (s *Server) logout(sess *session, text string) {
	m := newFIX("5")
	set(m, tagText, text)
	if err := quickfix.SendToTarget(m, sess.id); err != nil {
		s.front.drop(sess.bic)
		return
	}
	go func() {
		c := s.front.conn(sess.bic)
		if c == nil {
			return
		}
		select {
		case <-c.done:
		case <-time.After(time.Second):
			c.close()
		}
	}()
}

func (a *app) sessionOf(bic string) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[bic]
}

// followRefdata keeps the reference data; the first read checks the
// signer's row (§4.1: the process refuses to start without it).
func (s *Server) followRefdata(ctx context.Context) {
	s.o.Signer.KeepRefdata(ctx, s.o.Kafka, s.o.Namespace, &s.ref, s.fatal, s.log, func(r *refdata.Set) {
		s.log.Info("ste fixgw: participant reference data read", "participants", len(r.Participants()))
		s.metrics.readyIf(s.Ready())
	})
}

// syncOnce reads the journal to its end once: then the process is ready.
func (s *Server) syncOnce(ctx context.Context) {
	if adapters.Retry(ctx, s.log, "reading the journal", s.j.Sync) {
		s.synced.Store(true)
		s.log.Info("ste fixgw: journal read to its end")
		s.metrics.readyIf(s.Ready())
	}
}

// watch re-reads the credentials file (within 30 s of a change) and logs
// out, within 30 s, the sessions of participants that stopped being
// eligible (§4.2 Losing eligibility).
func (s *Server) watch(ctx context.Context) {
	t := time.NewTicker(watchEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if changed, err := s.o.Credentials.Reload(); err != nil {
			s.log.Error("ste fixgw: credentials", "err", err)
		} else if changed {
			s.log.Info("ste fixgw: credentials file re-read")
		}
		s.app.mu.Lock()
		var live []*session
		for _, sess := range s.app.sessions {
			if sess.stop != nil {
				live = append(live, sess)
			}
		}
		s.app.mu.Unlock()
		for _, sess := range live {
			if why := s.eligible(sess.bic); why != "" {
				s.log.Warn("ste fixgw: participant no longer eligible: session closed", "participant", sess.bic, "reason", why)
				s.logout(sess, "session closed by utility")
			}
		}
	}
}

func (s *Server) healthHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/health", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if !s.Ready() {
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`{"status":"starting"}` + "\n"))
			return
		}
		w.Write([]byte(`{"status":"ok"}` + "\n"))
	})
	mux.Handle("/metrics", promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{}))
	return mux
}

// metrics are the adapter's own (§ issue 48: sessions, messages in and
// out, rejects, produce latency); no label names a participant.
type metrics struct {
	reg         *prometheus.Registry
	sessions    prometheus.Gauge
	msgsIn      *prometheus.CounterVec
	msgsOut     *prometheus.CounterVec
	rejects     *prometheus.CounterVec
	produce     prometheus.Histogram
	published   prometheus.Counter
	unavailable prometheus.Counter
	ready       prometheus.Gauge
}

// msgTypes label messages by FIX MsgType; any other is "other" (the label
// set stays bounded whatever a client sends).
var msgTypes = map[string]bool{"0": true, "1": true, "2": true, "3": true, "4": true, "5": true, "A": true, "AE": true, "AR": true,
	"J": true, "P": true, "AK": true, "AU": true, "j": true}

func newMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.sessions = prometheus.NewGauge(prometheus.GaugeOpts{Name: "ste_fixgw_sessions", Help: "FIX sessions logged on now."})
	m.msgsIn = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ste_fixgw_messages_in_total",
		Help: "FIX messages received (that reached the engine's callbacks), by MsgType."}, []string{"msg_type"})
	m.msgsOut = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ste_fixgw_messages_out_total",
		Help: "FIX messages sent (put in the session store), by MsgType."}, []string{"msg_type"})
	m.rejects = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ste_fixgw_rejects_total",
		Help: "Rejections: session (Reject 3), business (BusinessMessageReject j), adapter (P/AR/AU rejections, §4.6), logon (refused Logons)."},
		[]string{"kind"})
	m.produce = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "ste_fixgw_produce_seconds",
		Help:    "Time from a translated message's publication to the brokers' acknowledgement of its last record (the ack point, §4.4).",
		Buckets: []float64{.0005, .001, .002, .005, .01, .02, .05, .1, .2, .5, 1, 2, 5, 10}})
	m.published = prometheus.NewCounter(prometheus.CounterOpts{Name: "ste_fixgw_records_published_total",
		Help: "STE records published to <ns>.inbound."})
	m.unavailable = prometheus.NewCounter(prometheus.CounterOpts{Name: "ste_fixgw_produce_timeouts_total",
		Help: "Messages the brokers did not acknowledge within --produce-timeout (connection closed, message not consumed)."})
	m.ready = prometheus.NewGauge(prometheus.GaugeOpts{Name: "ste_fixgw_ready",
		Help: "1 once reference data and the journal are read and the store is locked."})
	m.reg.MustRegister(m.sessions, m.msgsIn, m.msgsOut, m.rejects, m.produce, m.published, m.unavailable, m.ready,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, k := range []string{"session", "business", "adapter", "logon"} {
		m.rejects.WithLabelValues(k)
	}
	return m
}

func label(t string) string {
	if msgTypes[t] {
		return t
	}
	return "other"
}

func (m *metrics) in(t string)  { m.msgsIn.WithLabelValues(label(t)).Inc() }
func (m *metrics) out(t string) { m.msgsOut.WithLabelValues(label(t)).Inc() }

func (m *metrics) readyIf(ok bool) {
	if ok {
		m.ready.Set(1)
	}
}

// slogFactory routes the engine's logs to the process log: events at
// debug, messages in and out at debug (the FIX log of a session, with
// STE_LOG_LEVEL=debug).
type slogFactory struct {
	log *slog.Logger
	app *app
}

func (f slogFactory) Create() (quickfix.Log, error) {
	return slogLog{log: f.log.With("fix", "engine")}, nil
}
func (f slogFactory) CreateSessionLog(id quickfix.SessionID) (quickfix.Log, error) {
	return slogLog{log: f.log.With("fix_session", id.TargetCompID), app: f.app, id: id}, nil
}

type slogLog struct {
	log *slog.Logger
	app *app
	id  quickfix.SessionID
}

func (l slogLog) on() bool { return l.log.Enabled(context.Background(), slog.LevelDebug) }

func (l slogLog) OnIncoming(b []byte) {
	if l.on() {
		l.log.Debug("fix in", "msg", string(b))
	}
}

func (l slogLog) OnOutgoing(b []byte) {
	if l.on() {
		l.log.Debug("fix out", "msg", string(b))
	}
}

func (l slogLog) OnEvent(s string) {
	if l.on() {
		l.log.Debug("fix event", "event", s)
	}
}

func (l slogLog) OnEventf(f string, a ...interface{}) {
	if l.on() {
		l.log.Debug("fix event", "event", fmt.Sprintf(f, a...))
	}
}
