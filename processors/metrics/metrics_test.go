package metrics

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topology"
)

// The series written for every record are kept once looked up: what is
// counted through them is what the registry reports, per label.
func TestMetricsCountPerLabel(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := New(reg)
	start := time.Now()
	for range 3 {
		m.ObserveWork(topology.StageMatch, time.Since(start), start.UnixMicro())
	}
	m.ObserveWork(topology.StageValidate, time.Since(start), 0)
	m.CountOut(topology.StageMatch)
	m.CountOutputs([]schemas.Output{{Type: schemas.ACK}, {Type: schemas.CLS}, {Type: schemas.ACK}})
	m.CountAccepted(false)
	m.CountAccepted(true)
	m.CountAccepted(true)
	for _, c := range []struct {
		got  float64
		want float64
		what string
	}{
		{value(t, m.In.WithLabelValues("match")), 3, "in{match}"},
		{value(t, m.In.WithLabelValues("validate")), 1, "in{validate}"},
		{value(t, m.StageOut.WithLabelValues("match")), 1, "out{match}"},
		{value(t, m.Out.WithLabelValues("ACK")), 2, "outputs{ACK}"},
		{value(t, m.Out.WithLabelValues("CLS")), 1, "outputs{CLS}"},
		{value(t, m.Accepted.WithLabelValues("new")), 1, "matched{new}"},
		{value(t, m.Accepted.WithLabelValues("duplicate")), 2, "matched{duplicate}"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	samples := func(name string) (n uint64) {
		fams, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fams {
			if f.GetName() == name {
				for _, m := range f.GetMetric() {
					n += m.GetHistogram().GetSampleCount()
				}
			}
		}
		return n
	}
	if n := samples("ste_stage_critical_seconds"); n != 3 {
		t.Errorf("critical times observed: %d, want 3 (validate's record had no inbound timestamp)", n)
	}
	if n := samples("ste_stage_processing_seconds"); n != 4 {
		t.Errorf("processing times observed: %d, want 4", n)
	}
}

func value(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// TestObserveWork: a validate record's processing time is the work given
// (its share of a batch), not the time since it was queued; its critical
// time runs to now, and it counts in.
func TestObserveWork(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := New(reg)
	inbound := time.Now().Add(-2 * time.Second).UnixMicro()
	m.ObserveWork(topology.StageValidate, 300*time.Microsecond, inbound)
	var d dto.Metric
	if err := m.Processing.WithLabelValues("validate").(prometheus.Metric).Write(&d); err != nil {
		t.Fatal(err)
	}
	if got := d.GetHistogram().GetSampleSum(); got < 299e-6 || got > 301e-6 {
		t.Errorf("processing observed %v s, want the 300 µs of work", got)
	}
	if err := m.Critical.WithLabelValues("validate").(prometheus.Metric).Write(&d); err != nil {
		t.Fatal(err)
	}
	if got := d.GetHistogram().GetSampleSum(); got < 2 {
		t.Errorf("critical observed %v s, want the 2 s since the inbound record", got)
	}
	if got := value(t, m.In.WithLabelValues("validate")); got != 1 {
		t.Errorf("in{validate} = %v", got)
	}
}
