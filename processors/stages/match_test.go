package stages

import (
	"testing"
	"time"

	"github.com/ste-utility/ste/processors/envelope"
	"github.com/ste-utility/ste/processors/memstore"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/workload"
)

// A compact form this build cannot read (a later version of it) is passed
// over: the record itself is decoded.
func TestUnknownCompactVersionFallsBackToTheRecord(t *testing.T) {
	recs := generated(t, workload.Options{Trades: 1})
	d := New(Config{})
	e := &envelope.Envelope{Raw: recs[0], Decoded: []byte{99, 1, 2, 3}}
	m := d.message(e)
	if m == nil || m.Key.TradeRef == "" {
		t.Fatalf("no message from the record: %+v", m)
	}
	var dec schemas.Decoder
	want, _ := dec.Decode(recs[0])
	if m.Key != want.Key || m.MsgId != want.MsgId {
		t.Fatalf("decoded %+v, want %+v", m.Key, want.Key)
	}
}

// storeState is a key's state in a match table store (processors/memstore),
// whose clock and due index the sweep reads; loopbacks are counted.
type storeState struct {
	s     *memstore.Store
	key   string
	loops *int
}

func (x storeState) Value() []byte {
	v, _ := x.s.Get(x.key)
	return v
}
func (x storeState) SetValue(v []byte)       { _ = x.s.Set(x.key, v) }
func (x storeState) Delete()                 { _ = x.s.Delete(x.key) }
func (x storeState) Loopback(string, []byte) { *x.loops++ }

// TestClockJumpReported (issue 51): the message that moves its match
// partition's event-time clock by more than the retention at once says so
// in its Result — the clock before it (ClockJumpedFrom) beside the clock
// after (Clock) — which the runtime warns of and counts; the sweep it
// makes asks for the older trades to be expired. A move within the
// retention, and the messages after the jump, report none.
func TestClockJumpReported(t *testing.T) {
	c := newChain()
	var d *Decider
	store := memstore.New(func(v []byte) (int64, int64, bool) { return d.MatchIndex(v) })
	d = New(Config{Names: c.names, Validator: validation.New(refdata.Default()), UtilityBIC: "STEUTLSGXXX",
		Tables: func(st topology.Stage, _ int32) Table {
			if st == topology.StageMatch {
				return store
			}
			return nil
		}})
	c.d = d
	loops := 0
	c.match = func(key string) State { return storeState{store, key, &loops} }
	send := func(o workload.Options) (jumps []*Result) {
		t.Helper()
		for _, raw := range generated(t, o) {
			if r := c.send(t, raw); r.ClockJumpedFrom != 0 {
				jumps = append(jumps, r)
			}
		}
		return jumps
	}
	if j := send(workload.Options{Trades: 5, Seed: 1, TradeDate: date.MustParse("2026-11-02")}); len(j) != 0 {
		t.Fatalf("one day's set: %d jumps reported (from %d)", len(j), j[0].ClockJumpedFrom)
	}
	if j := send(workload.Options{Trades: 5, Seed: 2, TradeDate: date.MustParse("2026-11-04")}); len(j) != 0 {
		t.Fatalf("two days on, within the retention: %d jumps reported", len(j))
	}
	before, loopsBefore := store.Clock(), loops
	j := send(workload.Options{Trades: 1, Seed: 3, TradeDate: date.MustParse("2026-12-02")})
	if len(j) != 1 {
		t.Fatalf("a month on: %d jumps reported, want 1 (the first message of the new day)", len(j))
	}
	if j[0].ClockJumpedFrom != before || !j[0].ClockRead || j[0].Clock-before < int64(27*24*time.Hour) {
		t.Errorf("jump reported from %d to %d (read %v); the clock was %d before", j[0].ClockJumpedFrom, j[0].Clock, j[0].ClockRead, before)
	}
	if loops-loopsBefore < 10 {
		t.Errorf("%d trades asked to be expired after the jump, want the 10 older ones", loops-loopsBefore)
	}
}
