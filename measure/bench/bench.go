// Package bench is `ste bench`: one measured experiment — generator → driver
// → processors → sink, with the monitor sampling every stage's queue — and
// its result, the one type the plots read back (measure/plots). Analytics
// ingest alongside is the caller's to wire (Options.Feed): nothing in
// measure imports analytics.
package bench

import (
	"cmp"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/measure/monitor"
	"github.com/ste-utility/ste/measure/oplaw"
	"github.com/ste-utility/ste/measure/sink"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/broker"
	"github.com/ste-utility/ste/topics/lag"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/workload"
)

// Result is the JSON of `ste bench` (docs/spec/cli.md), with the configuration every
// figure was measured in and what the run measured besides.
type Result struct {
	Trades             int                `json:"trades"`
	Messages           int                `json:"messages"`
	CLS                int                `json:"cls"`
	Exceptions         int                `json:"exceptions"`
	Seconds            float64            `json:"seconds"`
	MsgsPerSec         float64            `json:"msgs_per_sec"`
	LatencyMs          map[string]float64 `json:"latency_ms"`
	ProcessorInstances int                `json:"processor_instances"`
	Partitions         int                `json:"partitions"`
	Broker             string             `json:"broker"`
	Analytics          bool               `json:"analytics"`
	VerifySignatures   bool               `json:"verify_signatures"`
	Tables             string             `json:"tables,omitempty"`
	// Forged: records of the set that are forgeries (Options.Forged), and
	// the throughput of the others, the valid messages.
	Forged          int     `json:"forged,omitempty"`
	ValidMsgsPerSec float64 `json:"valid_msgs_per_sec,omitempty"`

	Mix               string  `json:"mix"`
	Rate              float64 `json:"rate,omitempty"`
	Namespace         string  `json:"namespace"`
	DriveSeconds      float64 `json:"drive_seconds"`
	OutputsPerMessage float64 `json:"outputs_per_message"`
	// Records the pipeline produced per inbound message (inbound itself not
	// counted), and by topic (the namespace prefix left out).
	RecordsPerMessage float64          `json:"records_per_message"`
	Records           map[string]int64 `json:"records,omitempty"`
	VerifyMicros      float64          `json:"verify_us"`
	SignMicros        float64          `json:"sign_us"`
	// The two timings the figures above average: before the run and after
	// it drained (µs), so that a disturbed one can be told from the other.
	VerifyTimed   [2]float64 `json:"verify_us_timed"`
	SignTimed     [2]float64 `json:"sign_us_timed"`
	CryptoCeiling float64    `json:"crypto_ceiling_msgs_per_sec"`
	OfCeiling     float64    `json:"share_of_crypto_ceiling"`
	// The outputs by type, as the instances counted them
	// (ste_outputs_total), and the ceiling of the outputs version 2 had: the
	// same formula as CryptoCeiling counting every output but version 3's
	// CNF, BLK and ALG (issue 50 measures against it: the new outputs must
	// be paid for by taking cost out elsewhere).
	OutputsByType       map[string]int64 `json:"outputs_by_type,omitempty"`
	V2OutputsPerMessage float64          `json:"v2_outputs_per_message,omitempty"`
	CryptoCeilingV2     float64          `json:"crypto_ceiling_v2_msgs_per_sec,omitempty"`
	OfCeilingV2         float64          `json:"share_of_crypto_ceiling_v2,omitempty"`
	Cores               int              `json:"cores"`
	Queues              []oplaw.Laws     `json:"queues,omitempty"`
	Windows             []Window         `json:"windows,omitempty"`
	Timeline            []Tick           `json:"timeline,omitempty"`
}

// Tick is one second of the run: queue lengths per stage as the monitor
// sampled them and the latency of the CLS that arrived in it.
type Tick struct {
	T      float64          `json:"t"`
	Queues map[string]int64 `json:"queues"`
	CLS    int              `json:"cls"`
	P50Ms  float64          `json:"p50_ms"`
	MaxMs  float64          `json:"max_ms"`
}

// Window is throughput in one window of the run (volume degradation).
type Window struct {
	EndSeconds float64 `json:"end_s"`
	Stored     int64   `json:"stored_messages"`
	MsgsPerSec float64 `json:"msgs_per_sec"`
}

// Network returns the network's throughput X and response time R.
func (r Result) Network() (x, resp float64) {
	for _, q := range r.Queues {
		if q.Stage == topology.Network {
			return q.X, q.R
		}
	}
	return 0, 0
}

