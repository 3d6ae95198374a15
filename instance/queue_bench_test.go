package instance_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/instance/lookup"
	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/query"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/workload"
)

// BenchmarkWorkQueue is a page of 100 of a participant's work queue
// (gateway.md v2 §4c) over STE_QUEUE_TRADES trades of state (default
// 20,000; the acceptance's 250,000 with STE_QUEUE_TRADES=250000) held by
// 2 instances of 4 of the 8 match partitions each: the lookup client asks
// both instances' lookup listeners over HTTP (instance.QueueHandler: the
// queue indexes of processors/query), merges the pages and the answer is
// encoded as the gateway sends it. Meanwhile the tables take writes at
// STE_QUEUE_WRITES per second (default 4,500, half the pipeline's capacity
// on this machine: docs/benchmarks.md), each making its trade summarised
// again: a trade written STE_QUEUE_BURST times 10 ms apart (default 7, a
// trade's messages; 1 for the worst case, every write another trade).
// The participants asked are the 20 with the most trades; the questions,
// each kind a sub-benchmark of its own, are a walk without filters from a
// random cursor (page), owes=true (owes), status=MISMATCHED (mismatched)
// and at_risk=true of one trade date (at_risk), then the four in turn
// (mixed). Reported for each: the p50 and p99 of a page (p50-ms, p99-ms),
// the process's CPU a question beyond what the writes take alone
// (cpu-ms/q), the trades a page; then, the writes stopped, what one
// instance's /queue handler spends a question of each kind
// (instance-<kind>: cpu-ms/q, no HTTP); and the index's heap per trade.
// Run: go test -run '^$' -bench WorkQueue -benchtime 2000x ./instance
func BenchmarkWorkQueue(b *testing.B) {
	// An instance with memory tables collects as `ste process` does
	// (instance/gc.go).
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	n := envInt("STE_QUEUE_TRADES", 20_000)
	writes := envInt("STE_QUEUE_WRITES", 4_500)
	c := newQueueCluster(b, topics.DefaultPartitions, 2)
	built := time.Now()
	values := loadTrades(b, c, n)
	// What the benchmark as a whole finds is shown by its first
	// sub-benchmarks (a benchmark with sub-benchmarks shows nothing of its
	// own without -v).
	var notes []string
	note := func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }
	note("%d trades of state stored in %v", len(values), time.Since(built).Round(time.Second))
	heapBefore := heap()
	built = time.Now()
	c.recover(b)
	heapAfter := heap()
	note("queue indexes built in %v; heap %d MB → %d MB (%.0f bytes per trade)", time.Since(built).Round(time.Millisecond),
		heapBefore>>20, heapAfter>>20, float64(heapAfter-heapBefore)/float64(len(values)))
	indexBytes := float64(heapAfter-heapBefore) / float64(len(values))

	// The participants of the most trades, and the trade dates.
	count := map[string]int{}
	for _, e := range values {
		for _, p := range e.parties {
			count[p]++
		}
	}
	var parties []string
	for p := range count {
		parties = append(parties, p)
	}
	slices.SortFunc(parties, func(a, c string) int { return count[c] - count[a] })
	parties = parties[:min(20, len(parties))]
	note("participants asked: %d, trades each %d to %d", len(parties), count[parties[len(parties)-1]], count[parties[0]])

	// Writes at the rate asked: trades stored again, each burst times in
	// a row 10 ms apart, as a trade's messages come close together (1: a
	// different trade every write, the worst case for the index's delay).
	burst := envInt("STE_QUEUE_BURST", 7)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var written atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		r := rand.New(rand.NewPCG(1, 2))
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		type active struct {
			e    stored
			left int
		}
		var act []active
		per := float64(writes) / 100 / float64(burst) // new trades a tick
		owed := 0.0
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			for owed += per; owed >= 1; owed-- {
				act = append(act, active{values[r.IntN(len(values))], burst})
			}
			n := 0
			for i := range act {
				c.put(act[i].e.key, act[i].e.value)
				n++
				act[i].left--
			}
			act = slices.DeleteFunc(act, func(a active) bool { return a.left == 0 })
			written.Add(int64(n))
		}
	}()
	summarised := c.gets.Load()
	ctx := context.Background()
	now := time.Date(2026, 11, 2, 14, 30, 0, 0, time.UTC)
	// The questions, each kind's j-th: a walk without filters from a
	// random cursor, owes=true, status=MISMATCHED, at_risk=true of one
	// trade date; the participants in turn.
	r := rand.New(rand.NewPCG(3, 4))
	question := func(kind, j int) query.QueueQuery {
		q := query.QueueQuery{Party: parties[j%len(parties)], Limit: 100, Now: now, Lead: 2 * time.Hour}
		switch kind {
		case 0:
			e := values[r.IntN(len(values))]
			q.After = &query.QueuePos{Date: e.date, Key: e.key}
		case 1:
			q.Owes = true
		case 2:
			q.Status = []string{"MISMATCHED"}
		case 3:
			q.AtRisk, q.Date = true, benchDates[j%len(benchDates)]
		}
		return q
	}
	kinds := []string{"page", "owes", "mismatched", "at_risk"}

	// The CPU the writes and their summaries take alone, taken off each
	// question's (cpu-ms/q: the process's, both instances, the lookup
	// client and the page's encoding, GC included).
	cpu0, t0 := cpuTime(), time.Now()
	time.Sleep(2 * time.Second)
	background := float64(cpuTime()-cpu0) / float64(time.Since(t0))
	note("writes alone: %.2f of a core", background)

	var all []time.Duration
	var pages, listed int
	started := time.Now()
	// Each kind alone, then all four in turn (the p99 over all questions
	// the goal speaks of).
	for k, name := range append(kinds, "mixed") {
		b.Run(name, func(b *testing.B) {
			for _, l := range notes {
				b.Log(l)
			}
			notes = nil
			var lat []time.Duration
			n := 0
			cpu0, t0, w0, g0 := cpuTime(), time.Now(), written.Load(), c.gets.Load()
			for j := 0; b.Loop(); j++ {
				kind, jj := k, j
				if k == len(kinds) { // the mixed: the kinds in turn
					kind, jj = j%len(kinds), j/len(kinds)
				}
				q := question(kind, jj)
				t0 := time.Now()
				page, err := c.client.Queue(ctx, q)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := json.Marshal(struct {
					Trades []query.QueueTrade `json:"trades"`
					Next   string             `json:"next"`
				}{page, "cursor"}); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
				n += len(page)
			}
			elapsed := time.Since(t0)
			cpu := float64(cpuTime()-cpu0) - background*float64(elapsed)
			all = append(all, lat...)
			pages += len(lat)
			listed += n
			b.Logf("%-10s %5d pages, %.1f trades a page: p50 %6.2f ms, p99 %6.2f ms, max %6.2f ms; CPU a question %.2f ms beside the writes'",
				name, len(lat), float64(n)/float64(len(lat)), ms(pct(lat, 50)), ms(pct(lat, 99)), ms(pct(lat, 100)), cpu/float64(len(lat))/1e6)
			b.ReportMetric(ms(pct(lat, 50)), "p50-ms")
			b.ReportMetric(ms(pct(lat, 99)), "p99-ms")
			b.ReportMetric(cpu/float64(len(lat))/1e6, "cpu-ms/q")
			b.ReportMetric(float64(n)/float64(len(lat)), "trades/page")
			b.ReportMetric(float64(written.Load()-w0)/elapsed.Seconds(), "writes/s")
			if k == 0 {
				b.ReportMetric(indexBytes, "index-B/trade")
			}
			b.ReportMetric(float64(c.gets.Load()-g0)/float64(max(1, written.Load()-w0)), "summaries/write")
		})
	}
	elapsed := time.Since(started)
	close(stop)
	wg.Wait()
	note("%d pages, %.1f trades a page, p50 %.2f ms, p99 %.2f ms; %d writes in %v (%.0f/s), %d trades summarised again (%.2f a write)",
		pages, float64(listed)/float64(max(1, pages)), ms(pct(all, 50)), ms(pct(all, 99)), written.Load(), elapsed.Round(time.Millisecond),
		float64(written.Load())/elapsed.Seconds(), c.gets.Load()-summarised, float64(c.gets.Load()-summarised)/float64(max(1, written.Load())))

	// What one instance spends answering a question, the writes stopped:
	// its /queue handler (the question read, its partitions' indexes
	// asked, the answer encoded) called in the benchmark's goroutine, no
	// HTTP; cpu-ms/q is the process's CPU a question.
	h := instance.QueueHandler("inst-0", c.tables[0], func() []int32 { return c.owners[0].Partitions })
	for k, name := range kinds {
		b.Run("instance-"+name, func(b *testing.B) {
			for _, l := range notes {
				b.Log(l)
			}
			notes = nil
			cpu0 := cpuTime()
			for j := 0; b.Loop(); j++ {
				req := httptest.NewRequest("GET", lookup.PathQueue+"?"+lookup.QueueValues(question(k, j)).Encode(), nil)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != 200 {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/q")
		})
	}
}

// cpuTime is the process's user and system CPU.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var benchDates = []string{"2026-11-02", "2026-11-03", "2026-11-04"}

// stored is one trade of the benchmark's state.
type stored struct {
	key     schemas.TradeKey
	date    date.Date
	value   []byte
	parties []string
}

// loadTrades stores n trades: a realistic generated set of templates (a
// third on each of three trade dates), each copied under other TradeRefs
// until n; every fourth matched copy affirmed by its InvMgr.
func loadTrades(b *testing.B, c *queueCluster, n int) []stored {
	per := min(n, 6_000) / len(benchDates)
	type template struct{ recs [][]byte }
	var templates []*template
	byKey := map[schemas.TradeKey]*template{}
	var dec schemas.Decoder
	for i, d := range benchDates {
		_, err := workload.Generate(workload.Options{Trades: per, Mix: workload.Realistic, Seed: uint64(40 + i), TradeDate: date.MustParse(d)},
			func(r []byte) error {
				m, rej := dec.Decode(r)
				if rej != nil {
					return nil
				}
				k := m.Key.TradeKey()
				tp := byKey[k]
				if tp == nil {
					tp = &template{}
					byKey[k] = tp
					templates = append(templates, tp)
				}
				tp.recs = append(tp.recs, bytes.Clone(r))
				return nil
			}, nil)
		if err != nil {
			b.Fatal(err)
		}
	}
	out := make([]stored, 0, n)
	matched := 0
	for i := range n {
		tp := templates[i%len(templates)]
		book := matching.NewBook()
		var key schemas.TradeKey
		for _, r := range tp.recs {
			if copyN := i / len(templates); copyN > 0 {
				r = withRef(r, "-C"+strconv.Itoa(copyN))
			}
			m, rej := dec.Decode(r)
			if rej != nil {
				continue
			}
			if _, known := book.Known(m.ID()); known || book.KeyCollision(m) != nil {
				continue
			}
			sum := sha256.Sum256(r)
			book.Accept(&matching.Inbound{Msg: m, Digest: matching.Digest(sum[:16]), NetUnits: 2})
			key = m.Key.TradeKey()
		}
		tr := book.Trade(key)
		if tr == nil {
			continue
		}
		v := tr.View()
		if v.State == "matched" && !v.Cancelled {
			if matched++; matched%4 == 0 {
				if m, rej := dec.Decode(benchAFF(&v)); rej == nil {
					book.Accept(&matching.Inbound{Msg: m, Digest: matching.Digest{byte(i), byte(i >> 8), byte(i >> 16), 1}, NetUnits: 2})
					v = tr.View()
				}
			}
		}
		val, err := tr.MarshalBinary()
		if err != nil {
			b.Fatal(err)
		}
		c.put(key, val)
		d, _ := date.Parse(v.Keys[0].TradeDate)
		out = append(out, stored{key: key, date: d, value: val, parties: v.Parties})
	}
	return out
}

// withRef appends suffix to a record's TradeRef (the book verifies no
// signature): another trade of the same messages.
func withRef(r []byte, suffix string) []byte {
	i := bytes.Index(r, []byte("<TradeRef>"))
	if i < 0 {
		return r
	}
	j := bytes.Index(r[i:], []byte("</TradeRef>"))
	if j < 0 {
		return r
	}
	out := make([]byte, 0, len(r)+len(suffix))
	out = append(out, r[:i+j]...)
	out = append(out, suffix...)
	return append(out, r[i+j:]...)
}

func benchAFF(v *matching.View) []byte {
	var toks []string
	for _, m := range v.Messages {
		if m.InForce {
			toks = append(toks, m.Sender+":"+m.MsgId)
		}
	}
	slices.Sort(toks)
	k := v.Keys[0]
	d := &schemas.Draft{MsgId: "AFF-1", MsgType: "AFF", Function: "NEW", Sender: k.InvMgr, Created: "2026-11-02T06:00:00.000Z",
		Body: []schemas.Pair{{Name: "TradeRef", Value: k.TradeRef}, {Name: "TradeDate", Value: k.TradeDate}, {Name: "ISIN", Value: k.ISIN},
			{Name: "Side", Value: k.Side}, {Name: "Broker", Value: k.Broker}, {Name: "InvMgr", Value: k.InvMgr},
			{Name: "Decision", Value: "AFFIRM"}, {Name: "MatchDigest", Value: v.MatchDigest}, {Name: "Affirms", Value: strings.Join(toks, " ")}}}
	return d.AppendSigned(nil, refdata.DemoPrivateKey(k.InvMgr))
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func heap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func pct(l []time.Duration, p int) time.Duration {
	if len(l) == 0 {
		return 0 // none asked (a sub-benchmark left out by -bench)
	}
	s := slices.Clone(l)
	slices.Sort(s)
	i := min(len(s)-1, len(s)*p/100)
	return s[i]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
