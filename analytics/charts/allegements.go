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

// maxAllegementBars is how many participant-and-market rows the chart
// draws: the report's first, the latest answerers.
const maxAllegementBars = 15

// allegements draws, for the latest answerers (the report's order), their
// allegements answered before the cutoff, answered after it, and still
// owed, side by side.
func allegements(r *report.AllegementsResult) (*plot.Plot, error) {
	if len(r.Rows) == 0 {
		return nil, nothing("no allegement in this range")
	}
	rows := r.Rows[:min(len(r.Rows), maxAllegementBars)]
	p := plotting.New(fmt.Sprintf("STE allegements, latest answerers — %s (%d alleged, %d late)", r.Namespace, r.Total.Alleged, r.Total.Late),
		"", "allegements")
	names := make([]string, len(rows))
	for i, x := range rows {
		names[i] = x.Participant + " " + x.Market
	}
	series := []struct {
		name  string
		color color.Color
		of    func(x report.AllegementsRow) float64
	}{
		{"answered before the cutoff", plotting.Good, func(x report.AllegementsRow) float64 { return float64(x.Answered - x.AnsweredLate) }},
		{"answered after the cutoff", plotting.Late, func(x report.AllegementsRow) float64 { return float64(x.AnsweredLate) }},
		{"outstanding", plotting.Bad, func(x report.AllegementsRow) float64 { return float64(x.Outstanding) }},
	}
	w := vg.Points(12)
	p.Legend = plot.NewLegend()
	for i, s := range series {
		vals := make(plotter.Values, len(rows))
		for j, x := range rows {
			vals[j] = s.of(x)
		}
		b, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return nil, err
		}
		b.Color = s.color
		b.LineStyle.Width = 0
		b.Offset = vg.Length(i-1) * w
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
