// Package plots draws the benchmark experiments of docs/benchmarks.md from
// `ste bench --json` results, each beside the source benchmark's figure: the
// response-time curve against arrival rate (Little's law) with its knee,
// scaling with processor instances, throughput against stored volume, and
// queue length and critical time over the time of a load scenario.
package plots

import (
	"fmt"
	"image/color"
	"slices"

	"github.com/ste-utility/ste/measure/bench"
	"github.com/ste-utility/ste/plotting"
	"github.com/ste-utility/ste/topology"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// size of every figure.
const width, height = 18 * vg.Centimeter, 11 * vg.Centimeter

func save(p *plot.Plot, file string) error { return plotting.Save(p, width, height, file) }

// Littles plots response time against the arrival rate of paced runs: the
// monitor's R (Little's law, W/C) and the sink's p50 and p99, with the knee —
// the last rate before R more than doubles — marked.
func Littles(runs []bench.Result, file string) (knee float64, err error) {
	slices.SortFunc(runs, func(a, b bench.Result) int { return int(a.Rate - b.Rate) })
	var r, p50, p99 plotter.XYs
	for _, run := range runs {
		_, resp := run.Network()
		r = append(r, plotter.XY{X: run.Rate, Y: resp * 1e3})
		p50 = append(p50, plotter.XY{X: run.Rate, Y: run.LatencyMs["p50"]})
		p99 = append(p99, plotter.XY{X: run.Rate, Y: run.LatencyMs["p99"]})
	}
	for i := 1; i < len(r); i++ {
		if r[i].Y > 2*r[i-1].Y && r[i].Y > 50 {
			knee = r[i-1].X
			break
		}
	}
	p := plotting.New("Response time against arrival rate (Little's law)", "arrival rate, msg/s", "ms (log)")
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	for i, s := range []struct {
		name string
		pts  plotter.XYs
	}{{"R = W/C (monitor)", r}, {"CLS latency p50 (sink)", p50}, {"CLS latency p99 (sink)", p99}} {
		if err := plotting.Line(p, i, s.name, clampPositive(s.pts), true); err != nil {
			return 0, err
		}
	}
	if knee > 0 {
		k, err := plotter.NewLine(plotter.XYs{{X: knee, Y: 1}, {X: knee, Y: maxY(p99, r) * 1.2}})
		if err == nil {
			k.Dashes = []vg.Length{vg.Points(4), vg.Points(4)}
			k.Color = color.Gray{Y: 100}
			p.Add(k)
			p.Legend.Add(fmt.Sprintf("knee ≈ %.0f msg/s", knee), k)
		}
	}
	p.Legend.Top, p.Legend.Left = true, true
	return knee, save(p, file)
}

// Instances plots throughput against processor instances.
func Instances(runs []bench.Result, file string) error {
	slices.SortFunc(runs, func(a, b bench.Result) int { return a.ProcessorInstances - b.ProcessorInstances })
	var pts plotter.XYs
	for _, r := range runs {
		pts = append(pts, plotter.XY{X: float64(r.ProcessorInstances), Y: r.MsgsPerSec})
	}
	p := plotting.New("Throughput against processor instances (one 2-core machine)", "instances", "msg/s")
	if err := plotting.Line(p, 0, "STE", pts, true); err != nil {
		return err
	}
	p.Y.Min = 0
	return save(p, file)
}

// Degradation plots throughput in successive windows against the volume
// stored, with the source's 8-node figures for reference.
func Degradation(run bench.Result, file string) error {
	var pts plotter.XYs
	for _, w := range run.Windows {
		pts = append(pts, plotter.XY{X: float64(w.Stored) / 1e6, Y: w.MsgsPerSec})
	}
	p := plotting.New("Throughput as stored volume grows", "messages stored, millions", "msg/s")
	if err := plotting.Line(p, 0, "STE (this machine, 2 cores)", pts, false); err != nil {
		return err
	}
	src := plotter.XYs{{X: 0, Y: 7734}, {X: 7, Y: 5500}}
	if err := plotting.Line(p, 1, "source STE, 8 nodes + 4 DB servers (7,734 → ~5,500)", src, true); err != nil {
		return err
	}
	p.Y.Min = 0
	p.Legend.Top = false
	return save(p, file)
}

// Timeline plots queue length per stage and CLS latency over a run, into
// base-queues.ext and base-latency.ext.
func Timeline(run bench.Result, title, base, ext string) error {
	stages := append(topology.StageNames(), topology.Network)
	q := map[string]plotter.XYs{}
	var lat plotter.XYs
	for _, t := range run.Timeline {
		for _, s := range stages {
			if v, ok := t.Queues[s]; ok {
				q[s] = append(q[s], plotter.XY{X: t.T, Y: float64(v)})
			}
		}
		if t.CLS > 0 {
			lat = append(lat, plotter.XY{X: t.T, Y: t.P50Ms})
		}
	}
	p := plotting.New(title+": queue length", "seconds", "messages queued")
	for i, s := range stages {
		if len(q[s]) > 1 {
			if err := plotting.Line(p, i, s, q[s], false); err != nil {
				return err
			}
		}
	}
	p.Legend.Top, p.Legend.Left = true, true
	if err := save(p, base+"-queues"+ext); err != nil {
		return err
	}
	p2 := plotting.New(title+": critical time (send → CLS), p50 per second", "seconds", "ms")
	if len(lat) > 1 {
		if err := plotting.Line(p2, 1, "CLS latency p50", lat, false); err != nil {
			return err
		}
	}
	p2.Legend.Top = true
	return save(p2, base+"-latency"+ext)
}

func clampPositive(pts plotter.XYs) plotter.XYs {
	out := make(plotter.XYs, len(pts))
	for i, p := range pts {
		out[i] = p
		if out[i].Y < 0.1 {
			out[i].Y = 0.1
		}
	}
	return out
}

func maxY(sets ...plotter.XYs) float64 {
	m := 1.0
	for _, s := range sets {
		for _, p := range s {
			m = max(m, p.Y)
		}
	}
	return m
}
