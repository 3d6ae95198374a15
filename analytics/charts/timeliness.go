package charts

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ste-utility/ste/analytics/report"
	"github.com/ste-utility/ste/plotting"
)

// timeliness draws, per market, its trades matched in time, matched late
// and unmatched, and the trades affirmed by the cutoff (DTCC's metric:
// those of the matched ones whose investment manager's affirmation, or
// the utility's for an AUTO one, locked them in time), side by side.
func timeliness(r *report.TimelinessResult) (*plot.Plot, error) {
	if len(r.Markets) == 0 {
		return nil, nothing("no trades in this range")
	}
	p := plotting.New(fmt.Sprintf("STE timeliness by market — %s (%d trades, %.1f%% matched in time, %.1f%% affirmed by the cutoff)", r.Namespace,
		r.Total.Trades, 100*r.Total.InTimeShare, 100*r.Total.AffirmedShare), "", "trades")
	names := make([]string, len(r.Markets))
	series := []struct {
		name  string
		color color.Color
		of    func(m report.TimelinessMarket) float64
	}{
		{"matched in time", plotting.Good, func(m report.TimelinessMarket) float64 { return float64(m.InTime) }},
		{"matched late", plotting.Late, func(m report.TimelinessMarket) float64 { return float64(m.Matched - m.InTime) }},
		{"unmatched", plotting.Bad, func(m report.TimelinessMarket) float64 { return float64(m.Trades - m.Matched) }},
		{"affirmed by the cutoff", plotting.Affirmed, func(m report.TimelinessMarket) float64 { return float64(m.AffirmedInTime) }},
	}
	w := vg.Points(12)
	p.Legend = plot.NewLegend()
	for i, s := range series {
		vals := make(plotter.Values, len(r.Markets))
		for j, m := range r.Markets {
			vals[j], names[j] = s.of(m), m.Market
		}
		b, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return nil, err
		}
		b.Color = s.color
		b.LineStyle.Width = 0
		b.Offset = (vg.Length(i) - vg.Length(len(series)-1)/2) * w
		p.Add(b)
		p.Legend.Add(s.name, b)
	}
	p.Legend.Top = true
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = 0.5
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.LineStyle.Width = 0
	p.X.Min, p.X.Max = -0.6, float64(len(names))-0.4
	p.Y.Min = 0
	p.Y.Max *= 1.15
	return p, nil
}
