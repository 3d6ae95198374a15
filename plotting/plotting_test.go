package plotting

import (
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

func TestCountLabels(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {0.5, "0.5"}, {2500, "2500"}, {25000, "25k"}, {1.5e6, "1.5M"}, {-30000, "-30k"},
	} {
		if got := Count(c.v); got != c.want {
			t.Errorf("Count(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

// Save picks the format by the extension and refuses any other.
func TestSaveByExtension(t *testing.T) {
	p := New("t", "x", "y")
	if err := Line(p, 0, "s", plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: 2}}, true); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range []string{"a.png", "a.SVG"} {
		if err := Save(p, 4*vg.Inch, 3*vg.Inch, filepath.Join(dir, f)); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	if err := Save(p, 4*vg.Inch, 3*vg.Inch, filepath.Join(dir, "a.jpg")); err == nil || !strings.Contains(err.Error(), "use .png or .svg") {
		t.Fatalf("a .jpg: %v", err)
	}
}

// TestLegendFits (issue 51: clipped legends, a halved x-axis): a narrow
// legend stands beside the plot, a wide one under it with the whole width
// for the plot; either way it lies inside the chart, whole; and an SVG
// carries its fonts, so that a browser lays text out as it was measured.
func TestLegendFits(t *testing.T) {
	const w, h = 18 * vg.Centimeter, 11 * vg.Centimeter
	for _, c := range []struct {
		name   string
		beside bool
	}{
		{"validate", true},
		{"source STE, 8 nodes + 4 DB servers (7,734 → ~5,500), a name as long as the reference's", false},
	} {
		p := New("t", "x", "y")
		if err := Line(p, 0, c.name, plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: 2}}, false); err != nil {
			t.Fatal(err)
		}
		dc := draw.Crop(draw.New(vgimg.New(w, h)), margin, -margin, margin, -margin)
		plotArea, legendArea, beside := layout(p, p.Legend, dc)
		if beside != c.beside {
			t.Errorf("%q: beside %v, want %v", c.name, beside, c.beside)
		}
		size := p.Legend.Rectangle(dc).Size()
		if legendArea.Size().X < size.X-0.01 || legendArea.Size().Y < size.Y-0.01 || legendArea.Min.X < 0 || legendArea.Max.X > w || legendArea.Min.Y < 0 {
			t.Errorf("%q: legend %v does not fit its area %v", c.name, size, legendArea.Rectangle)
		}
		if !beside && plotArea.Size().X < dc.Size().X*0.95 {
			t.Errorf("%q: the plot keeps %v of %v with the legend under it", c.name, plotArea.Size().X, dc.Size().X)
		}
	}
	p := New("t", "x", "y")
	if err := Line(p, 0, "s", plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: 2}}, false); err != nil {
		t.Fatal(err)
	}
	c, err := Draw(p, w, h, "svg")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	c.WriteTo(&b)
	if !strings.Contains(b.String(), "@font-face") {
		t.Error("the SVG does not embed its fonts")
	}
}

// TestStageColours: every stage has its own colour, none like another's.
func TestStageColours(t *testing.T) {
	stages := []string{"inbound", "validate", "identity", "match", "network", "cls", "exceptions"}
	for i, a := range stages {
		ca, ok := StageColor(a)
		if !ok {
			t.Fatalf("%s has no colour", a)
		}
		for _, b := range stages[i+1:] {
			cb, _ := StageColor(b)
			r1, g1, b1, _ := ca.RGBA()
			r2, g2, b2, _ := cb.RGBA()
			d := func(x, y uint32) float64 { return (float64(x) - float64(y)) / 257 }
			if dist := d(r1, r2)*d(r1, r2) + d(g1, g2)*d(g1, g2) + d(b1, b2)*d(b1, b2); dist < 60*60 {
				t.Errorf("%s and %s look alike (distance %.0f)", a, b, dist)
			}
		}
	}
}
