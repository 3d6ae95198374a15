package stages

import (
	"fmt"

	"github.com/ste-utility/ste/processors/envelope"
	"github.com/ste-utility/ste/topology"
)

// The stages after validation do not receive the inbound record of a valid
// message: its envelope carries the decoded message (Envelope.Decoded) and
// the record's place on <ns>.inbound, which is all that identity and
// matching need. The bytes are needed only for the rare exception those
// stages write (a CONFLICTING_DUPLICATE, an INTERNAL failure):
// docs/spec/messages.md §7 keeps the original bytes as the exception's
// payload, and they are read back from inbound then (Config.Inbound). A
// message found invalid keeps its bytes in the envelope: its exception is
// certain.

// payload gives an envelope whose exception is being written its inbound
// record: its own Raw, or read back from inbound into e.Raw. When it cannot
// be read the exception is written without it, and payload returns the
// note for the exception's detail saying where the record is (as a
// TOO_LARGE exception's whole record is found); "" otherwise.
func (d *Decider) payload(st topology.Stage, e *envelope.Envelope) string {
	if st == topology.StageValidate || e.Raw != nil || d.cfg.Inbound == nil || e.Partition < 0 {
		return ""
	}
	raw, err := d.cfg.Inbound(e.Partition, e.Offset)
	if err == nil {
		e.Raw = raw
		return ""
	}
	d.cfg.Logger.Error("the payload of an exception could not be read back from inbound",
		"partition", e.Partition, "offset", e.Offset, "err", err)
	return fmt.Sprintf(" (the record's bytes could not be read back for this exception: find them on %s partition %d offset %d)",
		d.cfg.Names.Inbound(), e.Partition, e.Offset)
}
