package console

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/analytics/report"
	"github.com/ste-utility/ste/analytics/store"
	"github.com/ste-utility/ste/instance/api"
	"github.com/ste-utility/ste/instance/lookup"
	"github.com/ste-utility/ste/instance/registry"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/measure/monitor"
	"github.com/ste-utility/ste/measure/oplaw"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/trust"
)

// How the overview is sampled and how much of it is kept.
const (
	historyLen     = 300              // one-second samples kept for sparklines (5 minutes)
	quantileWindow = 10 * time.Second // processing and critical time quantiles: the last 10 s
	lawsWindow     = 30               // samples the operational laws use (30 s)
	registryEvery  = 5 * time.Second
	analyticsEvery = 5 * time.Second
)

// collector keeps the live picture of a namespace: the instances (from
// the registry) and what each serves on /metrics and /status, the queues
// (the monitor's samples: lag per stage and the network end to end), and
// the analytics store's row counts. It samples every period in the
// background; the pages read its latest picture.
type collector struct {
	secret *trust.Secret // the registry entries believed are those it proves
	kafka  kafkaconn.Config
	ns     string
	every  time.Duration
	log    *slog.Logger
	client *http.Client
	store  *analyticsConn

	cl  *kgo.Client
	adm *kadm.Client
	mon *monitor.Monitor

	mu          sync.RWMutex
	entries     []registry.Entry
	registryAt  time.Time
	registryErr string
	scraped     map[string]instanceRead // by instance id
	queueErr    string
	samples     map[string][]schemas.MonitorSample // per stage, oldest first
	totals      []totalsAt                         // merged scrapes, oldest first
	counts      *report.CountsResult
	countsAt    time.Time
	countsErr   string
	at          time.Time
}

type instanceRead struct {
	status  *api.Status
	metrics *scrape
	err     string
	at      time.Time
}

type totalsAt struct {
	at time.Time
	s  *scrape
}

func newCollector(kafka kafkaconn.Config, ns string, every time.Duration, st *analyticsConn, log *slog.Logger) (*collector, error) {
	cl, err := topics.Client(kafka)
	if err != nil {
		return nil, err
	}
	adm := kadm.NewClient(cl)
	return &collector{kafka: kafka, ns: ns, every: every, log: log, store: st, cl: cl, adm: adm,
		mon: monitor.New(cl, ns), client: instanceClient(every),
		scraped: map[string]instanceRead{}, samples: map[string][]schemas.MonitorSample{}}, nil
}

func (c *collector) close() {
	c.mon.Close()
	c.cl.Close()
}

