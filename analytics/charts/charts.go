// Package charts draws STE's analytics reports as PNG or SVG files with
// gonum/plot: throughput per stage over time, throughput against stored
// volume (degradation), queue lengths per stage, CLS latency quantiles over
// time, exceptions by reason, timeliness and affirmation by the market
// cutoff, and the latest answerers of allegements.
//
// Why a package of its own: plotting pulls in fonts and image encoders that
// the ingest and the reports do not need, and keeping it apart keeps those
// packages small and their tests fast.
package charts

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ste-utility/ste/analytics/report"
	"github.com/ste-utility/ste/plotting"
)

// Size of every chart.
const (
	Width  = 10 * vg.Inch
	Height = 5 * vg.Inch
)

// Plottable reports whether a report has a chart (the registry's
// report.Report.Chart; charts_test holds build to it).
func Plottable(name string) bool {
	r, ok := report.Lookup(name)
	return ok && r.Chart
}

// Save draws res into file; the extension (.png or .svg) picks the format.
func Save(res report.Result, file string) error {
	if _, err := plotting.Format(file); err != nil {
		return err
	}
	p, err := build(res)
	if err != nil {
		return err
	}
	if err := plotting.Save(p, Width, Height, file); err != nil {
		return fmt.Errorf("plot %s: %w", file, err)
	}
	return nil
}

// Render draws res in format "png" or "svg" to w (the console serves it),
// width by height inches (0: the size Save draws).
func Render(res report.Result, format string, width, height float64, w io.Writer) error {
	p, err := build(res)
	if err != nil {
		return err
	}
	wd, ht := Width, Height
	if width > 0 && height > 0 {
		wd, ht = vg.Length(width)*vg.Inch, vg.Length(height)*vg.Inch
	}
	wt, err := plotting.Draw(p, wd, ht, format)
	if err != nil {
		return err
	}
	_, err = wt.WriteTo(w)
	return err
}

// ErrNoData: the report has nothing to draw in its range.
var ErrNoData = errNoData

func build(res report.Result) (*plot.Plot, error) {
	switch r := res.(type) {
	case *report.ThroughputResult:
		return throughput(r)
	case *report.DegradationResult:
		return degradation(r)
	case *report.QueuesResult:
		return queues(r)
	case *report.LatencyResult:
		return latency(r)
	case *report.ExceptionsResult:
		return exceptions(r)
	case *report.TimelinessResult:
		return timeliness(r)
	case *report.AllegementsResult:
		return allegements(r)
	}
	return nil, fmt.Errorf("no chart for %T", res)
}

var errNoData = errors.New("nothing to plot: no data in this range")

// nothing is why a report has nothing to plot: an ErrNoData.
type nothing string

func (e nothing) Error() string { return "nothing to plot: " + string(e) }
func (e nothing) Unwrap() error { return errNoData }

// Check says whether res has a chart to draw: nil, or why not (an error
// wrapping ErrNoData when its range holds too little).
func Check(res report.Result) error {
	_, err := build(res)
	return err
}

func timeAxis(p *plot.Plot, from, to time.Time) {
	format := "15:04:05"
	switch span := to.Sub(from); {
	case span > 12*time.Hour:
		format = "01-02 15:04"
	case span < 10*time.Second:
		format = "15:04:05.0" // the ticks of a short run fall within one second
	}
	// gonum's default conversion drops the fraction of a second.
	p.X.Tick.Marker = plot.TimeTicks{Format: format, Time: func(t float64) time.Time {
		sec, frac := math.Modf(t)
		return time.Unix(int64(sec), int64(frac*1e9)).UTC()
	}}
	p.X.Label.Text = "time (UTC)"
}

// headroom leaves the top quarter free for the legend.
func headroom(p *plot.Plot) {
	p.Y.Min = 0
	if p.Y.Max > 0 {
		p.Y.Max *= 1.3
	} else {
		p.Y.Max = 1
	}
}

