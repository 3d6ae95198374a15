package plotting

import (
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
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
