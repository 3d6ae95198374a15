package gateway

import (
	"os"
	"runtime/debug"
)

// TuneGC sets the collector of a gateway process unless the operator chose
// (GOGC, GOMEMLIMIT): a collection every fifth of the default's. On the
// instance's one core (--procs 1) a collection's mark phase takes a
// quarter of the core for ~40 ms, and every request in flight then waits
// longer at each of its hops; two gateways under half the pipeline's
// capacity collected ~12 times in 35 s at the default, which is where a
// percentile of the latency lives (docs/benchmarks.md, "The gateway"). The
// live heap is mostly the outputs tails (at most 16 MiB per partition of
// <ns>.outbound); the soft limit keeps the process inside the chart's
// memory limit (512 Mi), collecting more often as it nears it.
func TuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(gcSoftLimit)
	}
}

const (
	gcPercent   = 400
	gcSoftLimit = 384 << 20
)