func unix(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

func throughput(r *report.ThroughputResult) (*plot.Plot, error) {
	if len(r.Points) == 0 {
		return nil, errNoData
	}
	p := plotting.New(fmt.Sprintf("STE throughput per stage — %s (by %g s)", r.Namespace, r.StepSeconds), "", "messages / s")
	step := time.Duration(r.StepSeconds * float64(time.Second))
	first, last := r.Points[0].Time, r.Points[len(r.Points)-1].Time
	for i, stage := range r.Stages {
		// Steps without a message of this stage are zeros, not gaps.
		byT := map[int64]float64{}
		for _, pt := range r.Points {
			if pt.Stage == stage {
				byT[pt.Time.Unix()] = pt.PerSec
			}
		}
		var xy plotter.XYs
		for t := first; !t.After(last); t = t.Add(step) {
			xy = append(xy, plotter.XY{X: unix(t), Y: byT[t.Unix()]})
		}
		if err := plotting.StageLine(p, i, stage, stage, xy, len(xy) < 40); err != nil {
			return nil, err
		}
	}
	timeAxis(p, first, last)
	headroom(p)
	return p, nil
}

func degradation(r *report.DegradationResult) (*plot.Plot, error) {
	if len(r.Windows) == 0 {
		return nil, errNoData
	}
	p := plotting.New(fmt.Sprintf("STE throughput as stored volume grows — %s (%g s windows)", r.Namespace, r.WindowSeconds),
		"stored messages (cumulative)", "messages / s in the window")
	var full, partial plotter.XYs
	for _, w := range r.Windows {
		pt := plotter.XY{X: float64(w.Cumulative), Y: w.PerSec}
		if w.Full {
			full = append(full, pt)
		} else {
			partial = append(partial, pt)
		}
	}
	if len(full) > 0 {
		if err := plotting.Line(p, 0, "full windows", full, true); err != nil {
			return nil, err
		}
		if r.FirstRate != 0 && r.SlopePerMillion != 0 { // a trend was found (enough full windows)
			// The least-squares trend through the full windows.
			var mx, my float64
			for _, q := range full {
				mx += q.X
				my += q.Y
			}
			mx, my = mx/float64(len(full)), my/float64(len(full))
			k := r.SlopePerMillion / 1e6
			trend := plotter.XYs{{X: full[0].X, Y: my + k*(full[0].X-mx)}, {X: full[len(full)-1].X, Y: my + k*(full[len(full)-1].X-mx)}}
			l, err := plotter.NewLine(trend)
			if err != nil {
				return nil, err
			}
			l.Color = color.RGBA{R: 120, G: 120, B: 120, A: 255}
			l.Dashes = []vg.Length{vg.Points(6), vg.Points(4)}
			p.Add(l)
			p.Legend.Add(fmt.Sprintf("trend %+.0f msgs/s per million", r.SlopePerMillion), l)
		}
	}
	if len(partial) > 0 {
		s, err := plotter.NewScatter(partial)
		if err != nil {
			return nil, err
		}
		s.Color = plotutil.Color(1)
		s.Shape = draw.RingGlyph{}
		s.Radius = vg.Points(3.5)
		p.Add(s)
		p.Legend.Add("partial windows (a run's start or end, beside an idle gap)", s)
	}
	headroom(p)
	p.X.Min = 0
	p.X.Max *= 1.03 // the last window's mark whole, inside the axes
	p.X.Tick.Marker = plotting.CountTicks{}
	return p, nil
}

func queues(r *report.QueuesResult) (*plot.Plot, error) {
	// A line needs two samples of a stage (a run shorter than the
	// monitor's interval has one each: nothing to draw, said as such).
	perStage := map[string]int{}
	lines := 0
	for _, s := range r.Series {
		if perStage[s.Stage]++; perStage[s.Stage] == 2 {
			lines++
		}
	}
	if lines == 0 {
		return nil, nothing("fewer than two monitor samples of any stage in this range (a run shorter than the sampling interval)")
	}
	p := plotting.New("STE queue length per stage — "+r.Namespace, "", "records in the stage (waiting or in service)")
	order := map[string]int{}
	for i, s := range r.Stages {
		order[s.Stage] = i
	}
	byStage := map[string]plotter.XYs{}
	for _, s := range r.Series {
		byStage[s.Stage] = append(byStage[s.Stage], plotter.XY{X: unix(s.At), Y: float64(s.Queue)})
	}
	for _, st := range r.Stages {
		xy := byStage[st.Stage]
		if len(xy) < 2 {
			continue
		}
		if err := plotting.StageLine(p, order[st.Stage], st.Stage, fmt.Sprintf("%s (U=%.2f, N=%.1f, R=%.0f ms)", st.Stage, st.U, st.N, 1000*st.R), xy, len(xy) < 40); err != nil {
			return nil, err
		}
	}
	timeAxis(p, r.Series[0].At, r.Series[len(r.Series)-1].At)
	headroom(p)
	return p, nil
}

func latency(r *report.LatencyResult) (*plot.Plot, error) {
	if len(r.Series) == 0 {
		return nil, nothing("no CLS latency measured in this range")
	}
	p := plotting.New(fmt.Sprintf("STE CLS latency — %s (%g s windows; overall p50 %.1f, p99 %.1f ms)", r.Namespace, r.Window, r.P50, r.P99),
		"", "ms from sending the completing message to its CLS")
	var p50, p90, p99, mx plotter.XYs
	for _, w := range r.Series {
		x := unix(w.Start)
		p50 = append(p50, plotter.XY{X: x, Y: w.P50})
		p90 = append(p90, plotter.XY{X: x, Y: w.P90})
		p99 = append(p99, plotter.XY{X: x, Y: w.P99})
		mx = append(mx, plotter.XY{X: x, Y: w.Max})
	}
	pts := len(p50) < 40
	for i, s := range []struct {
		name string
		xy   plotter.XYs
	}{{"p50", p50}, {"p90", p90}, {"p99", p99}, {"max", mx}} {
		if err := plotting.Line(p, i, s.name, s.xy, pts); err != nil {
			return nil, err
		}
	}
	timeAxis(p, r.Series[0].Start, r.Series[len(r.Series)-1].Start)
	headroom(p)
	return p, nil
}

func exceptions(r *report.ExceptionsResult) (*plot.Plot, error) {
	if len(r.Reasons) == 0 {
		return nil, nothing("no exceptions in this range")
	}
	p := plotting.New(fmt.Sprintf("STE exceptions by reason — %s (%d)", r.Namespace, r.Total), "", "rejected messages")
	vals := make(plotter.Values, len(r.Reasons))
	names := make([]string, len(r.Reasons))
	for i, x := range r.Reasons {
		vals[i], names[i] = float64(x.Count), x.Reason
	}
	b, err := plotter.NewBarChart(vals, vg.Points(28))
	if err != nil {
		return nil, err
	}
	b.Color = plotutil.Color(0)
	b.LineStyle.Width = 0
	p.Add(b)
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = 0.5
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.LineStyle.Width = 0 // rotated names would cross the tick marks
	p.Legend = plot.NewLegend()
	p.X.Min, p.X.Max = -0.6, float64(len(names))-0.4
	p.Y.Min = 0
	p.Y.Max *= 1.1
	return p, nil
}
