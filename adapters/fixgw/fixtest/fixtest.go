// Package fixtest is an off-the-shelf FIX client for tests: quickfixgo
// v0.9.10's own initiator, validating what it receives against quickfixgo's
// stock spec/FIX44.xml (not the adapter's dictionary), logging on with
// Username/Password and keeping its sequence numbers and sent messages in
// a file store, so that it resends after a reconnect as a FIX engine does.
package fixtest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/quickfixgo/quickfix"
	"github.com/quickfixgo/quickfix/config"
	"github.com/quickfixgo/quickfix/store/file"
)

var stock struct {
	once sync.Once
	path string
	err  error
}

// StockDictionary is the path of quickfixgo v0.9.10's stock FIX44.xml (in
// the module cache).
func StockDictionary() (string, error) {
	stock.once.Do(func() {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/quickfixgo/quickfix").Output()
		if err != nil {
			stock.err = fmt.Errorf("go list github.com/quickfixgo/quickfix: %v", err)
			return
		}
		stock.path = filepath.Join(strings.TrimSpace(string(out)), "spec", "FIX44.xml")
		_, stock.err = os.Stat(stock.path)
	})
	return stock.path, stock.err
}

// Options of a client.
type Options struct {
	Addr     string // host:port of ste fixgw
	BIC      string // SenderCompID and Username
	Password string
	CompID   string // TargetCompID (default STEUTLSGXXX)
	Dir      string // the client's file store
	// HeartBtInt in seconds (default 30).
	HeartBtInt int
	// TLS: the CA to trust (PEM file), and a client certificate and key
	// (PEM files, optional); ServerName is the name checked.
	TLSCA, TLSCert, TLSKey, ServerName string
	// ResetSeqNum sends ResetSeqNumFlag=Y on every Logon.
	ResetSeqNum bool
	// Extra are Logon fields to set (tag → value), e.g. to break one.
	Extra map[int]string
	// MemoryStore keeps the client's sequence numbers and sent messages in
	// memory (no fsync per message: a load generator, which cannot resend
	// after its own restart).
	MemoryStore bool
}

// Client is a running initiator.
type Client struct {
	o    Options
	ID   quickfix.SessionID
	init *quickfix.Initiator

	mu      sync.Mutex
	msgs    []*quickfix.Message // application messages and Rejects received, in order
	logouts []string            // Texts of the Logouts received
	logons  int
	changed chan struct{}
}

// Start starts a client; it connects (and reconnects every second) until
// Stop.
func Start(o Options) (*Client, error) {
	if o.CompID == "" {
		o.CompID = "STEUTLSGXXX"
	}
	if o.HeartBtInt == 0 {
		o.HeartBtInt = 30
	}
	dict, err := StockDictionary()
	if err != nil {
		return nil, err
	}
	host, port, ok := strings.Cut(o.Addr, ":")
	if !ok {
		return nil, fmt.Errorf("address %q", o.Addr)
	}
	st := quickfix.NewSettings()
	g := st.GlobalSettings()
	for k, v := range map[string]string{config.SocketConnectHost: host, config.SocketConnectPort: port,
		config.HeartBtInt: strconv.Itoa(o.HeartBtInt), config.ReconnectInterval: "1", config.FileStorePath: o.Dir,
		config.DataDictionary: dict, config.ResetOnLogon: "N", config.PersistMessages: "Y", config.LogonTimeout: "5"} {
		g.Set(k, v)
	}
	if o.TLSCA != "" {
		g.Set(config.SocketUseSSL, "Y")
		g.Set(config.SocketCAFile, o.TLSCA)
		g.Set(config.SocketServerName, o.ServerName)
		if o.TLSCert != "" {
			g.Set(config.SocketCertificateFile, o.TLSCert)
			g.Set(config.SocketPrivateKeyFile, o.TLSKey)
		}
	}
	ss := quickfix.NewSessionSettings()
	ss.Set(config.BeginString, quickfix.BeginStringFIX44)
	ss.Set(config.SenderCompID, o.BIC)
	ss.Set(config.TargetCompID, o.CompID)
	id, err := st.AddSession(ss)
	if err != nil {
		return nil, err
	}
	c := &Client{o: o, ID: id, changed: make(chan struct{})}
	var stores quickfix.MessageStoreFactory = file.NewStoreFactory(st)
	if o.MemoryStore {
		stores = quickfix.NewMemoryStoreFactory()
	}
	c.init, err = quickfix.NewInitiator(c, stores, st, logFactory{c})
	if err != nil {
		return nil, err
	}
	if err := c.init.Start(); err != nil {
		return nil, err
	}
	return c, nil
}

// Stop logs out and stops.
func (c *Client) Stop() { c.init.Stop() }

func (c *Client) notify() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// Send sends an application message on the session (stored for resend).
func (c *Client) Send(m *quickfix.Message) error { return quickfix.SendToTarget(m, c.ID) }

