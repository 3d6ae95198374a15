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
// at three quarters of the memory it stays out of the way of a 7 M-message
// run (a collector working near its limit is what makes throughput fall as
// stored volume grows). The memory is the machine's, or the container's
// limit where one is set: in a container /proc/meminfo shows the host's, and
// a heap sized from it would be killed at the container's limit.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		mem := memTotal()
		if c := cgroupLimit(cgroupFiles); c > 0 && (mem == 0 || c < mem) {
			mem = c
		}
		debug.SetMemoryLimit(max(mem/4*3, 2<<30))
	}
}

// cgroupFiles hold a container's memory limit: cgroup v2, then v1.
var cgroupFiles = []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}

// cgroupLimit is the memory limit in the first of files that sets one (0:
// none; "max" and v1's huge "unlimited" value are none).
func cgroupLimit(files []string) int64 {
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var n int64
		if _, err := fmt.Sscan(strings.TrimSpace(string(b)), &n); err == nil && n > 0 && n < 1<<60 {
			return n
		}
	}
	return 0
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
