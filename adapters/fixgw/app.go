package fixgw

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quickfixgo/quickfix"

	"github.com/ste-utility/ste/adapters"
	"github.com/ste-utility/ste/schemas/refdata"
)

// session is the adapter's side of a BIC's FIX session.
type session struct {
	bic string
	id  quickfix.SessionID
	// mu is held while the application callback runs and while delivery
	// hands the session a batch: the two never interleave (§4.4: a J's P
	// 87=3 precedes every P made from STE's answers to it).
	mu sync.Mutex
	// poisoned: the brokers did not acknowledge a message in time; the
	// connection is closed and nothing more is consumed on it (§4.4).
	poisoned atomic.Bool
	// stop ends delivery (set while logged on; guarded by app.mu).
	stop    context.CancelFunc
	stopped chan struct{}
}

// app is the FIX engine's Application.
type app struct {
	s *Server

	mu       sync.Mutex
	sessions map[string]*session // BIC → its live session
}

func (a *app) session(id quickfix.SessionID) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.sessions[id.TargetCompID]
	if s == nil || s.id != id {
		return nil
	}
	return s
}

func (a *app) OnCreate(id quickfix.SessionID) {
	if id == a.s.placeholder {
		return
	}
	a.mu.Lock()
	a.sessions[id.TargetCompID] = &session{bic: id.TargetCompID, id: id}
	a.mu.Unlock()
}

func (a *app) OnLogon(id quickfix.SessionID) {
	s := a.session(id)
	if s == nil {
		return
	}
	a.s.metrics.sessions.Inc()
	a.s.log.Info("fixgw: logged on", "participant", s.bic)
	if c := a.s.front.conn(s.bic); c != nil {
		c.accepted()
	}
	ctx, cancel := context.WithCancel(a.s.ctx)
	stopped := make(chan struct{})
	a.mu.Lock()
	s.stop, s.stopped = cancel, stopped
	a.mu.Unlock()
	a.s.deliveries.Add(1)
	go func() {
		defer a.s.deliveries.Done()
		defer close(stopped)
		a.s.deliver(ctx, s)
	}()
}

func (a *app) OnLogout(id quickfix.SessionID) {
	s := a.session(id)
	if s == nil {
		return
	}
	a.mu.Lock()
	stop := s.stop
	s.stop = nil
	a.mu.Unlock()
	if stop != nil {
		a.s.metrics.sessions.Dec()
		stop()
	}
	a.s.log.Info("fixgw: logged out", "participant", s.bic)
	a.s.front.drop(s.bic)
}

func (a *app) ToAdmin(m *quickfix.Message, id quickfix.SessionID) {
	t, _ := m.MsgType()
	a.s.metrics.out(t)
	if t == "3" {
		a.s.metrics.rejects.WithLabelValues("session").Inc()
	}
}

func (a *app) ToApp(m *quickfix.Message, id quickfix.SessionID) error {
	t, _ := m.MsgType()
	a.s.metrics.out(t)
	if t == "j" {
		a.s.metrics.rejects.WithLabelValues("business").Inc()
	}
	return nil
}

// sendingTime is the check of §4.2: within MaxLatency of the acceptor's
// clock unless PossDupFlag=Y (the engine's own CheckLatency would reject a
// PossDup resend too, so the adapter checks it).
func (a *app) sendingTime(m *quickfix.Message) quickfix.MessageRejectError {
	if pd, _ := m.Header.GetString(tagPossDupFlag); pd == "Y" {
		return nil
	}
	t, err := m.Header.GetTime(tagSendingTime)
	if err != nil {
		return err
	}
	if d := a.s.o.Now().Sub(t); d >= maxLatency || d <= -maxLatency {
		tag := quickfix.Tag(tagSendingTime)
		return quickfix.NewMessageRejectError("SendingTime accuracy problem", 10, &tag)
	}
	return nil
}

const maxLatency = 120 * time.Second

func (a *app) FromAdmin(m *quickfix.Message, id quickfix.SessionID) quickfix.MessageRejectError {
	t, _ := m.MsgType()
	a.s.metrics.in(t)
	if rej := a.s.validator.Validate(m); rej != nil {
		return rej
	}
	if t == "A" {
		rej := a.logon(m, id)
		if _, refused := rej.(quickfix.RejectLogon); refused {
			a.consumeOnlyIfExpected(m, id)
		}
		return rej
	}
	return a.sendingTime(m)
}

