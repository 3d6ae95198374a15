package stages

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/ste-utility/ste/processors/envelope"
	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/workload"
)

// pipe routes records between the decisions as the topics would, every
// record a stage writes to inbound, verdicts, accepted or the loopback
// handed to the stage that reads it, in order; it keeps the outputs and
// what was written to inbound.
type pipe struct {
	t        *testing.T
	d        *Decider
	names    topology.Names
	identity map[string][]byte
	trades   map[string][]byte
	offset   int64
	outputs  []schemas.Output
	inbound  [][]byte // records the match stage wrote to <ns>.inbound
	excs     int
	// hold: records to <ns>.inbound are kept, not delivered (a crash
	// before they reach the broker).
	hold bool
	// wrote, when set, is told of each write to the match table.
	wrote func(key string)
}

const utilityBIC = "STEUTLSGXXX"

func newPipe(t *testing.T, ref *refdata.Set, cfg Config) *pipe {
	n := topology.Names{NS: "t"}
	cfg.Names, cfg.UtilityBIC = n, utilityBIC
	cfg.Validator = validation.New(ref, validation.WithUtilityBIC(utilityBIC))
	cfg.Affirmation, cfg.UtilityKey = ref, refdata.DemoPrivateKey(utilityBIC)
	return &pipe{t: t, d: New(cfg), names: n, identity: map[string][]byte{}, trades: map[string][]byte{}}
}

// send delivers an inbound record and everything it causes.
func (p *pipe) send(raw []byte) {
	p.t.Helper()
	p.deliver(Record{Topic: p.names.Inbound(), Value: raw})
}

func (p *pipe) deliver(rec Record) {
	p.t.Helper()
	queue := []Record{rec}
	for len(queue) > 0 {
		rec, queue = queue[0], queue[1:]
		var r *Result
		in := Input{Topic: rec.Topic, Key: rec.Key, Value: rec.Value}
		switch rec.Topic {
		case p.names.Inbound():
			in.Offset = p.offset
			p.offset++
			r = p.d.Validate(in)
		case p.names.Verdicts():
			r = p.d.Identity(in, &mapState{table: p.identity, key: rec.Key})
		case p.names.Accepted(), topology.Loop(p.names.MatchGroup()):
			s := &mapState{table: p.trades, key: rec.Key, wrote: p.wrote}
			r = p.d.Match(in, s)
			for _, l := range s.loops {
				queue = append(queue, Record{Topic: topology.Loop(p.names.MatchGroup()), Key: l.Key, Value: l.Value})
			}
		default:
			continue
		}
		p.outputs = append(p.outputs, r.Outputs...)
		for _, x := range r.Records {
			switch x.Topic {
			case p.names.Exceptions():
				p.excs++
			case p.names.Inbound():
				p.inbound = append(p.inbound, x.Value)
				if p.hold {
					continue
				}
			}
			queue = append(queue, x)
		}
	}
}

// status is the body of the last STATUS sent to receiver about trade key.
func (p *pipe) status(key, receiver string) string {
	last := ""
	for _, o := range p.outputs {
		if o.Type == schemas.STATUS && o.Receiver == receiver && strings.Contains(o.MsgId, key) {
			last = string(o.Body)
		}
	}
	return last
}

func (p *pipe) trade(key string) *matching.Trade {
	p.t.Helper()
	tr, err := matching.UnmarshalTrade(p.trades[key], nil)
	if err != nil {
		p.t.Fatal(err)
	}
	return tr
}

// oneTrade is a generated trade of one allocation and its investment
// manager, AUTO in the reference data returned.
func oneTrade(t *testing.T) (recs [][]byte, key string, invMgr string, ref *refdata.Set) {
	recs = generated(t, workload.Options{Trades: 1, Seed: 3})
	var d schemas.Decoder
	m, rej := d.Decode(recs[0])
	if rej != nil {
		t.Fatal(rej)
	}
	ref = refdata.Default().Clone()
	ref.PutAffirmation(refdata.Affirmation{InvMgr: m.Key.InvMgr, Mode: refdata.AffirmAuto})
	return recs, m.Key.TradeKey().String(), m.Key.InvMgr, ref
}

