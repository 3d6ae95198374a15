package fixgw

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/quickfixgo/quickfix"
)

// The front is what participants connect to (--addr): it owns the socket,
// so that nothing is read or buffered for a stranger (guide: ground rules)
// and a message's size is known before it is read (§4.2 Size). It
//
//   - terminates TLS (1.2 or later; with --tls-client-ca a client
//     certificate is required, its CN or a DNS SAN equal to the
//     SenderCompID, else the connection is closed before Logon);
//   - reads the first message, at most logonLimit bytes within
//     logonTimeout: a SenderCompID without credentials is closed with no
//     answer and no store entry; another BeginString gets Logout
//     `unsupported BeginString`; anything but a Logon to --comp-id is
//     closed; a second connection for a BIC that has one is closed with no
//     answer (§4.2 Second logon);
//   - hands the Logon to the FIX engine over a loopback connection the
//     engine's ConnectionValidator recognises as the front's own, and reads
//     nothing more from the client until the engine accepted the Logon;
//   - then frames each message as the engine's parser does: a message over
//     --max-message-size closes the connection with nothing consumed, and a
//     garbled one (BodyLength or CheckSum wrong) is dropped silently, which
//     leaves a gap the client resends (the engine itself checks no
//     CheckSum).
type front struct {
	compID        string
	maxSize       int
	tls           *tls.Config
	needCert      bool
	creds         *Credentials
	engine        string // the engine's loopback address
	log           *slog.Logger
	onUnsupported func(bic string)

	mu      sync.Mutex
	claims  map[string]*fconn // BIC → its connection
	byLocal map[string]*fconn // the engine-side connection's local address → it
	closed  bool
	wg      sync.WaitGroup
}

const (
	logonLimit   = 8 << 10
	logonTimeout = 30 * time.Second
)

// fconn is one participant connection through the front.
type fconn struct {
	bic      string
	ip       string
	client   net.Conn
	engine   net.Conn
	loggedOn chan struct{}
	// wrote is signalled whenever bytes the engine wrote for the client
	// arrive at the front: the engine's writer is free again.
	wrote   chan struct{}
	once    sync.Once
	logOnce sync.Once
	done    chan struct{}
}

func (c *fconn) close() {
	c.once.Do(func() {
		c.client.Close()
		if c.engine != nil {
			c.engine.Close()
		}
		close(c.done)
	})
}

// accepted tells the front the engine accepted the connection's Logon.
func (c *fconn) accepted() { c.logOnce.Do(func() { close(c.loggedOn) }) }

func (f *front) serve(ctx context.Context, ln net.Listener) {
	go func() {
		<-ctx.Done()
		f.mu.Lock()
		f.closed = true
		f.mu.Unlock()
		ln.Close()
	}()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			f.log.Warn("fixgw: accept", "err", err)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			f.handle(ctx, c)
		}()
	}
}

// conn is the live connection of bic, if any.
func (f *front) conn(bic string) *fconn {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.claims[bic]
}

// drop closes bic's connection (no Logout, no Reject: §4.4).
func (f *front) drop(bic string) {
	if c := f.conn(bic); c != nil {
		c.close()
	}
}

// engineConn is the front connection whose engine side has local address
// addr (the ConnectionValidator's check that the engine's peer is the
// front).
func (f *front) engineConn(addr string) *fconn {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.byLocal[addr]
}

func hostOf(a net.Addr) string {
	h, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return h
}