// run samples until ctx ends.
func (c *collector) run(ctx context.Context) {
	c.backfill(ctx)
	t := time.NewTicker(c.every)
	defer t.Stop()
	var countsAt time.Time
	for {
		c.sample(ctx)
		if c.store != nil && time.Since(countsAt) >= analyticsEvery {
			countsAt = time.Now()
			go c.readCounts(ctx)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// sample reads everything once: the registry (every few seconds), every
// instance's /metrics and /status, and the queues.
func (c *collector) sample(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, c.every*9/10+time.Second)
	defer cancel()
	c.mu.RLock()
	entries, regAt := c.entries, c.registryAt
	c.mu.RUnlock()
	if time.Since(regAt) >= registryEvery {
		list, err := registry.ListProven(ctx, c.kafka, c.ns, c.secret)
		c.mu.Lock()
		if err != nil {
			c.registryErr = err.Error()
		} else {
			c.entries, c.registryErr = list, ""
			entries = list
		}
		c.registryAt = time.Now()
		c.mu.Unlock()
	}

	var wg sync.WaitGroup
	reads := make([]instanceRead, len(entries))
	for i, e := range entries {
		if e.HTTP == "" || e.Stale {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			reads[i] = c.readInstance(ctx, e.HTTP)
		}()
	}
	ss, qerr := c.mon.Sample(ctx)
	wg.Wait()

	now := time.Now()
	total := newScrape()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = now
	prev := c.scraped
	c.scraped = map[string]instanceRead{}
	for i, e := range entries {
		r := reads[i]
		if r.at.IsZero() {
			continue
		}
		// An instance that does not answer keeps its last figures (its
		// error says they are old) rather than vanishing from the totals.
		if old, ok := prev[e.ID]; ok && r.err != "" {
			if r.metrics == nil {
				r.metrics = old.metrics
			}
			if r.status == nil {
				r.status = old.status
			}
		}
		c.scraped[e.ID] = r
		if r.metrics != nil {
			total.add(r.metrics)
		}
	}
	c.totals = appendRing(c.totals, totalsAt{now, total}, historyLen)
	if qerr != nil {
		c.queueErr = qerr.Error()
		return
	}
	c.queueErr = ""
	for _, s := range ss {
		c.samples[s.Stage] = appendRing(c.samples[s.Stage], s, historyLen)
	}
}

// backfill starts the queue history with the samples `ste monitor` (or a
// demo or bench) published to <ns>.monitor in the last historyLen seconds,
// so that a console opened after a run shows the run.
func (c *collector) backfill(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	since := time.Now().Add(-historyLen * time.Second)
	byStage := map[string][]schemas.MonitorSample{}
	err := topics.ReadPartitionSince(ctx, c.kafka, topology.Names{NS: c.ns}.Monitor(), 0, since, func(r *kgo.Record) bool {
		var s schemas.MonitorSample
		if json.Unmarshal(r.Value, &s) == nil && s.Stage != "" {
			byStage[s.Stage] = append(byStage[s.Stage], s)
		}
		return true
	})
	if err != nil {
		c.log.Debug("no queue history from the monitor topic", "err", err)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for st, ss := range byStage {
		for _, s := range ss {
			c.samples[st] = appendRing(c.samples[st], s, historyLen)
		}
	}
}

func appendRing[T any](ring []T, v T, n int) []T {
	ring = append(ring, v)
	if len(ring) > n {
		ring = slices.Delete(ring, 0, len(ring)-n)
	}
	return ring
}

// instanceClient reads the instances' endpoints within a sampling period,
// following no redirect: an entry is believed for its own address only.
func instanceClient(every time.Duration) *http.Client { return lookup.HTTPClient(every * 9 / 10) }

// Bounds on an instance's replies: a /status is a few KiB, a /metrics
// some hundreds with many partitions.
const (
	maxStatusReply  = 1 << 20
	maxMetricsReply = 8 << 20
)

// readInstance reads one instance's /status and /metrics.
func (c *collector) readInstance(ctx context.Context, addr string) instanceRead {
	r := instanceRead{at: time.Now()}
	// addr is host:port (registry.CheckAddr); the URL is built from its
	// parts, redirects are not followed (lookup.HTTPClient) and replies
	// are read up to a bound.
	get := func(path string) (*http.Response, error) {
		u := url.URL{Scheme: "http", Host: addr, Path: path}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.client.Do(req)
		if err == nil && resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return nil, fmt.Errorf("%s: %s", path, resp.Status)
		}
		return resp, err
	}
	resp, err := get("/status")
	if err != nil {
		r.err = err.Error()
		return r
	}
	var st api.Status
	err = json.NewDecoder(lookup.Capped(resp.Body, maxStatusReply)).Decode(&st)
	resp.Body.Close()
	if err != nil {
		r.err = "/status: " + err.Error()
		return r
	}
	r.status = &st
	if resp, err = get("/metrics"); err != nil {
		r.err = err.Error()
		return r
	}
	r.metrics, err = parseMetrics(lookup.Capped(resp.Body, maxMetricsReply))
	resp.Body.Close()
	if err != nil {
		r.err = "/metrics: " + err.Error()
	}
	return r
}

func (c *collector) readCounts(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	st, err := c.store.get(ctx)
	var res report.Result
	if err == nil {
		res, err = report.Run(ctx, st, "counts", report.Params{Namespace: c.ns})
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.countsErr = err.Error()
		return
	}
	c.counts, c.countsAt, c.countsErr = res.(*report.CountsResult), time.Now(), ""
}

// Overview is the live picture the overview page shows (and /api/overview
// serves as JSON).
type Overview struct {
	Namespace    string               `json:"namespace"`
	At           time.Time            `json:"at"`
	KafkaErr     string               `json:"kafka_error,omitempty"`
	Stages       []StageView          `json:"stages"`
	Instances    []InstanceView       `json:"instances"`
	OpenTrades   float64              `json:"open_trades"`
	Trades       TradeCounts          `json:"trades"`
	Lifecycle    LifecycleCounts      `json:"lifecycle"`
	Rejections   []Count              `json:"rejections"`
	Rejected     float64              `json:"rejected"`
	Outputs      []Count              `json:"outputs"`
	Analytics    *report.CountsResult `json:"analytics,omitempty"`
	AnalyticsAt  time.Time            `json:"analytics_at,omitzero"`
	AnalyticsErr string               `json:"analytics_error,omitempty"`
	// CLS reconciles the three counts of CLS (nil without analytics).
	CLS *CLSCounts `json:"cls,omitempty"`
	// ClockJumps are the match partitions whose event-time clock moved by
	// more than the retention at once, the latest first.
	ClockJumps []ClockJump `json:"clock_jumps,omitempty"`
}

// TradeCounts are the trades by status now, summed over the instances'
// match partitions (ste_trades, ste_trades_matched_today): what the
// utility's users count, the same figures as ste demo's summary.
type TradeCounts struct {
	Matched      float64 `json:"matched"`
	Mismatched   float64 `json:"mismatched"`
	Incomplete   float64 `json:"incomplete"`
	Expired      float64 `json:"expired"`
	MatchedToday float64 `json:"matched_today"`
	// Held is the trades the tables hold (matched, mismatched and
	// incomplete); Open those not matched yet.
	Held float64 `json:"held"`
	Open float64 `json:"open"`
	// Share is matched over all four, in percent (0 when there are none).
	Share float64 `json:"share_matched"`
}

func tradeCounts(s *scrape) TradeCounts {
	c := TradeCounts{Matched: s.trades["matched"], Mismatched: s.trades["mismatched"],
		Incomplete: s.trades["incomplete"], Expired: s.trades["expired"], MatchedToday: s.today}
	c.Held, c.Open = c.Matched+c.Mismatched+c.Incomplete, c.Mismatched+c.Incomplete
	if all := c.Matched + c.Mismatched + c.Incomplete + c.Expired; all > 0 {
		c.Share = 100 * c.Matched / all
	}
	return c
}

// LifecycleCounts are the held trades by where they stand after the match
// (contract version 3, messages.md §5a: their last STATUS's value), summed
// over the instances' match partitions (ste_trades_lifecycle). Locked is
// Affirmed + ChangePending + CancelPending (a CLS stands for each);
// NotAffirmed the matched trades neither locked nor rejected.
type LifecycleCounts struct {
	Affirmed       float64 `json:"affirmed"`
	AffirmRejected float64 `json:"affirm_rejected"`
	ChangePending  float64 `json:"change_pending"`
	CancelPending  float64 `json:"cancel_pending"`
	Cancelled      float64 `json:"cancelled"`
	Locked         float64 `json:"locked"`
	NotAffirmed    float64 `json:"matched_not_affirmed"`
}

func lifecycleCounts(s *scrape, t TradeCounts) LifecycleCounts {
	l := LifecycleCounts{Affirmed: s.lifecycle["affirmed"], AffirmRejected: s.lifecycle["affirm_rejected"],
		ChangePending: s.lifecycle["change_pending"], CancelPending: s.lifecycle["cancel_pending"], Cancelled: s.lifecycle["cancelled"]}
	l.Locked = l.Affirmed + l.ChangePending + l.CancelPending
	l.NotAffirmed = max(0, t.Matched-l.Locked-l.AffirmRejected)
	return l
}

// CLSCounts are the three counts of CLS the overview shows, one explained
// by the others: Sent (ste_outputs_total, re-sends included) − Resent =
// Distinct (analytics, by MsgId); Distinct − Corrections = Standing (the
// matched trades). Unreconciled says why they do not add up, when not.
type CLSCounts struct {
	Sent, Resent, Distinct, Corrections, Standing float64
	Unreconciled                                  string `json:",omitempty"`
}

func clsCounts(sent float64, a *report.CountsResult, t TradeCounts) *CLSCounts {
	if a == nil {
		return nil
	}
	c := &CLSCounts{Sent: sent, Distinct: float64(a.CLS), Standing: t.Matched}
	c.Resent, c.Corrections = c.Sent-c.Distinct, c.Distinct-c.Standing
	switch {
	case c.Resent < 0:
		c.Unreconciled = "fewer sent than analytics holds: an instance restarted since (its counters start again) or more than one namespace's instances"
	case c.Corrections < 0:
		c.Unreconciled = "fewer CLS in analytics than matched trades: ingest is behind"
	}
	return c
}

// StageView is one stage, or the network end to end.
type StageView struct {
	Name           string  `json:"name"`
	Queue          int64   `json:"queue"`
	ArrivalRate    float64 `json:"arrival_rate"`    // records/s, last sample
	CompletionRate float64 `json:"completion_rate"` // records/s, last sample
	// Quantiles in seconds (nil: nothing observed); QuantilesOver says of
	// what: the last 10 s, or since the instances started when idle.
	ProcessingP50 *float64 `json:"processing_p50,omitempty"`
	ProcessingP99 *float64 `json:"processing_p99,omitempty"`
	CriticalP50   *float64 `json:"critical_p50,omitempty"`
	CriticalP99   *float64 `json:"critical_p99,omitempty"`
	QuantilesOver string   `json:"quantiles_over"`
	// Laws are the operational laws over the last 30 samples.
	Utilisation float64 `json:"utilisation"`
	Throughput  float64 `json:"throughput"`
	RecordsIn   float64 `json:"records_in"`
	Instances   int     `json:"instances"`
	Ready       int     `json:"ready"`
	// Sparklines: one point per sample, oldest first.
	QueueHistory      []float64 `json:"queue_history"`
	CompletionHistory []float64 `json:"completion_history"`
}

// InstanceView is one instance as the registry and its endpoints say.
type InstanceView struct {
	registry.Entry
	Assigned map[string][]int32 `json:"assigned,omitempty"`
	Err      string             `json:"error,omitempty"`
}

// Count is a labelled number.
type Count struct {
	Key string  `json:"key"`
	N   float64 `json:"n"`
}

func sortedCounts(m map[string]float64) ([]Count, float64) {
	out := []Count{}
	total := 0.0
	for k, v := range m {
		out = append(out, Count{k, v})
		total += v
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].N != out[j].N {
			return out[i].N > out[j].N
		}
		return out[i].Key < out[j].Key
	})
	return out, total
}