// Load reads results written by `ste bench --json`.
func Load(paths ...string) ([]Result, error) {
	var runs []Result
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var r Result
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// Feed is analytics ingesting alongside the run, wired by the caller.
type Feed interface {
	// Start begins ingesting namespace ns from the cluster k.
	Start(ctx context.Context, k kafkaconn.Config, ns string) error
	// Finish waits until the run's topics are stored, records the run and
	// prints the reports to stderr.
	Finish(ctx context.Context, res Result, result []byte, startedAt time.Time) error
}

// Options configure Run.
type Options struct {
	Trades     int
	Rate       float64 // paced driver, msg/s; 0 full speed
	RampTo     float64
	RampOver   time.Duration
	Kafka      kafkaconn.Config // no brokers: run the embedded broker
	Instances  int
	Partitions int
	Mix        workload.Mix
	Seed       uint64
	Forged     float64 // share of forged records (workload.Options.Forged)
	Verify     bool
	Tables     string        // instance.TablesDisk (default) or instance.TablesMemory
	Interval   time.Duration // monitor sampling
	Window     time.Duration // throughput window of the degradation series
	Home       string        // $STE_HOME: sets, logs, embedded broker data, instance slots
	Signer     *schemas.Signer
	Feed       Feed // nil: no analytics
	Progress   func(format string, a ...any)
	// Generating and Processing, when set, are told how far the set's
	// generation (trades, bytes written) and the processing (CLS arrived of
	// those expected; done on the last call) have come, a few times a
	// second: ste bench draws its bars with them.
	Generating func(trades int, bytes int64)
	Processing func(cls, expected int, done bool)
	// Day is the set's day (workload.Options.TradeDate; default today, UTC).
	Day date.Date
}

// Run runs one experiment. A processor instance that fails ends the run
// with its error.
func Run(ctx context.Context, o Options) (Result, error) {
	home := filepath.Join(o.Home, "bench")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return Result{}, err
	}
	logFile, err := os.Create(filepath.Join(home, "process.log"))
	if err != nil {
		return Result{}, err
	}
	defer logFile.Close()
	log := slog.New(slog.NewTextHandler(logFile, nil))
	progress := o.Progress
	if progress == nil {
		progress = func(string, ...any) {}
	}
	res := Result{Trades: o.Trades, ProcessorInstances: o.Instances, Partitions: o.Partitions, Broker: "embedded",
		Analytics: o.Feed != nil, VerifySignatures: o.Verify, Mix: string(o.Mix), Rate: o.Rate, Cores: runtime.GOMAXPROCS(0),
		Tables: o.Tables}

	// Generated sets are cached: signing a million trades takes minutes.
	forged := ""
	if o.Forged > 0 {
		forged = fmt.Sprintf("-forged%g", o.Forged)
	}
	// Dated today by default: a set of another day would sit apart from any
	// live message in the event-time clock (workload.Today).
	day := o.Day
	if day == 0 {
		day = workload.Today()
	}
	// A realistic run has both kinds of investment manager, as ste demo
	// does: the committed reference data with mixed affirmation modes (the
	// utility affirms an AUTO one's trades: their AFFs are inbound records
	// too). The standard mix keeps the contract's default set.
	ref := refdata.Default()
	mixed := ""
	if o.Mix == workload.Realistic {
		ref, mixed = refdata.WithAffirmation(ref, refdata.AffirmationMixed), "-affmixed"
	}
	setPath := filepath.Join(home, fmt.Sprintf("set-%s%s-%d-seed%d%s-%s.xml", o.Mix, mixed, o.Trades, o.Seed, forged, day))
	man, err := cachedSet(setPath, workload.Options{Trades: o.Trades, Mix: o.Mix, Seed: o.Seed, Forged: o.Forged, TradeDate: day,
		Ref: ref, Progress: o.Generating})
	if err != nil {
		return res, err
	}
	res.Messages, res.Forged = man.Messages, man.Forged
	progress("bench: %d trades, %d messages (%s)", man.Trades, man.Messages, setPath)

	k := o.Kafka
	if len(k.Brokers) == 0 {
		dir := filepath.Join(home, "broker")
		os.RemoveAll(dir)
		c, err := broker.Start(broker.Options{Addr: "127.0.0.1:0", DataDir: dir, Partitions: o.Partitions})
		if err != nil {
			return res, err
		}
		defer c.Close()
		k = kafkaconn.Plaintext(broker.Addr(c))
	} else {
		res.Broker = "kafka"
	}
	ns := "bench" + time.Now().UTC().Format("20060102t150405")
	res.Namespace = ns
	cl, err := topics.Connect(ctx, k)
	if err != nil {
		return res, err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if _, err := topics.Create(ctx, adm, ns, topics.Options{Partitions: int32(o.Partitions)}); err != nil {
		return res, err
	}
	if _, err := topics.PublishRefdata(ctx, cl, ns, ref); err != nil {
		return res, err
	}
	res.VerifyMicros, res.SignMicros = measureCrypto()

	pctx, stopProcs := context.WithCancel(ctx)
	defer stopProcs()
	var wg sync.WaitGroup
	procErr := make(chan error, o.Instances)
	regs := make([]*prometheus.Registry, o.Instances)
	for i := 0; i < o.Instances; i++ {
		ready := make(chan struct{})
		regs[i] = prometheus.NewRegistry()
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			err := instance.Run(pctx, instance.Options{Kafka: k, Namespace: ns, Retention: 72 * time.Hour,
				Signer: o.Signer, Verify: o.Verify, Home: o.Home, Logger: log.With("instance", i), Ready: ready,
				Tables: o.Tables, BrokerInProcess: len(o.Kafka.Brokers) == 0, DropTables: true, Registry: regs[i]})
			if err != nil {
				log.Error("processor instance failed", "instance", i, "err", err)
				procErr <- fmt.Errorf("processor instance %d: %w", i, err)
			}
		}(i)
		select {
		case <-ready:
		case err := <-procErr:
			return res, err
		}
	}
	progress("bench: %d processor instance(s) ready on %s (namespace %s)", o.Instances, k, ns)
	ctx, failRun := context.WithCancelCause(ctx)
	defer failRun(nil)
	go func() {
		select {
		case err := <-procErr:
			failRun(err)
		case <-pctx.Done():
		}
	}()

	if o.Feed != nil {
		if err := o.Feed.Start(ctx, k, ns); err != nil {
			return res, err
		}
	}

	sk := sink.New()
	sctx, stopSink := context.WithCancel(ctx)
	defer stopSink()
	go sk.Run(sctx, k, ns)
	mon := monitor.New(cl, ns)
	var samples []schemas.MonitorSample
	var smu sync.Mutex
	monDone := monitor.Loop(sctx, mon, cl, ns, o.Interval, func(ss []schemas.MonitorSample) {
		smu.Lock()
		samples = append(samples, ss...)
		smu.Unlock()
	})

	src, err := msgset.Open(setPath)
	if err != nil {
		return res, err
	}
	defer src.Close()
	driveStart := time.Now()
	dr, err := topics.Drive(ctx, cl, ns, src, topics.DriveOptions{Rate: o.Rate, RampTo: o.RampTo, RampOver: o.RampOver, OnSent: sk.Sent})
	src.Close()
	if err != nil {
		return res, err
	}
	res.DriveSeconds = dr.Seconds
	progress("bench: drove %d messages in %.1fs", dr.Sent, dr.Seconds)
	stopTrack := make(chan struct{})
	tracked := make(chan struct{})
	go func() {
		defer close(tracked)
		if o.Processing == nil {
			return
		}
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			o.Processing(sk.Count(), man.Matched, false)
			select {
			case <-stopTrack:
				o.Processing(sk.Count(), man.Matched, true)
				return
			case <-t.C:
			}
		}
	}()
	got := sk.Wait(ctx, man.Matched, 60*time.Second)
	close(stopTrack)
	<-tracked
	// Let the last outputs and exceptions land before counting them.
	wctx, cancelWait := context.WithTimeout(ctx, 30*time.Second)
	lag.WaitZero(wctx, adm, lag.Groups(ns), lag.WaitOptions{})
	cancelWait()
	stopSink()
	<-monDone
	// Which trade each message was is read after the run: decoding every
	// message as it went out cost the driver CPU the pipeline was being
	// measured on.
	if src, err = msgset.Open(setPath); err != nil {
		return res, err
	}
	err = sk.Resolve(src)
	src.Close()
	if err != nil {
		return res, err
	}
	sr := sk.Result()
	res.CLS = got
	res.Seconds = sr.Seconds
	if res.Seconds > 0 {
		res.MsgsPerSec = float64(res.Messages) / res.Seconds
		if res.Forged > 0 {
			res.ValidMsgsPerSec = float64(res.Messages-res.Forged) / res.Seconds
		}
	}
	res.LatencyMs = map[string]float64{"p50": sink.Quantile(sr.Latencies, 0.5), "p99": sink.Quantile(sr.Latencies, 0.99),
		"max": sink.Quantile(sr.Latencies, 1)}
	n := topology.Names{NS: ns}
	// Every record the pipeline produced, by topic: the groups' topics
	// (streams, changelogs, loopbacks; not the shared ones outside them) but
	// inbound, which the driver wrote.
	var produced []string
	for _, t := range topology.Describe(ns).Topics {
		if t.Kind != topology.KindShared && t.Name != n.Inbound() {
			produced = append(produced, t.Name)
		}
	}
	if ends, err := adm.ListEndOffsets(ctx, produced...); err == nil {
		var outputs, all int64
		res.Records = map[string]int64{}
		ends.Each(func(o kadm.ListedOffset) {
			res.Records[strings.TrimPrefix(o.Topic, ns+".")] += o.Offset
			all += o.Offset
			switch o.Topic {
			case n.Exceptions():
				res.Exceptions += int(o.Offset)
			case n.CLS(), n.Outbound():
				outputs += o.Offset
			}
		})
		res.OutputsPerMessage = float64(outputs) / float64(res.Messages)
		res.RecordsPerMessage = float64(all) / float64(res.Messages)
	}
	// Crypto is timed again now that the set has drained and the two timings
	// averaged: a single timing of a fraction of a second catches whatever the
	// machine did then (steal from the hypervisor, a collection), and one run
	// measured 53 µs per signature before and 74 µs in the next. The pair
	// brackets the run it is compared with.
	v2, s2 := measureCrypto()
	res.VerifyTimed, res.SignTimed = [2]float64{res.VerifyMicros, v2}, [2]float64{res.SignMicros, s2}
	res.VerifyMicros, res.SignMicros = (res.VerifyMicros+v2)/2, (res.SignMicros+s2)/2
	verify := res.VerifyMicros
	if !o.Verify {
		verify = 0
	}
	res.CryptoCeiling, res.OfCeiling = res.ceiling(verify, res.OutputsPerMessage)
	smu.Lock()
	res.Queues = monitor.Laws(samples)
	res.Windows = windows(samples, o.Window)
	res.Timeline = timeline(samples, sr.Series, driveStart)
	smu.Unlock()
	stopProcs()
	wg.Wait()
	// Counted once the instances have stopped: no callback is counting then.
	if res.OutputsByType = outputsByType(regs); res.OutputsByType != nil && res.Messages > 0 {
		res.V2OutputsPerMessage = float64(v2Outputs(res.OutputsByType)) / float64(res.Messages)
		res.CryptoCeilingV2, res.OfCeilingV2 = res.ceiling(verify, res.V2OutputsPerMessage)
	}

	if o.Feed != nil {
		out, _ := json.Marshal(res)
		if err := o.Feed.Finish(ctx, res, out, driveStart); err != nil {
			return res, fmt.Errorf("analytics: %w", err)
		}
	}
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return res, cause
	}
	if got < man.Matched {
		return res, fmt.Errorf("only %d of %d expected CLS arrived (see %s)", got, man.Matched, logFile.Name())
	}
	return res, nil
}

