package schemas

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestAuditMarshalIsJSON: the hand-written encoder agrees with encoding/json.
func TestAuditMarshalIsJSON(t *testing.T) {
	for _, a := range []AuditEvent{
		{Partition: -1, Offset: -1, Outcome: "expired", Steps: []AuditStep{{"match", "expired", MicroTime(1)}}},
		{TradeKey: "0123456789abcdef", Sender: "BRKASGSGXXX", MsgId: "a\"b\\c\n\u2028<>&", Type: "NOE", Function: "NEW",
			Partition: 3, Offset: 12345, InboundAt: MicroTime(1764400000000000), Outcome: "rejected", Reason: "SCHEMA",
			Steps:   []AuditStep{{"validate", "invalid", MicroTime(2)}, {"identity", "rejected", MicroTime(3)}},
			Outputs: []string{"NACK:BRKASGSGXXX:-:0011223344556677", "x\x01y"}},
		{TradeKey: "0123456789abcdef", Partition: 1, Offset: 2, Outcome: "accepted", Steps: []AuditStep{{"match", "applied", MicroTime(4)}},
			RetryOf: "3-17", RetriedBy: "alice \"ops\""},
	} {
		b := a.Marshal()
		var back AuditEvent
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if !reflect.DeepEqual(back, a) {
			t.Fatalf("round trip:\n%+v\n%+v", back, a)
		}
	}
}

func BenchmarkAuditMarshal(b *testing.B) {
	a := AuditEvent{TradeKey: "0123456789abcdef", Sender: "BRKASGSGXXX", MsgId: "BT261102-00000011-SET2", Type: "SET",
		Function: "NEW", Partition: 3, Offset: 12345, InboundAt: MicroTime(1764400000000000), Outcome: "accepted",
		Steps:   []AuditStep{{"validate", "valid", MicroTime(2)}, {"identity", "accepted", MicroTime(3)}, {"match", "applied", MicroTime(4)}},
		Outputs: []string{"ACK:AVUGHKHXXXX:BT261102-00000011-SET2"}}
	b.ReportAllocs()
	for b.Loop() {
		a.Marshal()
	}
}
