package pipeline

import (
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"

	"github.com/lovoo/goka"

	"github.com/ste-utility/ste/processors/envelope"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topology"
)

// Hook, if set in Config, runs before each record's callback, in the
// partition's goroutine. It is for tests: a hook that panics stands for a bug
// a record triggers, one that blocks for a stalled partition.
type Hook func(st topology.Stage, ctx goka.Context, msg any)

// A record which makes a stage panic — a fault of the utility's own, never
// of the message — becomes an exception with reason INTERNAL (docs/spec/messages.md
// section 7: detail says what failed, payload kept, no NACK) and processing
// goes on (handle recovers and calls internal). Left to goka, the panic
// fails the partition, then the group; a restart would read the same record
// again and fail again, for ever.

// internal writes the INTERNAL exception (and audit event) of the record
// whose callback panicked with r. What the callback emitted or stored before
// it failed stays: the exception says the record was not fully processed.
func (s *stages) internal(ctx goka.Context, snk sink, st topology.Stage, log *slog.Logger, msg any, r any) {
	at := position{topic: string(ctx.Topic()), key: ctx.Key(), partition: ctx.Partition(), offset: ctx.Offset()}
	s.internalTo(snk, at, st, log, msg, r)
}

// position is where the record a stage failed on was read.
type position struct {
	topic, key string
	partition  int32
	offset     int64
}

// internalTo is internal writing to any sink.
func (s *stages) internalTo(ctx sink, at position, st topology.Stage, log *slog.Logger, msg any, r any) {
	stack := debug.Stack()
	s.cfg.Metrics.internal(st)
	raw, _ := msg.([]byte)
	e := &envelope.Envelope{Partition: at.partition, Offset: at.offset, Raw: raw}
	if st != topology.StageValidate {
		// Later stages carry the inbound record in an envelope; its position
		// on inbound is the exception's id. An unreadable envelope keeps the
		// internal record as payload, with no inbound position.
		if env, err := envelope.Unmarshal(raw); err == nil {
			e = env
		} else {
			e.Partition, e.Offset = -1, -1
		}
	}
	what := fmt.Sprintf("%s stage failed on %s partition %d offset %d: %v", st, at.topic, at.partition, at.offset, r)
	if e.Kind == envelope.KindExpire {
		what = fmt.Sprintf("%s stage failed expiring trade %s: %v", st, at.key, r)
	}
	log.Error("INTERNAL: a record made a stage fail; it becomes an exception and processing goes on",
		"stage", st.String(), "topic", at.topic, "partition", at.partition, "offset", at.offset,
		"sender", e.Sender, "msg_id", e.MsgId, "panic", fmt.Sprint(r), "stack", string(stack))
	rej := &schemas.Rejection{Reason: schemas.Internal, Detail: what + "; retry the message once the fault is fixed"}
	defer func() {
		// The exception path itself failed: write the bare exception, with
		// nothing of the envelope it may have tripped on.
		if r2 := recover(); r2 != nil {
			id := strconv.Itoa(int(e.Partition)) + "-" + strconv.FormatInt(e.Offset, 10)
			exc := schemas.NewException(id, e.Raw, nil, rej, e.Partition, e.Offset, s.cfg.Now())
			s.emit(ctx, s.cfg.Names.Exceptions(), "", exc.Marshal())
		}
	}()
	s.writeTo(ctx, st, s.reject(st, e, nil, rej))
}
