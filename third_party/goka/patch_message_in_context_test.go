package goka

import (
	"context"
	"sync"
	"testing"

	"github.com/lovoo/goka/codec"
)

// TestPatchMessageInContext (PATCHES.md, patch 9): a consumed message
// travels to its partition processor as a value and is held in its
// context. Consuming a message that emits one record allocates 3 times
// (the context with the message, the decoded value in an interface, the
// emit's promise); without the patch 4 (the message on its own).
func TestPatchMessageInContext(t *testing.T) {
	var held *cbContext
	graph := DefineGroup("group", Input("input", new(codec.Bytes), func(ctx Context, m any) {
		held = ctx.(*cbContext)
		ctx.Emit("output", "key", nil)
	}), Output("output", new(codec.Bytes)))
	opts := new(poptions)
	opts.partitionChannelSize = 1
	opts.contextWrapper = func(ctx Context) Context { return ctx }
	prod := &pendingProducer{pending: make([]*Promise, 0, 1024)}
	pp := newPartitionProcessor(0, graph, func(*message, string) {}, defaultLogger, opts, runModeActive, nil, nil, prod, nil, nil, 0)
	var wg sync.WaitGroup
	value := []byte("v")
	fail := func(error) {}
	n := testing.AllocsPerRun(200, func() {
		pp.input <- message{topic: "input", key: "key", offset: 7, value: value}
		if err := pp.processMessage(context.Background(), &wg, <-pp.input, fail, fail); err != nil {
			t.Fatal(err)
		}
	})
	prod.finish(nil)
	wg.Wait()
	if n > 3 {
		t.Fatalf("consuming a message emitting one record allocates %.0f times, want 3", n)
	}
	if held.msg != &held.in || held.Key() != "key" || held.Topic() != "input" || held.Offset() != 7 {
		t.Fatalf("the context's message: %+v at %p, held %p", held.msg, held.msg, &held.in)
	}
}
