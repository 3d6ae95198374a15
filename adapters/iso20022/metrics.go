package iso20022

import (
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the instance's own (Options.MetricsAddr, scraped by
// Prometheus): no label names a participant, as the gateway's and ste
// fixgw's.
type metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	documents *prometheus.CounterVec
	publish   prometheus.Histogram
	published prometheus.Counter
	outputs   *prometheus.CounterVec
	ready     prometheus.Gauge
}

// msgDefs label documents by message definition; any other is "other".
var msgDefs = map[string]bool{"sese.023": true, "sese.020": true, "sese.024": true, "sese.027": true, "sese.028": true, "sese.029": true}

func defLabel(d string) string {
	if len(d) >= 8 && msgDefs[d[:8]] {
		return d[:8]
	}
	return "other"
}

func newMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ste_iso20022_requests_total",
		Help: "Requests answered, by route (messages, outputs, health, other) and status code."}, []string{"route", "code"})
	m.documents = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ste_iso20022_documents_total",
		Help: "Documents posted that passed authentication and parsing, by message definition and outcome (accepted: 202; rejected: the profile's 422)."},
		[]string{"msg_def", "outcome"})
	m.publish = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "ste_iso20022_publish_seconds",
		Help:    "Time from a translated document's publication to the brokers' acknowledgement of every record (the ack point before the 202).",
		Buckets: []float64{.0005, .001, .002, .005, .01, .02, .05, .1, .2, .5, 1, 2, 5, 10}})
	m.published = prometheus.NewCounter(prometheus.CounterOpts{Name: "ste_iso20022_records_published_total",
		Help: "STE records (SET, SET CANCEL) published to <ns>.inbound."})
	m.outputs = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "ste_iso20022_outputs_total",
		Help: "ISO 20022 documents written to <ns>.iso20022.outbound from STE's outputs, by message definition."}, []string{"msg_def"})
	m.ready = prometheus.NewGauge(prometheus.GaugeOpts{Name: "ste_iso20022_ready",
		Help: "1 once reference data and the journal are read (GET /v1/health answers 200)."})
	m.reg.MustRegister(m.requests, m.documents, m.publish, m.published, m.outputs, m.ready,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, d := range []string{"sese.023", "sese.020"} {
		for _, o := range []string{"accepted", "rejected"} {
			m.documents.WithLabelValues(d, o)
		}
	}
	for _, d := range []string{"sese.024", "sese.027", "sese.028", "sese.029"} {
		m.outputs.WithLabelValues(d)
	}
	return m
}

func (m *metrics) handler() http.Handler { return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}) }

// statusWriter remembers the status an answer was written with.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Flush lets a long poll's answer through (the outputs route flushes).
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (m *metrics) answered(route string, code int) {
	if code == 0 {
		code = http.StatusOK
	}
	m.requests.WithLabelValues(route, strconv.Itoa(code)).Inc()
}