// cachedSet generates a message set unless the same one is cached with its manifest.
func cachedSet(path string, o workload.Options) (*workload.Manifest, error) {
	if b, err := os.ReadFile(path + ".manifest.json"); err == nil {
		var man workload.Manifest
		if json.Unmarshal(b, &man) == nil && man.Trades == o.Trades {
			return &man, nil
		}
	}
	w, err := msgset.Create(path + ".tmp")
	if err != nil {
		return nil, err
	}
	man, err := workload.Generate(o, w.Write, nil)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		return nil, err
	}
	return man, os.WriteFile(path+".manifest.json", man.Marshal(), 0o644)
}

// measureCrypto times Ed25519 verify and sign of a typical message with every
// core busy, in the run itself: the ceiling is stated for the same machine
// state. Timing one core while the other idles reads up to a third faster on
// this kind of machine (its two vCPUs share a physical core), which would
// overstate the ceiling. The result is the cost per operation on one core.
func measureCrypto() (verifyUs, signUs float64) {
	key := refdata.DemoPrivateKey(refdata.DefaultUtilityBIC)
	msg := []byte(strings.Repeat("<Header>…</Body>", 90)) // ~1.4 KB
	sig := ed25519.Sign(key, msg)
	pub := key.Public().(ed25519.PublicKey)
	cores := runtime.GOMAXPROCS(0)
	const n = 1000 // per core and round: 50–100 ms of signing or verifying
	// The best of three rounds: the cost of the operation, not of whatever
	// else the scheduler did meanwhile.
	best := func(op func()) float64 {
		b := 0.0
		for r := 0; r < 3; r++ {
			var wg sync.WaitGroup
			t := time.Now()
			for c := 0; c < cores; c++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < n; i++ {
						op()
					}
				}()
			}
			wg.Wait()
			if us := float64(time.Since(t).Microseconds()) / n; b == 0 || us < b {
				b = us
			}
		}
		return b
	}
	signUs = best(func() { ed25519.Sign(key, msg) })
	verifyUs = best(func() { ed25519.Verify(pub, msg, sig) })
	return
}