// consumeOnlyIfExpected: the engine consumes one inbound sequence number
// for a refused Logon (as QuickFIX does, §4.2) — the Logon's own when it
// carries the expected number; when it carries a higher one (a gap: the
// client has messages the acceptor never acknowledged, §4.4), counting one
// up would consume a number of a message never processed, which the client
// would then never resend. Then nothing is consumed.
func (a *app) consumeOnlyIfExpected(m *quickfix.Message, id quickfix.SessionID) {
	seq, err := m.Header.GetInt(tagMsgSeqNum)
	st := a.s.factory.store(id)
	if st != nil && (err != nil || seq != st.NextTargetMsgSeqNum()) {
		st.holdNext()
	}
}

// authFailed is the one answer to a refused Logon (§4.2).
var authFailed = quickfix.RejectLogon{Text: "authentication failed"}

// logon checks a Logon (§4.2 Authentication); the reason of a refusal goes
// to the log, the client reads `authentication failed` whatever failed.
func (a *app) logon(m *quickfix.Message, id quickfix.SessionID) quickfix.MessageRejectError {
	bic := id.TargetCompID
	c := a.s.front.conn(bic)
	if c == nil || id.SenderCompID != a.s.o.CompID {
		return authFailed
	}
	now := a.s.o.Now()
	fail := func(why string) quickfix.MessageRejectError {
		a.s.log.Info("fixgw: logon refused", "participant", bic, "remote", c.ip, "reason", why)
		a.s.lock.fail(bic, c.ip, now)
		a.s.metrics.rejects.WithLabelValues("logon").Inc()
		return authFailed
	}
	if a.s.lock.locked(bic, c.ip, now) {
		return fail("locked out: 5 refused logons from this address within 60 s")
	}
	user, _ := m.Body.GetString(tagUsername)
	pass, _ := m.Body.GetString(tagPassword)
	if user != bic {
		return fail("Username(553) is not the SenderCompID")
	}
	if !a.s.o.Credentials.Verify(bic, pass) {
		return fail("wrong password")
	}
	hb, err := m.Body.GetInt(tagHeartBtInt)
	if err != nil || hb < 5 || hb > 300 {
		return fail("HeartBtInt(108) not 5 to 300")
	}
	if em, _ := m.Body.GetString(tagEncryptMethod); em != "0" {
		return fail("EncryptMethod(98) not 0")
	}
	if why := a.s.eligible(bic); why != "" {
		return fail(why)
	}
	if rej := a.sendingTime(m); rej != nil {
		a.s.log.Info("fixgw: logon refused", "participant", bic, "reason", "SendingTime accuracy")
		return quickfix.RejectLogon{Text: "SendingTime accuracy problem"}
	}
	// The brokers must answer before the session takes a message (§4.4: no
	// Logon is accepted while they do not).
	ctx, cancel := context.WithTimeout(a.s.ctx, min(a.s.o.ProduceTimeout, 5*time.Second))
	serr := a.s.j.Sync(ctx)
	cancel()
	if _, stuck := a.s.stuck.Load(bic); stuck && serr == nil {
		if n := a.s.cl.BufferedProduceRecords(); n > 0 {
			serr = fmt.Errorf("%d records still wait for the brokers' acknowledgement", n)
		} else {
			a.s.stuck.Delete(bic)
		}
	}
	if serr != nil {
		a.s.log.Warn("fixgw: logon refused: the brokers do not answer", "participant", bic, "err", serr)
		return quickfix.RejectLogon{Text: "service unavailable: try again later"}
	}
	if reset, _ := m.Body.GetBool(tagResetSeqNumFlag); reset {
		// The store discards the messages sent under the old numbers: the
		// outputs since delivery last resumed go again (§4.2).
		if cur, err := LoadCursor(a.s.o.Store, bic); err == nil {
			if err := SaveCursor(a.s.o.Store, bic, rewind(cur)); err != nil {
				a.s.log.Error("fixgw: rewinding the output cursor", "participant", bic, "err", err)
			}
		}
		a.s.log.Info("fixgw: logon with ResetSeqNumFlag: sequence numbers to 1, output cursor rewound", "participant", bic)
	}
	return nil
}

// eligible says why bic may not have a session now ("" when it may):
// ACTIVE in reference data, no SIGNER or UTILITY role, listing the signer.
func (s *Server) eligible(bic string) string {
	set := s.ref.Load()
	if set == nil {
		return "reference data not read yet"
	}
	p, ok := set.Participant(bic)
	switch {
	case !ok:
		return "not in reference data"
	case p.Status != refdata.Active:
		return "not ACTIVE (" + string(p.Status) + ")"
	case p.Roles&(refdata.RoleSigner|refdata.RoleUtility) != 0:
		return "role SIGNER or UTILITY"
	case !s.o.Signer.Enabled(p):
		return "its signers do not list " + s.o.Signer.BIC
	}
	return ""
}