// For an AUTO investment manager the match stage writes the utility's AFF
// to <ns>.inbound, signed with the utility's key; applied, it locks the
// trade. Lost before reaching the broker (a kill -9 after the trade's
// write), it is written again, byte for byte, by the redelivered message,
// and not once the trade holds it.
func TestAutoAffirmationToInbound(t *testing.T) {
	recs, key, invMgr, ref := oneTrade(t)
	p := newPipe(t, ref, Config{})
	p.hold = true
	for _, r := range recs {
		p.send(r)
	}
	if len(p.inbound) != 1 {
		t.Fatalf("%d records to inbound, want the utility's AFF", len(p.inbound))
	}
	aff := p.inbound[0]
	if !bytes.Contains(aff, []byte("<Sender>"+utilityBIC+"</Sender>")) || !bytes.Contains(aff, []byte("<MsgId>AUTO:"+key+":")) {
		t.Fatalf("not the utility's AFF: %s", aff)
	}
	if st := p.status(key, invMgr); !strings.Contains(st, "<Status>MATCHED</Status>") {
		t.Fatalf("status %s", st)
	}
	// The last message again (redelivered): the AFF again, the same bytes.
	p.send(recs[len(recs)-1])
	if len(p.inbound) != 2 || !bytes.Equal(p.inbound[1], aff) {
		t.Fatalf("redelivery wrote %d records to inbound, not the same AFF", len(p.inbound)-1)
	}
	// Delivered: the trade is locked, and nothing is written again.
	p.hold = false
	p.send(aff)
	if st := p.status(key, invMgr); !strings.Contains(st, "<Status>AFFIRMED</Status>") || !p.trade(key).Locked {
		t.Fatalf("after the AFF: %s", st)
	}
	n := len(p.inbound)
	p.send(recs[0])
	p.send(aff) // a copy: an exact duplicate
	if len(p.inbound) != n || p.excs != 0 {
		t.Fatalf("%d more records to inbound, %d exceptions", len(p.inbound)-n, p.excs)
	}
	// MANUAL (no mode, or no key to sign with): nothing is written.
	q := newPipe(t, refdata.Default(), Config{})
	for _, r := range recs {
		q.send(r)
	}
	if len(q.inbound) != 0 {
		t.Fatalf("MANUAL: %d records to inbound", len(q.inbound))
	}
}

// A message its trade rejects does not claim its MsgId (messages.md §4): a
// KEY_COLLISION, or a conflict with a message the identity stage forgot,
// releases the identity, so the genuine message with that MsgId is then
// accepted (or recognised as the duplicate it is).
func TestRejectedAtTheTradeReleasesTheIdentity(t *testing.T) {
	recs, key, _, ref := oneTrade(t)
	p := newPipe(t, ref, Config{})
	// A trade of other key fields holds this trade key (a 64-bit hash:
	// planted, as a real collision is not found in a test).
	other := generated(t, workload.Options{Trades: 1, Seed: 9})
	q := newPipe(t, refdata.Default(), Config{})
	q.send(other[0])
	var holder []byte
	for _, v := range q.trades {
		holder = v
	}
	tr, _ := matching.UnmarshalTrade(holder, nil)
	tr.Key, _ = schemas.ParseTradeKey(key)
	p.trades[key], _ = tr.MarshalBinary()
	p.send(recs[0])
	if p.excs != 1 || len(p.identity) != 0 {
		t.Fatalf("KEY_COLLISION: %d exceptions, %d identities claimed", p.excs, len(p.identity))
	}
	if len(p.outputs) != 1 || p.outputs[0].Type != schemas.NACK || !bytes.Contains(p.outputs[0].Body, []byte("KEY_COLLISION")) {
		t.Fatalf("outputs %+v", p.outputs)
	}
	// The holder gone, the same message is accepted: its MsgId was not claimed.
	delete(p.trades, key)
	p.send(recs[0])
	if len(p.identity) != 1 || p.excs != 1 {
		t.Fatalf("after the release: %d identities, %d exceptions", len(p.identity), p.excs)
	}
	// A message the identity stage forgot (past its memory) whose trade
	// holds other bytes under its identity: CONFLICTING_DUPLICATE at the
	// trade, and the claim of the other bytes withdrawn — the genuine
	// copy is then a duplicate, not a conflict.
	clear(p.identity)
	conflict := append(bytes.Clone(recs[0][:len(recs[0])-len("</Msg>")]), "<X/></Msg>"...)
	p.send(conflict)
	if p.excs != 2 || len(p.identity) != 0 {
		t.Fatalf("conflict at the trade: %d exceptions, %d identities", p.excs, len(p.identity))
	}
	n := len(p.outputs)
	p.send(recs[0])
	if p.excs != 2 || p.outputs[n].Type != schemas.ACK {
		t.Fatalf("the genuine copy: %d exceptions, %+v", p.excs, p.outputs[n])
	}
	// A release applies only to the claim it names.
	p.identity["X:Y"] = envelope.Identity{Digest: matching.Digest{1}}.Marshal()
	p.deliver(Record{Topic: p.names.Verdicts(), Key: "X:Y", Value: envelope.Release{Digest: matching.Digest{2}}.Marshal()})
	if p.identity["X:Y"] == nil {
		t.Fatal("a release of other bytes deleted the claim")
	}
}

