package oplaw

import (
	"math"
	"testing"

	"github.com/ste-utility/ste/schemas"
)

// A deterministic queue: 10 msg/s arrive and are served, each spends exactly
// 2 s in the stage, so the queue holds 20 and Little's law gives R = 2 s.
func TestLittlesLaw(t *testing.T) {
	var ss []schemas.MonitorSample
	for i := 0; i <= 100; i++ {
		ss = append(ss, schemas.MonitorSample{Interval: 1, Arrivals: 10, Completions: 10, Queue: 20})
	}
	l := Compute("s", ss)
	if l.T != 100 || l.C != 1000 || math.Abs(l.R-2) > 1e-9 || math.Abs(l.N-20) > 1e-9 || l.U != 1 || math.Abs(l.X-10) > 1e-9 {
		t.Fatalf("%+v", l)
	}
	if math.Abs(l.N-l.X*l.R) > 1e-9 {
		t.Fatal("N != X·R")
	}
}

func TestIdleIntervalsAreNotBusy(t *testing.T) {
	ss := []schemas.MonitorSample{{Queue: 0}, {Interval: 1, Completions: 5, Queue: 0}, {Interval: 1}, {Interval: 1}, {Interval: 1}}
	l := Compute("s", ss)
	if l.B != 1 || l.U != 0.25 || l.S != 0.2 {
		t.Fatalf("%+v", l)
	}
}
