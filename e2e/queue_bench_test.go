package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ste-utility/ste/gateway"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/testgate"
)

// TestQueueMeasure measures the work queue as issue 46's acceptance asks
// (docs/benchmarks.md, "The work queue"): a page of 100 over 250,000 trades
// of state (STE_QUEUE_MEASURE_TRADES) held by 2 `ste process` instances
// (disk tables, 4 of the 8 match partitions each), asked through `ste
// gateway` with the participants' own signatures, while the pipeline takes
// another set at half its capacity.
//
//  1. The state: a realistic set of 250,000 trades on reference data of 300
//     participants (generated once, cached under $STE_CACHE/queue-measure)
//     driven straight onto <ns>.inbound; messages / seconds to lag 0 is the
//     pipeline's capacity, the same run.
//  2. Under load: a standard set of other trades (their own trade date)
//     driven at half that capacity while 4 askers (STE_QUEUE_MEASURE_WORKERS)
//     ask, one request at a time each, in turn, for the 20
//     participants with the most messages: a page of 100 walking from the
//     previous page's cursor, `owes=true`, `status=MISMATCHED`, and
//     `at_risk=true&trade_date=` the state's busiest date. Each request's
//     time from send to the whole page read; every answer must be 200.
//
// A measurement, not a test of speed: it asserts nothing about the figures.
func TestQueueMeasure(t *testing.T) {
	testgate.Opt(t, "queue-measure")
	trades := 250000
	if v, err := strconv.Atoi(os.Getenv("STE_QUEUE_MEASURE_TRADES")); err == nil && v > 0 {
		trades = v
	}
	cache := os.Getenv("STE_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "ste")
	}
	dir := filepath.Join(cache, "queue-measure")
	must(t, os.MkdirAll(dir, 0o755))
	ref := filepath.Join(dir, "ref")
	if _, err := os.Stat(filepath.Join(ref, "participants.csv")); err != nil {
		ste(t, nil, "refdata", "gen", "--out", ref, "--seed", "3", "--participants", "300")
	}
	gen := func(name string, args ...string) string {
		f := filepath.Join(dir, name)
		if _, err := os.Stat(f); err != nil {
			tmp := f + ".tmp.zst"
			ste(t, nil, append([]string{"gen", "--refdata", ref, "--out", tmp}, args...)...)
			must(t, os.Rename(tmp, f))
		}
		return f
	}
	state := gen(fmt.Sprintf("state-%d.xml.zst", trades), "--trades", fmt.Sprint(trades), "--mix", "realistic", "--seed", "13")
	loadSet := gen("load-30000.xml.zst", "--trades", "30000", "--mix", "standard", "--seed", "17", "--trade-date", "2026-10-01")

	// The state's messages, their senders and its busiest trade date.
	stateMsgs, senders, busiest := scanSet(t, state)
	loadMsgs, _, _ := scanSet(t, loadSet)
	type kv struct {
		bic string
		n   int
	}
	var top []kv
	for b, n := range senders {
		if b != refdata.DefaultUtilityBIC {
			top = append(top, kv{b, n})
		}
	}
	sort.Slice(top, func(i, j int) bool { return top[i].n > top[j].n || top[i].n == top[j].n && top[i].bic < top[j].bic })
	top = top[:min(20, len(top))]

	brokers := embeddedBroker(t)
	ns := fmt.Sprintf("qm%d", time.Now().UnixNano()%1e6)
	env := []string{"STE_BROKERS=" + brokers, "STE_NAMESPACE=" + ns}
	ste(t, env, "topics", "create")
	ste(t, env, "refdata", "load", "--dir", ref)
	// Disk tables, the product's default (STE_QUEUE_MEASURE_TABLES=memory
	// for memory tables: 9.5 GB an instance at 250,000 trades).
	tables := "disk"
	if v := os.Getenv("STE_QUEUE_MEASURE_TABLES"); v != "" {
		tables = v
	}
	args := []string{"--http", "127.0.0.1:0", "--tables", tables, "--retention", "2160h"}
	// STE_QUEUE_MEASURE_PROFILE=DIR: each process serves net/http/pprof on
	// a loopback port (STE_PPROF), and CPU profiles and execution traces of
	// the instances and the gateway are taken while the pages are asked.
	profDir := os.Getenv("STE_QUEUE_MEASURE_PROFILE")
	var pprofs []string // instance 1, instance 2, gateway
	withPprof := func(env []string) []string {
		if profDir == "" {
			return env
		}
		a := freeLoopback(t)
		pprofs = append(pprofs, a)
		return append(slices.Clone(env), "STE_PPROF="+a)
	}
	p1, p2 := startProcess(t, withPprof(env), args...), startProcess(t, withPprof(env), args...)
	pids := []int{p1.cmd.Process.Pid, p2.cmd.Process.Pid}
	load, _ := uptimeLoad()
	t.Logf("RESULT machine: load average %s at the start; %d trades of state (%d messages), %d load messages; %s tables", load, trades, stateMsgs, loadMsgs, tables)

	// 1. The state, and the capacity.
	cpu0 := cpuOf(t, pids)
	t0 := time.Now()
	ste(t, env, "drive", "--in", state, "--no-create-topics")
	waitLagZeroFor(t, brokers, ns, 40*time.Minute)
	fill := time.Since(t0)
	cpu1 := cpuOf(t, pids)
	capacity := float64(stateMsgs) / fill.Seconds()
	t.Logf("RESULT state: %d messages onto inbound, lag 0 after %.0fs: %.0f msg/s; pipeline CPU %.1f µs/msg (both instances)",
		stateMsgs, fill.Seconds(), capacity, (cpu1[0]+cpu1[1]-cpu0[0]-cpu0[1])/float64(stateMsgs)*1e6)

	gl := startLines(t, withPprof(env), "gateway", "--addr", "127.0.0.1:0", "--metrics-addr", "", "--rate-limit", "1000", "--rate-burst", "1000")
	gre := regexp.MustCompile(`STE gateway for namespace \S+: (\S+)\n`)
	gw := gre.FindStringSubmatch(gl.waitFor(t, gre, 60*time.Second))[1]
	waitHealthy(t, gw)
	pids = append(pids, gl.cmd.Process.Pid)

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}, Timeout: 30 * time.Second}
	ask := func(bic, query string) (int, []byte, time.Duration, error) {
		u := gw + "/v1/trades" + query
		r, _ := http.NewRequest("GET", u, nil)
		r.Header = gateway.SignedHeaders("GET", u, nil, bic, refdata.DemoPrivateKey(bic), time.Now())
		start := time.Now()
		resp, err := client.Do(r)
		if err != nil {
			return 0, nil, 0, err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, b, time.Since(start), err
	}
	// The indexes are built once the partitions are recovered: wait for a
	// first 200.
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(500 * time.Millisecond) {
		code, b, _, err := ask(top[0].bic, "?limit=100")
		if err == nil && code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the work queue does not answer: %d %s %v", code, b, err)
		}
	}

	// 2. Pages under load.
	rate := capacity / 2
	// STE_QUEUE_MEASURE_RATE=N: the load at N msg/s instead (runs compared
	// with each other on a shared machine, whose capacity varies).
	if v, err := strconv.Atoi(os.Getenv("STE_QUEUE_MEASURE_RATE")); err == nil && v > 0 {
		rate = float64(v)
	}
	drv := startCmd(t, exec.Command(steBin, "drive", "--in", loadSet, "--no-create-topics", "--rate", strconv.Itoa(int(rate))), env)
	kinds := []string{"page", "owes=true", "status=MISMATCHED", "at_risk=true&trade_date=" + busiest}
	var mu sync.Mutex
	lat := map[string][]float64{}
	var bad []string
	stop := make(chan struct{})
	var wg sync.WaitGroup
	cpuL0 := cpuOf(t, pids)
	lstart := time.Now()
	workers := 4
	if v, err := strconv.Atoi(os.Getenv("STE_QUEUE_MEASURE_WORKERS")); err == nil && v > 0 {
		workers = v
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cursors := map[string]string{}
			for i := w; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				bic, kind := top[i%len(top)].bic, kinds[(i/len(top))%len(kinds)]
				q := "?limit=100"
				if kind == "page" {
					if c := cursors[bic]; c != "" {
						q += "&after=" + url.QueryEscape(c)
					}
				} else {
					q += "&" + kind
				}
				code, b, d, err := ask(bic, q)
				mu.Lock()
				if err != nil || code != 200 {
					bad = append(bad, fmt.Sprintf("%s %s: %d %v %.200s", bic, q, code, err, b))
				} else {
					lat[kind] = append(lat[kind], float64(d.Microseconds())/1000)
				}
				mu.Unlock()
				if kind == "page" && code == 200 {
					var page struct {
						Trades []json.RawMessage `json:"trades"`
						Next   string            `json:"next"`
					}
					if json.Unmarshal(b, &page) == nil {
						cursors[bic] = page.Next
						if len(page.Trades) == 0 {
							cursors[bic] = "" // the walk ended: start again
						}
					}
				}
			}
		}()
	}
	if profDir != "" {
		must(t, os.MkdirAll(profDir, 0o755))
		go func() {
			time.Sleep(5 * time.Second)
			for i, name := range []string{"instance1", "instance2", "gateway"} {
				go getTo(pprofs[i], "/debug/pprof/profile?seconds=20", filepath.Join(profDir, name+".cpu.pprof"))
			}
			time.Sleep(21 * time.Second)
			for i, name := range []string{"instance1", "instance2", "gateway"} {
				go getTo(pprofs[i], "/debug/pprof/trace?seconds=5", filepath.Join(profDir, name+".trace"))
			}
		}()
	}
	err := <-drv.done
	drv.done <- err
	close(stop)
	wg.Wait()
	secs := time.Since(lstart).Seconds()
	cpuL1 := cpuOf(t, pids)
	if err != nil {
		t.Fatalf("ste drive: %v\n%s", err, drv.log)
	}
	waitLagZero(t, brokers, ns)
	var all []float64
	for _, k := range kinds {
		xs := lat[k]
		all = append(all, xs...)
		t.Logf("RESULT %s: p50 %.1f ms, p99 %.1f ms, max %.1f ms (%d pages)", k, pct(xs, 50), pct(xs, 99), pct(xs, 100), len(xs))
	}
	t.Logf("RESULT work queue, a page of 100 over %d trades on 2 instances, %d askers, under %.0f msg/s (capacity %.0f) for %.0fs: p50 %.1f ms, p99 %.1f ms, max %.1f ms (%d pages, %d not 200); cores: instances %.2f + %.2f, gateway %.2f",
		trades, workers, rate, capacity, secs, pct(all, 50), pct(all, 99), pct(all, 100), len(all), len(bad),
		(cpuL1[0]-cpuL0[0])/secs, (cpuL1[1]-cpuL0[1])/secs, (cpuL1[2]-cpuL0[2])/secs)
	load, _ = uptimeLoad()
	t.Logf("RESULT machine: load average %s at the end", load)
	if len(bad) > 0 {
		t.Errorf("%d answers not 200, e.g. %v", len(bad), bad[:min(5, len(bad))])
	}
}

