package stages

import (
	"bytes"
	"testing"
	"time"

	"github.com/ste-utility/ste/processors/envelope"
	"github.com/ste-utility/ste/schemas/refdata"
)

// deleteState is a mapState that records whether the decision deleted.
type deleteState struct {
	mapState
	deleted bool
}

func (s *deleteState) Delete() { s.deleted = true; s.mapState.Delete() }

// A rewrite record (the runtime writes one when a reader of the match
// changelog skipped a former owner's late write of the trade) writes the
// trade's state again as it is and decides nothing; a trade with no value
// is deleted again, so that its tombstone follows the late write too.
func TestRewriteWritesTheTradeAgainAndDecidesNothing(t *testing.T) {
	recs, key, _, _ := oneTrade(t)
	t0 := time.Unix(1_800_000_000, 0)
	p := newPipe(t, refdata.Default(), Config{Now: func() time.Time { return t0 }})
	msgs := acceptedOf(t, p, recs)
	table := map[string][]byte{}
	for i, m := range msgs[:3] {
		p.d.Match(Input{Topic: p.names.Accepted(), Key: key, Value: m, Offset: int64(i), Timestamp: t0}, &mapState{table: table, key: key})
	}
	before := bytes.Clone(table[key])
	if before == nil {
		t.Fatal("three messages left no value")
	}
	rw := (&envelope.Envelope{Kind: envelope.KindRewrite, Partition: -1, Offset: -1}).Marshal()
	in := Input{Topic: p.names.Accepted(), Key: key, Value: rw, Offset: 3, Timestamp: t0}

	// A state that records writes: the value must be written, the same bytes.
	w := &writeState{mapState: mapState{table: table, key: key}}
	r := p.d.Match(in, w)
	if w.writes != 1 || !bytes.Equal(table[key], before) {
		t.Fatalf("rewrite wrote %d times, value equal %v: want the same value written once", w.writes, bytes.Equal(table[key], before))
	}
	if len(r.Outputs) != 0 || len(r.Records) != 0 || r.Corrupt != "" || r.Envelope != nil {
		t.Fatalf("rewrite decided something: %d outputs, %d records, corrupt %q", len(r.Outputs), len(r.Records), r.Corrupt)
	}

	// No value: deleted again.
	d := &deleteState{mapState: mapState{table: map[string][]byte{}, key: key}}
	r = p.d.Match(in, d)
	if !d.deleted || len(r.Outputs) != 0 || len(r.Records) != 0 || r.Corrupt != "" {
		t.Fatalf("rewrite of a trade with no value: deleted %v, %d outputs, corrupt %q; want a delete and nothing else", d.deleted, len(r.Outputs), r.Corrupt)
	}
}

// writeState is a mapState that counts the decision's writes.
type writeState struct {
	mapState
	writes int
}

func (s *writeState) SetValue(v []byte) { s.writes++; s.mapState.SetValue(v) }