// Messages are the application messages (and session Rejects) received so
// far.
func (c *Client) Messages() []*quickfix.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*quickfix.Message(nil), c.msgs...)
}

// Logouts are the Texts of the Logouts received so far.
func (c *Client) Logouts() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.logouts...)
}

// Logons counts the accepted Logons.
func (c *Client) Logons() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.logons
}

// Wait waits until cond holds over the client (checked after every
// event), or timeout.
func (c *Client) Wait(timeout time.Duration, cond func(c *Client) bool) bool {
	deadline := time.After(timeout)
	for {
		c.mu.Lock()
		ch := c.changed
		c.mu.Unlock()
		if cond(c) {
			return true
		}
		select {
		case <-ch:
		case <-deadline:
			return cond(c)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Count counts the messages received that match.
func (c *Client) Count(match func(*quickfix.Message) bool) int {
	n := 0
	for _, m := range c.Messages() {
		if match(m) {
			n++
		}
	}
	return n
}

// Is matches a message by MsgType and fields (tag → value).
func Is(msgType string, fields map[int]string) func(*quickfix.Message) bool {
	return func(m *quickfix.Message) bool {
		if t, _ := m.MsgType(); t != msgType {
			return false
		}
		for tag, v := range fields {
			got, err := m.Body.GetString(quickfix.Tag(tag))
			if err != nil || got != v {
				return false
			}
		}
		return true
	}
}

// Raw is a message as received, '|' for SOH.
func Raw(m *quickfix.Message) string {
	return string(bytes.ReplaceAll(m.Bytes(), []byte{1}, []byte("|")))
}

// Get is a body field of a message ("" when absent).
func Get(m *quickfix.Message, tag int) string {
	v, _ := m.Body.GetString(quickfix.Tag(tag))
	return v
}

func (c *Client) OnCreate(quickfix.SessionID) {}
func (c *Client) OnLogon(quickfix.SessionID) {
	c.mu.Lock()
	c.logons++
	c.notify()
	c.mu.Unlock()
}
func (c *Client) OnLogout(quickfix.SessionID) {
	c.mu.Lock()
	c.notify()
	c.mu.Unlock()
}

func (c *Client) ToAdmin(m *quickfix.Message, _ quickfix.SessionID) {
	if t, _ := m.MsgType(); t == "A" {
		m.Body.SetString(553, c.o.BIC)
		m.Body.SetString(554, c.o.Password)
		if c.o.ResetSeqNum {
			m.Body.SetBool(141, true)
		}
		for tag, v := range c.o.Extra {
			m.Body.SetString(quickfix.Tag(tag), v)
		}
	}
}

func (c *Client) ToApp(*quickfix.Message, quickfix.SessionID) error { return nil }

func (c *Client) FromAdmin(m *quickfix.Message, _ quickfix.SessionID) quickfix.MessageRejectError {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch t, _ := m.MsgType(); t {
	case "3":
		c.msgs = append(c.msgs, copyOf(m))
		c.notify()
	}
	return nil
}

func (c *Client) FromApp(m *quickfix.Message, _ quickfix.SessionID) quickfix.MessageRejectError {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.msgs = append(c.msgs, copyOf(m))
	c.notify()
	return nil
}

// copyOf keeps a message as received: parsed again from a copy of its
// bytes (Bytes then gives them back exactly).
func copyOf(m *quickfix.Message) *quickfix.Message {
	out := quickfix.NewMessage()
	if err := quickfix.ParseMessage(out, bytes.NewBuffer(append([]byte(nil), m.Bytes()...))); err != nil {
		m.CopyInto(out)
	}
	out.ReceiveTime = m.ReceiveTime
	return out
}

// The engine's log: every Logout received is recorded from it (a Logout
// answering a Logon never reaches FromAdmin: the initiator is still
// waiting for the Logon).
type logFactory struct{ c *Client }

func (f logFactory) Create() (quickfix.Log, error) { return clientLog(f), nil }
func (f logFactory) CreateSessionLog(quickfix.SessionID) (quickfix.Log, error) {
	return clientLog(f), nil
}

type clientLog struct{ c *Client }

func (l clientLog) OnIncoming(b []byte) {
	if !bytes.Contains(b, []byte("\x0135=5\x01")) {
		return
	}
	text := ""
	if i := bytes.Index(b, []byte("\x0158=")); i >= 0 {
		rest := b[i+4:]
		if j := bytes.IndexByte(rest, 1); j >= 0 {
			text = string(rest[:j])
		}
	}
	l.c.mu.Lock()
	l.c.logouts = append(l.c.logouts, text)
	l.c.notify()
	l.c.mu.Unlock()
}
func (l clientLog) OnOutgoing([]byte)               {}
func (l clientLog) OnEvent(string)                  {}
func (l clientLog) OnEventf(string, ...interface{}) {}
