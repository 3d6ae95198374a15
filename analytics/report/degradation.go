package report

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/ste-utility/ste/analytics/store"
	"github.com/ste-utility/ste/when"
)

// DegradationSQL is the volume-degradation report (the source system's
// Figure 14): messages through the whole pipeline (stage "network", one per
// journey ended) per window, with the cumulative count of stored messages.
// The first and last windows are usually partial; the report divides their
// counts by the seconds actually covered (first_sec, last_sec).
const DegradationSQL = `SELECT
    toStartOfInterval(sec, toIntervalSecond({window:UInt32})) AS window_start,
    sum(n) AS msgs,
    sum(msgs) OVER (ORDER BY window_start) AS cumulative,
    min(sec) AS first_sec,
    max(sec) AS last_sec
FROM ste.throughput_1s
WHERE namespace = {ns:String} AND stage = 'network'
  AND sec >= {since:DateTime64(6, 'UTC')} AND sec < {until:DateTime64(6, 'UTC')}
GROUP BY window_start
ORDER BY window_start`

// degradationBaseSQL counts the messages stored before the range.
const degradationBaseSQL = `SELECT sum(n) FROM ste.throughput_1s
WHERE namespace = {ns:String} AND stage = 'network' AND sec < {since:DateTime64(6, 'UTC')}`

// DegradationResult is throughput per window as stored volume grows.
type DegradationResult struct {
	Namespace     string              `json:"namespace"`
	WindowSeconds float64             `json:"window_seconds"`
	StoredBefore  uint64              `json:"stored_before"` // messages stored before the range
	Windows       []DegradationWindow `json:"windows"`
	// Slope of msgs/s against stored messages, by least squares over the
	// full windows: the change in msgs/s per million more stored messages.
	SlopePerMillion float64 `json:"slope_msgs_per_sec_per_million"`
	// FirstRate and LastRate are the first and last full windows' rates
	// (0, with no slope, when fewer than three windows are full).
	FirstRate float64 `json:"first_msgs_per_sec"`
	LastRate  float64 `json:"last_msgs_per_sec"`
	// Gaps are the idle stretches of at least a window with no message
	// (between runs, or a run and a late retry): the windows beside them
	// are partial, their rates over the seconds with data.
	Gaps       int     `json:"idle_gaps"`
	GapSeconds float64 `json:"idle_seconds"`
}

// DegradationWindow is one window.
type DegradationWindow struct {
	Start      time.Time `json:"start"`
	Seconds    float64   `json:"seconds"` // seconds of the window with the run in it
	Messages   uint64    `json:"messages"`
	PerSec     float64   `json:"msgs_per_sec"`
	Cumulative uint64    `json:"cumulative"` // stored messages at the window's end
	Full       bool      `json:"full"`
}

