// Package console is STE's operator console: a web server, in the one
// binary, with server-rendered pages and small embedded scripts (no build
// step; assets via go:embed). It shows a namespace live — every stage's
// queue, rates, processing and critical time, utilisation, the instances
// and their readiness, open trades and rejections — the analytics reports
// as charts, the exceptions to browse, retry and archive (the exceptions
// package, as `ste exceptions` does), and any trade with its journey, read
// from the instance that owns it.
//
// It finds instances through the registry, reads Kafka for lag and the
// exceptions, and ClickHouse for history and journeys; when one of them is
// unreachable the pages say so and show what they still can.
//
// Access: it listens on loopback unless told otherwise. With an auth
// tokens file every request needs a token, and each retry and archive is
// recorded under the token's name; without one, changes are refused unless
// the console listens on loopback (then they are recorded under the local
// operator's name).
package console

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/ste-utility/ste/analytics/store"
	"github.com/ste-utility/ste/exceptions"
	"github.com/ste-utility/ste/instance/lookup"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/trust"
)

//go:embed templates/*.html static/*
var assets embed.FS

// Options configure a console.
type Options struct {
	Kafka     kafkaconn.Config
	Namespace string
	// Addr to listen on; default 127.0.0.1:8080. Listener, when set, is
	// served instead (Addr ignored): ste demo takes its address before its
	// run, so that a busy port is said at once, not after the run.
	Addr     string
	Listener net.Listener
	// Tokens maps each token to who holds it (LoadTokens); nil serves
	// without tokens.
	Tokens map[string]Principal
	// Hosts are the names, besides localhost and IP literals, that the
	// console answers to (the Host header; see guard).
	Hosts []string
	// LocalOperator is the name changes are recorded under without tokens
	// (on loopback only).
	LocalOperator string
	// Analytics opens the analytics store; nil: no analytics pages.
	Analytics func(context.Context) (*store.Store, error)
	// Secret is the utility's shared secret: the exceptions and states
	// shown are those it proves (trust), the states written carry it, and
	// the trade lookups its lookup token.
	Secret *trust.Secret
	// Every is the live sampling period (default 1 s).
	Every  time.Duration
	Logger *slog.Logger
}

// DefaultAddr is where the console listens unless told otherwise.
const DefaultAddr = "127.0.0.1:8080"

// Server is a running console.
type Server struct {
	o        Options
	ln       net.Listener
	loopback bool
	csrf     string
	log      *slog.Logger
	col      *collector
	lookup   *lookup.Client
	store    *analyticsConn
	book     *exceptions.Book
	flow     *exceptions.Workflow
	pages    *pages
	metrics  *selfMetrics
	srv      *http.Server
	done     chan error
}

// Start listens and serves until ctx ends (then Wait returns). A cluster
// that does not answer at start is an error: the console would have
// nothing to show; later outages are shown on the pages.
func Start(ctx context.Context, o Options) (*Server, error) {
	if o.Addr == "" {
		o.Addr = DefaultAddr
	}
	if o.Every <= 0 {
		o.Every = time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.LocalOperator == "" {
		o.LocalOperator = "local"
	}
	if o.Secret == nil {
		return nil, errors.New("console: no utility secret")
	}
	pg, err := loadPages()
	if err != nil {
		return nil, err
	}
	cl, err := topics.Connect(ctx, o.Kafka)
	if err != nil {
		return nil, err
	}
	cl.Close()
	ln := o.Listener
	if ln == nil {
		if ln, err = net.Listen("tcp", o.Addr); err != nil {
			return nil, fmt.Errorf("listen on %s: %v", o.Addr, err)
		}
	}
	s := &Server{o: o, ln: ln, loopback: isLoopback(ln.Addr()), log: o.Logger, done: make(chan error, 1),
		book: exceptions.NewBook(o.Secret), pages: pg}
	b := make([]byte, 16)
	rand.Read(b)
	s.csrf = hex.EncodeToString(b)
	if o.Analytics != nil {
		s.store = &analyticsConn{open: o.Analytics}
	}
	if s.col, err = newCollector(o.Kafka, o.Namespace, o.Every, s.store, o.Logger); err != nil {
		ln.Close()
		return nil, err
	}
	s.col.secret = o.Secret
	if s.lookup, err = newTradeLookup(o); err != nil {
		ln.Close()
		s.col.close()
		return nil, err
	}
	if s.flow, err = exceptions.NewWorkflow(ctx, o.Kafka, o.Namespace, s.book); err != nil {
		ln.Close()
		s.col.close()
		s.lookup.Close()
		return nil, err
	}
	switch {
	case o.Tokens == nil && !s.loopback:
		s.log.Warn("the console listens beyond loopback without --auth-tokens: anyone who reaches it reads the namespace; retries and archives are refused",
			"addr", s.Addr())
	case o.Tokens == nil:
		s.log.Info("no auth tokens: only this machine reaches the console; changes are recorded as " + o.LocalOperator)
	}
	s.srv = &http.Server{Handler: s.routes(), ReadHeaderTimeout: 10 * time.Second}
	bctx, stop := context.WithCancel(context.Background())
	go s.col.run(bctx)
	go s.followExceptions(bctx)
	go func() {
		err := s.srv.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		stop()
		s.col.close()
		s.lookup.Close()
		s.flow.Close()
		s.store.close()
		s.done <- err
	}()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.srv.Shutdown(sctx)
	}()
	return s, nil
}

