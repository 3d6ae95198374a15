// Package plotting is how STE draws with gonum/plot, for the analytics
// charts (analytics/charts) and the benchmark figures (measure/plots)
// alike: a plot with a grid and counts on the Y axis, series in a fixed
// order of colours and dashes, the legend in a column beside the data area
// (legend.go), and saving as PNG or SVG by the file's extension.
package plotting

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// New is a plot with a title, axis labels, a grid, and the Y axis
// labelled in counts (gonum's default prints 25000.00).
func New(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Y.Tick.Marker = CountTicks{}
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	return p
}

// CountTicks labels the default ticks as whole counts: 250k, 1.5M.
type CountTicks struct{}

func (CountTicks) Ticks(min, max float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = Count(ts[i].Value)
		}
	}
	return ts
}

// Count is v as a count: 250k, 1.5M.
func Count(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', -1, 64) + "M"
	case a >= 1e4:
		return strconv.FormatFloat(v/1e3, 'f', -1, 64) + "k"
	default:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
}

// Line adds one series named name with the i-th colour and dash pattern,
// and its points marked when points is set.
func Line(p *plot.Plot, i int, name string, xy plotter.XYs, points bool) error {
	l, err := plotter.NewLine(xy)
	if err != nil {
		return err
	}
	l.Color = plotutil.Color(i)
	l.Dashes = plotutil.Dashes(i / 7)
	l.Width = vg.Points(1.5)
	p.Add(l)
	p.Legend.Add(name, l)
	if points {
		s, err := plotter.NewScatter(xy)
		if err != nil {
			return err
		}
		s.Color = l.Color
		s.Shape = draw.CircleGlyph{}
		s.Radius = vg.Points(2.5)
		p.Add(s)
	}
	return nil
}

// Format is the image format of file by its extension: png or svg.
func Format(file string) (string, error) {
	ext := strings.ToLower(filepath.Ext(file))
	if ext != ".png" && ext != ".svg" {
		return "", fmt.Errorf("plot file %q: use .png or .svg", file)
	}
	return ext[1:], nil
}

// Save draws p, w by h, into file, in the format its extension says, with
// the legend beside the data area.
func Save(p *plot.Plot, w, h vg.Length, file string) error {
	format, err := Format(file)
	if err != nil {
		return err
	}
	return saveOutside(p, w, h, file, format)
}
