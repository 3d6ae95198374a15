// Package oplaw computes Buzen and Denning's operational laws from sampled
// queue lengths, the way the source benchmark judged STE: a monitor samples
// each stage's queue at fixed intervals, and the laws turn the samples into
// utilisation, throughput, service time, mean queue length and response time
// without any assumption about arrival or service distributions.
package oplaw

import (
	"fmt"
	"io"

	"github.com/ste-utility/ste/schemas"
)

// Laws are the operational quantities of one stage over an observation.
type Laws struct {
	Stage string  `json:"stage"`
	T     float64 `json:"T"` // observation period, s
	A     int64   `json:"A"` // arrivals
	C     int64   `json:"C"` // completions
	B     float64 `json:"B"` // busy time: intervals in which the stage had work, s
	W     float64 `json:"W"` // area under the queue length, message·s
	U     float64 `json:"U"` // utilisation B/T
	X     float64 `json:"X"` // throughput C/T, msg/s
	S     float64 `json:"S"` // mean service time B/C, s
	N     float64 `json:"N"` // mean number in the stage W/T (Little: N = X·R)
	R     float64 `json:"R"` // mean response time W/C, s
}

// Compute folds one stage's samples, in time order. The first sample only
// sets the starting queue. An interval counts as busy when the stage finished
// work in it or had a queue at either end; W integrates the queue by the
// trapezoid rule between samples.
func Compute(stage string, samples []schemas.MonitorSample) Laws {
	l := Laws{Stage: stage}
	var prevQ int64
	for i, s := range samples {
		if i == 0 {
			prevQ = s.Queue
			continue
		}
		dt := s.Interval
		l.T += dt
		l.A += s.Arrivals
		l.C += s.Completions
		if s.Completions > 0 || s.Queue > 0 || prevQ > 0 {
			l.B += dt
		}
		l.W += float64(prevQ+s.Queue) / 2 * dt
		prevQ = s.Queue
	}
	if l.T > 0 {
		l.U, l.X, l.N = l.B/l.T, float64(l.C)/l.T, l.W/l.T
	}
	if l.C > 0 {
		l.S, l.R = l.B/float64(l.C), l.W/float64(l.C)
	}
	return l
}

// TrimIdle keeps the samples from the one before the first with work to the
// last with work, so that T is the observation period of the run and not of
// the idle time around it.
func TrimIdle(ss []schemas.MonitorSample) []schemas.MonitorSample {
	first, last := -1, -1
	for i, s := range ss {
		if s.Arrivals > 0 || s.Completions > 0 || s.Queue > 0 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return nil
	}
	return ss[max(first-1, 0) : last+1]
}

// WriteTable writes laws as a table, one stage a line, like the source's
// Table 6 (times in the units it used: T and B in s, S and R in ms).
func WriteTable(w io.Writer, laws []Laws) {
	fmt.Fprintf(w, "%-9s %8s %9s %9s %8s %6s %9s %9s %9s %9s\n", "stage", "T s", "A", "C", "B s", "U", "X msg/s", "S ms", "N", "R ms")
	for _, l := range laws {
		fmt.Fprintf(w, "%-9s %8.1f %9d %9d %8.1f %6.2f %9.1f %9.3f %9.1f %9.1f\n", l.Stage, l.T, l.A, l.C, l.B, l.U, l.X, l.S*1e3, l.N, l.R*1e3)
	}
}
