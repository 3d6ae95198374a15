// Package plotting is how STE draws with gonum/plot, for the analytics
// charts (analytics/charts) and the benchmark figures (measure/plots)
// alike: a plot with a grid and counts on the Y axis, series in a fixed
// order of colours and dashes, the legend in a column beside the data area
// (legend.go), and saving as PNG or SVG by the file's extension.
package plotting

import (
	"fmt"
	"image/color"
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
	p.Legend.Padding = vg.Points(2) // rows apart: long names touched
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
	return line(p, plotutil.Color(i), plotutil.Dashes(i/7), name, xy, points)
}

func line(p *plot.Plot, c color.Color, dashes []vg.Length, name string, xy plotter.XYs, points bool) error {
	l, err := plotter.NewLine(xy)
	if err != nil {
		return err
	}
	l.Color = c
	l.Dashes = dashes
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

// Stage colours: each stage of the pipeline always has the same colour in
// every chart, and no two look alike (issue 51: inbound and cls were two
// reds). Unknown names take the default sequence after them.
var stageColors = map[string]color.Color{
	"inbound":    color.RGBA{R: 0x33, G: 0x33, B: 0x33, A: 0xff}, // near black: what was sent
	"validate":   color.RGBA{R: 0xe6, G: 0x9f, B: 0x00, A: 0xff}, // orange
	"identity":   color.RGBA{R: 0x56, G: 0xb4, B: 0xe9, A: 0xff}, // sky blue
	"match":      color.RGBA{R: 0x00, G: 0x9e, B: 0x73, A: 0xff}, // green
	"network":    color.RGBA{R: 0x00, G: 0x72, B: 0xb2, A: 0xff}, // blue: end to end
	"cls":        color.RGBA{R: 0xcc, G: 0x79, B: 0xa7, A: 0xff}, // pink
	"exceptions": color.RGBA{R: 0xd5, G: 0x5e, B: 0x00, A: 0xff}, // vermilion
}

// StageColor is stage's colour in every chart; ok false for a name that
// is not a stage.
func StageColor(stage string) (color.Color, bool) {
	c, ok := stageColors[stage]
	return c, ok
}

// Outcome colours: good, late and bad, as people read them; Affirmed,
// for what the principals agreed (the lifecycle after the match), a blue
// apart from the three.
var (
	Good     = color.RGBA{R: 0x1a, G: 0x98, B: 0x50, A: 0xff}
	Late     = color.RGBA{R: 0xf0, G: 0xa2, B: 0x02, A: 0xff}
	Bad      = color.RGBA{R: 0xc8, G: 0x2a, B: 0x2a, A: 0xff}
	Affirmed = color.RGBA{R: 0x1f, G: 0x5f, B: 0xb4, A: 0xff}
)

// StageLine is Line in stage's colour (i picks the colour of a name that
// is not a stage).
func StageLine(p *plot.Plot, i int, stage, name string, xy plotter.XYs, points bool) error {
	c, ok := StageColor(stage)
	if !ok {
		return Line(p, i, name, xy, points)
	}
	return line(p, c, nil, name, xy, points)
}
