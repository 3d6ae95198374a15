package stages

import (
	"fmt"
	"strconv"

	"github.com/ste-utility/ste/processors/envelope"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topology"
)

// A record which makes a stage panic — a fault of the utility's own, never
// of the message — becomes an exception with reason INTERNAL
// (docs/spec/messages.md section 7: detail says what failed, payload kept,
// no NACK) and processing goes on. Left to goka, the panic fails the
// partition, then the group; a restart would read the same record again
// and fail again, for ever.

// Internal is the INTERNAL exception of the record in that made stage st
// panic with p: the envelope it is of (the record's own at later stages,
// when it reads) and the rejection saying what failed. What the stage
// emitted or stored before it failed stays: the exception says the record
// was not fully processed. The runtime writes Rejected(st, e, rej), or, if
// that fails too, Bare(e, rej).
func (d *Decider) Internal(st topology.Stage, in Input, p any) (*envelope.Envelope, *schemas.Rejection) {
	e := &envelope.Envelope{Partition: in.Partition, Offset: in.Offset, Raw: in.Value}
	if st != topology.StageValidate {
		// Later stages carry the inbound record in an envelope; its position
		// on inbound is the exception's id. An unreadable envelope keeps the
		// internal record as payload, with no inbound position.
		if env, err := envelope.Unmarshal(in.Value); err == nil {
			e = env
		} else {
			e.Partition, e.Offset = -1, -1
		}
	}
	what := fmt.Sprintf("%s stage failed on %s partition %d offset %d: %v", st, in.Topic, in.Partition, in.Offset, p)
	if e.Kind == envelope.KindExpire {
		what = fmt.Sprintf("%s stage failed expiring trade %s: %v", st, in.Key, p)
	}
	return e, &schemas.Rejection{Reason: schemas.Internal, Detail: what + "; retry the message once the fault is fixed"}
}

// Rejected decides the exception of e, the NACK where one is due, and the
// end of its journey at stage st.
func (d *Decider) Rejected(st topology.Stage, e *envelope.Envelope, rej *schemas.Rejection) *Result {
	return d.reject(st, e, nil, rej)
}

// Bare is the exception of e alone, for when deciding or writing its
// Rejected failed too: nothing of the envelope it may have tripped on.
func (d *Decider) Bare(e *envelope.Envelope, rej *schemas.Rejection) Record {
	id := strconv.Itoa(int(e.Partition)) + "-" + strconv.FormatInt(e.Offset, 10)
	exc := schemas.NewException(id, e.Raw, nil, rej, e.Partition, e.Offset, d.cfg.Now())
	return Record{Topic: d.cfg.Names.Exceptions(), Value: exc.Marshal()}
}
