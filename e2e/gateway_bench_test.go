package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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

	"github.com/ste-utility/ste/gateway"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/lag"
)

// TestGatewayMeasure is the measurement of docs/benchmarks.md ("The
// gateway"), not a test: STE_GATEWAY_MEASURE=1 runs it. 300 participants'
// messages in batches of 100, signed ahead, through 2 gateway instances
// over one ste process; then single-message submits; then long polls of
// waiting participants. It reports CPU time per message (gateways and
// pipeline, from /proc) and the latencies' p99.
func TestGatewayMeasure(t *testing.T) {
	if os.Getenv("STE_GATEWAY_MEASURE") == "" {
		t.Skip("a measurement: STE_GATEWAY_MEASURE=1")
	}
	trades, _ := strconv.Atoi(os.Getenv("STE_GATEWAY_TRADES"))
	if trades == 0 {
		trades = 3000
	}
	brokers := embeddedBroker(t)
	ns := fmt.Sprintf("gwm%d", time.Now().UnixNano()%1e6)
	env := []string{"STE_BROKERS=" + brokers, "STE_NAMESPACE=" + ns}
	dir := t.TempDir()
	ref, set := filepath.Join(dir, "ref"), filepath.Join(dir, "set.xml")
	ste(t, nil, "refdata", "gen", "--out", ref, "--seed", "3", "--participants", "300")
	ste(t, nil, "gen", "--trades", fmt.Sprint(trades), "--mix", "standard", "--seed", "5", "--refdata", ref, "--out", set)
	ste(t, env, "topics", "create")
	ste(t, env, "refdata", "load", "--dir", ref)
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
	b, err := os.ReadFile(set)
	must(t, err)
	by := map[string][][]byte{}
	d := &schemas.Decoder{}
	var senders []string
	for _, l := range bytes.Split(b, []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		m, _ := d.Decode(l)
		if _, ok := by[m.Sender]; !ok {
			senders = append(senders, m.Sender)
		}
		by[m.Sender] = append(by[m.Sender], l)
	}
	// Every request signed ahead (well within the 300 s window).
	type req struct {
		r *http.Request
		n int
	}
	var reqs []req
	for i, s := range senders {
		msgs := by[s]
		for j := 0; j < len(msgs); j += 100 {
			body := bytes.Join(msgs[j:min(j+100, len(msgs))], []byte("\n"))
			u := urls[(i+j/100)%2] + "/v1/messages"
			r, _ := http.NewRequest("POST", u, bytes.NewReader(body))
			r.Header = gateway.SignedHeaders("POST", u, body, s, refdata.DemoPrivateKey(s), time.Now())
			r.Header.Set("Content-Type", "text/plain")
			reqs = append(reqs, req{r, min(100, len(msgs)-j)})
		}
	}
	cpu0 := cpuOf(t, append(pids, proc.cmd.Process.Pid))
	start := time.Now()
	var wg sync.WaitGroup
	ch := make(chan req)
	var mu sync.Mutex
	sent := 0
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for q := range ch {
				resp, err := http.DefaultClient.Do(q.r)
				if err != nil || resp.StatusCode != 202 {
					t.Errorf("submit: %v %v", err, resp)
					continue
				}
				resp.Body.Close()
				mu.Lock()
				sent += q.n
				mu.Unlock()
			}
		}()
	}
	for _, q := range reqs {
		ch <- q
	}
	close(ch)
	wg.Wait()
	gwSubmit := cpuOf(t, pids)
	// Wait for the pipeline to answer everything (every group at lag 0).
	waitLagZero(t, brokers, ns)
	elapsed := time.Since(start)
	cpu1 := cpuOf(t, append(pids, proc.cmd.Process.Pid))
	gwCPU := gwSubmit[0] + gwSubmit[1] - cpu0[0] - cpu0[1]
	pipeCPU := cpu1[2] - cpu0[2]
	t.Logf("RESULT batches: %d messages in %d requests of <=100 through 2 gateways in %.1fs; gateway CPU %.3fs = %.1f µs/msg; pipeline CPU %.3fs = %.1f µs/msg; ratio %.3f",
		sent, len(reqs), elapsed.Seconds(), gwCPU, gwCPU/float64(sent)*1e6, pipeCPU, pipeCPU/float64(sent)*1e6, gwCPU/pipeCPU)

	// Single-message submits: exact duplicates of messages already in, paced at 100/s.
	var lat []float64
	for i := 0; i < 1000; i++ {
		s := senders[i%len(senders)]
		body := by[s][0]
		u := urls[i%2] + "/v1/messages"
		r, _ := http.NewRequest("POST", u, bytes.NewReader(body))
		r.Header = gateway.SignedHeaders("POST", u, body, s, refdata.DemoPrivateKey(s), time.Now())
		r.Header.Set("Content-Type", "application/xml")
		t0 := time.Now()
		resp, err := http.DefaultClient.Do(r)
		if err != nil || resp.StatusCode != 202 {
			t.Fatalf("single submit: %v %v", err, resp)
		}
		resp.Body.Close()
		lat = append(lat, float64(time.Since(t0).Microseconds())/1000)
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("RESULT single submits: p50 %.2f ms, p99 %.2f ms, max %.2f ms (1000 at 100/s)", pct(lat, 50), pct(lat, 99), pct(lat, 100))

	// Long polls: 20 participants wait at their partitions' end; each
	// output's delay from its Header Created (written when the utility made
	// it) to its arrival.
	waitLagZero(t, brokers, ns)
	var plat []float64
	var pmu sync.Mutex
	var pwg sync.WaitGroup
	stop := time.Now().Add(25 * time.Second)
	for i := 0; i < 20; i++ {
		s := senders[i]
		pwg.Add(1)
		go func() {
			defer pwg.Done()
			next := walkEnd(t, urls[i%2], s)
			for time.Now().Before(stop) {
				u := urls[i%2] + "/v1/outputs?wait=10&limit=1000&after=" + next
				r, _ := http.NewRequest("GET", u, nil)
				r.Header = gateway.SignedHeaders("GET", u, nil, s, refdata.DemoPrivateKey(s), time.Now())
				resp, err := http.DefaultClient.Do(r)
				if err != nil {
					return
				}
				var j struct {
					Outputs []struct{ XML string }
					Next    string
				}
				json.NewDecoder(resp.Body).Decode(&j)
				resp.Body.Close()
				now := time.Now()
				for _, o := range j.Outputs {
					if m := regexp.MustCompile(`<Created>([^<]+)</Created>`).FindStringSubmatch(o.XML); m != nil {
						if c, err := time.Parse(time.RFC3339Nano, m[1]); err == nil {
							pmu.Lock()
							plat = append(plat, float64(now.Sub(c).Microseconds())/1000)
							pmu.Unlock()
						}
					}
				}
				next = j.Next
			}
		}()
	}
	// Their messages again (exact duplicates re-emit ACKs), one every 20 ms.
	for i := 0; time.Now().Before(stop.Add(-3 * time.Second)); i++ {
		s := senders[i%20]
		body := by[s][(i/20)%len(by[s])]
		u := urls[0] + "/v1/messages"
		r, _ := http.NewRequest("POST", u, bytes.NewReader(body))
		r.Header = gateway.SignedHeaders("POST", u, body, s, refdata.DemoPrivateKey(s), time.Now())
		r.Header.Set("Content-Type", "application/xml")
		if resp, err := http.DefaultClient.Do(r); err == nil {
			resp.Body.Close()
		}
		time.Sleep(20 * time.Millisecond)
	}
	pwg.Wait()
	t.Logf("RESULT long polls: %d outputs, delay from Created to delivery p50 %.1f ms, p99 %.1f ms, max %.1f ms",
		len(plat), pct(plat, 50), pct(plat, 99), pct(plat, 100))
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
		resp, err := http.DefaultClient.Do(r)
		must(t, err)
		var j struct {
			Outputs []json.RawMessage
			Next    string
		}
		json.NewDecoder(resp.Body).Decode(&j)
		resp.Body.Close()
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

func waitLagZero(t *testing.T, brokers, ns string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cl, err := topics.Connect(ctx, kafkaconn.Plaintext(brokers))
	must(t, err)
	defer cl.Close()
	_, err = lag.WaitZero(ctx, kadm.NewClient(cl), lag.Groups(ns), lag.WaitOptions{})
	must(t, err)
}