// Addr is the address the console listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL is the console's address as a link.
func (s *Server) URL() string { return "http://" + s.Addr() + "/" }

// Wait waits until the console has stopped.
func (s *Server) Wait() error { return <-s.done }

// Serve runs a console until ctx ends, telling started its address once
// it listens.
func Serve(ctx context.Context, o Options, started func(url string)) error {
	s, err := Start(ctx, o)
	if err != nil {
		return err
	}
	started(s.URL())
	return s.Wait()
}

// followExceptions keeps the exceptions book current, and resolves
// retries whose journeys ended in an ACK.
func (s *Server) followExceptions(ctx context.Context) {
	go func() {
		for ctx.Err() == nil {
			if err := s.book.Follow(ctx, s.o.Kafka, s.o.Namespace); err != nil && ctx.Err() == nil {
				s.log.Warn("reading exceptions", "err", err)
				select {
				case <-ctx.Done():
				case <-time.After(5 * time.Second):
				}
			}
		}
	}()
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if _, err := s.flow.Resolve(ctx); err != nil && ctx.Err() == nil {
			s.log.Debug("resolving retries", "err", err)
		}
	}
}

func isLoopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// operatorKey carries who makes a request in its context.
type operatorKey struct{}

// operator is who makes the request (zero without tokens).
func operator(r *http.Request) Principal {
	p, _ := r.Context().Value(operatorKey{}).(Principal)
	return p
}

const tokenCookie = "ste_console_token"

// auth lets a request through with a valid token (a bearer token or the
// login cookie) when tokens are on; the login page and the static assets
// (no data) need none.
func (s *Server) auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.o.Tokens == nil {
			next.ServeHTTP(w, r)
			return
		}
		if r.URL.Path == "/login" || strings.HasPrefix(r.URL.Path, "/static/") {
			next.ServeHTTP(w, r)
			return
		}
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if c, err := r.Cookie(tokenCookie); tok == "" && err == nil {
			tok = c.Value
		}
		p := s.tokenName(tok)
		if p.Name == "" {
			s.refuse(w, r)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), operatorKey{}, p)))
	})
}

// tokenName is who a token belongs to, compared in constant time.
func (s *Server) tokenName(tok string) Principal {
	var found Principal
	if tok == "" {
		return found
	}
	for t, p := range s.o.Tokens {
		if subtle.ConstantTimeCompare([]byte(t), []byte(tok)) == 1 {
			found = p
		}
	}
	return found
}

// canChange says whether retries and archives are allowed, and if not why;
// it returns whom (and in which role) to record a change under.
func (s *Server) canChange(r *http.Request) (Principal, error) {
	if s.o.Tokens != nil {
		p := operator(r)
		if p.Role != Operator {
			return Principal{}, fmt.Errorf("retries and archives are refused: %s signed in as a %s (only an operator's token may change anything)",
				p.Name, p.Role)
		}
		return p, nil
	}
	if !s.loopback {
		return Principal{}, errors.New("retries and archives are refused: this console listens on " + s.Addr() +
			" without --auth-tokens (only a loopback console may change anything without tokens)")
	}
	return Principal{Name: s.o.LocalOperator, Role: Operator}, nil
}
