package console

import (
	"io"
	"math"
	"sort"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape is what the console reads from one instance's /metrics: the
// series of processors/metrics/metrics.go it shows.
type scrape struct {
	in         map[string]float64 // ste_stage_records_in_total by stage
	processing map[string]*hist   // ste_stage_processing_seconds by stage
	critical   map[string]*hist   // ste_stage_critical_seconds by stage
	rejected   map[string]float64 // ste_rejected_total by reason
	outputs    map[string]float64 // ste_outputs_total by type
	openTrades float64            // ste_open_trades summed over partitions
	trades     map[string]float64 // ste_trades by status (the match tables' status index)
	lifecycle  map[string]float64 // ste_trades_lifecycle by lifecycle value
	today      float64            // ste_trades_matched_today
	// jumps are the match partitions' event-time jumps beyond the
	// retention (ste_event_time_jumps_total and the last one's size and
	// time), by partition.
	jumps map[string]ClockJump
}

// ClockJump is a match partition's event-time clock moving by more than
// the retention at once: Count times, the last by By at At.
type ClockJump struct {
	Partition string        `json:"partition"`
	Count     float64       `json:"count"`
	By        time.Duration `json:"last_jump_ns"`
	At        time.Time     `json:"last_jump_at"`
}

func newScrape() *scrape {
	return &scrape{in: map[string]float64{}, processing: map[string]*hist{}, critical: map[string]*hist{},
		rejected: map[string]float64{}, outputs: map[string]float64{}, trades: map[string]float64{}, lifecycle: map[string]float64{}, jumps: map[string]ClockJump{}}
}

// parseMetrics reads the Prometheus text format.
func parseMetrics(r io.Reader) (*scrape, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, err
	}
	s := newScrape()
	label := func(m *dto.Metric, name string) string {
		for _, l := range m.GetLabel() {
			if l.GetName() == name {
				return l.GetValue()
			}
		}
		return ""
	}
	each := func(name string, fn func(m *dto.Metric)) {
		if mf, ok := mfs[name]; ok {
			for _, m := range mf.GetMetric() {
				fn(m)
			}
		}
	}
	each("ste_stage_records_in_total", func(m *dto.Metric) { s.in[label(m, "stage")] += m.GetCounter().GetValue() })
	each("ste_rejected_total", func(m *dto.Metric) { s.rejected[label(m, "reason")] += m.GetCounter().GetValue() })
	each("ste_outputs_total", func(m *dto.Metric) { s.outputs[label(m, "type")] += m.GetCounter().GetValue() })
	each("ste_open_trades", func(m *dto.Metric) { s.openTrades += m.GetGauge().GetValue() })
	each("ste_trades", func(m *dto.Metric) { s.trades[label(m, "status")] += m.GetGauge().GetValue() })
	each("ste_trades_matched_today", func(m *dto.Metric) { s.today += m.GetGauge().GetValue() })
	each("ste_trades_lifecycle", func(m *dto.Metric) { s.lifecycle[label(m, "lifecycle")] += m.GetGauge().GetValue() })
	jump := func(m *dto.Metric) ClockJump {
		p := label(m, "partition")
		j := s.jumps[p]
		j.Partition = p
		return j
	}
	each("ste_event_time_jumps_total", func(m *dto.Metric) {
		j := jump(m)
		j.Count = m.GetCounter().GetValue()
		s.jumps[j.Partition] = j
	})
	each("ste_event_time_last_jump_seconds", func(m *dto.Metric) {
		j := jump(m)
		j.By = time.Duration(m.GetGauge().GetValue() * float64(time.Second))
		s.jumps[j.Partition] = j
	})
	each("ste_event_time_last_jump_timestamp_seconds", func(m *dto.Metric) {
		j := jump(m)
		j.At = time.UnixMilli(int64(m.GetGauge().GetValue() * 1e3)).UTC()
		s.jumps[j.Partition] = j
	})
	each("ste_stage_processing_seconds", func(m *dto.Metric) { s.processing[label(m, "stage")] = histOf(m.GetHistogram()) })
	each("ste_stage_critical_seconds", func(m *dto.Metric) { s.critical[label(m, "stage")] = histOf(m.GetHistogram()) })
	return s, nil
}

