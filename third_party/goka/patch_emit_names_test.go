package goka

import (
	"context"
	"sync"
	"testing"

	"github.com/lovoo/goka/codec"
)

// TestPatchEmitBuildsNoNames (PATCHES.md, patch 5): Emit checks that its
// topic is neither the group's loop nor its table without building their
// names. Without the patch each Emit allocated both names: two of the
// allocations an emitted record costs beyond the emit itself.
func TestPatchEmitBuildsNoNames(t *testing.T) {
	// A name as long as STE's (namespace and stage): a concatenation of
	// up to 32 bytes that does not escape is built on the stack.
	const group = "bench20261207t152815.v1.validate"
	graph := DefineGroup(group, Input("input", new(codec.Bytes), func(Context, any) {}), Output("output", new(codec.Bytes)), Loop(new(codec.Bytes), func(Context, any) {}), Persist(new(codec.Bytes)))
	ctx := &cbContext{
		graph:            graph,
		commit:           func() {},
		wg:               &sync.WaitGroup{},
		trackOutputStats: func(context.Context, string, int) {},
		emitter:          newEmitter(nil, nil),
	}
	ctx.start()
	var value any = []byte("value")
	emit := testing.AllocsPerRun(200, func() { ctx.emit("output", "key", []byte("value"), nil) })
	Emit := testing.AllocsPerRun(200, func() { ctx.Emit("output", "key", value) })
	// Emit allocates no more than emit.
	if Emit > emit {
		t.Fatalf("Emit allocates %.0f times, emit %.0f: Emit builds the loop and table names", Emit, emit)
	}
	for _, c := range []struct {
		topic Stream
		ok    bool
	}{{"output", true}, {Stream(loopName(group)), false}, {Stream(tableName(group)), false}} {
		if got := isGroupTopic(group, string(c.topic), loopSuffix) || isGroupTopic(group, string(c.topic), tableSuffix); got == c.ok {
			t.Fatalf("%s: isGroupTopic %v", c.topic, got)
		}
	}
}
