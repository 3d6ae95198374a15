package journal

import (
	"slices"
	"testing"
)

func tr(msgID, fn, related, sha string) Entry {
	return Entry{Translation: &Translation{Adapter: ISO20022, Participant: "CUSTSGSGXXX", MsgId: msgID, MsgType: "SET",
		Function: fn, RelatedMsgId: related, TradeKey: "0123456789abcdef", SignedSHA256: sha, RecordSHA256: sha + "0000"}}
}

func nack(msgID, h string) Entry {
	return Entry{Answer: &Answer{Participant: "CUSTSGSGXXX", MsgId: msgID, Verdict: "NACK", Code: "SCHEMA", RecordHash: h,
		OutputMsgId: "NACK:CUSTSGSGXXX:" + msgID + ":" + h}}
}

func ack(msgID string) Entry {
	return Entry{Answer: &Answer{Participant: "CUSTSGSGXXX", MsgId: msgID, Verdict: "ACK", OutputMsgId: "ACK:CUSTSGSGXXX:" + msgID}}
}

func current(x *Index) []string {
	var out []string
	for _, t := range x.Current(ISO20022, "CUSTSGSGXXX", "0123456789abcdef") {
		out = append(out, t.MsgId)
	}
	return out
}

// The participant's current adapter messages in a trade (adapters.md §1).
func TestCurrent(t *testing.T) {
	x := NewIndex()
	for _, e := range []Entry{tr("S1:b", "NEW", "", "bb"), tr("S1:a", "NEW", "", "aa"), tr("S1:c", "NEW", "", "cc")} {
		x.Apply(e)
	}
	if got := current(x); !slices.Equal(got, []string{"S1:a", "S1:b", "S1:c"}) {
		t.Fatalf("current %v", got)
	}
	x.Apply(nack("S1:c", "cc00"))
	x.Apply(tr("X1:a", "CANCEL", "S1:a", "xa"))
	if got := current(x); !slices.Equal(got, []string{"S1:b", "X1:a"}) {
		t.Fatalf("after a NACK and a CANCEL: %v", got)
	}
	// A NACKed CANCEL leaves its message current.
	x.Apply(nack("X1:a", "xa00"))
	if got := current(x); !slices.Equal(got, []string{"S1:a", "S1:b"}) {
		t.Fatalf("after the CANCEL's NACK: %v", got)
	}
	// Two translations under one MsgId: the NACK's h names the one rejected.
	x.Apply(tr("S1:b", "NEW", "", "b2"))
	x.Apply(nack("S1:b", "b200"))
	ts := x.Translations("CUSTSGSGXXX", "S1:b")
	if len(ts) != 2 || x.NACKed(ts[0]) || !x.NACKed(ts[1]) {
		t.Fatalf("translations of S1:b: %d, NACKed %v %v", len(ts), x.NACKed(ts[0]), x.NACKed(ts[1]))
	}
	// An ACK after a NACK of a sole translation (an operator retry) clears it.
	x.Apply(ack("S1:c"))
	if got := current(x); !slices.Equal(got, []string{"S1:a", "S1:b", "S1:c"}) {
		t.Fatalf("after the retry's ACK: %v", got)
	}
	// A record read twice applies once.
	x.Apply(tr("S1:a", "NEW", "", "aa"))
	if n := len(x.Translations("CUSTSGSGXXX", "S1:a")); n != 1 {
		t.Fatalf("%d translations after a replay", n)
	}
}

func TestEncodeDecode(t *testing.T) {
	for _, e := range []Entry{tr("S1:a", "NEW", "", "aa"), nack("S1:a", "aa00"), NoteEntry(ISO20022, "alg", "X|k", map[string]int{"n": 1})} {
		d, err := Decode(e.Encode())
		if err != nil || d.Key() != e.Key() {
			t.Fatalf("%s: %v %s", e.Key(), err, d.Key())
		}
	}
	if _, err := Decode([]byte(`{"v":2,"kind":"note","note":{}}`)); err == nil {
		t.Error("a later version is refused")
	}
}

func TestOriginalIDs(t *testing.T) {
	x := NewIndex()
	if ids, ok := x.OriginalIDs("P", "S1:CUST_2F1"); !ok || !slices.Equal(ids, []string{"CUST/1"}) {
		t.Errorf("direct form: %v %v", ids, ok)
	}
	h := "S1::" + "0123456789012345678901234567890123456789"
	if _, ok := x.OriginalIDs("P", h); ok {
		t.Error("a hash form unknown to the journal maps back")
	}
	e := tr(h, "NEW", "", "hh")
	e.Translation.Participant, e.Translation.OriginalIDs = "P", []string{"LONG"}
	x.Apply(e)
	if ids, ok := x.OriginalIDs("P", h); !ok || !slices.Equal(ids, []string{"LONG"}) {
		t.Errorf("hash form: %v %v", ids, ok)
	}
}

func TestByOriginalID(t *testing.T) {
	x := NewIndex()
	for _, acct := range []string{"ACC1", "ACC2"} {
		e := tr("J1:A_2F1:"+acct, "NEW", "", "s"+acct)
		e.Translation.Adapter, e.Translation.OriginalIDs = FIX44, []string{"A/1", acct}
		x.Apply(e)
	}
	got := x.ByOriginalID(FIX44, "CUSTSGSGXXX", "A/1")
	if len(got) != 2 || got[0].MsgId != "J1:A_2F1:ACC1" || got[1].MsgId != "J1:A_2F1:ACC2" {
		t.Fatalf("%v", got)
	}
	if n := len(x.ByOriginalID(ISO20022, "CUSTSGSGXXX", "A/1")); n != 0 {
		t.Fatalf("another adapter's: %d", n)
	}
}

// Related finds the CANCELs and REPLACEs naming a message, once each.
func TestRelated(t *testing.T) {
	x := NewIndex()
	x.Apply(tr("S1:a", "NEW", "", "aa"))
	x.Apply(tr("X1:a", "CANCEL", "S1:a", "xa"))
	x.Apply(tr("X1:a", "CANCEL", "S1:a", "xa")) // a replayed record
	x.Apply(tr("R1:a", "REPLACE", "S1:a", "ra"))
	var got []string
	for _, r := range x.Related("CUSTSGSGXXX", "S1:a") {
		got = append(got, r.MsgId)
	}
	if !slices.Equal(got, []string{"X1:a", "R1:a"}) || len(x.Related("CUSTSGSGXXX", "S1:b")) != 0 || len(x.Related("OTHRSGSGXXX", "S1:a")) != 0 {
		t.Fatalf("related %v", got)
	}
}
