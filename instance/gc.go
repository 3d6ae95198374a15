package instance

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"time"
)

// tuneGC sets the collector unless the operator chose (GOGC, GOMEMLIMIT).
// The memory is the machine's, or the container's limit where one is set:
// in a container /proc/meminfo shows the host's, and a heap sized from it
// would be killed at the container's limit.
//
// roomy — the heap holds the tables (tables in memory) or the broker's log
// (a broker in the process): trade memory for CPU. Profiles of a saturated
// run spent ~14 % in the collector at GOGC=100; at 400 a run drained ~10 %
// faster. The soft limit at three quarters of the memory keeps large runs
// from growing without bound and out of the way of a 7 M-message run.
//
// Otherwise (disk tables, the broker elsewhere) the live heap is Pebble's
// memtables and cache (in the static build without cgo they are Go memory),
// the Kafka consumers' fetched responses and the table writes waiting for
// their changelog acknowledgement: ~380 MB at saturation on Kafka 4 (a heap
// profile, docs/benchmarks.md "Issue 26: the acceptance runs"). Go's
// default GOGC and a soft limit of boundedLimit keep the process bounded;
// what RSS shows beyond the live heap is garbage the collector was allowed
// to keep. Should the live heap outgrow the limit, the collector is capped
// at half the CPU and the process goes on, slower.
func tuneGC(roomy bool) {
	mem := memTotal()
	if c := cgroupLimit(cgroupFiles); c > 0 && (mem == 0 || c < mem) {
		mem = c
	}
	if roomy && os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memLimit(roomy, mem))
	}
}

// boundedLimit is the soft memory limit with disk tables and the broker
// elsewhere, and what the tables size their memory from (Pebble's memtables
// and block cache a sixteenth of it each, the hot values another:
// processors/diskstore). It was 400 MiB, then 1 GiB: a saturated instance on
// Kafka 4 lived at ~380 MB and at 400 MiB collected without pause (23 % of
// its CPU, 5,300 against 8,000 msg/s). Measured on 6 December
// (docs/benchmarks.md, "Memory: 250,000 trades in 600 MB"): with the
// consumers' fetch buffers cut, an instance draining 250,000 trades lives at
// ~400 MB besides its query indexes (~1 KB a trade, ~240 MB at
// 250,000), and at 512 MiB spent half its CPU collecting; 768 MiB leaves
// the collector room at 250,000 trades and bounds the process below the
// 1 GiB it used to reach. 768 MiB fits the chart's request (1 Gi).
const boundedLimit = 768 << 20

// memLimit is the soft memory limit for a process on mem bytes (0: unknown).
func memLimit(roomy bool, mem int64) int64 {
	if roomy {
		return max(mem/4*3, 2<<30)
	}
	if mem > 0 {
		return min(boundedLimit, mem/4*3)
	}
	return boundedLimit
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

// An instance that has drained a backlog and gone quiet still holds, as
// resident memory, the garbage the collector was allowed to keep up to the
// soft limit: an idle process allocates too little to start a collection,
// and the runtime forces one only every two minutes. 10 s after a
// 100,000-trade drain such a process showed 759 MB resident and its live
// heap was far less (docs/benchmarks.md, "Memory: 250,000 trades in 600
// MB"). releaseWhenIdle collects and returns the free memory to the
// system once each time the process goes quiet after real work: it
// samples the bytes allocated every idleTick, and after idleTicks samples
// below idleBytes each, following at least busyBytes allocated since the
// last release, it calls debug.FreeOSMemory (one full collection, a few
// hundred milliseconds of one core with a few hundred MB live).
const (
	idleTick  = time.Second
	idleTicks = 3
	idleBytes = 4 << 20   // allocated in a tick by a quiet instance: metrics, heartbeats, lag reads
	busyBytes = 256 << 20 // allocated since the last release: worth giving back
)

// idleRelease decides when to release (see releaseWhenIdle).
type idleRelease struct {
	quiet int    // consecutive quiet ticks
	since uint64 // bytes allocated since the last release
}

// observe takes the bytes allocated in one tick and says whether to
// release now.
func (r *idleRelease) observe(allocated uint64) bool {
	r.since += allocated
	if allocated >= idleBytes {
		r.quiet = 0
		return false
	}
	r.quiet++
	if r.quiet < idleTicks || r.since < busyBytes {
		return false
	}
	r.since, r.quiet = 0, 0
	return true
}

// releaseWhenIdle runs until ctx ends (see idleRelease).
func releaseWhenIdle(ctx context.Context, released func()) {
	sample := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(sample)
	last := sample[0].Value.Uint64()
	var r idleRelease
	t := time.NewTicker(idleTick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		metrics.Read(sample)
		now := sample[0].Value.Uint64()
		if r.observe(now - last) {
			debug.FreeOSMemory()
			if released != nil {
				released()
			}
		}
		metrics.Read(sample) // the release's own allocations are not work
		last = sample[0].Value.Uint64()
	}
}
