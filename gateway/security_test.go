package gateway

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/internal/testing/brokertest"
	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/query"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
)

// Issue 45, finding 2: the gateway decides everything the headers can
// decide before it reads a byte of the body. These tests run a Server with
// the committed default reference data and no Kafka (every request here is
// refused or answered before the nonce would be spent), on a listener that
// counts the bytes read from each connection.

// countingListener counts the bytes the server read from all its conns.
type countingListener struct {
	net.Listener
	read atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, n: &l.read}, nil
}

type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

type noTrades struct{}

func (noTrades) Trade(context.Context, string, string) (matching.View, bool, error) {
	return matching.View{}, false, nil
}
func (noTrades) ByRef(context.Context, string, string, string) ([]matching.View, error) {
	return nil, nil
}
func (noTrades) QueuePage(context.Context, query.QueueQuery) ([]query.QueueEntry, error) {
	return []query.QueueEntry{}, nil
}

func testGateway(t *testing.T, tune func(*Options)) (*Server, *countingListener) {
	t.Helper()
	o := Options{Addr: "127.0.0.1:0", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if tune != nil {
		tune(&o)
	}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	s := newServer(o)
	s.ref.Store(refdata.Default())
	s.trades = noTrades{}
	s.nonces = newNonces("unused", nil, o.Logger) // never reached in these tests
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cl := &countingListener{Listener: ln}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(cl)
	t.Cleanup(func() { srv.Close() })
	return s, cl
}

// activeBIC is an ACTIVE participant of the default reference data.
func activeBIC(t *testing.T) string {
	for _, p := range refdata.Default().Participants() {
		if p.Status == refdata.Active && len(p.Keys) > 0 {
			return p.BIC
		}
	}
	t.Fatal("no active participant in the default reference data")
	return ""
}

// signedHead is the head of a POST /v1/messages whose signature covers
// the Content-Digest of body, with Content-Length declared (not
// necessarily len(body)).
func signedHead(addr, bic string, key ed25519.PrivateKey, body []byte, declared int64) string {
	sum := sha256.Sum256(body)
	digest := "sha-256=:" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
	target := "http://" + addr + "/v1/messages"
	n := make([]byte, 12)
	rand.Read(n)
	params := `("@method" "@target-uri" "content-digest");created=` + strconv.FormatInt(time.Now().Unix(), 10) +
		`;keyid="` + bic + `";nonce="` + base64.RawURLEncoding.EncodeToString(n) + `"`
	base := "\"@method\": POST\n\"@target-uri\": " + target + "\n\"content-digest\": " + digest + "\n\"@signature-params\": " + params
	sig := ed25519.Sign(key, []byte(base))
	return "POST /v1/messages HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: text/plain\r\n" +
		"Content-Length: " + strconv.FormatInt(declared, 10) + "\r\nContent-Digest: " + digest + "\r\n" +
		"Signature-Input: sig1=" + params + "\r\nSignature: sig1=:" + base64.StdEncoding.EncodeToString(sig) + ":\r\n\r\n"
}

// status reads one response's status code from c (30 s at most: a gross
// bound, the answers here are immediate).
func status(t *testing.T, c net.Conn) int {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	res.Body.Close()
	return res.StatusCode
}

// An unsigned request, a badly signed one and one from an unknown
// participant, each declaring 8 MiB and sending 2 MiB: 401 and, of the
// body, nothing read beyond what came in the header's packets.
func TestStrangersBodiesAreNotRead(t *testing.T) {
	_, cl := testGateway(t, nil)
	addr := cl.Addr().String()
	bic := activeBIC(t)
	body := make([]byte, 2<<20)
	heads := map[string]string{
		"unsigned": "POST /v1/messages HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: text/plain\r\nContent-Length: " +
			strconv.Itoa(MaxBody) + "\r\n\r\n",
		"wrong key":   signedHead(addr, bic, refdata.DemoPrivateKey("NOTAKEYXXXX"), body, MaxBody),
		"unknown BIC": signedHead(addr, "NOSUCHBICXX", refdata.DemoPrivateKey("NOSUCHBICXX"), body, MaxBody),
	}
	for name, head := range heads {
		before := cl.read.Load()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			c.Write([]byte(head))
			c.Write(body) // the server may close before it all goes
		}()
		if got := status(t, c); got != http.StatusUnauthorized {
			t.Errorf("%s: %d, want 401", name, got)
		}
		c.Close()
		if n := cl.read.Load() - before; n > int64(len(head))+256<<10 {
			t.Errorf("%s: %d bytes read from the connection for a %d-byte head: the body was read", name, n, len(head))
		}
	}
}

