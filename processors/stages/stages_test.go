package stages

import (
	"bytes"
	"testing"

	"github.com/ste-utility/ste/processors/envelope"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/workload"
)

func generated(t testing.TB, o workload.Options) [][]byte {
	t.Helper()
	var recs [][]byte
	if _, err := workload.Generate(o, func(b []byte) error { recs = append(recs, b); return nil }, nil); err != nil {
		t.Fatal(err)
	}
	return recs
}

// mapState is a stage's table in a map, one key at a time: the decisions'
// State without goka.
type mapState struct {
	table map[string][]byte
	key   string
	loops []Record
	// wrote, when set, is told of each write (the work-queue index's mark).
	wrote func(key string)
}

func (s *mapState) Value() []byte { return s.table[s.key] }
func (s *mapState) SetValue(v []byte) {
	s.table[s.key] = v
	if s.wrote != nil {
		s.wrote(s.key)
	}
}
func (s *mapState) Delete() {
	delete(s.table, s.key)
	if s.wrote != nil {
		s.wrote(s.key)
	}
}
func (s *mapState) Loopback(key string, value []byte) {
	s.loops = append(s.loops, Record{Key: key, Value: value})
}

// chain runs records through the three decisions in pipeline order, each
// result's record handed to the next stage as goka would, and collects
// what ends where.
type chain struct {
	d                *Decider
	names            topology.Names
	identity, trades map[string][]byte
	offset           int64
	outputs          []schemas.Output
	ends             []*Result
	// match, when set, is the match stage's state of a key (else a
	// mapState over trades).
	match func(key string) State
}

func newChain() *chain {
	n := topology.Names{NS: "t"}
	return &chain{d: New(Config{Names: n, Validator: validation.New(refdata.Default()), UtilityBIC: "STEUTLSGXXX"}),
		names: n, identity: map[string][]byte{}, trades: map[string][]byte{}}
}

// send decides one inbound record at every stage it reaches.
func (c *chain) send(t *testing.T, raw []byte) *Result {
	t.Helper()
	r := c.d.Validate(Input{Topic: c.names.Inbound(), Offset: c.offset, Value: raw})
	c.offset++
	for st := topology.StageIdentity; r.End == 0; st++ {
		if len(r.Records) != 1 {
			t.Fatalf("%s: %d records and no journey's end", st, len(r.Records))
		}
		rec := r.Records[0]
		table := map[topology.Stage]map[string][]byte{topology.StageIdentity: c.identity, topology.StageMatch: c.trades}[st]
		var s State = &mapState{table: table, key: rec.Key}
		if st == topology.StageMatch && c.match != nil {
			s = c.match(rec.Key)
		}
		in := Input{Topic: rec.Topic, Key: rec.Key, Value: rec.Value}
		if st == topology.StageIdentity {
			r = c.d.Identity(in, s)
		} else {
			r = c.d.Match(in, s)
		}
	}
	c.outputs = append(c.outputs, r.Outputs...)
	c.ends = append(c.ends, r)
	return r
}

// The decisions without goka: a trade's messages pass the three stages to
// one CLS, each accepted message's journey ending at match; an exact
// duplicate is recognised at identity and answered again by its trade; a
// conflicting one ends in an exception at identity.
func TestDecisionsInPipelineOrder(t *testing.T) {
	c := newChain()
	recs := generated(t, workload.Options{Trades: 1})
	for _, r := range recs {
		if res := c.send(t, r); res.Outcome != "accepted" || res.Envelope.Steps[len(res.Envelope.Steps)-1].Stage != topology.StageIdentity {
			t.Fatalf("outcome %q after %+v", res.Outcome, res.Envelope.Steps)
		}
	}
	cls := 0
	for _, o := range c.outputs {
		if o.IsCLS() {
			cls++
		}
	}
	if cls != 1 || len(c.identity) != len(recs) || len(c.trades) != 1 {
		t.Fatalf("%d CLS, %d identities, %d trades; want 1, %d, 1", cls, len(c.identity), len(c.trades), len(recs))
	}
	dup := c.send(t, recs[0])
	if dup.Outcome != "duplicate" || dup.Matched != MatchedDuplicate || dup.Envelope.Kind != envelope.KindDuplicate || len(dup.Outputs) == 0 {
		t.Fatalf("duplicate: %q, %v, kind %v, %d outputs", dup.Outcome, dup.Matched, dup.Envelope.Kind, len(dup.Outputs))
	}
	other := append(bytes.Clone(recs[1][:len(recs[1])-len("</Msg>")]), "<X/></Msg>"...)
	conflict := c.send(t, other)
	if conflict.Outcome != "rejected" || conflict.Rejected != schemas.ConflictingDuplicate || len(conflict.Records) != 1 ||
		conflict.Records[0].Topic != c.names.Exceptions() {
		t.Fatalf("conflict: %q %v %+v", conflict.Outcome, conflict.Rejected, conflict.Records)
	}
}
