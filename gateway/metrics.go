package gateway

import (
	"encoding/base64"
	"math"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the gateway's own: no label names a participant (a BIC per
// series would grow with reference data and tell monitoring who trades).
type metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	refusals  *prometheus.CounterVec
	longPolls prometheus.Gauge
	submit    prometheus.Histogram
	submitted prometheus.Counter
	ready     prometheus.Gauge
	// bodiesWaiting: requests whose signature verified waiting for room
	// to read their body (Options.MaxBodyBytesInFlight).
	bodiesWaiting prometheus.Gauge
}

func newMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ste_gateway_requests_total",
		Help: "Requests answered, by route and status code."}, []string{"route", "code"})
	m.refusals = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ste_gateway_auth_refusals_total",
		Help: "Requests refused as unauthenticated (401), by reason (gateway.md §1)."}, []string{"reason"})
	m.longPolls = prometheus.NewGauge(prometheus.GaugeOpts{Name: "ste_gateway_long_polls",
		Help: "Output reads waiting for a first output now."})
	m.submit = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "ste_gateway_submit_seconds",
		Help:    "Time from a submit's arrival to its 202 (every message acknowledged by the brokers).",
		Buckets: []float64{.001, .002, .005, .01, .02, .05, .1, .2, .5, 1, 2, 5, 10}})
	m.submitted = prometheus.NewCounter(prometheus.CounterOpts{Name: "ste_gateway_messages_submitted_total",
		Help: "Messages published to <ns>.inbound through the gateway."})
	m.ready = prometheus.NewGauge(prometheus.GaugeOpts{Name: "ste_gateway_ready",
		Help: "1 once the participant reference data is read."})
	m.bodiesWaiting = prometheus.NewGauge(prometheus.GaugeOpts{Name: "ste_gateway_bodies_waiting",
		Help: "Requests waiting for room to read their body (bodies in flight are capped)."})
	m.reg.MustRegister(m.requests, m.refusals, m.longPolls, m.submit, m.submitted, m.ready, m.bodiesWaiting,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, r := range Reasons {
		m.refusals.WithLabelValues(r)
	}
	return m
}

func (m *metrics) handler() http.Handler { return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}) }

// limiter is a token bucket per participant, on this instance.
type limiter struct {
	rate  float64
	burst float64
	now   func() time.Time
	mu    sync.Mutex
	b     map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newLimiter(rate float64, burst int, now func() time.Time) *limiter {
	return &limiter{rate: rate, burst: float64(burst), now: now, b: map[string]*bucket{}}
}

// allow takes a token for bic; when none is left it says how many seconds
// to wait (for Retry-After, at least 1).
func (l *limiter) allow(bic string) (int, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b := l.b[bic]
	if b == nil {
		b = &bucket{tokens: l.burst, at: now}
		l.b[bic] = b
	}
	if now.After(b.at) { // a wall clock stepped back adds nothing, takes nothing
		b.tokens = math.Min(l.burst, b.tokens+now.Sub(b.at).Seconds()*l.rate)
		b.at = now
	}
	if b.tokens >= 1 {
		b.tokens--
		return 0, true
	}
	return max(1, int(math.Ceil((1-b.tokens)/l.rate))), false
}

func base64Std(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
