package console

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/ste-utility/ste/exceptions"
)

// selfMetrics are the console's own figures on its /metrics (metrics.go
// is what it reads from the instances): its requests, the requests it
// refused for want of a token, the changes made through it, and how
// current its picture of the namespace is. Served on the console's own
// listener under the same access rule as its pages (a token when tokens
// are on; loopback otherwise), so Prometheus scrapes it with a reader's
// token (docs/operations.md).
type selfMetrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	refusals prometheus.Counter
	changes  *prometheus.CounterVec
}

func newSelfMetrics(c *collector) *selfMetrics {
	m := &selfMetrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ste_console_requests_total",
		Help: "Requests answered, by route (the page's pattern) and status code."}, []string{"route", "code"})
	m.refusals = prometheus.NewCounter(prometheus.CounterOpts{Name: "ste_console_auth_refusals_total",
		Help: "Requests refused for want of a valid token (401)."})
	m.changes = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ste_console_exception_changes_total",
		Help: "Exceptions asked to be retried or archived through the console, by action and outcome (exceptions.Outcome*)."},
		[]string{"action", "outcome"})
	instances := prometheus.NewDesc("ste_console_instances",
		"Instances of the namespace the console reads, by state: answering its last read, or failing it.", []string{"state"}, nil)
	age := prometheus.NewDesc("ste_console_sample_age_seconds",
		"Seconds since the console last sampled the namespace (instances and queues).", nil, nil)
	m.reg.MustRegister(m.requests, m.refusals, m.changes, collectorFunc{descs: []*prometheus.Desc{instances, age},
		collect: func(ch chan<- prometheus.Metric) {
			ok, failing, at := c.instanceStates()
			ch <- prometheus.MustNewConstMetric(instances, prometheus.GaugeValue, float64(ok), "answering")
			ch <- prometheus.MustNewConstMetric(instances, prometheus.GaugeValue, float64(failing), "failing")
			if !at.IsZero() {
				ch <- prometheus.MustNewConstMetric(age, prometheus.GaugeValue, time.Since(at).Seconds())
			}
		}},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for a, o := range map[string]string{"retry": exceptions.OutcomeRetried, "archive": exceptions.OutcomeArchived} {
		m.changes.WithLabelValues(a, o)
	}
	return m
}

func (m *selfMetrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// count wraps the console's routes, counting each answer under the route
// pattern that served it (never the raw path: a trade key or an exception
// id per series would grow without bound).
func (m *selfMetrics) count(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, route := mux.Handler(r)
		if route == "" {
			route = "none"
		}
		sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		mux.ServeHTTP(sw, r)
		m.requests.WithLabelValues(route, strconv.Itoa(sw.code)).Inc()
	})
}

type statusWriter struct {
	http.ResponseWriter
	code  int
	wrote bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.code, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// collectorFunc is a prometheus.Collector computed at scrape time.
type collectorFunc struct {
	descs   []*prometheus.Desc
	collect func(chan<- prometheus.Metric)
}

func (c collectorFunc) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

func (c collectorFunc) Collect(ch chan<- prometheus.Metric) { c.collect(ch) }

// instanceStates counts the instances of the last sample by whether their
// read succeeded, and says when that sample was taken.
func (c *collector) instanceStates() (ok, failing int, at time.Time) {
	if c == nil {
		return 0, 0, time.Time{}
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, r := range c.scraped {
		if r.err == "" {
			ok++
		} else {
			failing++
		}
	}
	return ok, failing, c.at
}
