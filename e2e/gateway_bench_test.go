package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/gateway"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/testgate"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/lag"
)

// TestGatewayMeasure is the measurement of docs/benchmarks.md ("The
// gateway"), not a test: STE_GATEWAY_MEASURE=1 runs it (=kafka: on Apache
// Kafka 4 instead of the embedded broker). Over one broker, one ste process
// and 2 gateway instances with the reference data of 300 participants:
//
//  1. the pipeline's capacity, measured in the same run: a set sent
//     straight onto <ns>.inbound at full speed, messages per second until
//     every group is at lag 0;
//  2. another set through the gateways in batches of up to 100, every
//     request signed ahead, paced at half that capacity: the gateways' CPU
//     time per message against the pipeline's (from /proc);
//  3. under the same load (a third set in batches at half the capacity less
//     the probes' 100/s): single-message submits at 100/s, request → 202;
//  4. under the same load again (a fourth set): 20 participants
//     long-polling, each output's delay from its record's append to
//     <ns>.outbound (appendTimed) to its delivery, and the single submits
//     beside them.
func TestGatewayMeasure(t *testing.T) {
	testgate.Opt(t, "gateway-measure")
	// 6,000 trades (42,000 messages) give the 300 participants ~140
	// messages each: batches of 100 need that many per sender.
	trades, _ := strconv.Atoi(os.Getenv("STE_GATEWAY_TRADES"))
	if trades == 0 {
		trades = 6000
	}
	want, brokers := "kfake", ""
	if os.Getenv("STE_GATEWAY_MEASURE") == "kafka" {
		want = "kafka"
	}
	for _, b := range backends {
		if b.name == want {
			brokers = b.brokers(t)
		}
	}
	ns := fmt.Sprintf("gwm%d", time.Now().UnixNano()%1e6)
	env := []string{"STE_BROKERS=" + brokers, "STE_NAMESPACE=" + ns}
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref")
	ste(t, nil, "refdata", "gen", "--out", ref, "--seed", "3", "--participants", "300")
	// Three sets of distinct trades (their own trade dates, so no MsgId or
	// TradeRef is shared): capacity, batches, load.
	gen := func(name string, n int, seed int, date string) string {
		f := filepath.Join(dir, name+".xml")
		ste(t, nil, "gen", "--trades", fmt.Sprint(n), "--mix", "standard", "--seed", fmt.Sprint(seed), "--refdata", ref, "--out", f, "--trade-date", date)
		return f
	}
	capSet, batchSet := gen("capacity", trades, 7, "2026-11-03"), gen("batches", trades, 5, "2026-11-02")
	loadSet, pollSet := gen("load", trades/2, 9, "2026-11-04"), gen("polls", trades/2, 11, "2026-11-05")
	ste(t, env, "topics", "create")
	ste(t, env, "refdata", "load", "--dir", ref)
	appendTimed(t, brokers, ns+".outbound")
	proc := startProcess(t, env, "--http", "127.0.0.1:0")
	var urls []string
	var pids []int
	for i := 0; i < 2; i++ {
		l := startLines(t, env, "gateway", "--addr", "127.0.0.1:0", "--metrics-addr", "", "--rate-limit", "100000", "--rate-burst", "100000")
		re := regexp.MustCompile(`STE gateway for namespace \S+: (\S+)\n`)
		urls = append(urls, re.FindStringSubmatch(l.waitFor(t, re, 30*time.Second))[1])
		pids = append(pids, l.cmd.Process.Pid)
		waitHealthy(t, urls[i])
	}
	pipe := proc.cmd.Process.Pid
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
		cl.Produce(ctx, &kgo.Record{Topic: ns + ".inbound", Key: []byte(m.sender), Value: m.line}, func(_ *kgo.Record, err error) {
			if err != nil {
				t.Errorf("produce: %v", err)
			}
		})
	}
	must(t, cl.Flush(ctx))
	waitLagZero(t, brokers, ns)
	capElapsed := time.Since(t0)
	capCPU := cpuOf(t, []int{pipe})[0] - cpu0[0]
	capacity := float64(len(capMsgs)) / capElapsed.Seconds()
	rate := capacity / 2
	t.Logf("RESULT capacity: %d messages straight onto inbound, lag 0 after %.1fs: %.0f msg/s; pipeline CPU %.1f µs/msg; pacing at half: %.0f msg/s",
		len(capMsgs), capElapsed.Seconds(), capacity, capCPU/float64(len(capMsgs))*1e6, rate)

	// 2. Batches of exactly 100 through the gateways, paced at half the
	// capacity: every sender's messages in hundreds, the rest not sent.
	_, by, senders := readSet(t, batchSet)
	unsent := 0
	for s, ms := range by {
		unsent += len(ms) % 100
		by[s] = ms[:len(ms)/100*100]
	}
	reqs := batches(by, senders, urls)
	cpu0 = cpuOf(t, append(pids, pipe))
	start := time.Now()
	sent, late := paced(t, reqs, rate, 8)
	submitted := time.Since(start)
	gw := cpuOf(t, pids)
	waitLagZero(t, brokers, ns)
	elapsed := time.Since(start)
	cpu1 := cpuOf(t, []int{pipe})
	gwCPU := gw[0] + gw[1] - cpu0[0] - cpu0[1]
	pipeCPU := cpu1[0] - cpu0[2]
	t.Logf("RESULT batches: %d messages in %d requests of 100 (%d of the set's not sent) through 2 gateways in %.1fs (%.0f msg/s asked, %.0f sent, the pacer at most %v late), lag 0 at %.1fs; gateway CPU %.3fs = %.1f µs/msg; pipeline CPU %.3fs = %.1f µs/msg; ratio %.3f",
		sent, len(reqs), unsent, submitted.Seconds(), rate, float64(sent)/submitted.Seconds(), late.Round(time.Millisecond), elapsed.Seconds(),
		gwCPU, gwCPU/float64(sent)*1e6, pipeCPU, pipeCPU/float64(sent)*1e6, gwCPU/pipeCPU)

	// 3 and 4. Latencies under the same load: a set in batches at half the
	// capacity less the probes' 100/s, with single submits at 100/s (exact
	// duplicates of the capacity set, answered again) and health probes.
	// Phase 3 is that load alone: the acceptance's load is the batches, and
	// its single-submit figure is this one. Phase 4 adds 20 participants
	// long-polling (~170 authenticated requests a second more on the same
	// two cores) and measures each output's delay; its single submits are
	// reported beside phase 3's.
	const probeRate = 100.0
	lrate := max(rate-probeRate, rate/2)
	_, cby, csenders := readSet(t, capSet)
	for phase, set := range []string{loadSet, pollSet} {
		polls := 0
		if phase == 1 {
			polls = 20
		}
		who := append(slices.Clone(pids), pipe, os.Getpid())
		if want == "kfake" && kfakeProc.cmd != nil {
			who = append(who, kfakeProc.cmd.Process.Pid)
		}
		r := underLoad(t, loadRun{set: set, urls: urls, rate: lrate, probeRate: probeRate,
			cby: cby, csenders: csenders, polls: polls, brokers: brokers, ns: ns, who: who})
		use := func(i int) float64 { return r.cpu[i] / r.secs }
		line := fmt.Sprintf("gateways %.2f, pipeline %.2f, this test %.2f", use(0)+use(1), use(2), use(3))
		if len(who) > 4 {
			line += fmt.Sprintf(", broker %.2f", use(4))
		}
		t.Logf("RESULT load %d: cores used while the batches were sent: %s", phase+3, line)
		name := "single submits"
		if polls > 0 {
			name = "single submits beside 20 long polls"
		}
		t.Logf("RESULT load %d: %d messages in batches over %.1fs (%.0f msg/s asked, the pacer at most %v late), %d single submits at %.0f/s, %d participants long-polling",
			phase+3, r.sent, r.secs, lrate, r.late.Round(time.Millisecond), len(r.singles), probeRate, polls)
		t.Logf("RESULT %s: p50 %.2f ms, p99 %.2f ms, max %.2f ms (%d)", name, pct(r.singles, 50), pct(r.singles, 99), pct(r.singles, 100), len(r.singles))
		t.Logf("RESULT health probes meanwhile (the machine's own tail): p50 %.2f ms, p99 %.2f ms, max %.2f ms (%d)", pct(r.health, 50), pct(r.health, 99), pct(r.health, 100), len(r.health))
		if polls > 0 {
			t.Logf("RESULT long polls: %d outputs in %d answers to %d waiting participants, on outbound (the broker's append) → delivery p50 %.1f ms, p99 %.1f ms, max %.1f ms",
				len(r.fromStamp), r.pollAnswers, polls, pct(r.fromStamp, 50), pct(r.fromStamp, 99), pct(r.fromStamp, 100))
			if len(r.cnfFromStamp) == 0 {
				t.Error("no CNF reached a waiting long poll: every matched trade confirms to its parties (messages.md §5a)")
			}
			t.Logf("RESULT long polls, the CNFs among them: on outbound → delivery p50 %.1f ms, p99 %.1f ms, max %.1f ms (%d CNFs)",
				pct(r.cnfFromStamp, 50), pct(r.cnfFromStamp, 99), pct(r.cnfFromStamp, 100), len(r.cnfFromStamp))
			t.Logf("RESULT long polls: from when the test's own consumer saw the record → delivery p50 %.1f ms, p99 %.1f ms, max %.1f ms (%d outputs; negative: the poll was first)",
				pct(r.fromSeen, 50), pct(r.fromSeen, 99), pct(r.fromSeen, 100), len(r.fromSeen))
			t.Logf("RESULT outputs: on outbound → seen by the test's own consumer p50 %.1f ms, p99 %.1f ms (a fetch, as the gateways' tails make)",
				pct(r.stampToSeen, 50), pct(r.stampToSeen, 99))
		}
	}
	load, _ = uptimeLoad()
	t.Logf("RESULT machine: load average %s at the end", load)
}