func (f *front) handle(ctx context.Context, raw net.Conn) {
	client := raw
	defer func() { client.Close() }()
	deadline := time.Now().Add(logonTimeout)
	raw.SetDeadline(deadline)
	var certNames []string
	if f.tls != nil {
		tc := tls.Server(raw, f.tls)
		if err := tc.HandshakeContext(ctx); err != nil {
			f.log.Info("fixgw: TLS handshake failed", "remote", raw.RemoteAddr().String(), "err", err)
			return
		}
		client = tc
		if st := tc.ConnectionState(); len(st.PeerCertificates) > 0 {
			cert := st.PeerCertificates[0]
			certNames = append([]string{cert.Subject.CommonName}, cert.DNSNames...)
		}
	}
	fr := &framer{r: client}
	first, err := fr.next(min(logonLimit, f.maxSize))
	if err != nil {
		f.log.Info("fixgw: connection closed before a Logon", "remote", raw.RemoteAddr().String(), "err", err)
		return
	}
	h := headerOf(first)
	bic := h[tagSenderCompID]
	if !f.creds.Known(bic) {
		f.log.Info("fixgw: connection refused: SenderCompID has no credentials", "remote", raw.RemoteAddr().String(), "sender", echo(bic))
		return
	}
	if h[tagBeginString] != quickfix.BeginStringFIX44 {
		f.log.Info("fixgw: logon refused: unsupported BeginString", "participant", bic, "begin_string", echo(h[tagBeginString]))
		client.Write(logoutOutside(f.compID, bic, "unsupported BeginString"))
		return
	}
	if h[tagMsgType] != "A" {
		f.log.Info("fixgw: connection refused: the first message is not a Logon", "participant", bic, "msg_type", echo(h[tagMsgType]))
		return
	}
	if h[tagTargetCompID] != f.compID {
		f.log.Info("fixgw: connection refused: TargetCompID is not --comp-id", "participant", bic, "target", echo(h[tagTargetCompID]))
		return
	}
	if f.needCert && !contains(certNames, bic) {
		f.log.Info("fixgw: connection refused: the client certificate does not name the SenderCompID", "participant", bic, "names", certNames)
		return
	}
	c := &fconn{bic: bic, ip: hostOf(raw.RemoteAddr()), client: client, loggedOn: make(chan struct{}), done: make(chan struct{}),
		wrote: make(chan struct{}, 1)}
	f.mu.Lock()
	if f.closed || f.claims[bic] != nil {
		f.mu.Unlock()
		f.log.Info("fixgw: connection closed: the participant already has a session", "participant", bic, "remote", raw.RemoteAddr().String())
		return
	}
	f.claims[bic] = c
	f.mu.Unlock()
	defer f.release(c)
	engine, err := net.DialTimeout("tcp", f.engine, 5*time.Second)
	if err != nil {
		f.log.Warn("fixgw: the FIX engine does not answer", "err", err)
		return
	}
	c.engine = engine
	f.mu.Lock()
	f.byLocal[engine.LocalAddr().String()] = c
	f.mu.Unlock()
	defer c.close()
	go func() {
		copyBuffered(client, engine, engineBuffer, c.wrote)
		c.close()
	}()
	if _, err := engine.Write(first); err != nil {
		return
	}
	select {
	case <-c.loggedOn:
	case <-c.done:
		return
	case <-time.After(time.Until(deadline)):
		f.log.Info("fixgw: the Logon was not accepted in time", "participant", bic)
		return
	}
	raw.SetDeadline(time.Time{})
	for {
		msg, err := fr.next(f.maxSize)
		switch {
		case errors.Is(err, errGarbled):
			f.log.Info("fixgw: garbled message dropped (BodyLength or CheckSum)", "participant", bic, "msg", echo(string(msg)))
			continue
		case errors.Is(err, errTooLarge):
			f.log.Warn("fixgw: message over --max-message-size: connection closed, nothing consumed", "participant", bic, "max", f.maxSize)
			return
		case err != nil:
			return
		}
		if bs := headerOf(msg)[tagBeginString]; bs != quickfix.BeginStringFIX44 {
			f.log.Info("fixgw: unsupported BeginString: logout", "participant", bic, "begin_string", echo(bs))
			if f.onUnsupported != nil {
				f.onUnsupported(bic)
			}
			select {
			case <-c.done:
			case <-time.After(time.Second):
			}
			return
		}
		if _, err := engine.Write(msg); err != nil {
			return
		}
	}
}

// engineBuffer bounds what the front holds of the engine's output for a
// client that reads slower than the engine writes.
const engineBuffer = 8 << 20

