package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quickfixgo/quickfix"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/adapters/fixgw"
	"github.com/ste-utility/ste/adapters/fixgw/fixtest"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/testgate"
	"github.com/ste-utility/ste/topics"
)

// TestFIXMeasure measures `ste fixgw` (docs/benchmarks.md, "The FIX
// adapter"), as the gateway was measured: one embedded broker, one `ste
// process`, one `ste fixgw`, reference data of 300 participants, every
// participant's FIX engine a quickfixgo initiator in this test's process
// (their CPU is not counted; the broker's is counted on neither side).
//
//  1. The pipeline's capacity: a standard set produced straight onto
//     <ns>.inbound at full speed, messages / seconds to lag 0.
//  2. CPU per message: another set's AE, J and AK (5 STE messages a trade)
//     sent through ste fixgw, paced at half that capacity (in STE messages),
//     until every J has its P 87=0, every AE its AR and every AK its AU:
//     the adapter's CPU (translation, signing, the ack point, the answers)
//     against the pipeline's, per STE message.
//  3. A J of 10 accounts answered: while a third set goes straight onto
//     inbound at half the capacity, an investment manager sends Js of 10
//     allocations, 20 a second; each one's time from the send to its P
//     AllocStatus 3 (the ack point: the 10 ALCs acknowledged by the
//     brokers) and to its P 87=0 (every ALC answered by STE).
//
// A measurement, not a test of speed: it asserts nothing about the figures.
func TestFIXMeasure(t *testing.T) {
	testgate.Opt(t, "fix-measure")
	trades, _ := strconv.Atoi(os.Getenv("STE_FIX_MEASURE_TRADES"))
	if trades == 0 {
		trades = 3000
	}
	brokers := embeddedBroker(t)
	ns := fmt.Sprintf("fxm%d", time.Now().UnixNano()%1e6)
	env := []string{"STE_BROKERS=" + brokers, "STE_NAMESPACE=" + ns}
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref")
	ste(t, nil, "refdata", "gen", "--out", ref, "--seed", "3", "--participants", "300")
	gen := func(name string, n, seed int, date string) string {
		f := filepath.Join(dir, name+".xml")
		ste(t, nil, "gen", "--trades", fmt.Sprint(n), "--mix", "standard", "--seed", fmt.Sprint(seed), "--refdata", ref, "--out", f, "--trade-date", date)
		return f
	}
	capSet, fixSet, loadSet := gen("capacity", trades, 7, "2026-11-03"), gen("fix", trades, 5, "2026-11-02"), gen("load", trades, 9, "2026-11-04")
	ste(t, env, "topics", "create")
	ste(t, env, "refdata", "load", "--dir", ref)
	proc := startProcess(t, env, "--http", "127.0.0.1:0", "--retention", "2160h")
	addr, health := freePort(t), freePort(t)
	gwEnv := env
	if p := os.Getenv("STE_FIX_PPROF"); p != "" {
		gwEnv = append(gwEnv, "STE_PPROF="+p) // profile the adapter while it runs
	}
	gw := startLines(t, gwEnv, "fixgw", "--addr", addr, "--health-addr", health, "--demo-key", "--demo-credentials",
		"--store", filepath.Join(dir, "fixgw-store"), "--log-level", "warn")
	gw.waitFor(t, regexp.MustCompile(`STE fixgw for namespace`), 60*time.Second)
	pipe, fix := proc.cmd.Process.Pid, gw.cmd.Process.Pid
	ctx := t.Context()
	cl, err := topics.Connect(ctx, kafkaconn.Plaintext(brokers))
	must(t, err)
	defer cl.Close()
	load, _ := uptimeLoad()
	t.Logf("RESULT machine: load average %s at the start", load)

	// 1. The pipeline's capacity.
	capMsgs, _, _ := readSet(t, capSet)
	cpu0 := cpuOf(t, []int{pipe})
	t0 := time.Now()
	for _, m := range capMsgs {
		cl.Produce(ctx, &kgo.Record{Topic: ns + ".inbound", Key: []byte(m.sender), Value: m.line}, nil)
	}
	must(t, cl.Flush(ctx))
	waitLagZero(t, brokers, ns)
	capElapsed := time.Since(t0)
	capCPU := cpuOf(t, []int{pipe})[0] - cpu0[0]
	capacity := float64(len(capMsgs)) / capElapsed.Seconds()
	rate := capacity / 2
	t.Logf("RESULT capacity: %d messages straight onto inbound, lag 0 after %.1fs: %.0f msg/s; pipeline CPU %.1f µs/msg; pacing at half: %.0f msg/s",
		len(capMsgs), capElapsed.Seconds(), capacity, capCPU/float64(len(capMsgs))*1e6, rate)

	// 2. The set's broker and IM messages through ste fixgw at half the
	// capacity (counted in the STE messages they become).
	byRef, order, _ := fixTradesOf(t, fixSet)
	// The load generator: raw FIX sessions (a Logon, then messages written
	// as an engine writes them, answers read and counted), so that the
	// sending side keeps the pace the adapter is measured at.
	cpuLogon := cpuOf(t, []int{fix})[0]
	logonStart := time.Now()
	// The sessions log on 32 at a time: quickfixgo starts each new
	// session's loop on the next whole second (session.run), so a Logon
	// waits up to a second whatever the load — one after the other, 241
	// sessions took 4 minutes of a run.
	sessions := map[string]*rawSession{}
	var bics []string
	for _, ref := range order {
		for _, bic := range []string{byRef[ref].broker, byRef[ref].im} {
			if sessions[bic] == nil {
				sessions[bic] = &rawSession{}
				bics = append(bics, bic)
			}
		}
	}
	{
		var smu sync.Mutex
		var swg sync.WaitGroup
		gate := make(chan struct{}, 32)
		for _, bic := range bics {
			swg.Add(1)
			gate <- struct{}{}
			go func() {
				defer func() { <-gate; swg.Done() }()
				rs := dialRaw(t, addr, bic)
				smu.Lock()
				sessions[bic] = rs
				smu.Unlock()
			}()
		}
		swg.Wait()
		if t.Failed() {
			t.FailNow()
		}
	}
	type send struct {
		bic string
		m   *quickfix.Message
		n   int // STE messages it becomes
	}
	var sends []send
	for _, ref := range order {
		tr := byRef[ref]
		sends = append(sends, send{tr.broker, tr.ae.Message(), 1}, send{tr.im, tr.j.Message(), len(tr.j.Allocs)})
		for _, ak := range tr.aks {
			sends = append(sends, send{tr.broker, ak.Message(), 1})
		}
	}
	steMsgs := 0
	for _, s := range sends {
		steMsgs += s.n
	}
	cpu0 = cpuOf(t, []int{fix, pipe})
	t.Logf("RESULT logons: %d sessions in %.1fs, adapter CPU %.3fs", len(sessions), time.Since(logonStart).Seconds(), cpu0[0]-cpuLogon)
	start := time.Now()
	cum := 0
	var late time.Duration
	for _, s := range sends {
		due := start.Add(time.Duration(float64(cum) / rate * float64(time.Second)))
		time.Sleep(time.Until(due))
		late = max(late, time.Since(due))
		sessions[s.bic].send(t, s.m)
		cum += s.n
	}
	submitted := time.Since(start)
	cpuSent := cpuOf(t, []int{fix})[0]
	answered := func() int {
		n := 0
		for _, rs := range sessions {
			n += rs.answered()
		}
		return n
	}
	want := 4 * len(order)
	for deadline := time.Now().Add(10 * time.Minute); answered() < want && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
	}
	if got := answered(); got < want {
		t.Fatalf("%d of %d FIX messages answered", got, want)
	}
	allAnswered := time.Since(start)
	cpuAnswered := cpuOf(t, []int{fix})[0]
	waitLagZero(t, brokers, ns)
	cpu1 := cpuOf(t, []int{fix, pipe})
	t.Logf("RESULT adapter CPU while sending %.3fs, until every answer %.3fs, until lag 0 %.3fs", cpuSent-cpu0[0], cpuAnswered-cpu0[0], cpu1[0]-cpu0[0])
	fixCPU, pipeCPU := cpu1[0]-cpu0[0], cpu1[1]-cpu0[1]
	t.Logf("RESULT through ste fixgw: %d FIX messages (%d STE messages, %d sessions) sent in %.1fs (%.0f STE msg/s asked, %.0f sent, the pacer at most %v late), all answered at %.1fs; adapter CPU %.3fs = %.1f µs/STE msg; pipeline CPU %.3fs = %.1f µs/msg; ratio %.3f",
		len(sends), steMsgs, len(sessions), submitted.Seconds(), rate, float64(steMsgs)/submitted.Seconds(), late.Round(time.Millisecond),
		allAnswered.Seconds(), fixCPU, fixCPU/float64(steMsgs)*1e6, pipeCPU, pipeCPU/float64(steMsgs)*1e6, fixCPU/pipeCPU)
	for _, rs := range sessions {
		rs.close()
	}

	// 3. Js of 10 accounts from one IM while a set goes onto inbound at
	// half the capacity.
	loadMsgs, _, _ := readSet(t, loadSet)
	im := byRef[order[0]].im
	c, err := fixtest.Start(fixtest.Options{Addr: addr, BIC: im, Password: fixgw.DemoPassword(im), Dir: t.TempDir(), HeartBtInt: 30,
		MemoryStore: true, ResetSeqNum: true})
	must(t, err)
	defer c.Stop()
	if !c.Wait(30*time.Second, func(c *fixtest.Client) bool { return c.Logons() > 0 }) {
		t.Fatalf("%s did not log on again", im)
	}
	var mu sync.Mutex
	sentAt := map[string]time.Time{}
	const jRate = 20.0
	duration := time.Duration(float64(len(loadMsgs)) / rate * float64(time.Second))
	nJ := int(duration.Seconds() * jRate)
	tr := byRef[order[0]]
	jOf := func(i int) fixtest.J {
		j := fixtest.J{AllocID: fmt.Sprintf("J10-%06d", i), ClOrdID: fmt.Sprintf("C10-%06d", i), OrderID: fmt.Sprintf("BT-J10-%06d", i),
			Side: tr.j.Side, ISIN: tr.j.ISIN, AvgPx: tr.j.AvgPx, Currency: tr.j.Currency, Broker: tr.broker, InvMgr: im,
			TradeDate: tr.j.TradeDate, TransactTime: tr.j.TransactTime, Quantity: "10000"}
		for a := 0; a < 10; a++ {
			j.Allocs = append(j.Allocs, fixtest.Alloc{Account: fmt.Sprintf("J10ACC%02d", a), Qty: "1000",
				Custodian: tr.j.Allocs[0].Custodian, PSET: tr.j.Allocs[0].PSET})
		}
		return j
	}
	var wg sync.WaitGroup
	wg.Add(1)
	lstart := time.Now()
	go func() {
		defer wg.Done()
		for i, m := range loadMsgs {
			time.Sleep(time.Until(lstart.Add(time.Duration(float64(i) / rate * float64(time.Second)))))
			cl.Produce(ctx, &kgo.Record{Topic: ns + ".inbound", Key: []byte(m.sender), Value: m.line}, nil)
		}
	}()
	cpuL0 := cpuOf(t, []int{fix, pipe})
	for i := 0; i < nJ; i++ {
		time.Sleep(time.Until(lstart.Add(time.Duration(float64(i) / jRate * float64(time.Second)))))
		j := jOf(i)
		m := j.Message()
		mu.Lock()
		sentAt[j.AllocID] = time.Now()
		mu.Unlock()
		must(t, c.Send(m))
	}
	wg.Wait()
	must(t, cl.Flush(ctx))
	var received, ackd []float64
	deadline := time.Now().Add(2 * time.Minute)
	for {
		received, ackd = received[:0], ackd[:0]
		for _, m := range c.Messages() {
			if tp, _ := m.MsgType(); tp != "P" {
				continue
			}
			id := fixtest.Get(m, 70)
			at, ok := sentAt[id]
			if !ok {
				continue
			}
			ms := float64(m.ReceiveTime.Sub(at).Microseconds()) / 1000
			switch fixtest.Get(m, 87) {
			case "3":
				received = append(received, ms)
			case "0", "1", "2":
				if !m.Body.Has(573) {
					ackd = append(ackd, ms)
				}
			}
		}
		if len(received) >= nJ && len(ackd) >= nJ || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	waitLagZero(t, brokers, ns)
	cpuL1 := cpuOf(t, []int{fix, pipe})
	secs := time.Since(lstart).Seconds()
	t.Logf("RESULT J of 10 accounts under half the capacity (%.0f msg/s onto inbound, %d messages): %d Js at %.0f/s; cores: adapter %.2f, pipeline %.2f",
		rate, len(loadMsgs), nJ, jRate, (cpuL1[0]-cpuL0[0])/secs, (cpuL1[1]-cpuL0[1])/secs)
	t.Logf("RESULT J of 10 → P AllocStatus 3 (the ack point): p50 %.2f ms, p99 %.2f ms, max %.2f ms (%d)", pct(received, 50), pct(received, 99), pct(received, 100), len(received))
	t.Logf("RESULT J of 10 → P 87=0 (every ALC answered by STE): p50 %.2f ms, p99 %.2f ms, max %.2f ms (%d)", pct(ackd, 50), pct(ackd, 99), pct(ackd, 100), len(ackd))
	load, _ = uptimeLoad()
	t.Logf("RESULT machine: load average %s at the end", load)
}

