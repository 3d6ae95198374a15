package goka

import (
	"context"
	"sync"
	"testing"

	"github.com/lovoo/goka/codec"
)

// refBytes is codec.Bytes that also decodes by reference.
type refBytes struct{ *codec.Bytes }

func (refBytes) DecodeRef(data *[]byte) (any, error) { return data, nil }

// TestPatchDecodeByReference (PATCHES.md, patch 10): a codec that is a
// RefDecoder gets the consumed record's bytes where its context holds them,
// and the callback a *[]byte to them. Consuming a message that emits one
// record allocates twice (the context, the emit's promise); without the
// patch 3 (the bytes in an interface). A codec without DecodeRef decodes
// as before.
func TestPatchDecodeByReference(t *testing.T) {
	var got any
	var held *cbContext
	graph := DefineGroup("group", Input("input", refBytes{new(codec.Bytes)}, func(ctx Context, m any) {
		got, held = m, ctx.(*cbContext)
		ctx.Emit("output", "key", nil)
	}), Input("plain", new(codec.Bytes), func(ctx Context, m any) { got = m }), Output("output", new(codec.Bytes)))
	opts := new(poptions)
	opts.partitionChannelSize = 1
	opts.contextWrapper = func(ctx Context) Context { return ctx }
	prod := &pendingProducer{pending: make([]*Promise, 0, 1024)}
	pp := newPartitionProcessor(0, graph, func(*message, string) {}, defaultLogger, opts, runModeActive, nil, nil, prod, nil, nil, 0)
	var wg sync.WaitGroup
	value := []byte("v")
	fail := func(error) {}
	n := testing.AllocsPerRun(200, func() {
		if err := pp.processMessage(context.Background(), &wg, message{topic: "input", key: "key", value: value}, fail, fail); err != nil {
			t.Fatal(err)
		}
	})
	prod.finish(nil)
	wg.Wait()
	if n > 2 {
		t.Fatalf("consuming a message emitting one record allocates %.0f times, want 2", n)
	}
	if p, ok := got.(*[]byte); !ok || p != &held.in.value || string(*p) != "v" {
		t.Fatalf("decoded %T %v, want the context's bytes by reference", got, got)
	}
	if err := pp.processMessage(context.Background(), &wg, message{topic: "plain", key: "key", value: value}, fail, fail); err != nil {
		t.Fatal(err)
	}
	if b, ok := got.([]byte); !ok || string(b) != "v" {
		t.Fatalf("a codec without DecodeRef decoded %T %v", got, got)
	}
}
