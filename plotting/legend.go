package plotting

import (
	"io"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The legend goes in a space of its own: gonum draws it inside the data
// area, where it covers the lines it names (the console's history charts
// showed that). A narrow legend is a column to the right of the plot
// area; one wider than a third of the chart is a block under it, so that
// neither the plot is squeezed nor its names cut (issue 51: ste plot
// degradation's long reference name halved the x-axis and was still cut).
// Charts without entries keep the whole area. Every chart keeps a margin
// inside its canvas, so that nothing touches the edge.

// legendGap separates the plot area from the legend; margin is kept free
// around the whole chart.
const (
	legendGap = 6 * vg.Millimeter
	margin    = 2 * vg.Millimeter
)

// maxBeside is the widest legend kept beside the plot, as a share of the
// chart's width.
const maxBeside = 0.34

// newCanvas is a canvas of format (png, svg) w by h: PNG at 144 dpi (crisp
// on a high-density screen), SVG with its fonts embedded, so that a
// browser or viewer lays text out with the fonts gonum measured (without
// them it substituted its own, wider, and cut the legend off).
func newCanvas(w, h vg.Length, format string) (vg.CanvasWriterTo, error) {
	switch format {
	case "svg":
		return vgsvg.NewWith(vgsvg.UseWH(w, h), vgsvg.EmbedFonts(true)), nil
	case "png":
		return vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(144))}, nil
	}
	return draw.NewFormattedCanvas(w, h, format)
}

// Draw draws p on a new canvas of format (png, svg) with its legend
// beside the data area, or under it when it is wide.
func Draw(p *plot.Plot, w, h vg.Length, format string) (vg.CanvasWriterTo, error) {
	c, err := newCanvas(w, h, format)
	if err != nil {
		return nil, err
	}
	dc := draw.Crop(draw.New(c), margin, -margin, margin, -margin)
	l := p.Legend
	p.Legend = plot.NewLegend() // the plot draws no legend of its own
	defer func() { p.Legend = l }()
	if !hasEntries(l, dc) {
		p.Draw(dc)
		return c, nil
	}
	l.Top, l.Left = true, true
	l.XOffs, l.YOffs = 0, 0
	plotArea, legendArea, _ := layout(p, l, dc)
	p.Draw(plotArea)
	l.Draw(legendArea)
	return c, nil
}

// layout splits dc between the plot and its legend l: beside it when the
// legend is narrow, else under it.
func layout(p *plot.Plot, l plot.Legend, dc draw.Canvas) (plotArea, legendArea draw.Canvas, beside bool) {
	size := l.Rectangle(dc).Size()
	plotArea, legendArea = dc, dc
	if size.X <= vg.Length(maxBeside)*dc.Size().X {
		plotArea.Max.X -= size.X + legendGap
		legendArea.Min.X = plotArea.Max.X + legendGap
		// Level with the top of the data area, below the title.
		legendArea.Max.Y -= p.Title.TextStyle.Height(p.Title.Text) + p.Title.Padding
		return plotArea, legendArea, true
	}
	// Under the plot, from the left edge of its data area.
	plotArea.Min.Y += size.Y + legendGap
	legendArea.Max.Y = plotArea.Min.Y - legendGap
	legendArea.Min.X += p.Y.Label.TextStyle.Height(p.Y.Label.Text) + p.Y.Label.Padding
	return plotArea, legendArea, false
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
