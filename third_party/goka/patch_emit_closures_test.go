package goka

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/IBM/sarama"
	"github.com/lovoo/goka/codec"
	"github.com/lovoo/goka/storage"
)

// pendingProducer answers every emit with a promise it finishes later, as
// a Kafka producer does once the broker has acknowledged the record.
type pendingProducer struct{ pending []*Promise }

func (p *pendingProducer) Emit(topic, key string, value []byte) *Promise {
	return p.EmitWithHeaders(topic, key, value, nil)
}

func (p *pendingProducer) EmitWithHeaders(string, string, []byte, Headers) *Promise {
	pr := NewPromise()
	p.pending = append(p.pending, pr)
	return pr
}

func (p *pendingProducer) Close() error { return nil }

// finish acknowledges every pending emit, the i-th at offset i+1.
func (p *pendingProducer) finish(err error) {
	for i, pr := range p.pending {
		pr.finish(&sarama.ProducerMessage{Offset: int64(i + 1)}, err)
	}
	p.pending = p.pending[:0]
}

// TestPatchEmitWithoutClosures (PATCHES.md, patch 6): an emit's promise
// completes its context without a callback, a context commits its message
// without a closure, and a partition processor takes its producer's emit
// and its statistics' method once, not with every message. Without the
// patch an emit allocated three times besides its promise (the callback,
// the wrapper Then puts around it, the slice that holds it), and a message
// emitting one record seven times more than with it (the commit closure,
// two method values, the emit's options and those three). A promise's
// first callback was wrapped and appended to a slice: two more.
func TestPatchEmitWithoutClosures(t *testing.T) {
	t.Run("emit", func(t *testing.T) {
		prod := &pendingProducer{pending: make([]*Promise, 0, 1024)}
		ctx := &cbContext{
			graph:            DefineGroup("group", Output("output", new(codec.Bytes))),
			commit:           func() {},
			wg:               &sync.WaitGroup{},
			trackOutputStats: func(context.Context, string, int) {},
			emitter:          prod.EmitWithHeaders,
		}
		ctx.start()
		// One allocation: the promise.
		if n := testing.AllocsPerRun(200, func() { ctx.emit("output", "key", nil, nil) }); n > 1 {
			t.Fatalf("an emit allocates %.0f times, want 1 (its promise)", n)
		}
		prod.finish(nil)
	})

	t.Run("then", func(t *testing.T) {
		// A promise's first callback costs nothing beyond itself; the
		// callbacks run in the order they were registered.
		var order []int
		first, second := func(error) { order = append(order, 1) }, func(error) { order = append(order, 2) }
		if n := testing.AllocsPerRun(200, func() { NewPromise().Then(first) }); n > 1 {
			t.Fatalf("a promise and its first callback allocate %.0f times, want 1 (the promise)", n)
		}
		p := NewPromise().Then(first).Then(second)
		p.ThenWithMessage(func(*sarama.ProducerMessage, error) { order = append(order, 3) })
		p.finish(nil, nil)
		p.Then(func(error) { order = append(order, 4) }) // late: at once
		if fmt.Sprint(order) != "[1 2 3 4]" {
			t.Fatalf("callbacks ran in the order %v", order)
		}
	})

	t.Run("completion", func(t *testing.T) {
		// What the promise does for the context is what the callbacks did:
		// a table write stores its offset, a failed emit names its topic, a
		// failed delete passes its error on unchanged, and the message is
		// committed once every emit has completed.
		st := storage.NewMemory()
		prod := &pendingProducer{}
		var commits int
		var failed []string
		newCtx := func() *cbContext {
			return &cbContext{
				graph:            DefineGroup("group", Output("output", new(codec.Bytes)), Persist(new(codec.Bytes))),
				commit:           func() { commits++ },
				wg:               &sync.WaitGroup{},
				trackOutputStats: func(context.Context, string, int) {},
				emitter:          prod.EmitWithHeaders,
				msg:              &message{key: "key"},
				table:            &PartitionTable{st: &storageProxy{Storage: st}, stats: newTableStats()},
				asyncFailer:      func(err error) { failed = append(failed, err.Error()) },
			}
		}
		ctx := newCtx()
		ctx.start()
		ctx.Emit("output", "key", []byte("v"))
		ctx.SetValue([]byte("v"))
		ctx.finish(nil)
		if commits != 0 {
			t.Fatal("committed before its emits completed")
		}
		prod.finish(nil) // the table write is the second emit: offset 2
		if commits != 1 || len(failed) != 0 {
			t.Fatalf("commits %d, failures %v; want 1, none", commits, failed)
		}
		if off, err := st.GetOffset(0); err != nil || off != 2 {
			t.Fatalf("table offset %d (%v), want 2", off, err)
		}

		ctx = newCtx()
		ctx.start()
		ctx.Emit("output", "key", []byte("v"))
		ctx.Delete()
		ctx.finish(nil)
		prod.finish(errors.New("broker gone"))
		if commits != 1 || len(failed) != 1 {
			t.Fatalf("commits %d, failures %v; want 1, one", commits, failed)
		}
		if !strings.Contains(failed[0], "error emitting to output: broker gone") || strings.Count(failed[0], "broker gone") != 2 || strings.Count(failed[0], "error emitting to") != 1 {
			t.Fatalf("failure %q: want the emit's error with its topic and the delete's as it is", failed[0])
		}
	})

	t.Run("message", func(t *testing.T) {
		graph := DefineGroup("group", Input("input", new(codec.Bytes), func(ctx Context, m any) {
			ctx.Emit("output", "key", nil)
		}), Output("output", new(codec.Bytes)))
		opts := new(poptions)
		opts.partitionChannelSize = 1
		opts.contextWrapper = func(ctx Context) Context { return ctx }
		prod := &pendingProducer{pending: make([]*Promise, 0, 1024)}
		pp := newPartitionProcessor(0, graph, func(*message, string) {}, defaultLogger, opts, runModeActive, nil, nil, prod, nil, nil, 0)
		var wg sync.WaitGroup
		msg := message{topic: "input", key: "key", value: []byte("v")}
		fail := func(error) {}
		// Three allocations: the context, the decoded value (a slice in an
		// interface) and the emit's promise.
		n := testing.AllocsPerRun(200, func() {
			if err := pp.processMessage(context.Background(), &wg, msg, fail, fail); err != nil {
				t.Fatal(err)
			}
		})
		prod.finish(nil)
		wg.Wait()
		if n > 3 {
			t.Fatalf("a message emitting one record allocates %.0f times, want 3", n)
		}
	})
}