// overview builds the picture from the latest samples.
func (c *collector) overview() Overview {
	c.mu.RLock()
	defer c.mu.RUnlock()
	o := Overview{Namespace: c.ns, At: c.at, Analytics: c.counts, AnalyticsAt: c.countsAt, AnalyticsErr: c.countsErr}
	switch {
	case c.registryErr != "":
		o.KafkaErr = c.registryErr
	case c.queueErr != "":
		o.KafkaErr = c.queueErr
	}
	var now, then *scrape
	if n := len(c.totals); n > 0 {
		now = c.totals[n-1].s
		for i := n - 1; i >= 0; i-- {
			if c.totals[n-1].at.Sub(c.totals[i].at) >= quantileWindow {
				then = c.totals[i].s
				break
			}
		}
	}
	if now == nil {
		now = newScrape()
	}
	o.OpenTrades = now.openTrades
	o.Trades = tradeCounts(now)
	o.Lifecycle = lifecycleCounts(now, o.Trades)
	o.Rejections, o.Rejected = sortedCounts(now.rejected)
	o.Outputs, _ = sortedCounts(now.outputs)
	o.CLS = clsCounts(now.outputs["CLS"], c.counts, o.Trades)
	for _, j := range now.jumps {
		if j.Count > 0 {
			o.ClockJumps = append(o.ClockJumps, j)
		}
	}
	sort.Slice(o.ClockJumps, func(i, j int) bool {
		a, b := o.ClockJumps[i], o.ClockJumps[j]
		return a.At.After(b.At) || a.At.Equal(b.At) && a.Partition < b.Partition
	})

	for _, st := range monitor.Stages(c.ns) {
		v := StageView{Name: st.Name}
		ss := c.samples[st.Name]
		if n := len(ss); n > 0 {
			last := ss[n-1]
			v.Queue = last.Queue
			if last.Interval > 0 {
				v.ArrivalRate, v.CompletionRate = float64(last.Arrivals)/last.Interval, float64(last.Completions)/last.Interval
			}
			laws := oplaw.Compute(st.Name, ss[max(0, n-lawsWindow):])
			v.Utilisation, v.Throughput = laws.U, laws.X
			for _, s := range ss {
				v.QueueHistory = append(v.QueueHistory, float64(s.Queue))
				rate := 0.0
				if s.Interval > 0 {
					rate = float64(s.Completions) / s.Interval
				}
				v.CompletionHistory = append(v.CompletionHistory, rate)
			}
		}
		// The network's time in the system is the match stage's critical
		// time: from the inbound record to the end of the journey.
		hs := st.Name
		if st.Group == "" {
			hs = topology.StageMatch.String()
			v.RecordsIn = now.in[topology.StageValidate.String()]
		} else {
			v.RecordsIn = now.in[st.Name]
		}
		v.QuantilesOver = "the last 10 s"
		proc, crit := now.processing[hs].minus(then.processingOf(hs)), now.critical[hs].minus(then.criticalOf(hs))
		if proc == nil || proc.count == 0 {
			proc, crit, v.QuantilesOver = now.processing[hs], now.critical[hs], "the time since the instances started"
		}
		if st.Group != "" {
			v.ProcessingP50, v.ProcessingP99 = quantile(proc, 0.5), quantile(proc, 0.99)
		}
		v.CriticalP50, v.CriticalP99 = quantile(crit, 0.5), quantile(crit, 0.99)
		for _, e := range c.entries {
			if st.Group == "" || slices.Contains(e.Groups, st.Name) {
				v.Instances++
				if e.Ready && !e.Stale {
					v.Ready++
				}
			}
		}
		o.Stages = append(o.Stages, v)
	}
	for _, e := range c.entries {
		iv := InstanceView{Entry: e}
		if r, ok := c.scraped[e.ID]; ok {
			iv.Err = r.err
			if r.status != nil {
				iv.Assigned = r.status.Assigned
			}
		}
		o.Instances = append(o.Instances, iv)
	}
	return o
}