// A correctly signed request declaring more than 8 MiB: 413 unread.
func TestOversizedDeclaredLengthIs413Unread(t *testing.T) {
	_, cl := testGateway(t, nil)
	addr := cl.Addr().String()
	bic := activeBIC(t)
	body := make([]byte, 1<<20)
	head := signedHead(addr, bic, refdata.DemoPrivateKey(bic), body, 60<<20)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go func() { c.Write([]byte(head)); c.Write(body) }()
	if got := status(t, c); got != http.StatusRequestEntityTooLarge {
		t.Fatalf("%d, want 413", got)
	}
	if n := cl.read.Load(); n > int64(len(head))+256<<10 {
		t.Errorf("%d bytes read for a %d-byte head: the body was read", n, len(head))
	}
}

// A signed request declaring 8 MiB that sends 64 KiB and stalls: the
// gateway holds what arrived, not what was declared.
func TestDeclaredLengthIsNotAllocated(t *testing.T) {
	_, cl := testGateway(t, nil)
	addr := cl.Addr().String()
	bic := activeBIC(t)
	sent := make([]byte, 64<<10)
	head := signedHead(addr, bic, refdata.DemoPrivateKey(bic), sent, MaxBody)
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte(head))
	c.Write(sent)
	for deadline := time.Now().Add(30 * time.Second); cl.read.Load() < int64(len(head)+len(sent)); {
		if time.Now().After(deadline) {
			t.Fatal("the gateway did not read the body that was sent")
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // let the handler take its buffer
	runtime.ReadMemStats(&m1)
	if a := m1.TotalAlloc - m0.TotalAlloc; a > 4<<20 {
		t.Errorf("%d bytes allocated while holding a 64 KiB body declared as 8 MiB", a)
	}
}

// A signed body sent one byte and then nothing: the gateway gives up at
// its read deadline (here 200 ms) and closes; the client waits 30 s at
// most (a gross bound, not a timing).
func TestSlowBodyMeetsTheReadDeadline(t *testing.T) {
	_, cl := testGateway(t, func(o *Options) { o.BodyReadTimeout = 200 * time.Millisecond })
	addr := cl.Addr().String()
	bic := activeBIC(t)
	body := []byte("<Msg/>\n")
	head := signedHead(addr, bic, refdata.DemoPrivateKey(bic), body, int64(len(body)))
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte(head))
	c.Write(body[:1])
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, err = io.ReadAll(c) // an answer (400) and the close, or the close alone
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("the connection of a stalled body was still held after 30 s")
	}
}

// Bodies in flight are capped: with room for 2 MiB, two signed requests
// declaring 1 MiB each and stalling hold it all, and a third waits
// before a byte of its body is read.
func TestBodiesInFlightAreCapped(t *testing.T) {
	s, cl := testGateway(t, func(o *Options) {
		o.MaxBodyBytesInFlight = 2 << 20
		o.BodyReadTimeout = 20 * time.Second
	})
	addr := cl.Addr().String()
	bic := activeBIC(t)
	body := make([]byte, 1<<20)
	key := refdata.DemoPrivateKey(bic)
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := 0; i < 3; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		c.Write([]byte(signedHead(addr, bic, key, body, int64(len(body)))))
		c.Write(body[:1])
	}
	if !eventually(func() bool { return gaugeValue(s) == 1 }) {
		t.Fatalf("bodies waiting: %v, want 1 (two 1 MiB bodies fill a 2 MiB budget)", gaugeValue(s))
	}
	conns[0].Close() // the first gives up: room for the third
	if !eventually(func() bool { return gaugeValue(s) == 0 }) {
		t.Fatalf("bodies waiting: %v after one left, want 0", gaugeValue(s))
	}
}

func eventually(f func() bool) bool {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if f() {
			return true
		}
	}
	return false
}