// loadRun is one phase of latencies under load.
type loadRun struct {
	set       string   // the message set sent in batches
	urls      []string // the gateways
	rate      float64  // its messages per second
	probeRate float64  // single submits and health probes per second
	cby       map[string][][]byte
	csenders  []string // the capacity set, whose messages the single submits repeat
	polls     int      // participants long-polling (0: none)
	brokers   string
	ns        string
	who       []int // processes whose CPU time is read around the batches
}

type loadResult struct {
	sent                             int
	secs                             float64
	late                             time.Duration
	singles, health                  []float64 // ms
	fromStamp, fromSeen, stampToSeen []float64 // ms, with polls only
	cnfFromStamp                     []float64 // ms: fromStamp of the CNFs (issue 50: CNF delivery to a waiting long poll)
	cpu                              []float64 // CPU seconds of each of lr.who while the batches were sent
	pollAnswers                      int       // long polls answered
}

// underLoad sends lr.set in batches at lr.rate with single submits and
// health probes at lr.probeRate meanwhile, and lr.polls participants
// long-polling their outputs from when the phase starts.
func underLoad(t *testing.T, lr loadRun) loadResult {
	ctx := t.Context()
	urls := lr.urls
	_, lby, lsenders := readSet(t, lr.set)
	slices.SortFunc(lsenders, func(a, b string) int { return len(lby[b]) - len(lby[a]) })
	lreqs := batches(lby, lsenders, urls)
	lmsgs := 0
	for _, q := range lreqs {
		lmsgs += q.n
	}
	duration := time.Duration(float64(lmsgs) / lr.rate * float64(time.Second))
	var singles []*http.Request
	for i := 0; i < int(duration.Seconds()*lr.probeRate); i++ {
		s := lr.csenders[i%len(lr.csenders)]
		body := lr.cby[s][(i/len(lr.csenders))%len(lr.cby[s])]
		u := urls[i%2] + "/v1/messages"
		r, _ := http.NewRequest("POST", u, bytes.NewReader(body))
		r.Header = gateway.SignedHeaders("POST", u, body, s, refdata.DemoPrivateKey(s), time.Now())
		r.Header.Set("Content-Type", "application/xml")
		singles = append(singles, r)
	}
	type delivered struct {
		part int32
		off  int64
		at   time.Time
	}
	var got []delivered
	var res loadResult
	var pmu sync.Mutex
	var pwg sync.WaitGroup
	seen := map[[2]int64]time.Time{}
	var smu sync.Mutex
	stopPolls := make(chan struct{})
	var stopSeen func()
	if lr.polls > 0 {
		// A consumer of <ns>.outbound of the test's own notes when it
		// first sees each record: a second start point, which leaves out
		// the time a record spends in the pipeline's producer before it is
		// on the topic.
		sctx, scancel := context.WithCancel(ctx)
		scl, err := topics.Client(kafkaconn.Plaintext(lr.brokers), kgo.ConsumeTopics(lr.ns+".outbound"),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtEnd()), kgo.FetchMaxWait(500*time.Millisecond))
		must(t, err)
		sdone := make(chan struct{})
		go func() {
			defer close(sdone)
			for sctx.Err() == nil {
				fs := scl.PollFetches(sctx)
				now := time.Now()
				smu.Lock()
				fs.EachRecord(func(r *kgo.Record) { seen[[2]int64{int64(r.Partition), r.Offset}] = now })
				smu.Unlock()
			}
		}()
		stopSeen = func() { scancel(); <-sdone; scl.Close() }
		time.Sleep(time.Second)
		polling := make(chan struct{}, lr.polls)
		for i, s := range lsenders[:lr.polls] {
			pwg.Add(1)
			go func() {
				defer pwg.Done()
				next := walkEnd(t, urls[i%2], s)
				polling <- struct{}{}
				for {
					select {
					case <-stopPolls:
						return
					default:
					}
					u := urls[i%2] + "/v1/outputs?wait=5&limit=1000&after=" + next
					r, _ := http.NewRequest("GET", u, nil)
					r.Header = gateway.SignedHeaders("GET", u, nil, s, refdata.DemoPrivateKey(s), time.Now())
					resp, err := measureClient.Do(r)
					if err != nil {
						t.Errorf("long poll: %v", err)
						return
					}
					var j struct {
						Outputs []struct{ Cursor string }
						Next    string
					}
					err = json.NewDecoder(resp.Body).Decode(&j)
					drainClose(resp)
					now := time.Now()
					if err != nil || resp.StatusCode != 200 {
						t.Errorf("long poll: %d %v", resp.StatusCode, err)
						return
					}
					pmu.Lock()
					res.pollAnswers++
					for _, o := range j.Outputs {
						p, off := cursorPosition(t, o.Cursor)
						got = append(got, delivered{p, off - 1, now})
					}
					pmu.Unlock()
					next = j.Next
				}
			}()
		}
		for range lr.polls {
			<-polling
		}
	}
	var swg sync.WaitGroup
	swg.Add(1)
	go func() {
		defer swg.Done()
		t0 := time.Now()
		for i, r := range singles {
			time.Sleep(time.Until(t0.Add(time.Duration(float64(i) / lr.probeRate * float64(time.Second)))))
			s := time.Now()
			resp, err := measureClient.Do(r)
			if err != nil || resp.StatusCode != 202 {
				t.Errorf("single submit: %v %v", err, resp)
				return
			}
			drainClose(resp)
			res.singles = append(res.singles, float64(time.Since(s).Microseconds())/1000)
		}
	}()
	// The machine's own tail, for comparison: GET /v1/health (no signature,
	// no Kafka) at the same rate on the same gateways meanwhile.
	swg.Add(1)
	go func() {
		defer swg.Done()
		t0 := time.Now()
		for i := 0; time.Since(t0) < duration; i++ {
			time.Sleep(time.Until(t0.Add(time.Duration(float64(i) / lr.probeRate * float64(time.Second)))))
			s := time.Now()
			resp, err := measureClient.Get(urls[i%2] + "/v1/health")
			if err != nil || resp.StatusCode != 200 {
				t.Errorf("health: %v %v", err, resp)
				return
			}
			drainClose(resp)
			res.health = append(res.health, float64(time.Since(s).Microseconds())/1000)
		}
	}()
	c0, lstart := cpuOf(t, lr.who), time.Now()
	res.sent, res.late = paced(t, lreqs, lr.rate, 8)
	res.secs = time.Since(lstart).Seconds()
	for i, c := range cpuOf(t, lr.who) {
		res.cpu = append(res.cpu, c-c0[i])
	}
	swg.Wait()
	waitLagZero(t, lr.brokers, lr.ns)
	if lr.polls == 0 {
		return res
	}
	time.Sleep(6 * time.Second) // the last outputs reach their polls
	close(stopPolls)
	pwg.Wait()
	// Each delivered output's record on <ns>.outbound: its timestamp, set
	// when the broker appended it.
	stamp := map[[2]int64]time.Time{}
	cnf := map[[2]int64]bool{}
	_, err := topics.Dump(ctx, kafkaconn.Plaintext(lr.brokers), lr.ns+".outbound", func(r *kgo.Record) error {
		if r.Attrs.TimestampType() != 1 {
			return fmt.Errorf("an output at partition %d offset %d is not stamped by the broker", r.Partition, r.Offset)
		}
		stamp[[2]int64{int64(r.Partition), r.Offset}] = r.Timestamp
		if bytes.Contains(r.Value, []byte("<MsgType>CNF</MsgType>")) {
			cnf[[2]int64{int64(r.Partition), r.Offset}] = true
		}
		return nil
	})
	must(t, err)
	stopSeen()
	for _, d := range got {
		pos := [2]int64{int64(d.part), d.off}
		ts, ok := stamp[pos]
		if !ok {
			t.Fatalf("an output at partition %d offset %d is not on %s.outbound", d.part, d.off, lr.ns)
		}
		res.fromStamp = append(res.fromStamp, float64(d.at.Sub(ts).Microseconds())/1000)
		if cnf[pos] {
			res.cnfFromStamp = append(res.cnfFromStamp, res.fromStamp[len(res.fromStamp)-1])
		}
		if at, ok := seen[pos]; ok {
			res.fromSeen = append(res.fromSeen, float64(d.at.Sub(at).Microseconds())/1000)
		}
	}
	for pos, at := range seen {
		if ts, ok := stamp[pos]; ok {
			res.stampToSeen = append(res.stampToSeen, float64(at.Sub(ts).Microseconds())/1000)
		}
	}
	return res
}