// copyBuffered copies src to dst through a buffer of up to limit bytes, so
// that src's writer is not held by a slow dst: quickfixgo's session loop
// spins on a busy writer (its queued messages are offered to the writer
// without blocking, and offered again at once), burning a core per session
// whose client reads slowly. A client more than limit bytes behind holds
// the engine again (backpressure, never a loss).
func copyBuffered(dst io.Writer, src io.Reader, limit int, read chan<- struct{}) {
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	var queue [][]byte
	size, done := 0, false
	go func() {
		for {
			b := make([]byte, 32<<10)
			n, err := src.Read(b)
			if n > 0 {
				select {
				case read <- struct{}{}:
				default:
				}
			}
			mu.Lock()
			if n > 0 {
				for size >= limit && !done {
					cond.Wait()
				}
				queue = append(queue, b[:n])
				size += n
			}
			if err != nil {
				done = true
			}
			cond.Broadcast()
			stop := done
			mu.Unlock()
			if stop {
				return
			}
		}
	}()
	for {
		mu.Lock()
		for len(queue) == 0 && !done {
			cond.Wait()
		}
		if len(queue) == 0 && done {
			mu.Unlock()
			return
		}
		chunks := queue
		queue = nil
		for _, c := range chunks {
			size -= len(c)
		}
		cond.Broadcast()
		mu.Unlock()
		for _, c := range chunks {
			if _, err := dst.Write(c); err != nil {
				mu.Lock()
				done = true
				cond.Broadcast()
				mu.Unlock()
				return
			}
		}
	}
}

