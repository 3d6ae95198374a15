package plotting

import (
	"io"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The legend goes in a column of its own to the right of the plot area:
// gonum draws it inside the data area, where it covers the lines it names
// (the console's history charts showed that). Charts without entries keep
// the whole width.

// legendGap separates the plot area from the legend column.
const legendGap = 6 * vg.Millimeter

// Draw draws p on a new canvas of format (png, svg) with its legend
// beside the data area.
func Draw(p *plot.Plot, w, h vg.Length, format string) (vg.CanvasWriterTo, error) {
	c, err := draw.NewFormattedCanvas(w, h, format)
	if err != nil {
		return nil, err
	}
	dc := draw.New(c)
	l := p.Legend
	p.Legend = plot.NewLegend() // the plot draws no legend of its own
	defer func() { p.Legend = l }()
	if !hasEntries(l, dc) {
		p.Draw(dc)
		return c, nil
	}
	l.Top, l.Left = true, true
	l.XOffs, l.YOffs = 0, 0
	lw := l.Rectangle(dc).Size().X
	lw = min(lw, dc.Size().X/2) // a long legend still leaves the plot half
	plotArea := dc
	plotArea.Max.X -= lw + legendGap
	p.Draw(plotArea)
	legendArea := dc
	legendArea.Min.X = plotArea.Max.X + legendGap
	// Level with the top of the data area, below the title.
	legendArea.Max.Y -= p.Title.TextStyle.Height(p.Title.Text) + p.Title.Padding
	l.Draw(legendArea)
	return c, nil
}

func hasEntries(l plot.Legend, dc draw.Canvas) bool {
	return l.Rectangle(dc).Size().Y > 0 && l.Rectangle(dc).Size().X > 0
}

// saveOutside is Plot.Save with the legend outside.
func saveOutside(p *plot.Plot, w, h vg.Length, file, format string) error {
	c, err := Draw(p, w, h, format)
	if err != nil {
		return err
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

var _ io.WriterTo = vg.CanvasWriterTo(nil)