// freeLoopback is a loopback address with a port free now.
func freeLoopback(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

// getTo saves GET http://addr+path to file (a profile: a failure leaves
// no file).
func getTo(addr, path, file string) {
	resp, err := http.Get("http://" + addr + path)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return
	}
	b, err := io.ReadAll(resp.Body)
	if err == nil {
		os.WriteFile(file, b, 0o644)
	}
}

// scanSet counts a set's messages and each sender's, and finds its busiest
// TradeDate, reading it a line at a time.
func scanSet(t *testing.T, path string) (int, map[string]int, string) {
	t.Helper()
	r, err := msgset.Open(path)
	must(t, err)
	defer r.Close()
	senderRe, dateRe := regexp.MustCompile(`<Sender>([^<]+)</Sender>`), regexp.MustCompile(`<TradeDate>([^<]+)</TradeDate>`)
	senders, dates := map[string]int{}, map[string]int{}
	n := 0
	for {
		l, _, err := r.Next()
		if err == io.EOF {
			break
		}
		must(t, err)
		if len(l) == 0 {
			continue
		}
		n++
		if m := senderRe.FindSubmatch(l); m != nil {
			senders[string(m[1])]++
		}
		if m := dateRe.FindSubmatch(l); m != nil {
			dates[string(m[1])]++
		}
	}
	busiest, most := "", 0
	for d, c := range dates {
		if c > most || c == most && d < busiest {
			busiest, most = d, c
		}
	}
	return n, senders, busiest
}