// rawSession is a FIX session written by hand: the load generator of the
// measurement (no engine's cost on the sending side). It logs on with
// ResetSeqNumFlag, answers TestRequests, and counts the answers that end
// a message's handling: P 87=0, AR ExecType F and AU 940=1 without Text.
type rawSession struct {
	bic  string
	conn net.Conn
	mu   sync.Mutex
	seq  int
	amu  sync.Mutex
	done map[string]bool
}

// dialRaw logs bic on; safe in any goroutine (it fails t with Errorf and
// returns nil).
func dialRaw(t *testing.T, addr, bic string) *rawSession {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Errorf("%s: %v", bic, err)
		return nil
	}
	rs := &rawSession{bic: bic, conn: c, done: map[string]bool{}}
	logon := quickfix.NewMessage()
	logon.Header.SetString(35, "A")
	logon.Body.SetString(98, "0")
	logon.Body.SetString(108, "300")
	logon.Body.SetString(141, "Y")
	logon.Body.SetString(553, bic)
	logon.Body.SetString(554, fixgw.DemoPassword(bic))
	if err := rs.write(logon); err != nil {
		t.Errorf("%s: %v", bic, err)
		return nil
	}
	r := bufio.NewReaderSize(c, 64<<10)
	first, err := readFIX(r)
	if err != nil || !bytes.Contains(first, []byte("\x0135=A\x01")) {
		t.Errorf("%s: no Logon answer: %q %v", bic, first, err)
		return nil
	}
	go func() {
		for {
			m, err := readFIX(r)
			if err != nil {
				return
			}
			f := tagsOf(m)
			switch f[35] {
			case "1":
				hb := quickfix.NewMessage()
				hb.Header.SetString(35, "0")
				hb.Body.SetString(112, f[112])
				rs.write(hb)
			case "P":
				if f[87] == "0" && f[573] == "" {
					rs.mark("P" + f[70])
				}
			case "AR":
				if f[150] == "F" && f[58] == "" {
					rs.mark("AR" + f[571])
				}
			case "AU":
				if f[940] == "1" && f[58] == "" {
					rs.mark("AU" + f[664])
				}
			}
		}
	}()
	return rs
}