// add folds another instance's scrape into s (the network's totals).
func (s *scrape) add(o *scrape) {
	for k, v := range o.in {
		s.in[k] += v
	}
	for k, v := range o.rejected {
		s.rejected[k] += v
	}
	for k, v := range o.outputs {
		s.outputs[k] += v
	}
	s.openTrades += o.openTrades
	for k, v := range o.trades {
		s.trades[k] += v
	}
	for k, v := range o.lifecycle {
		s.lifecycle[k] += v
	}
	s.today += o.today
	for p, j := range o.jumps {
		// A partition that moved between instances: the latest report.
		if old, ok := s.jumps[p]; !ok || j.At.After(old.At) {
			s.jumps[p] = j
		}
	}
	for _, pair := range [][2]map[string]*hist{{s.processing, o.processing}, {s.critical, o.critical}} {
		for k, h := range pair[1] {
			pair[0][k] = pair[0][k].plus(h)
		}
	}
}

// hist is a cumulative histogram: counts of observations at or below each
// upper bound (the last is +Inf), their count and sum.
type hist struct {
	upper []float64
	cum   []float64
	count float64
	sum   float64
}

func histOf(h *dto.Histogram) *hist {
	out := &hist{count: float64(h.GetSampleCount()), sum: h.GetSampleSum()}
	for _, b := range h.GetBucket() {
		out.upper = append(out.upper, b.GetUpperBound())
		out.cum = append(out.cum, float64(b.GetCumulativeCount()))
	}
	if n := len(out.upper); n == 0 || !math.IsInf(out.upper[n-1], 1) {
		out.upper = append(out.upper, math.Inf(1))
		out.cum = append(out.cum, out.count)
	}
	return out
}

// plus adds two histograms of the same buckets (nil is empty).
func (h *hist) plus(o *hist) *hist {
	if h == nil {
		c := *o
		c.upper, c.cum = append([]float64(nil), o.upper...), append([]float64(nil), o.cum...)
		return &c
	}
	if len(h.upper) != len(o.upper) {
		return h // another build's buckets: not comparable
	}
	for i := range h.cum {
		h.cum[i] += o.cum[i]
	}
	h.count += o.count
	h.sum += o.sum
	return h
}

// minus is h - o: the observations made between two readings. It is nil
// when o is not an earlier reading of the same series (a restart reset it).
func (h *hist) minus(o *hist) *hist {
	if h == nil || o == nil || len(h.upper) != len(o.upper) || h.count < o.count {
		return nil
	}
	d := &hist{upper: h.upper, cum: make([]float64, len(h.cum)), count: h.count - o.count, sum: h.sum - o.sum}
	for i := range h.cum {
		if d.cum[i] = h.cum[i] - o.cum[i]; d.cum[i] < 0 {
			return nil
		}
	}
	return d
}

// quantile estimates the q-quantile as Prometheus's histogram_quantile
// does: linear within the bucket that holds it; in the +Inf bucket, the
// largest finite bound. It reports false for an empty histogram.
func (h *hist) quantile(q float64) (float64, bool) {
	if h == nil || h.count <= 0 {
		return 0, false
	}
	rank := q * h.count
	i := sort.Search(len(h.cum), func(i int) bool { return h.cum[i] >= rank })
	if i >= len(h.cum) {
		i = len(h.cum) - 1
	}
	if math.IsInf(h.upper[i], 1) {
		if i == 0 {
			return 0, false
		}
		return h.upper[i-1], true
	}
	lower, below := 0.0, 0.0
	if i > 0 {
		lower, below = h.upper[i-1], h.cum[i-1]
	}
	inBucket := h.cum[i] - below
	if inBucket <= 0 {
		return h.upper[i], true
	}
	return lower + (h.upper[i]-lower)*(rank-below)/inBucket, true
}
