package report

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ste-utility/ste/analytics/store"
)

// ThroughputSQL is the throughput report: messages per stage per step,
// from the per-second counts the materialized views keep. Stages: inbound
// (sent, by the inbound record's time), validate, identity, match (each
// stage's handling), network (journeys ended), cls and exceptions
// (records written).
const ThroughputSQL = `SELECT toStartOfInterval(sec, toIntervalSecond({step:UInt32})) AS t, stage, sum(n) AS n,
    min(sec) AS first_sec, max(sec) AS last_sec
FROM ste.throughput_1s
WHERE namespace = {ns:String}
  AND sec >= {since:DateTime64(6, 'UTC')} AND sec < {until:DateTime64(6, 'UTC')}
GROUP BY t, stage
ORDER BY t, stage`

// spanSQL finds the first and last second with data, and how many seconds
// have data.
const spanSQL = `SELECT min(sec), max(sec), uniqExact(sec)
FROM ste.throughput_1s
WHERE namespace = {ns:String} AND stage = 'network'
  AND sec >= {since:DateTime64(6, 'UTC')} AND sec < {until:DateTime64(6, 'UTC')}`

// ThroughputResult is messages per stage per step.
type ThroughputResult struct {
	Namespace   string            `json:"namespace"`
	StepSeconds float64           `json:"step_seconds"`
	Stages      []string          `json:"stages"`
	Points      []ThroughputPoint `json:"points"`
	// Totals per stage over the range, and the mean and peak rates
	// (messages per second, over the seconds the steps with any message
	// cover: idle gaps between runs left out).
	Totals map[string]uint64  `json:"totals"`
	Mean   map[string]float64 `json:"mean_per_sec"`
	Peak   map[string]float64 `json:"peak_per_sec"`
}

// ThroughputPoint is one stage in one step.
type ThroughputPoint struct {
	Time  time.Time `json:"time"`
	Stage string    `json:"stage"`
	Count uint64    `json:"count"`
	// PerSec is Count over the seconds of the step the data covers
	// (Seconds: the step's length, less the part before a run's start or
	// after its end, or beside an idle gap).
	PerSec  float64 `json:"per_sec"`
	Seconds float64 `json:"seconds"`
}

func span(ctx context.Context, st *store.Store, p Params) (first, last time.Time, n uint64, err error) {
	r, err := query(ctx, st, spanSQL, p, nil)
	if err != nil {
		return
	}
	defer r.Close()
	if r.Next() {
		err = r.Scan(&first, &last, &n)
	}
	return
}

// Throughput runs the throughput report.
func Throughput(ctx context.Context, st *store.Store, p Params) (*ThroughputResult, error) {
	step := p.Step
	if step <= 0 {
		_, _, active, err := span(ctx, st, p)
		if err != nil {
			return nil, err
		}
		step = time.Second
		if time.Duration(active)*time.Second > 15*time.Minute {
			step = time.Minute
		}
	}
	if step < time.Second {
		step = time.Second
	}
	r, err := query(ctx, st, ThroughputSQL, p, map[string]string{"step": strconv.Itoa(int(step / time.Second))})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	res := &ThroughputResult{Namespace: p.Namespace, StepSeconds: step.Seconds(),
		Totals: map[string]uint64{}, Mean: map[string]float64{}, Peak: map[string]float64{}}
	seen := map[string]bool{}
	// Each step's first and last second with data, over every stage.
	type bounds struct{ first, last time.Time }
	steps := map[time.Time]bounds{}
	for r.Next() {
		var pt ThroughputPoint
		var first, last time.Time
		if err := r.Scan(&pt.Time, &pt.Stage, &pt.Count, &first, &last); err != nil {
			return nil, err
		}
		pt.Time = pt.Time.UTC()
		res.Points = append(res.Points, pt)
		if !seen[pt.Stage] {
			seen[pt.Stage] = true
			res.Stages = append(res.Stages, pt.Stage)
		}
		b, ok := steps[pt.Time]
		if !ok || first.Before(b.first) {
			b.first = first
		}
		if !ok || last.After(b.last) {
			b.last = last
		}
		steps[pt.Time] = b
		res.Totals[pt.Stage] += pt.Count
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	sortStages(res.Stages)
	secs := map[time.Time]float64{}
	var all float64
	for t, b := range steps {
		_, before := steps[t.Add(-step)]
		_, after := steps[t.Add(step)]
		secs[t], _ = covered(t, step, b.first, b.last, before, after)
		all += secs[t]
	}
	for i := range res.Points {
		pt := &res.Points[i]
		pt.Seconds = secs[pt.Time]
		pt.PerSec = float64(pt.Count) / pt.Seconds
		res.Peak[pt.Stage] = max(res.Peak[pt.Stage], pt.PerSec)
	}
	if all > 0 {
		for s, n := range res.Totals {
			res.Mean[s] = float64(n) / all
		}
	}
	return res, nil
}

// WriteText prints one row per step, one column per stage (messages per
// second), then totals, mean and peak. By minute a column says the seconds
// of each minute the data covers (the rates are over those).
func (t *ThroughputResult) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "namespace %s — messages per second per stage, by %s\n", t.Namespace, stepName(t.StepSeconds))
	if len(t.Points) == 0 {
		fmt.Fprintln(w, "no data in this range")
		return nil
	}
	bySecond := t.StepSeconds <= 1
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if bySecond {
		fmt.Fprintf(tw, "time (UTC)\t%s\t\n", strings.Join(t.Stages, "\t"))
	} else {
		fmt.Fprintf(tw, "time (UTC)\tseconds\t%s\t\n", strings.Join(t.Stages, "\t"))
	}
	idx := map[string]int{}
	for i, s := range t.Stages {
		idx[s] = i
	}
	row := make([]string, len(t.Stages))
	flush := func(ts time.Time, secs float64) {
		if bySecond {
			fmt.Fprintf(tw, "%s\t%s\t\n", fmtTime(ts), strings.Join(row, "\t"))
		} else {
			fmt.Fprintf(tw, "%s\t%g\t%s\t\n", fmtTime(ts), secs, strings.Join(row, "\t"))
		}
		for i := range row {
			row[i] = "0"
		}
	}
	for i := range row {
		row[i] = "0"
	}
	cur, secs := t.Points[0].Time, t.Points[0].Seconds
	for _, p := range t.Points {
		if !p.Time.Equal(cur) {
			flush(cur, secs)
			cur, secs = p.Time, p.Seconds
		}
		row[idx[p.Stage]] = fmtRate(p.PerSec)
	}
	flush(cur, secs)
	line := func(name string, f func(s string) string) {
		cells := make([]string, len(t.Stages))
		for i, s := range t.Stages {
			cells[i] = f(s)
		}
		if bySecond {
			fmt.Fprintf(tw, "%s\t%s\t\n", name, strings.Join(cells, "\t"))
		} else {
			fmt.Fprintf(tw, "%s\t\t%s\t\n", name, strings.Join(cells, "\t"))
		}
	}
	line("total messages", func(s string) string { return strconv.FormatUint(t.Totals[s], 10) })
	line("mean msgs/s", func(s string) string { return fmtRate(t.Mean[s]) })
	line("peak msgs/s", func(s string) string { return fmtRate(t.Peak[s]) })
	return tw.Flush()
}

func stepName(s float64) string {
	switch s {
	case 1:
		return "second"
	case 60:
		return "minute"
	}
	return strconv.FormatFloat(s, 'f', -1, 64) + " s"
}

func fmtRate(v float64) string {
	switch {
	case v == math.Trunc(v) || v >= 100:
		// Per-second rates are whole counts: print them as counts.
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}