func (s *scrape) processingOf(stage string) *hist {
	if s == nil {
		return nil
	}
	return s.processing[stage]
}

func (s *scrape) criticalOf(stage string) *hist {
	if s == nil {
		return nil
	}
	return s.critical[stage]
}

func quantile(h *hist, q float64) *float64 {
	v, ok := h.quantile(q)
	if !ok {
		return nil
	}
	return &v
}

// analyticsConn opens the analytics store on first use, and again after a
// failure (at most every 30 s): a console started before ClickHouse is up
// shows analytics once it is.
type analyticsConn struct {
	open func(context.Context) (*store.Store, error)

	mu      sync.Mutex
	st      *store.Store
	err     error
	triedAt time.Time
}

func (a *analyticsConn) get(ctx context.Context) (*store.Store, error) {
	if a == nil || a.open == nil {
		return nil, errNoAnalytics
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.st != nil {
		return a.st, nil
	}
	if a.err != nil && time.Since(a.triedAt) < 30*time.Second {
		return nil, a.err
	}
	a.triedAt = time.Now()
	a.st, a.err = a.open(ctx)
	if a.err != nil {
		a.err = fmt.Errorf("analytics store: %w", a.err)
	}
	return a.st, a.err
}

func (a *analyticsConn) close() {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.st != nil {
		a.st.Close()
	}
}
