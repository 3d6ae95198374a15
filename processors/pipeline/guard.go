package pipeline

import (
	"fmt"
	"runtime/debug"

	"github.com/lovoo/goka"

	"github.com/ste-utility/ste/processors/stages"
	"github.com/ste-utility/ste/topology"
)

// Hook, if set in Config, runs before each record's callback, in the
// partition's goroutine. It is for tests: a hook that panics stands for a bug
// a record triggers, one that blocks for a stalled partition.
type Hook func(st topology.Stage, ctx goka.Context, msg []byte)

// A record which makes a stage panic — a fault of the utility's own, never
// of the message — becomes an exception with reason INTERNAL
// (stages.Decider.Internal) and processing goes on (writer.run recovers
// and calls internal). Left to goka, the panic fails the partition, then
// the group; a restart would read the same record again and fail again,
// for ever.

// internal writes the INTERNAL exception (and audit event) of the record
// whose decision or writing panicked with p. What was emitted or stored
// before it failed stays: the exception says the record was not fully
// processed.
func (w *writer) internal(snk *sink, in stages.Input, p any) {
	stack := debug.Stack()
	w.cfg.Metrics.CountInternal(w.st)
	e, rej := w.decide.Internal(w.st, in, p)
	w.cfg.Logger.Error("INTERNAL: a record made a stage fail; it becomes an exception and processing goes on",
		"stage", w.st.String(), "topic", in.Topic, "partition", in.Partition, "offset", in.Offset,
		"sender", e.Sender, "msg_id", e.MsgId, "panic", fmt.Sprint(p), "stack", string(stack))
	defer func() {
		// The exception path itself failed: write the bare exception, with
		// nothing of the envelope it may have tripped on.
		if recover() != nil {
			b := w.decide.Bare(e, rej)
			w.emit(snk, b.Topic, b.Key, b.Value)
		}
	}()
	w.write(snk, in, w.decide.Rejected(w.st, e, rej))
}