// Degradation runs the degradation report.
func Degradation(ctx context.Context, st *store.Store, p Params) (*DegradationResult, error) {
	win, err := window(ctx, st, p)
	if err != nil {
		return nil, err
	}
	res := &DegradationResult{Namespace: p.Namespace, WindowSeconds: win.Seconds()}
	if !p.Since.IsZero() {
		r, err := query(ctx, st, degradationBaseSQL, p, nil)
		if err != nil {
			return nil, err
		}
		if r.Next() {
			if err := r.Scan(&res.StoredBefore); err != nil {
				r.Close()
				return nil, err
			}
		}
		r.Close()
	}
	r, err := query(ctx, st, DegradationSQL, p, map[string]string{"window": strconv.Itoa(int(win / time.Second))})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	type raw struct {
		start, first, last time.Time
		msgs, cum          uint64
	}
	var rs []raw
	for r.Next() {
		var x raw
		if err := r.Scan(&x.start, &x.msgs, &x.cum, &x.first, &x.last); err != nil {
			return nil, err
		}
		rs = append(rs, x)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	if len(rs) == 0 {
		return res, nil
	}
	// Stretches are runs of consecutive windows with data, apart by idle
	// gaps of a window or more; the main one holds the most messages.
	stretch := make([]int, len(rs))
	msgs := map[int]uint64{}
	for i, x := range rs {
		if i > 0 {
			stretch[i] = stretch[i-1]
			if !rs[i-1].start.Equal(x.start.Add(-win)) {
				stretch[i]++
				res.Gaps++
				res.GapSeconds += x.first.Sub(rs[i-1].last.Add(time.Second)).Seconds()
			}
		}
		msgs[stretch[i]] += x.msgs
	}
	main := 0
	for k, n := range msgs {
		if n > msgs[main] || n == msgs[main] && k < main {
			main = k
		}
	}
	for i, x := range rs {
		// A window is full when the data covers it whole and it belongs to
		// the main stretch; beside the run's start or end, or an idle gap,
		// its rate is over the seconds it covers; a burst after an idle gap
		// (a late retry) is never full.
		before := i > 0 && stretch[i-1] == stretch[i]
		after := i+1 < len(rs) && stretch[i+1] == stretch[i]
		secs, full := covered(x.start, win, x.first, x.last, before, after)
		res.Windows = append(res.Windows, DegradationWindow{Start: x.start.UTC(), Seconds: secs, Messages: x.msgs,
			PerSec: float64(x.msgs) / secs, Cumulative: res.StoredBefore + x.cum, Full: full && stretch[i] == main})
	}
	// The trend and the first and last rates are of full windows only: a
	// partial one (a burst after an hour's idle, the last seconds of a run)
	// would make them of the idle time, not of the volume stored.
	var xs, ys []float64
	for _, w := range res.Windows {
		if w.Full {
			xs, ys = append(xs, float64(w.Cumulative)), append(ys, w.PerSec)
		}
	}
	if len(ys) >= minTrendWindows {
		res.FirstRate, res.LastRate = ys[0], ys[len(ys)-1]
		res.SlopePerMillion = slope(xs, ys) * 1e6
	}
	return res, nil
}

// minTrendWindows is the fewest full windows a trend is drawn through: two
// are a line through any two points (a 2-s run's first second and its
// second gave a trend of a million msgs/s per million).
const minTrendWindows = 3

// slope is the least-squares slope of y against x (0 if undefined).
func slope(xs, ys []float64) float64 {
	n := float64(len(xs))
	if n < 2 {
		return 0
	}
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx += xs[i]
		sy += ys[i]
		sxx += xs[i] * xs[i]
		sxy += xs[i] * ys[i]
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / d
}

// WriteText prints one row per window.
func (d *DegradationResult) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "namespace %s — throughput as stored volume grows, %g s windows (stage network: journeys ended)\n", d.Namespace, d.WindowSeconds)
	if len(d.Windows) == 0 {
		fmt.Fprintln(w, "no data in this range")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "window start (UTC)\tseconds\tmessages\tmsgs/s\tstored messages\t\n")
	for _, x := range d.Windows {
		mark := ""
		if !x.Full {
			mark = " (partial)"
		}
		fmt.Fprintf(tw, "%s\t%g\t%d\t%s\t%d%s\t\n", fmtTime(x.Start), x.Seconds, x.Messages, fmtRate(x.PerSec), x.Cumulative, mark)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if d.Gaps > 0 {
		fmt.Fprintf(w, "%d idle gap(s), %s without a message, left out: the windows beside them are partial, their rates over the seconds with data\n",
			d.Gaps, when.Human(time.Duration(d.GapSeconds*float64(time.Second))))
	}
	full := 0
	for _, x := range d.Windows {
		if x.Full {
			full++
		}
	}
	if full < minTrendWindows {
		more := " (a shorter --window gives more)"
		if d.WindowSeconds <= 1 {
			more = ": the run is too short"
		}
		fmt.Fprintf(w, "no trend: %d full window(s), %d at least are needed%s\n", full, minTrendWindows, more)
		return nil
	}
	change := 0.0
	if d.FirstRate > 0 {
		change = 100 * (d.LastRate - d.FirstRate) / d.FirstRate
	}
	fmt.Fprintf(w, "first full window %s msgs/s, last %s msgs/s (%+.1f%%); trend %+.1f msgs/s per million stored messages\n",
		fmtRate(d.FirstRate), fmtRate(d.LastRate), change, d.SlopePerMillion)
	return nil
}
