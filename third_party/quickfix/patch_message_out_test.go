package quickfix

import (
	"bufio"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quickfixgo/quickfix/config"
)

// STE patch 1: an acceptor's session hands each queued message to its
// connection's writer at once, whatever the writer is doing — here blocked
// on a client that stopped reading. Upstream's unbuffered channel keeps
// every message after the one being written in the session's queue, and
// the session loop spins on it (sendQueued re-notifies messageEvent each
// time the writer is busy) until the writer is free.
func TestPatchMessagesHandedToABusyWriter(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	settings := NewSettings()
	g := settings.GlobalSettings()
	g.Set(config.SocketAcceptHost, "127.0.0.1")
	g.Set(config.SocketAcceptPort, strconv.Itoa(port))
	ss := NewSessionSettings()
	ss.Set(config.BeginString, BeginStringFIX44)
	ss.Set(config.SenderCompID, "ACC")
	ss.Set(config.TargetCompID, "INI")
	ss.Set(config.HeartBtInt, "30")
	ss.Set(config.ResetOnLogon, "Y")
	if _, err := settings.AddSession(ss); err != nil {
		t.Fatal(err)
	}
	logs := &outgoing{}
	acc, err := NewAcceptor(&patchApp{}, NewMemoryStoreFactory(), settings, logs)
	if err != nil {
		t.Fatal(err)
	}
	if err := acc.Start(); err != nil {
		t.Fatal(err)
	}
	defer acc.Stop()

	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.(*net.TCPConn).SetReadBuffer(4096)
	logon := NewMessage()
	logon.Header.SetString(8, BeginStringFIX44)
	logon.Header.SetString(35, "A")
	logon.Header.SetString(49, "INI")
	logon.Header.SetString(56, "ACC")
	logon.Header.SetInt(34, 1)
	logon.Header.SetString(52, time.Now().UTC().Format("20060102-15:04:05.000"))
	logon.Body.SetString(98, "0")
	logon.Body.SetString(108, "30")
	if _, err := c.Write(logon.build()); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	if line, err := r.ReadString(0x01); err != nil || !strings.HasPrefix(line, "8=FIX.4.4") {
		t.Fatalf("no Logon answer: %q %v", line, err)
	}
	// The client reads nothing more. 40 messages of 256 KB: the socket's
	// buffers take a few MB, then the writer blocks in Write.
	id := SessionID{BeginString: BeginStringFIX44, SenderCompID: "ACC", TargetCompID: "INI"}
	const n = 40
	pad := strings.Repeat("x", 256<<10)
	for i := 0; i < n; i++ {
		m := NewMessage()
		m.Header.SetString(35, "B")
		m.Body.SetString(148, "news "+strconv.Itoa(i))
		m.Body.SetString(58, pad)
		if err := SendToTarget(m, id); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for logs.count() < n && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := logs.count(); got < n {
		t.Fatalf("%d of %d messages handed to the writer while it is blocked: the rest wait in the session's queue", got, n)
	}
}

type patchApp struct{}

func (patchApp) OnCreate(SessionID)                               {}
func (patchApp) OnLogon(SessionID)                                {}
func (patchApp) OnLogout(SessionID)                               {}
func (patchApp) ToAdmin(*Message, SessionID)                      {}
func (patchApp) ToApp(*Message, SessionID) error                  { return nil }
func (patchApp) FromAdmin(*Message, SessionID) MessageRejectError { return nil }
func (patchApp) FromApp(*Message, SessionID) MessageRejectError   { return nil }

// outgoing counts the application messages (35=B) a session logged as
// sent: sendBytes logs each once the writer's channel took it.
type outgoing struct {
	mu sync.Mutex
	n  int
}

func (o *outgoing) count() int { o.mu.Lock(); defer o.mu.Unlock(); return o.n }

func (o *outgoing) Create() (Log, error)                    { return nullLog{}, nil }
func (o *outgoing) CreateSessionLog(SessionID) (Log, error) { return outLog{o}, nil }

type outLog struct{ o *outgoing }

func (l outLog) OnIncoming([]byte) {}
func (l outLog) OnOutgoing(b []byte) {
	if strings.Contains(string(b), "\x0135=B\x01") {
		l.o.mu.Lock()
		l.o.n++
		l.o.mu.Unlock()
	}
}
func (l outLog) OnEvent(string)                  {}
func (l outLog) OnEventf(string, ...interface{}) {}