// appendTimed has topic stamp its records on arrival, for the outputs'
// figure: "from the record on <ns>.outbound" starts when the broker
// appended it. The product leaves the pipeline's time on outputs
// (CreateTime: when its producer took the record, before its linger, the
// produce request and the broker's queue — the pipeline's own latency,
// measured as the CLS latency of docs/benchmarks.md); measured from there,
// the figure was up to 100 ms longer under this load (3 December).
func appendTimed(t *testing.T, brokers, topic string) {
	ctx := t.Context()
	cl, err := topics.Connect(ctx, kafkaconn.Plaintext(brokers))
	must(t, err)
	defer cl.Close()
	v := "LogAppendTime"
	rs, err := kadm.NewClient(cl).AlterTopicConfigs(ctx, []kadm.AlterConfig{{Name: "message.timestamp.type", Value: &v}}, topic)
	must(t, err)
	for _, r := range rs {
		must(t, r.Err)
	}
}

// measureClient is the measurement's HTTP client: keep-alive connections,
// as many idle per gateway as the measurement has callers (the default
// client keeps 2), so that the connections it speaks of are the ones it
// uses and a request's cost is not a new TCP connection's.
var measureClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

// drainClose reads an answer to its end before closing it: an answer
// closed unread closes its connection (net/http reuses only a body read
// to EOF), and the next request on it opens a new one.
func drainClose(resp *http.Response) {
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

type setMsg struct {
	sender string
	line   []byte
}

// readSet reads a message set: its messages in order, and by sender.
func readSet(t *testing.T, path string) ([]setMsg, map[string][][]byte, []string) {
	b, err := os.ReadFile(path)
	must(t, err)
	var all []setMsg
	by := map[string][][]byte{}
	var senders []string
	d := &schemas.Decoder{}
	for _, l := range bytes.Split(b, []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		m, _ := d.Decode(l)
		if _, ok := by[m.Sender]; !ok {
			senders = append(senders, m.Sender)
		}
		by[m.Sender] = append(by[m.Sender], l)
		all = append(all, setMsg{m.Sender, l})
	}
	return all, by, senders
}

type batchReq struct {
	r *http.Request
	n int
}

// batches are every sender's messages in requests of up to 100, signed
// now, alternating between the gateways.
func batches(by map[string][][]byte, senders []string, urls []string) []batchReq {
	var reqs []batchReq
	for i, s := range senders {
		msgs := by[s]
		for j := 0; j < len(msgs); j += 100 {
			body := bytes.Join(msgs[j:min(j+100, len(msgs))], []byte("\n"))
			u := urls[(i+j/100)%len(urls)] + "/v1/messages"
			r, _ := http.NewRequest("POST", u, bytes.NewReader(body))
			r.Header = gateway.SignedHeaders("POST", u, body, s, refdata.DemoPrivateKey(s), time.Now())
			r.Header.Set("Content-Type", "text/plain")
			reqs = append(reqs, batchReq{r, min(100, len(msgs)-j)})
		}
	}
	return reqs
}

// paced sends reqs over workers connections, request i due when the
// messages before it, at rate messages per second, are due: the messages
// sent and how late the pacer ever was (workers all busy).
func paced(t *testing.T, reqs []batchReq, rate float64, workers int) (int, time.Duration) {
	var wg sync.WaitGroup
	ch := make(chan batchReq)
	var mu sync.Mutex
	sent := 0
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for q := range ch {
				resp, err := measureClient.Do(q.r)
				if err != nil || resp.StatusCode != 202 {
					t.Errorf("submit: %v %v", err, resp)
					continue
				}
				drainClose(resp)
				mu.Lock()
				sent += q.n
				mu.Unlock()
			}
		}()
	}
	start := time.Now()
	var late time.Duration
	cum := 0
	for _, q := range reqs {
		due := start.Add(time.Duration(float64(cum) / rate * float64(time.Second)))
		time.Sleep(time.Until(due))
		ch <- q
		late = max(late, time.Since(due))
		cum += q.n
	}
	close(ch)
	wg.Wait()
	return sent, late
}

