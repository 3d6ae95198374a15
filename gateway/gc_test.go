package gateway

import (
	"math"
	"runtime/debug"
	"testing"
)

// The gateway's collector settings apply unless the operator set GOGC or
// GOMEMLIMIT, which win.
func TestTuneGCLeavesTheOperatorsChoice(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	TuneGC()
	if p, l := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64); p != gcPercent || l != gcSoftLimit {
		t.Fatalf("GOGC %d, limit %d: want %d, %d", p, l, gcPercent, gcSoftLimit)
	}
	t.Setenv("GOGC", "100")
	t.Setenv("GOMEMLIMIT", "1GiB")
	TuneGC()
	if p, l := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64); p != 100 || l != math.MaxInt64 {
		t.Fatalf("GOGC %d, limit %d: the operator's settings were overridden", p, l)
	}
}
