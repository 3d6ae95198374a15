package fixgw

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quickfixgo/quickfix"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ste-utility/ste/adapters"
	"github.com/ste-utility/ste/adapters/fixgw/fixtest"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/broker"
	"github.com/ste-utility/ste/topology"
)

const (
	im     = "AQGOSGSG"
	brk    = "AMPFSGSGMHX"
	cust   = "AFKZSGSGXXX"
	pset   = "CDPLSGSGXXX"
	isin   = "SG1A01315179"
	noSign = "NOFIXSGSGXX" // an active broker whose signers do not list STEUTLSGFIX
)

type rig struct {
	t       *testing.T
	ns      string
	names   topology.Names
	cluster *kfake.Cluster
	cl      *kgo.Client
	conn    kafkaconn.Config
	store   string
	addr    string
	srv     *Server
	stop    context.CancelFunc
	done    chan error
	log     *syncBuf
	opts    Options
}

type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var hookMu sync.Mutex

// startRig runs an embedded broker, the namespace's topics, the default
// reference data (plus a broker not enabled for the FIX signer) and one
// ste fixgw on it with demo credentials and the demo key.
func startRig(t *testing.T, tune func(*Options)) *rig {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a broker")
	}
	c, err := broker.Start(broker.Options{Addr: "127.0.0.1:0", Partitions: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	conn := kafkaconn.Plaintext(broker.Addr(c))
	cl, err := topics.Client(conn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	ns := fmt.Sprintf("fix%d", time.Now().UnixNano()%1e6)
	ctx := t.Context()
	if _, err := topics.Create(ctx, kadm.NewClient(cl), ns, topics.Options{Partitions: 2, Replication: 1}); err != nil {
		t.Fatal(err)
	}
	set := refdata.Default().Clone()
	p, _ := set.Participant(brk)
	p.BIC, p.Signers, p.Keys = noSign, []string{refdata.ISOSignerBIC}, nil
	p.Keys = append(p.Keys, refdata.DemoPublicKey(noSign))
	set.PutParticipant(p)
	if _, err := topics.PublishRefdata(ctx, cl, ns, set); err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, ns: ns, names: topology.Names{NS: ns}, cluster: c, cl: cl, conn: conn, store: t.TempDir(), log: &syncBuf{}}
	r.opts = Options{Kafka: conn, Namespace: ns, Addr: "127.0.0.1:0", Store: r.store, Credentials: DemoCredentials(),
		Signer:         &adapters.Signer{BIC: refdata.FIXSignerBIC, Key: refdata.DemoPrivateKey(refdata.FIXSignerBIC), Demo: true},
		ProduceTimeout: 3 * time.Second}
	if tune != nil {
		tune(&r.opts)
	}
	r.start()
	return r
}

func (r *rig) start() {
	r.t.Helper()
	o := r.opts
	o.Logger = slog.New(slog.NewTextHandler(r.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan string, 1)
	srvs := make(chan *Server, 1)
	hookMu.Lock()
	testHook = func(s *Server) { srvs <- s }
	r.done = make(chan error, 1)
	go func() { r.done <- Serve(ctx, o, func(a string) { addrs <- a }) }()
	select {
	case r.addr = <-addrs:
	case err := <-r.done:
		hookMu.Unlock()
		r.t.Fatalf("ste fixgw: %v", err)
	}
	r.srv = <-srvs
	testHook = nil
	hookMu.Unlock()
	r.stop = cancel
	r.t.Cleanup(r.shutdown)
	deadline := time.Now().Add(30 * time.Second)
	for !r.srv.Ready() {
		if time.Now().After(deadline) {
			r.t.Fatal("not ready in 30 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (r *rig) shutdown() {
	if r.stop != nil {
		r.stop()
		<-r.done
		r.stop = nil
	}
}

func (r *rig) client(bic string, tune func(*fixtest.Options)) *fixtest.Client {
	r.t.Helper()
	o := fixtest.Options{Addr: r.addr, BIC: bic, Password: DemoPassword(bic), Dir: r.t.TempDir(), HeartBtInt: 30}
	if tune != nil {
		tune(&o)
	}
	c, err := fixtest.Start(o)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(c.Stop)
	return c
}

func (r *rig) loggedOn(c *fixtest.Client) {
	r.t.Helper()
	if !c.Wait(15*time.Second, func(c *fixtest.Client) bool { return c.Logons() > 0 }) {
		r.t.Fatalf("no logon; logouts %q\n%s", c.Logouts(), tail(r.log.String()))
	}
}

func tail(s string) string {
	if len(s) > 6000 {
		return s[len(s)-6000:]
	}
	return s
}

// inbound are the records on <ns>.inbound now.
func (r *rig) inbound() []*kgo.Record {
	r.t.Helper()
	var out []*kgo.Record
	_, err := topics.Dump(r.t.Context(), r.conn, r.names.Inbound(), func(rec *kgo.Record) error {
		out = append(out, rec)
		return nil
	})
	if err != nil {
		r.t.Fatal(err)
	}
	return out
}

// waitInbound waits for n records on <ns>.inbound.
func (r *rig) waitInbound(n int) []*kgo.Record {
	r.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		got := r.inbound()
		if len(got) >= n || time.Now().After(deadline) {
			return got
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// output produces an STE output record to <ns>.outbound, as the pipeline
// writes them (the adapter does not verify the utility's signature).
func (r *rig) output(receiver, header, body string) {
	r.t.Helper()
	v := "<Msg><Header>" + header + "<Sender>STEUTLSGXXX</Sender><Receiver>" + receiver + "</Receiver><Created>" +
		time.Now().UTC().Format("2006-01-02T15:04:05.000Z") + "</Created></Header><Body>" + body + "</Body><Sig alg=\"ed25519\">AA==</Sig></Msg>"
	rec := &kgo.Record{Topic: r.names.Outbound(), Key: []byte(receiver), Value: []byte(v)}
	if err := r.cl.ProduceSync(r.t.Context(), rec).FirstErr(); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) ack(receiver, msgID string) {
	r.output(receiver, "<MsgId>ACK:"+receiver+":"+msgID+"</MsgId><MsgType>ACK</MsgType><Function>NEW</Function><RelatedMsgId>"+msgID+"</RelatedMsgId>",
		"<RelatedMsgId>"+msgID+"</RelatedMsgId>")
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func exampleJMsg() fixtest.J {
	return fixtest.J{AllocID: "ALLOC/2026/77", AllocType: "2", ClOrdID: "AQGO-ORD-5521", OrderID: "BT-20261127-0001", Side: "1",
		ISIN: isin, Quantity: "10000", AvgPx: "10.05", Currency: "SGD", Broker: brk, InvMgr: im, TradeDate: "20261127",
		TransactTime: "20261127-09:30:59.250", Allocs: []fixtest.Alloc{{Account: "ACC1", Qty: "6000", Custodian: cust, PSET: pset},
			{Account: "ACC2", Qty: "4000", Custodian: cust, PSET: pset}}}
}

func isP(fields map[int]string) func(*quickfix.Message) bool { return fixtest.Is("P", fields) }

// TestSessionWorkedExample runs adapters.md §4.9 through a session of
// quickfixgo's initiator: the two records byte for byte, keyed by the IM,
// with the headers of §2 and the original bytes on <ns>.adapters.origin;
// P 87=3, P 87=0 once both ACKs are in, P 573=0 on MATCHED.
func TestSessionWorkedExample(t *testing.T) {
	r := startRig(t, nil)
	c := r.client(im, nil)
	r.loggedOn(c)
	if err := c.Send(exampleJMsg().Message()); err != nil {
		t.Fatal(err)
	}
	recs := r.waitInbound(2)
	if len(recs) != 2 {
		t.Fatalf("%d records on inbound\n%s", len(recs), tail(r.log.String()))
	}
	want := []string{"949512d6395e0fa870070740aa45df0651b5f4be4d649c89416846288a1cf16e",
		"d16591f1058fa8004de3b6cf86aec61a01bf4850f08d36200364d1fdb906d926"}
	for i, rec := range recs {
		if got := sha256Hex(rec.Value); got != want[i] || string(rec.Key) != im {
			t.Errorf("record %d: key %s sha %s\n%s", i, rec.Key, got, rec.Value)
		}
		h := map[string]string{}
		for _, x := range rec.Headers {
			h[x.Key] = string(x.Value)
		}
		if h["ste-participant"] != im || h["ste-adapter"] != "fix44" || len(h["ste-origin-sha256"]) != 64 ||
			!strings.HasPrefix(h["ste-origin-ref"], im+":STEUTLSGXXX:") || h["ste-origin-possdup"] != "" {
			t.Errorf("headers %v", h)
		}
	}
	if !c.Wait(10*time.Second, func(c *fixtest.Client) bool { return c.Count(isP(map[int]string{70: "ALLOC/2026/77", 87: "3"})) == 1 }) {
		t.Fatalf("no P 87=3: %v", raws(c))
	}
	r.ack(im, "J1:ALLOC_2F2026_2F77:ACC1")
	time.Sleep(300 * time.Millisecond)
	if n := c.Count(isP(map[int]string{87: "0"})); n != 0 {
		t.Fatalf("a P 87=0 before every ALC has its answer: %v", raws(c))
	}
	r.ack(im, "J1:ALLOC_2F2026_2F77:ACC2")
	if !c.Wait(10*time.Second, func(c *fixtest.Client) bool { return c.Count(isP(map[int]string{87: "0"})) == 1 }) {
		t.Fatalf("no P 87=0: %v", raws(c))
	}
	r.output(im, "<MsgId>ST:ea6dfb599eb7ba5a:1:"+im+"</MsgId><MsgType>STATUS</MsgType><Function>NEW</Function>",
		"<TradeKey>ea6dfb599eb7ba5a</TradeKey><TradeRef>BT-20261127-0001</TradeRef><Status>MATCHED</Status>")
	if !c.Wait(10*time.Second, func(c *fixtest.Client) bool {
		return c.Count(isP(map[int]string{87: "0", 573: "0", 58: "STE MATCHED ea6dfb599eb7ba5a", 70: "ALLOC/2026/77", 75: "20261127"})) == 1
	}) {
		t.Fatalf("no P MATCHED: %v", raws(c))
	}
	ps := 0
	for _, m := range c.Messages() {
		if tp, _ := m.MsgType(); tp == "P" {
			ps++
		}
	}
	if ps != 3 {
		t.Errorf("%d P, want 3: %v", ps, raws(c))
	}
}

func raws(c *fixtest.Client) []string {
	var out []string
	for _, m := range c.Messages() {
		out = append(out, fixtest.Raw(m))
	}
	return out
}

// TestLogon: a wrong password, a participant not enabled for the signer
// and a bad HeartBtInt get Logout `authentication failed`; an unknown
// CompID is closed with no answer and no store entry; five refused Logons
// from one address lock the CompID out there for 60 s, the right password
// included; a second connection for a logged-on BIC is closed with no
// answer, the first unaffected.
func TestLogon(t *testing.T) {
	r := startRig(t, nil)
	bad := r.client(brk, func(o *fixtest.Options) { o.Password = "wrong" })
	if !bad.Wait(10*time.Second, func(c *fixtest.Client) bool { return len(c.Logouts()) > 0 }) || bad.Logouts()[0] != "authentication failed" {
		t.Fatalf("logouts %q", bad.Logouts())
	}
	bad.Stop()
	for _, tune := range []func(*fixtest.Options){
		func(o *fixtest.Options) { o.BIC, o.Password = noSign, DemoPassword(noSign) },
		func(o *fixtest.Options) { o.HeartBtInt = 2 },
	} {
		c := r.client(im, tune)
		if !c.Wait(10*time.Second, func(c *fixtest.Client) bool { return len(c.Logouts()) > 0 }) || c.Logouts()[0] != "authentication failed" || c.Logons() != 0 {
			t.Fatalf("logouts %q, logons %d", c.Logouts(), c.Logons())
		}
		c.Stop()
	}
	// An unknown CompID: closed, nothing answered, no store entry.
	nc, err := net.Dial("tcp", r.addr)
	if err != nil {
		t.Fatal(err)
	}
	nc.Write(rawFIX("35=A|34=1|49=NOTAPARTY|52=" + fixtest.Now() + "|56=STEUTLSGXXX|98=0|108=30|553=NOTAPARTY|554=x|"))
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if b, err := io.ReadAll(nc); len(b) != 0 || err != nil {
		t.Fatalf("answered %q (%v)", b, err)
	}
	nc.Close()
	if ents, _ := os.ReadDir(sessionsDir(r.store)); len(ents) > 0 {
		for _, e := range ents {
			if strings.Contains(e.Name(), "NOTAPARTY") {
				t.Fatalf("store entry %s", e.Name())
			}
		}
	}
	// Lock-out: the broker failed once above; four more, then the right
	// password fails too.
	for i := 0; i < 4; i++ {
		c := r.client(brk, func(o *fixtest.Options) { o.Password = "wrong" })
		c.Wait(10*time.Second, func(c *fixtest.Client) bool { return len(c.Logouts()) > 0 })
		c.Stop()
	}
	locked := r.client(brk, nil)
	if !locked.Wait(10*time.Second, func(c *fixtest.Client) bool { return len(c.Logouts()) > 0 }) || locked.Logons() != 0 {
		t.Fatalf("not locked out: logons %d, logouts %q", locked.Logons(), locked.Logouts())
	}
	locked.Stop()
	if !strings.Contains(r.log.String(), "locked out") {
		t.Error("the lock-out is not logged")
	}
	// A second connection while the IM is logged on.
	c := r.client(im, nil)
	r.loggedOn(c)
	second, err := net.Dial("tcp", r.addr)
	if err != nil {
		t.Fatal(err)
	}
	second.Write(rawFIX("35=A|34=1|49=" + im + "|52=" + fixtest.Now() + "|56=STEUTLSGXXX|98=0|108=30|553=" + im + "|554=" + DemoPassword(im) + "|"))
	second.SetReadDeadline(time.Now().Add(5 * time.Second))
	if b, err := io.ReadAll(second); len(b) != 0 || err != nil {
		t.Fatalf("the second connection was answered %q (%v)", b, err)
	}
	second.Close()
	if err := c.Send(exampleJMsg().Message()); err != nil {
		t.Fatal(err)
	}
	if !c.Wait(10*time.Second, func(c *fixtest.Client) bool { return c.Count(isP(map[int]string{87: "3"})) == 1 }) {
		t.Fatalf("the first session was affected: %v", raws(c))
	}
}

// TestAdapterRejections answers each bad input as adapters.md §4.3 and
// §4.6 name, with nothing published.
func TestAdapterRejections(t *testing.T) {
	r := startRig(t, nil)
	c := r.client(im, nil)
	r.loggedOn(c)
	send := func(m *quickfix.Message) {
		t.Helper()
		if err := c.Send(m); err != nil {
			t.Fatal(err)
		}
	}
	j := exampleJMsg()
	j.ISIN = ""
	send(j.Message())
	j = exampleJMsg()
	j.Allocs[1].Qty = "3999"
	send(j.Message())
	j = exampleJMsg()
	j.Allocs[0].PSET = ""
	send(j.Message())
	j = exampleJMsg()
	j.TransType, j.RefAllocID, j.AllocID = "1", "NEVER-SENT", "ALLOC/REPL"
	send(j.Message())
	ae := fixtest.AE{TradeReportID: "TR-1", ISIN: isin, LastQty: "100", LastPx: "1.5", TradeDate: "20261127", SettlDate: "20261130",
		Side: "1", OrderID: "BT-1", Currency: "SGD", Broker: brk, InvMgr: im}
	send(ae.Message()) // no LastMkt
	d := quickfix.NewMessage()
	d.Header.SetString(35, "D")
	d.Body.SetString(11, "CL-1")
	d.Body.SetString(21, "1")
	d.Body.SetString(55, "X")
	d.Body.SetString(54, "1")
	d.Body.SetString(60, fixtest.Now())
	d.Body.SetString(40, "1")
	send(d)
	third := exampleJMsg().Message()
	third.Header.SetString(115, "SOMEONEELSE")
	send(third)
	au := fixtest.AU{ConfirmID: "CNF:nope:1:" + im + ":1", AffirmStatus: "3", TradeDate: "20261127"}
	send(au.Message())
	wants := []struct {
		what  string
		match func(*quickfix.Message) bool
	}{
		{"no ISIN", isP(map[int]string{87: "1", 88: "7", 58: "no ISIN: SecurityIDSource(22)=4 required"})},
		{"sum", isP(map[int]string{87: "1", 88: "1", 58: "sum of AllocQty differs from Quantity"})},
		{"nested", isP(map[int]string{87: "1", 88: "0", 58: "allocation ACC1: NestedParties role 28 and 10 required"})},
		{"unknown RefAllocID", isP(map[int]string{70: "ALLOC/REPL", 87: "1", 88: "7", 58: "unknown RefAllocID"})},
		{"AE LastMkt", fixtest.Is("AR", map[int]string{571: "TR-1", 150: "8", 939: "1", 751: "99", 58: "LastMkt(30) required", 55: isin})},
		{"D unsupported", fixtest.Is("j", map[int]string{372: "D", 380: "3", 379: "CL-1"})},
		{"third party", fixtest.Is("j", map[int]string{372: "J", 380: "6", 58: "third-party routing not supported"})},
		{"AU unknown", fixtest.Is("j", map[int]string{372: "AU", 380: "1"})},
	}
	ok := c.Wait(15*time.Second, func(c *fixtest.Client) bool {
		for _, w := range wants {
			if c.Count(w.match) != 1 {
				return false
			}
		}
		return true
	})
	if !ok {
		for _, w := range wants {
			if c.Count(w.match) != 1 {
				t.Errorf("%s: not answered as the contract names", w.what)
			}
		}
		t.Fatalf("received: %v", raws(c))
	}
	if got := r.inbound(); len(got) != 0 {
		t.Fatalf("%d records published", len(got))
	}
}

// TestBrokersDoNotAnswer is the ack point's failure case (§4.4): the
// brokers stop acknowledging produce requests; the J's connection is
// closed with no Logout and no Reject, no P 87=3 is sent and its sequence
// number is not consumed; no Logon is accepted while the records wait;
// once the brokers answer again the client's resend yields byte-identical
// records (an exact duplicate of whatever reached the topic) and its P 87=3.
func TestBrokersDoNotAnswer(t *testing.T) {
	r := startRig(t, nil)
	c := r.client(im, nil)
	r.loggedOn(c)
	var mu sync.Mutex
	down := true
	r.cluster.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		r.cluster.KeepControl()
		mu.Lock()
		defer mu.Unlock()
		if !down {
			r.cluster.DropControl()
			return nil, nil, false
		}
		return nil, nil, true // no answer
	})
	id := quickfix.SessionID{BeginString: "FIX.4.4", SenderCompID: "STEUTLSGXXX", TargetCompID: im}
	before := 2 // the Logon consumed 1
	if err := c.Send(exampleJMsg().Message()); err != nil {
		t.Fatal(err)
	}
	if !c.Wait(15*time.Second, func(c *fixtest.Client) bool {
		return c.Logons() >= 1 && strings.Contains(r.log.String(), "did not acknowledge")
	}) {
		t.Fatalf("the connection was not dropped:\n%s", tail(r.log.String()))
	}
	time.Sleep(2 * time.Second)
	if n := len(c.Messages()); n != 0 {
		t.Fatalf("answered before the ack point: %v", raws(c))
	}
	for _, l := range c.Logouts() {
		if l != "service unavailable: try again later" {
			t.Fatalf("logout %q: the dropped connection had no Logout", l)
		}
	}
	if _, next, err := SeqNums(r.store, id); err != nil || next != before {
		t.Fatalf("inbound sequence number %d, was %d (%v)", next, before, err)
	}
	if !strings.Contains(r.log.String(), "service unavailable") && !c.Wait(10*time.Second, func(c *fixtest.Client) bool {
		return strings.Contains(r.log.String(), "service unavailable") || strings.Contains(r.log.String(), "brokers do not answer")
	}) {
		t.Fatalf("a Logon was not refused while the brokers did not answer:\n%s", tail(r.log.String()))
	}
	mu.Lock()
	down = false
	mu.Unlock()
	if !c.Wait(30*time.Second, func(c *fixtest.Client) bool { return c.Count(isP(map[int]string{87: "3"})) >= 1 }) {
		t.Fatalf("no P 87=3 after the brokers came back: %v\n%s", raws(c), tail(r.log.String()))
	}
	recs := r.inbound()
	distinct := map[string]bool{}
	for _, rec := range recs {
		distinct[string(rec.Value)] = true
	}
	if len(distinct) != 2 {
		t.Fatalf("%d distinct records (of %d), want the worked example's 2", len(distinct), len(recs))
	}
	for v := range distinct {
		if s := sha256Hex([]byte(v)); s != "949512d6395e0fa870070740aa45df0651b5f4be4d649c89416846288a1cf16e" &&
			s != "d16591f1058fa8004de3b6cf86aec61a01bf4850f08d36200364d1fdb906d926" {
			t.Errorf("record %s", v)
		}
	}
}

var _ = bufio.NewReader