func gaugeValue(s *Server) float64 {
	mfs, _ := s.metrics.reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() == "ste_gateway_bodies_waiting" {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	return -1
}

// Issue 45, finding 4: the same signed request replayed at the last
// instant its signature is valid must find its nonce still held. For a
// first use at any instant the created check lets through and a replay at
// any later instant it lets through, the nonce record (stamped at the
// first use, truncated to the millisecond) still holds the nonce.
func TestNonceHeldForTheWholeSignatureLife(t *testing.T) {
	created := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC).Unix()
	c := time.Unix(created, 0)
	var firsts, replays []time.Time
	for _, d := range []time.Duration{-createdWindow, -createdWindow + time.Millisecond, 0, createdWindow - time.Nanosecond} {
		firsts = append(firsts, c.Add(d))
	}
	for _, d := range []time.Duration{createdWindow, createdWindow + 500*time.Millisecond, createdWindow + 999*time.Millisecond,
		createdWindow + time.Second - time.Nanosecond} {
		replays = append(replays, c.Add(d))
	}
	for _, t1 := range firsts {
		if !createdInWindow(t1, created) {
			continue
		}
		stamp := time.UnixMilli(t1.UnixMilli())
		for _, t2 := range replays {
			if !createdInWindow(t2, created) {
				continue
			}
			if !nonceHeld(stamp, t2) {
				t.Errorf("first use at created%+v, replay at created%+v (%v later): accepted again",
					t1.Sub(c), t2.Sub(c), t2.Sub(t1))
			}
		}
	}
	// The window itself: 300 s either side, to the instant.
	for d, want := range map[time.Duration]bool{
		createdWindow: true, -createdWindow: true,
		createdWindow + time.Millisecond: false, -createdWindow - time.Millisecond: false,
	} {
		if got := createdInWindow(c.Add(d), created); got != want {
			t.Errorf("created%+v: in window %v, want %v", d, got, want)
		}
	}
}

// Issue 45, finding 7: a request refused 429 spends no nonce. Ten signed
// lookups from one participant with a burst of three: three answered,
// seven 429, and three nonce records on <ns>.gateway-nonces (ten before:
// the nonce was spent before the rate was taken).
func TestRateLimitedRequestsSpendNoNonce(t *testing.T) {
	ctx, e := brokertest.Namespace(t, "gwr", 0, 2*time.Minute)
	s, cl := testGateway(t, func(o *Options) { o.RatePerSecond, o.Burst = 0.001, 3 })
	ncl, err := topics.Client(e.Conn, kgo.ProducerLinger(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ncl.Close)
	topic := topology.Names{NS: e.NS}.Nonces()
	s.nonces = newNonces(topic, ncl, s.log)
	go s.nonces.follow(ctx, e.Conn)
	addr := cl.Addr().String()
	bic := activeBIC(t)
	key := refdata.DemoPrivateKey(bic)
	codes := map[int]int{}
	for i := 0; i < 10; i++ {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/v1/trades/0123456789abcdef", nil)
		signGet(req, bic, key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		codes[res.StatusCode]++
	}
	if codes[http.StatusTooManyRequests] != 7 || codes[http.StatusNotFound] != 3 {
		t.Errorf("answers %v, want three 404 and seven 429", codes)
	}
	ends, err := kadm.NewClient(ncl).ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := ends.Lookup(topic, 0); o.Offset != 3 {
		t.Errorf("%d nonce records written, want 3 (one per request answered)", o.Offset)
	}
}

// signGet signs a request without a body: "@method" and "@target-uri".
func signGet(req *http.Request, bic string, key ed25519.PrivateKey) {
	n := make([]byte, 12)
	rand.Read(n)
	params := `("@method" "@target-uri");created=` + strconv.FormatInt(time.Now().Unix(), 10) +
		`;keyid="` + bic + `";nonce="` + base64.RawURLEncoding.EncodeToString(n) + `"`
	base := "\"@method\": " + req.Method + "\n\"@target-uri\": " + req.URL.String() + "\n\"@signature-params\": " + params
	req.Header.Set("Signature-Input", "sig1="+params)
	req.Header.Set("Signature", "sig1=:"+base64.StdEncoding.EncodeToString(ed25519.Sign(key, []byte(base)))+":")
}

// Issue 45, finding 8: reference data that gives participants their
// public demo keys (ste refdata gen) is warned of when the gateway loads
// it; the committed default set is such data.
func TestDemoKeysAreWarnedOf(t *testing.T) {
	var logs strings.Builder
	s := newServer(Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	s.setRefdata(refdata.Default())
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "PUBLIC DEMO KEYS") {
		t.Fatalf("no warning for demo keys:\n%s", logs.String())
	}
	// A participant's own key: no warning.
	own := refdata.Default().Clone()
	for _, p := range own.Participants() {
		pub, _, _ := ed25519.GenerateKey(rand.Reader)
		p.Keys = []ed25519.PublicKey{pub}
		own.PutParticipant(p)
	}
	logs.Reset()
	s2 := newServer(Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	s2.setRefdata(own)
	if strings.Contains(logs.String(), "DEMO") {
		t.Fatalf("warned with the participants' own keys:\n%s", logs.String())
	}
}