// windows is the throughput of successive windows of the network's
// completions against the volume stored so far.
func windows(samples []schemas.MonitorSample, window time.Duration) []Window {
	var ws []Window
	var elapsed, acc float64
	var done, stored int64
	first := true
	for _, s := range samples {
		if s.Stage != topology.Network {
			continue
		}
		if first {
			first = false
			continue
		}
		elapsed += s.Interval
		acc += s.Interval
		done += s.Completions
		stored += s.Completions
		if acc >= window.Seconds() {
			ws = append(ws, Window{EndSeconds: elapsed, Stored: stored, MsgsPerSec: float64(done) / acc})
			acc, done = 0, 0
		}
	}
	return ws
}

// timeline buckets the run by second from the start of driving.
func timeline(samples []schemas.MonitorSample, series []sink.Point, start time.Time) []Tick {
	ticks := map[int]*Tick{}
	tick := func(sec int) *Tick {
		t := ticks[sec]
		if t == nil {
			t = &Tick{T: float64(sec), Queues: map[string]int64{}}
			ticks[sec] = t
		}
		return t
	}
	for _, s := range samples {
		at, err := time.Parse("2006-01-02T15:04:05.000000Z", s.At)
		if err != nil || at.Before(start) {
			continue
		}
		tick(int(at.Sub(start).Seconds())).Queues[s.Stage] = s.Queue
	}
	lat := map[int][]float64{}
	for _, p := range series {
		lat[int(p.At)] = append(lat[int(p.At)], p.LatencyMs)
	}
	for sec, ls := range lat {
		slices.Sort(ls)
		t := tick(sec)
		t.CLS, t.P50Ms, t.MaxMs = len(ls), sink.Quantile(ls, 0.5), ls[len(ls)-1]
	}
	out := make([]Tick, 0, len(ticks))
	for _, t := range ticks {
		out = append(out, *t)
	}
	slices.SortFunc(out, func(a, b Tick) int { return cmp.Compare(a.T, b.T) })
	return out
}

