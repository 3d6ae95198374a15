package signature_test

import (
	"crypto/ed25519"
	"fmt"
	"runtime"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/ste-utility/ste/schemas/signature"
	"github.com/ste-utility/ste/testgate"
)

func thr() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(1, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func cpuPer(n int, f func()) float64 {
	reps := max(4, 2048/n)
	var r []float64
	for round := 0; round < 5; round++ {
		t := thr()
		for i := 0; i < reps; i++ {
			f()
		}
		r = append(r, float64(thr()-t)/float64(reps*n)/1000)
	}
	sort.Float64s(r)
	return r[len(r)/2]
}

// TestBatchCurveCPU prints the batch-size curve of docs/benchmarks.md in
// thread CPU time per signature, which a loaded machine distorts far less
// than the wall time of the Go benchmarks beside it. STE_CURVE=1 runs it:
//
//	STE_CURVE=1 go test ./schemas/signature -run BatchCurve -v
func TestBatchCurveCPU(t *testing.T) {
	testgate.Opt(t, "curve")
	runtime.LockOSThread()
	items := benchItems(64)
	std := cpuPer(64, func() {
		for _, it := range items {
			ed25519.Verify(it.Keys[0], it.Msg, it.Sig)
		}
	})
	rule := cpuPer(64, func() {
		for _, it := range items {
			signature.Verify(it.Keys[0], it.Msg, it.Sig)
		}
	})
	fmt.Printf("µs CPU per signature: crypto/ed25519 %.1f, signature.Verify %.1f (%.2f of it)\nbatch  µs/sig  (of crypto/ed25519)\n", std, rule, rule/std)
	for _, n := range curve {
		it := benchItems(n)
		ok := make([]bool, n)
		var bt signature.Batcher
		c := cpuPer(n, func() { bt.Verify(it, ok) })
		for _, o := range ok {
			if !o {
				t.Fatal("an honest signature failed in a batch")
			}
		}
		fmt.Printf("%5d  %6.1f  (%.2f)\n", n, c, c/std)
	}
}