// cursorPosition is the partition and offset a cursor of the gateway names
// (gateway/outputs.go: a version byte, then uvarints of the partition count,
// the partition and the offset). Opaque to participants; the measurement
// reads it to find each output's record.
func cursorPosition(t *testing.T, c string) (int32, int64) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) < 4 || b[0] != 1 {
		t.Fatalf("cursor %q", c)
	}
	b = b[1:]
	var v [3]uint64
	for i := range v {
		x, n := binary.Uvarint(b)
		if n <= 0 {
			t.Fatalf("cursor %q", c)
		}
		v[i], b = x, b[n:]
	}
	return int32(v[1]), int64(v[2])
}

func uptimeLoad() (string, error) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "", err
	}
	return strings.Join(strings.Fields(string(b))[:3], " "), nil
}

func walkEnd(t *testing.T, base, bic string) string {
	next := ""
	for {
		u := base + "/v1/outputs?limit=1000"
		if next != "" {
			u += "&after=" + next
		}
		r, _ := http.NewRequest("GET", u, nil)
		r.Header = gateway.SignedHeaders("GET", u, nil, bic, refdata.DemoPrivateKey(bic), time.Now())
		resp, err := measureClient.Do(r)
		must(t, err)
		var j struct {
			Outputs []json.RawMessage
			Next    string
		}
		json.NewDecoder(resp.Body).Decode(&j)
		drainClose(resp)
		next = j.Next
		if len(j.Outputs) == 0 {
			return next
		}
	}
}

func pct(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(float64(len(s)-1) * p / 100)
	return s[i]
}

// cpuOf is each process's user+system CPU seconds (/proc/PID/stat).
func cpuOf(t *testing.T, pids []int) []float64 {
	var out []float64
	for _, p := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		must(t, err)
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
		u, _ := strconv.ParseFloat(f[11], 64)
		s, _ := strconv.ParseFloat(f[12], 64)
		out = append(out, (u+s)/100)
	}
	return out
}

func waitLagZero(t *testing.T, brokers, ns string) { waitLagZeroFor(t, brokers, ns, 5*time.Minute) }

// waitLagZeroFor waits up to d for every group of ns to be at lag 0.
func waitLagZeroFor(t *testing.T, brokers, ns string, d time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cl, err := topics.Connect(ctx, kafkaconn.Plaintext(brokers))
	must(t, err)
	defer cl.Close()
	_, err = lag.WaitZero(ctx, kadm.NewClient(cl), lag.Groups(ns), lag.WaitOptions{})
	must(t, err)
}