func (a *app) FromApp(m *quickfix.Message, id quickfix.SessionID) quickfix.MessageRejectError {
	t, _ := m.MsgType()
	a.s.metrics.in(t)
	s := a.session(id)
	if s == nil {
		return quickfix.NewMessageRejectError("no session", 9, nil)
	}
	st := a.s.factory.store(id)
	if s.poisoned.Load() {
		if st != nil {
			st.holdNext()
		}
		return nil
	}
	if rej := a.s.validator.Validate(m); rej != nil {
		return rej
	}
	if rej := a.sendingTime(m); rej != nil {
		return rej
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return a.s.process(s, st, m)
}

// process is steps 1–7 of the ack point (§4.4) for one application message.
func (s *Server) process(sess *session, st *sessionStore, m *quickfix.Message) quickfix.MessageRejectError {
	raw := m.Bytes()
	msg, ok := Parse(raw, s.dd)
	if !ok {
		return quickfix.NewMessageRejectError("message not parseable", 6, nil)
	}
	if m.Header.Has(tagOnBehalfOfCompID) || m.Header.Has(tagDeliverToCompID) {
		return quickfix.NewBusinessMessageRejectErrorWithRefID("third-party routing not supported", 6, mainID(msg), nil)
	}
	origin := adapters.Origin{Bytes: raw, Ref: msg.Header[tagSenderCompID] + ":" + msg.Header[tagTargetCompID] + ":" + msg.Header[tagMsgSeqNum],
		PossDup: msg.Header[tagPossDupFlag] == "Y" || msg.Header[tagPossResend] == "Y"}
	unavailable := func(err error) quickfix.MessageRejectError {
		// §4.4: close the connection with no Logout and no Reject, and do
		// not advance the inbound sequence number: the client resends.
		sess.poisoned.Store(true)
		s.stuck.Store(sess.bic, true)
		if st != nil {
			st.holdNext()
		}
		s.front.drop(sess.bic)
		s.metrics.unavailable.Inc()
		s.log.Warn("fixgw: the brokers did not acknowledge in time: connection closed, message not consumed", "participant", sess.bic,
			"msg_seq_num", msg.Header[tagMsgSeqNum], "err", err)
		return nil
	}
	switch msg.Type {
	case "AE", "J", "AK", "AU":
	default:
		return quickfix.NewBusinessMessageRejectErrorWithRefID("unsupported message type", 3, mainID(msg), nil)
	}
	// Read the journal to its end before looking anything up in it (§1):
	// a J (its AllocID's reuse, its reference), an AU (the AK it answers),
	// a replace or cancel of an AE or AK (its reference). A new AE or AK
	// looks nothing up.
	ctx, cancel := context.WithTimeout(s.ctx, s.o.ProduceTimeout)
	defer cancel()
	lookup := true
	switch msg.Type {
	case "AE":
		lookup = msg.Body.Get(tagTradeReportTransType) != "" && msg.Body.Get(tagTradeReportTransType) != "0"
	case "AK":
		lookup = msg.Body.Get(tagConfirmTransType) != "0"
	}
	if lookup {
		if err := s.j.Sync(ctx); err != nil {
			return unavailable(err)
		}
	}
	in := &Inbound{Signer: s.o.Signer, J: s.j.Index, Now: s.nowFIX}
	out := in.Translate(msg, sess.bic, origin)
	switch {
	case out.Reject != nil:
		s.log.Info("fixgw: "+out.What, "participant", sess.bic, "msg_seq_num", msg.Header[tagMsgSeqNum])
		return out.Reject
	case out.Ignore:
		return nil
	case out.Answer != nil:
		s.log.Info("fixgw: "+out.What, "participant", sess.bic, "msg_seq_num", msg.Header[tagMsgSeqNum])
		s.metrics.rejects.WithLabelValues("adapter").Inc()
		if err := quickfix.SendToTarget(out.Answer, sess.id); err != nil {
			s.log.Warn("fixgw: answer not queued", "participant", sess.bic, "err", err)
		}
		return nil
	}
	start := time.Now()
	_, err := s.pub.Publish(ctx, *out.Sub)
	s.metrics.produce.Observe(time.Since(start).Seconds())
	if err != nil {
		// adapters.ErrUnavailable, or the context ended: either way the
		// message is not acknowledged.
		return unavailable(err)
	}
	s.metrics.published.Add(float64(len(out.Sub.Records)))
	s.log.Debug("fixgw: "+out.What, "participant", sess.bic, "msg_seq_num", msg.Header[tagMsgSeqNum], "records", len(out.Sub.Records))
	if out.Ack != nil {
		if err := quickfix.SendToTarget(out.Ack, sess.id); err != nil {
			s.log.Warn("fixgw: P 87=3 not queued", "participant", sess.bic, "err", err)
		}
	}
	return nil
}

func (s *Server) nowFIX() string { return FIXTime(s.o.Now()) }