// ceiling is the messages a second the run's cores could verify (verify
// µs each: 0 when not verifying) and sign outputs outputs of (SignMicros
// each), and the run's share of it; 0, 0 when that costs nothing.
func (res *Result) ceiling(verify, outputs float64) (msgsPerSec, share float64) {
	perMsg := verify + outputs*res.SignMicros
	if perMsg <= 0 {
		return 0, 0
	}
	msgsPerSec = float64(res.Cores) * 1e6 / perMsg
	return msgsPerSec, res.MsgsPerSec / msgsPerSec
}

// outputsByType sums ste_outputs_total of the instances' registries by type
// (nil if none counted).
func outputsByType(regs []*prometheus.Registry) map[string]int64 {
	var by map[string]int64
	for _, reg := range regs {
		fams, _ := reg.Gather()
		for _, f := range fams {
			if f.GetName() != "ste_outputs_total" {
				continue
			}
			for _, m := range f.GetMetric() {
				for _, l := range m.GetLabel() {
					if l.GetName() == "type" {
						if by == nil {
							by = map[string]int64{}
						}
						by[l.GetValue()] += int64(m.GetCounter().GetValue())
					}
				}
			}
		}
	}
	return by
}

// v2Outputs counts the outputs of the types contract version 2 had: all
// but version 3's CNF, BLK and ALG.
func v2Outputs(by map[string]int64) int64 {
	var n int64
	for typ, c := range by {
		switch typ {
		case schemas.CNF.String(), schemas.BLK.String(), schemas.ALG.String():
		default:
			n += c
		}
	}
	return n
}