// release forgets a connection once it ended; the BIC may connect again.
func (f *front) release(c *fconn) {
	c.close()
	f.mu.Lock()
	if f.claims[c.bic] == c {
		delete(f.claims, c.bic)
	}
	if c.engine != nil {
		delete(f.byLocal, c.engine.LocalAddr().String())
	}
	f.mu.Unlock()
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// echo keeps a value from the wire short and printable in the log.
func echo(s string) string {
	if len(s) > 256 {
		s = s[:256] + "…"
	}
	return strconv.Quote(s)
}

// headerOf reads the first fields of a message (through the body's start):
// BeginString, MsgType, SenderCompID, TargetCompID.
func headerOf(msg []byte) map[int]string {
	out := map[int]string{}
	for len(msg) > 0 && len(out) < 4 {
		eq := bytes.IndexByte(msg, '=')
		soh := bytes.IndexByte(msg, 1)
		if eq <= 0 || soh < eq {
			break
		}
		tag, err := strconv.Atoi(string(msg[:eq]))
		if err != nil {
			break
		}
		switch tag {
		case tagBeginString, tagMsgType, tagSenderCompID, tagTargetCompID:
			if _, ok := out[tag]; !ok {
				out[tag] = string(msg[eq+1 : soh])
			}
		}
		msg = msg[soh+1:]
	}
	return out
}

// logoutOutside is a Logout sent before any session exists (another
// BeginString at logon): MsgSeqNum 1, not stored.
func logoutOutside(compID, bic, text string) []byte {
	body := fmt.Sprintf("35=5\x0134=1\x0149=%s\x0152=%s\x0156=%s\x0158=%s\x01", compID, FIXTime(time.Now()), bic, text)
	msg := "8=FIX.4.4\x019=" + strconv.Itoa(len(body)) + "\x01" + body
	return []byte(msg + "10=" + checksum([]byte(msg)) + "\x01")
}

func checksum(b []byte) string {
	sum := 0
	for _, c := range b {
		sum += int(c)
	}
	return fmt.Sprintf("%03d", sum%256)
}

var (
	errTooLarge = errors.New("message over the size limit")
	errGarbled  = errors.New("garbled message")
)

// framer reads FIX messages off a stream as the engine's parser frames
// them ("8=", "9=" BodyLength, the body, "10=" CheckSum), checking what the
// engine does not: a size limit known from BodyLength before the body is
// read, and the CheckSum.
type framer struct {
	r   io.Reader
	buf []byte
}

func (f *framer) fill(need, limit int) error {
	for len(f.buf) < need {
		if cap(f.buf) < need {
			nb := make([]byte, len(f.buf), min(max(need, 2*cap(f.buf), 4096), limit+128))
			copy(nb, f.buf)
			f.buf = nb
		}
		n, err := f.r.Read(f.buf[len(f.buf):cap(f.buf)])
		f.buf = f.buf[:len(f.buf)+n]
		if err != nil && len(f.buf) < need {
			return err
		}
	}
	return nil
}

// next is the next whole message, at most limit bytes (errTooLarge as soon
// as BodyLength says it would be more), or errGarbled for a message with a
// wrong BodyLength or CheckSum (dropped: the stream resumes at the next
// "8=").
func (f *framer) next(limit int) ([]byte, error) {
	for {
		// Skip to "8=", keeping nothing before it.
		if err := f.fill(2, limit); err != nil {
			return nil, err
		}
		i := bytes.Index(f.buf, []byte("8="))
		if i < 0 {
			keep := 0
			if f.buf[len(f.buf)-1] == '8' {
				keep = 1
			}
			f.buf = append(f.buf[:0], f.buf[len(f.buf)-keep:]...)
			if err := f.fill(len(f.buf)+1, limit); err != nil {
				return nil, err
			}
			continue
		}
		f.buf = append(f.buf[:0], f.buf[i:]...)
		// "8=<begin>\x01" then "9=<n>\x01": at most 64 bytes of header.
		head := -1
		n := 0
		for head < 0 {
			soh1 := bytes.IndexByte(f.buf, 1)
			if soh1 >= 0 {
				rest := f.buf[soh1+1:]
				if len(rest) >= 2 && !bytes.HasPrefix(rest, []byte("9=")) {
					return nil, f.resync(errGarbled)
				}
				if soh2 := bytes.IndexByte(rest, 1); soh2 >= 0 {
					v, err := strconv.Atoi(string(rest[2:soh2]))
					if err != nil || v <= 0 {
						return nil, f.resync(errGarbled)
					}
					head, n = soh1+1+soh2+1, v
					break
				}
			}
			if len(f.buf) > 64 {
				return nil, f.resync(errGarbled)
			}
			if err := f.fill(len(f.buf)+1, limit); err != nil {
				return nil, err
			}
		}
		total := head + n + 7 // "10=nnn\x01"
		if total > limit {
			return nil, errTooLarge
		}
		if err := f.fill(total, limit); err != nil {
			return nil, err
		}
		end := head + n
		tr := f.buf[end:total]
		if !bytes.HasPrefix(tr, []byte("10=")) || tr[6] != 1 {
			return nil, f.resync(errGarbled)
		}
		sum := checksum(f.buf[:end])
		if string(tr[3:6]) == sum {
			msg := append([]byte(nil), f.buf[:total]...)
			f.buf = append(f.buf[:0], f.buf[total:]...)
			return msg, nil
		}
		// quickfixgo v0.9.10's resend of a message that ends with a
		// repeating group writes the stored message's CheckSum field into
		// the body and its new one after it ("…|10=old|10=new|"), BodyLength
		// and the new CheckSum right for the message without the old field:
		// that message is taken, without the stale field. Any other wrong
		// CheckSum drops the message whole.
		if err := f.fill(total+7, limit+7); err == nil {
			tr2 := f.buf[total : total+7]
			if bytes.HasPrefix(tr2, []byte("10=")) && tr2[6] == 1 && string(tr2[3:6]) == sum {
				msg := append(append([]byte(nil), f.buf[:end]...), tr2...)
				f.buf = append(f.buf[:0], f.buf[total+7:]...)
				return msg, nil
			}
		} else if len(f.buf) < total {
			return nil, err
		}
		bad := append([]byte(nil), f.buf[:total]...)
		f.buf = append(f.buf[:0], f.buf[total:]...)
		return bad, errGarbled
	}
}

// resync drops the message start at the head of the buffer, so the next
// read looks for the next "8=".
func (f *framer) resync(err error) error {
	f.buf = append(f.buf[:0], f.buf[1:]...)
	return err
}
