package instance

import (
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// registerInstanceMetrics exports what /readyz and /status say, for
// Prometheus: readiness (alerts on an instance that stays not ready) and
// the instance's identity, groups and version as labels of a constant 1.
func (r *runtime) registerInstanceMetrics() {
	var groups []string
	for _, st := range r.o.Stages {
		groups = append(groups, st.String())
	}
	r.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "ste_instance_ready",
			Help: "1 once the instance has read reference data and its groups run, else 0 (as /readyz)."},
			func() float64 {
				if r.ready.Load() {
					return 1
				}
				return 0
			}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "ste_instance_info",
			Help:        "The instance: its id, processor groups and version (always 1).",
			ConstLabels: prometheus.Labels{"instance_id": r.id.ID, "groups": strings.Join(groups, ","), "version": Version()}},
			func() float64 { return 1 }),
	)
	r.stalledGauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "ste_stalled_partitions",
		Help: "Partitions this instance owns that are behind and made no progress for the stall limit (--stall-after)."}, []string{"stage"})
	r.upGauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "ste_group_up",
		Help: "1 while a processor group of this instance runs, 0 while it starts or restarts after a failure."}, []string{"stage"})
	r.reg.MustRegister(r.stalledGauge, r.upGauge)
	for _, st := range r.o.Stages {
		r.stalledGauge.WithLabelValues(st.String()).Set(0)
		r.upGauge.WithLabelValues(st.String()).Set(0)
	}
}