// With a delay, a message sets the trade's timer (wall clock) and sends no
// ALG; the timer's record alleges what stands (ste match's allegements),
// and a copy of it re-sends the same records. With AllegeEveryMessage the
// allegements follow each message.
func TestAllegementsAfterTheDelay(t *testing.T) {
	recs, key, _, _ := oneTrade(t)
	now := time.Unix(1_800_000_000, 0)
	p := newPipe(t, refdata.Default(), Config{AllegementDelay: time.Minute, Now: func() time.Time { return now }})
	p.send(recs[0])
	tr := p.trade(key)
	if tr.AllegeAt != now.Add(time.Minute).UnixMicro() || len(only(p.outputs, schemas.ALG)) != 0 {
		t.Fatalf("timer %d, %d ALGs", tr.AllegeAt, len(only(p.outputs, schemas.ALG)))
	}
	if at, ok := AllegeIndex(p.trades[key]); !ok || at != tr.AllegeAt {
		t.Fatalf("AllegeIndex %d %v", at, ok)
	}
	loop := func(at time.Time) {
		e := &envelope.Envelope{Kind: envelope.KindAllege, Partition: -1, Offset: -1, Clock: at.UnixMicro()}
		p.deliver(Record{Topic: topology.Loop(p.names.MatchGroup()), Key: key, Value: e.Marshal()})
	}
	loop(now.Add(30 * time.Second)) // a record for another timer: nothing
	if len(only(p.outputs, schemas.ALG)) != 0 {
		t.Fatal("alleged before the delay")
	}
	loop(now.Add(time.Minute))
	want := p.trade(key).StandingAllegements()
	got := only(p.outputs, schemas.ALG)
	if len(want) == 0 || len(got) != len(want) || p.trade(key).AllegeAt > 0 {
		t.Fatalf("%d ALGs, %d standing", len(got), len(want))
	}
	for i := range want {
		if got[i].Receiver != want[i].Receiver || !bytes.Equal(got[i].Body, want[i].Body) {
			t.Fatalf("ALG %d: %s", i, got[i].Body)
		}
	}
	loop(now.Add(2 * time.Minute)) // a copy: the same records again
	again := only(p.outputs, schemas.ALG)[len(got):]
	if len(again) != len(got) || again[0].MsgId != got[0].MsgId {
		t.Fatalf("copy: %d ALGs", len(again))
	}
	// The rest of the trade: matched, the standing ALGs withdrawn by the
	// next timer — a later one than the first, though set at the same
	// time: a record for the first does nothing but re-send.
	for _, r := range recs[1:] {
		p.send(r)
	}
	if at := p.trade(key).AllegeAt; at <= now.Add(time.Minute).UnixMicro() {
		t.Fatalf("the next timer %d is not later than the first", at)
	}
	loop(now.Add(time.Minute))
	for _, o := range only(p.outputs, schemas.ALG)[len(got)+len(again):] {
		if o.Function == schemas.CANCEL {
			t.Fatal("a record for a timer gone withdrew the ALGs")
		}
	}
	loop(time.UnixMicro(p.trade(key).AllegeAt))
	cancels := 0
	for _, o := range only(p.outputs, schemas.ALG) {
		if o.Function == schemas.CANCEL {
			cancels++
		}
	}
	if cancels != len(want) || p.trade(key).MayAllege() {
		t.Fatalf("%d ALG CANCELs, want %d", cancels, len(want))
	}

	q := newPipe(t, refdata.Default(), Config{AllegementDelay: AllegeEveryMessage})
	q.send(recs[0])
	if n := len(only(q.outputs, schemas.ALG)); n != len(want) || q.trade(key).AllegeAt > 0 {
		t.Fatalf("after every message: %d ALGs", n)
	}
}

