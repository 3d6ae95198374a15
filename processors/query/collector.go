package query

import (
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ste-utility/ste/processors/query/internal/index"
)

// Collector reports, at each scrape, what the match partitions' indexes
// hold: ste_trades_at_risk and ste_trades_past_cutoff from the at-risk
// indexes and the wall clock of that moment (so a trade moves from one to
// the other when its cutoff passes, not at the next sample), ste_trades by
// status, ste_trades_lifecycle and ste_trades_matched_today from the status
// tallies.
type Collector struct {
	src                                    atomic.Pointer[Tables]
	atRisk, past, trades, today, lifecycle *prometheus.Desc
}

// NewCollector makes the collector; it reports nothing until From.
func NewCollector() *Collector {
	return &Collector{
		atRisk: prometheus.NewDesc("ste_trades_at_risk",
			"Unmatched trades of this instance's match partitions whose market cutoff is within the at-risk lead (default 2h), by market ('-': no NOE in force or a market markets.csv does not list).",
			[]string{"market"}, nil),
		past: prometheus.NewDesc("ste_trades_past_cutoff",
			"Unmatched trades of this instance's match partitions whose market cutoff has passed, by market.",
			[]string{"market"}, nil),
		trades: prometheus.NewDesc("ste_trades",
			"Trades held by this instance's match partitions, by status: matched (a CLS stands), mismatched, incomplete (waiting or cancelled), expired (purged by retention, tombstone still held).",
			[]string{"status"}, nil),
		today: prometheus.NewDesc("ste_trades_matched_today",
			"Matched trades of this instance's match partitions whose newest message was created today (UTC).", nil, nil),
		lifecycle: prometheus.NewDesc("ste_trades_lifecycle",
			"Trades held by this instance's match partitions by where they stand after the match (contract version 3: their last STATUS's value): affirmed (locked on an agreement), affirm_rejected, change_pending (locked, a change held), cancel_pending (locked, a cancellation request unanswered), cancelled (by both principals).",
			[]string{"lifecycle"}, nil),
	}
}

// From makes the collector report t's trades (the latest pipeline started).
func (c *Collector) From(t *Tables) { c.src.Store(t) }

func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.atRisk
	ch <- c.past
	ch <- c.trades
	ch <- c.today
	ch <- c.lifecycle
}

func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	t := c.src.Load()
	if t == nil {
		return
	}
	if cfg := t.cfg.Load(); cfg != nil {
		atRisk, past := t.riskCounts(cfg)
		for m, n := range atRisk {
			ch <- prometheus.MustNewConstMetric(c.atRisk, prometheus.GaugeValue, float64(n), m)
		}
		for m, n := range past {
			ch <- prometheus.MustNewConstMetric(c.past, prometheus.GaugeValue, float64(n), m)
		}
	}
	var counts [index.NStatus]int
	var lifecycle [index.NLifecycle]int
	today := 0
	for _, x := range t.all() {
		c, l, d := x.idx.Tally(time.Now().UnixNano() / int64(24*time.Hour))
		for i := range c {
			counts[i] += c[i]
		}
		for i := range l {
			lifecycle[i] += l[i]
		}
		today += d
	}
	for i, n := range counts {
		ch <- prometheus.MustNewConstMetric(c.trades, prometheus.GaugeValue, float64(n), index.StatusNames[i])
	}
	ch <- prometheus.MustNewConstMetric(c.today, prometheus.GaugeValue, float64(today))
	for i, n := range lifecycle {
		if index.LifecycleNames[i] != "" { // no lifecycle: not reported
			ch <- prometheus.MustNewConstMetric(c.lifecycle, prometheus.GaugeValue, float64(n), index.LifecycleNames[i])
		}
	}
}
