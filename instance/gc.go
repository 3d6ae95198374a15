package instance

import (
	"fmt"
	"os"
	"runtime/debug"
	"strings"
)

// tuneGC trades memory for CPU unless the operator chose: profiles of a
// saturated run spent ~14 % in the collector at GOGC=100; at 400 a run drained
// ~10 % faster. The soft limit keeps large runs from growing without bound;
// at three quarters of the machine's memory it stays out of the way of a
// 7 M-message run (a collector working near its limit is what makes
// throughput fall as stored volume grows).
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(max(memTotal()/4*3, 2<<30))
	}
}

// memTotal is the machine's memory from /proc/meminfo (0 if unknown).
func memTotal() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	var kb int64
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "MemTotal:") {
			fmt.Sscan(strings.TrimSpace(strings.TrimPrefix(line, "MemTotal:")), &kb)
		}
	}
	return kb << 10
}
