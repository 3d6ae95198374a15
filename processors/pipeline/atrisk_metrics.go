package pipeline

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// riskCollector reports ste_trades_at_risk and ste_trades_past_cutoff at
// each scrape from the at-risk indexes and the wall clock of that moment, so
// a trade moves from one to the other when its cutoff passes, not at the next
// sample.
type riskCollector struct {
	src          atomic.Pointer[stages]
	atRisk, past *prometheus.Desc
}

func newRiskCollector() *riskCollector {
	return &riskCollector{
		atRisk: prometheus.NewDesc("ste_trades_at_risk",
			"Unmatched trades of this instance's match partitions whose market cutoff is within the at-risk lead (default 2h), by market ('-': no NOE in force or a market markets.csv does not list).",
			[]string{"market"}, nil),
		past: prometheus.NewDesc("ste_trades_past_cutoff",
			"Unmatched trades of this instance's match partitions whose market cutoff has passed, by market.",
			[]string{"market"}, nil),
	}
}

func (c *riskCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.atRisk; ch <- c.past }

func (c *riskCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.src.Load()
	if s == nil {
		return
	}
	atRisk, past := s.riskCounts()
	for m, n := range atRisk {
		ch <- prometheus.MustNewConstMetric(c.atRisk, prometheus.GaugeValue, float64(n), m)
	}
	for m, n := range past {
		ch <- prometheus.MustNewConstMetric(c.past, prometheus.GaugeValue, float64(n), m)
	}
}

// riskFrom makes the metrics report s's trades (the latest stages started).
func (m *Metrics) riskFrom(s *stages) {
	if m != nil && m.Risk != nil {
		m.Risk.src.Store(s)
	}
	if m != nil && m.Status != nil {
		m.Status.src.Store(s)
	}
}