func only(out []schemas.Output, typ schemas.MsgType) []schemas.Output {
	var r []schemas.Output
	for _, o := range out {
		if o.Type == typ {
			r = append(r, o)
		}
	}
	return r
}

// A tombstone of a locked or cancelled trade lives no shorter than the
// retention (messages.md §5), in the due index and at its expiry.
func TestLockedTombstoneLivesTheRetention(t *testing.T) {
	d := New(Config{Retention: 72 * time.Hour, TombstoneTTL: time.Hour})
	plain := matching.MarshalTombstone(1, matching.Tombstone{PurgedAt: 10})
	locked := matching.MarshalTombstone(1, matching.Tombstone{PurgedAt: 10, Locked: true})
	if due, _, _ := d.MatchIndex(plain); due != 10+int64(time.Hour) {
		t.Fatalf("plain tombstone due %d", due)
	}
	if due, _, _ := d.MatchIndex(locked); due != 10+int64(72*time.Hour) {
		t.Fatalf("locked tombstone due %d", due)
	}
	s := &mapState{table: map[string][]byte{"k": locked}, key: "k"}
	e := &envelope.Envelope{Kind: envelope.KindExpire, Clock: 10 + int64(2*time.Hour)}
	d.expire(Input{}, s, 1, e, matching.Interner{})
	if s.table["k"] == nil {
		t.Fatal("a locked tombstone deleted after the TTL, before the retention")
	}
}

// An allegement's outputs lost with a crash after its value was written
// (the changelog acknowledged, the ALGs not) are sent again when its
// loopback comes back, even when a message of the trade came first and
// moved its timer on: the value then says the ALGs were sent, and the next
// allegement step would send only what differs from them — a CANCEL never
// sent would never be sent (the Kafka chaos suite found such trades: an ALG
// NEW standing on the topic after the trade matched, seed
// 1796586772781148813).
func TestAllegementsLostWithACrashAreSentAgain(t *testing.T) {
	recs, key, _, _ := oneTrade(t)
	now := time.Unix(1_800_000_000, 0)
	p := newPipe(t, refdata.Default(), Config{AllegementDelay: time.Minute, Now: func() time.Time { return now }})
	p.send(recs[0])
	loop := func(at time.Time) {
		e := &envelope.Envelope{Kind: envelope.KindAllege, Partition: -1, Offset: -1, Clock: at.UnixMicro()}
		p.deliver(Record{Topic: topology.Loop(p.names.MatchGroup()), Key: key, Value: e.Marshal()})
	}
	fired := now.Add(time.Minute)
	loop(fired)
	lost := only(p.outputs, schemas.ALG)
	if len(lost) == 0 {
		t.Fatal("no allegement to lose")
	}
	// The crash: the ALGs never reached the topic; the value did. The
	// restarted instance reads the trade's next message before the
	// loopback's redelivery.
	p.outputs = nil
	now = now.Add(90 * time.Second)
	p.send(recs[1])
	if at := p.trade(key).AllegeAt; at <= fired.UnixMicro() {
		t.Fatalf("the message did not move the timer on: %d", at)
	}
	before := len(only(p.outputs, schemas.ALG))
	loop(fired)
	again := map[string]bool{}
	for _, o := range only(p.outputs, schemas.ALG)[before:] {
		again[o.MsgId] = true
	}
	for _, o := range lost {
		if !again[o.MsgId] {
			t.Errorf("%s %s lost with the crash is not sent again", o.MsgId, o.Function)
		}
	}
}
