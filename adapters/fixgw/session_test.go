package fixgw

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quickfixgo/quickfix"

	"github.com/ste-utility/ste/adapters/fixgw/fixtest"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
)

// pki writes a CA, a server certificate for 127.0.0.1 and a client
// certificate per name, signed by it.
func pki(t *testing.T, clients ...string) (dir string) {
	t.Helper()
	dir = t.TempDir()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "fixgw test CA"}, IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour)}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	write := func(name string, der []byte, key *ecdsa.PrivateKey) {
		must(t, os.WriteFile(filepath.Join(dir, name+".pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
		if key != nil {
			kb, _ := x509.MarshalPKCS8PrivateKey(key)
			must(t, os.WriteFile(filepath.Join(dir, name+"-key.pem"), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kb}), 0o600))
		}
	}
	write("ca", caDER, nil)
	issue := func(name string, serial int64, tmpl *x509.Certificate) {
		k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl.SerialNumber, tmpl.NotBefore, tmpl.NotAfter = big.NewInt(serial), now.Add(-time.Hour), now.Add(time.Hour)
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &k.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		write(name, der, k)
	}
	issue("server", 2, &x509.Certificate{Subject: pkix.Name{CommonName: "localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames: []string{"localhost"}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature})
	for i, c := range clients {
		issue(c, int64(10+i), &x509.Certificate{Subject: pkix.Name{CommonName: c}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
			KeyUsage: x509.KeyUsageDigitalSignature})
	}
	return dir
}

// TLS with client certificates (§4.1): a certificate naming the
// SenderCompID logs on; one naming another is closed before Logon.
func TestTLSClientCertificates(t *testing.T) {
	dir := pki(t, im, "SOMEONE")
	r := startRig(t, func(o *Options) {
		o.TLSCert, o.TLSKey, o.TLSClientCA = filepath.Join(dir, "server.pem"), filepath.Join(dir, "server-key.pem"), filepath.Join(dir, "ca.pem")
	})
	good := r.client(im, func(o *fixtest.Options) {
		o.TLSCA, o.ServerName = filepath.Join(dir, "ca.pem"), "localhost"
		o.TLSCert, o.TLSKey = filepath.Join(dir, im+".pem"), filepath.Join(dir, im+"-key.pem")
	})
	r.loggedOn(good)
	good.Stop()
	bad := r.client(im, func(o *fixtest.Options) {
		o.TLSCA, o.ServerName = filepath.Join(dir, "ca.pem"), "localhost"
		o.TLSCert, o.TLSKey = filepath.Join(dir, "SOMEONE.pem"), filepath.Join(dir, "SOMEONE-key.pem")
	})
	time.Sleep(3 * time.Second)
	if bad.Logons() != 0 || len(bad.Logouts()) != 0 {
		t.Fatalf("a certificate of another name: logons %d, logouts %q", bad.Logons(), bad.Logouts())
	}
	if !strings.Contains(r.log.String(), "the client certificate does not name the SenderCompID") {
		t.Errorf("not logged:\n%s", tail(r.log.String()))
	}
	// Plain TCP is refused outright.
	nc, err := net.Dial("tcp", r.addr)
	must(t, err)
	nc.Write(rawFIX("35=A|34=1|49=" + im + "|52=" + fixtest.Now() + "|56=STEUTLSGXXX|98=0|108=30|553=" + im + "|554=" + DemoPassword(im) + "|"))
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if b, _ := io.ReadAll(nc); len(b) != 0 && strings.Contains(string(b), "35=A") {
		t.Fatalf("a plain connection logged on: %q", b)
	}
	nc.Close()
}

// A message over --max-message-size closes the connection with nothing
// consumed (§4.2 Size).
func TestMaxMessageSize(t *testing.T) {
	r := startRig(t, func(o *Options) { o.MaxMessageSize = 2048 })
	c := r.client(im, nil)
	r.loggedOn(c)
	id := quickfix.SessionID{BeginString: "FIX.4.4", SenderCompID: "STEUTLSGXXX", TargetCompID: im}
	before := 2 // the Logon consumed 1
	big := exampleJMsg().Message()
	big.Body.SetString(58, strings.Repeat("x", 3000))
	must(t, c.Send(big))
	if !c.Wait(10*time.Second, func(*fixtest.Client) bool { return strings.Contains(r.log.String(), "over --max-message-size") }) {
		t.Fatalf("not refused:\n%s", tail(r.log.String()))
	}
	r.shutdown()
	if _, next, err := SeqNums(r.store, id); err != nil || next != before {
		t.Fatalf("inbound sequence number %d, was %d (%v)", next, before, err)
	}
	if n := len(r.inbound()); n != 0 {
		t.Fatalf("%d records published", n)
	}
}

// A Logon with ResetSeqNumFlag=Y: both numbers to 1, and the outputs since
// delivery last resumed are sent again under the new numbers (§4.2).
func TestResetSeqNumFlag(t *testing.T) {
	r := startRig(t, nil)
	dir := t.TempDir()
	c := r.client(im, func(o *fixtest.Options) { o.Dir = dir })
	r.loggedOn(c)
	must(t, c.Send(exampleJMsg().Message()))
	r.ack(im, "J1:ALLOC_2F2026_2F77:ACC1")
	r.ack(im, "J1:ALLOC_2F2026_2F77:ACC2")
	if !c.Wait(10*time.Second, func(c *fixtest.Client) bool { return c.Count(isP(map[int]string{87: "0"})) == 1 }) {
		t.Fatalf("no P 87=0: %v", raws(c))
	}
	c.Stop()
	again := r.client(im, func(o *fixtest.Options) { o.Dir, o.ResetSeqNum = dir, true })
	r.loggedOn(again)
	if !again.Wait(10*time.Second, func(c *fixtest.Client) bool { return c.Count(isP(map[int]string{87: "0"})) >= 1 }) {
		t.Fatalf("the outputs were not sent again after the reset: %v\n%s", raws(again), tail(r.log.String()))
	}
	again.Stop()
	r.shutdown()
	id := quickfix.SessionID{BeginString: "FIX.4.4", SenderCompID: "STEUTLSGXXX", TargetCompID: im}
	if _, n, err := SeqNums(r.store, id); err != nil || n > 3 {
		t.Fatalf("inbound sequence number %d after the reset (%v)", n, err)
	}
}

// A participant that stops being ACTIVE is logged out within 30 s with
// `session closed by utility` (§4.2 Losing eligibility).
func TestLosingEligibility(t *testing.T) {
	old := watchEvery
	watchEvery = 500 * time.Millisecond
	defer func() { watchEvery = old }()
	r := startRig(t, nil)
	c := r.client(brk, nil)
	r.loggedOn(c)
	set := refdata.Default().Clone()
	p, _ := set.Participant(brk)
	p.Status = refdata.Suspended
	set.PutParticipant(p)
	if _, err := topics.PublishRefdata(t.Context(), r.cl, r.ns, set); err != nil {
		t.Fatal(err)
	}
	if !c.Wait(20*time.Second, func(c *fixtest.Client) bool {
		for _, l := range c.Logouts() {
			if l == "session closed by utility" {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("logouts %q\n%s", c.Logouts(), tail(r.log.String()))
	}
}

// SendingTime over 120 s off: Reject 373=10 then Logout — unless
// PossDupFlag=Y (§4.2).
func TestSendingTime(t *testing.T) {
	r := startRig(t, nil)
	c := r.client(brk, nil)
	r.loggedOn(c)
	m := fixtest.AE{TradeReportID: "TR-OLD", ISIN: isin, LastQty: "100", LastPx: "1", LastMkt: "XSES", TradeDate: "20261127",
		SettlDate: "20261130", Side: "1", OrderID: "BT-9", Currency: "SGD", Broker: brk, InvMgr: im}.Message()
	must(t, c.Send(m))
	// The client stamps SendingTime now: accepted. An engine cannot be
	// made to send an old SendingTime without PossDup, so the check is
	// held at the adapter's own callback.
	if !c.Wait(10*time.Second, func(*fixtest.Client) bool { return len(r.inbound()) == 1 }) {
		t.Fatalf("not published:\n%s", tail(r.log.String()))
	}
	a := &app{s: r.srv}
	old := quickfix.NewMessage()
	old.Header.SetString(52, "20260101-00:00:00.000")
	if rej := a.sendingTime(old); rej == nil || rej.RejectReason() != 10 {
		t.Fatalf("an old SendingTime: %v", rej)
	}
	old.Header.SetString(43, "Y")
	if rej := a.sendingTime(old); rej != nil {
		t.Fatalf("an old SendingTime with PossDupFlag=Y: %v", rej)
	}
}

// /health and /metrics (--health-addr): sessions, messages in and out,
// rejects, produce latency.
func TestMetrics(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	addr := l.Addr().String()
	l.Close()
	r := startRig(t, func(o *Options) { o.HealthAddr = addr })
	c := r.client(im, nil)
	r.loggedOn(c)
	must(t, c.Send(exampleJMsg().Message()))
	j := exampleJMsg()
	j.ISIN = ""
	must(t, c.Send(j.Message()))
	if !c.Wait(10*time.Second, func(c *fixtest.Client) bool { return c.Count(isP(nil)) == 2 }) {
		t.Fatalf("answers: %v", raws(c))
	}
	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + addr + path)
		must(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/health"); code != 200 || !strings.Contains(body, `"ok"`) {
		t.Fatalf("/health %d %s", code, body)
	}
	_, m := get("/metrics")
	for _, want := range []string{"ste_fixgw_sessions 1", `ste_fixgw_messages_in_total{msg_type="J"} 2`, `ste_fixgw_messages_in_total{msg_type="A"} 1`,
		`ste_fixgw_messages_out_total{msg_type="P"} 2`, `ste_fixgw_rejects_total{kind="adapter"} 1`, "ste_fixgw_produce_seconds_count 1",
		"ste_fixgw_records_published_total 2", "ste_fixgw_ready 1"} {
		if !strings.Contains(m, want+"\n") {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if strings.Contains(m, im) || strings.Contains(m, brk) {
		t.Error("a metric names a participant")
	}
}

// Serve returns once every session's delivery has stopped and saved its
// output cursor: a save after it returned raced whoever removed or reused
// the store next (the test's directory cleanup failed with "cursors:
// directory not empty" in a CI run). The final save is held back here;
// the cursor on disk must be the one saved after the stop.
func TestServeWaitsForTheFinalCursorSave(t *testing.T) {
	r := startRig(t, nil)
	c := r.client(brk, nil)
	r.loggedOn(c)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(cursorPath(r.store, brk)); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("no cursor saved at logon: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	hold := func() { time.Sleep(300 * time.Millisecond) }
	beforeFinalSave.Store(&hold)
	defer beforeFinalSave.Store(nil)
	stopped := time.Now()
	r.shutdown()
	cur, err := LoadCursor(r.store, brk)
	if err != nil {
		t.Fatal(err)
	}
	if cur.Updated.Before(stopped) {
		t.Fatalf("Serve returned before the delivery saved its cursor (cursor of %v, stop at %v)", cur.Updated, stopped)
	}
}
