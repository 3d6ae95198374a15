package goka

import (
	"sync"
	"testing"
)

// TestPatchDeferCommitOnce (PATCHES.md, patch 8): a context's first deferred
// commit allocates once (without the patch twice: a sync.Once and its
// closure), and it and a second one each count once, however often they
// are called; the context commits when both are done.
func TestPatchDeferCommitOnce(t *testing.T) {
	var ack int
	graph, commit := DefineGroup("g"), func() { ack++ }
	fresh := func() *cbContext { return &cbContext{graph: graph, commit: commit, wg: &sync.WaitGroup{}} }
	ctxs := make([]*cbContext, 101)
	for i := range ctxs {
		ctxs[i] = fresh()
	}
	i := 0
	if n := testing.AllocsPerRun(100, func() { ctxs[i].DeferCommit(); i++ }); n > 1 {
		t.Fatalf("a context's deferred commit allocates %.0f times, want 1", n)
	}
	ctx := fresh()
	ctx.start()
	first, second := ctx.DeferCommit(), ctx.DeferCommit()
	ctx.finish(nil)
	first(nil)
	first(nil)
	if ack != 0 || ctx.counters.dones != 1 {
		t.Fatalf("after the first twice: %d commits, %d done, want 0 and 1", ack, ctx.counters.dones)
	}
	second(nil)
	second(nil)
	if ack != 1 || ctx.counters.dones != 2 {
		t.Fatalf("after both: %d commits, %d done, want 1 and 2", ack, ctx.counters.dones)
	}
}