func (rs *rawSession) mark(k string) {
	rs.amu.Lock()
	rs.done[k] = true
	rs.amu.Unlock()
}

func (rs *rawSession) answered() int {
	rs.amu.Lock()
	defer rs.amu.Unlock()
	return len(rs.done)
}

func (rs *rawSession) send(t *testing.T, m *quickfix.Message) {
	if err := rs.write(m); err != nil {
		t.Fatalf("%s: %v", rs.bic, err)
	}
}

func (rs *rawSession) write(m *quickfix.Message) error {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.seq++
	m.Header.SetString(8, "FIX.4.4")
	m.Header.SetString(49, rs.bic)
	m.Header.SetString(56, "STEUTLSGXXX")
	m.Header.SetInt(34, rs.seq)
	m.Header.SetString(52, time.Now().UTC().Format("20060102-15:04:05.000"))
	_, err := rs.conn.Write(m.Bytes())
	return err
}

func (rs *rawSession) close() { rs.conn.Close() }

// readFIX reads one message: "8=…|9=N|", N bytes of body, "10=nnn|".
func readFIX(r *bufio.Reader) ([]byte, error) {
	head, err := r.ReadBytes(1)
	if err != nil {
		return nil, err
	}
	bl, err := r.ReadBytes(1)
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(string(bl), "9="), "\x01"))
	if err != nil {
		return nil, fmt.Errorf("BodyLength %q", bl)
	}
	rest := make([]byte, n+7)
	if _, err := io.ReadFull(r, rest); err != nil {
		return nil, err
	}
	return append(append(head, bl...), rest...), nil
}

// tagsOf is a message's fields, the first value of each tag.
func tagsOf(m []byte) map[int]string {
	out := map[int]string{}
	for _, f := range bytes.Split(m, []byte{1}) {
		k, v, ok := bytes.Cut(f, []byte("="))
		if !ok {
			continue
		}
		tag, err := strconv.Atoi(string(k))
		if err != nil {
			continue
		}
		if _, dup := out[tag]; !dup {
			out[tag] = string(v)
		}
	}
	return out
}
