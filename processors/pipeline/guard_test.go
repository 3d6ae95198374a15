package pipeline

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/lovoo/goka"

	"github.com/ste-utility/ste/processors/envelope"
	"github.com/ste-utility/ste/processors/readback"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/workload"
)

// A record that makes a stage panic becomes one INTERNAL exception (payload
// kept, no NACK) with its journey on the audit topic, counted, and the
// stage goes on with the next record; every record, however its callback
// ended, is counted in.
//
// With Config.Inbound set (as Run sets it), the match stage receives no
// record and the INTERNAL exception's payload is read back from inbound by
// the envelope's partition and offset; when it cannot be, the exception
// says where the record is.
func TestGuardTurnsAPanicIntoAnInternalException(t *testing.T) {
	for _, tc := range []struct {
		name      string
		readBack  bool
		readFails bool
	}{{"record in the envelope", false, false}, {"record read back", true, false}, {"read back fails", true, true}} {
		t.Run(tc.name, func(t *testing.T) { checkGuard(t, tc.readBack, tc.readFails) })
	}
}

func checkGuard(t *testing.T, readBack, readFails bool) {
	recs := generated(t, workload.Options{Trades: 2})
	victim := recs[3]
	reads := 0
	g := newGraphWith(t, func(c *Config) {
		if readBack {
			read := readFrom(&recs)
			c.Inbound = func(p int32, offset int64) ([]byte, error) {
				reads++
				if readFails {
					return nil, readback.ErrGone
				}
				return read(p, offset)
			}
		}
		c.Hook = func(st topology.Stage, ctx goka.Context, msg []byte) {
			if st != topology.StageMatch {
				return
			}
			e, err := envelope.Unmarshal(msg)
			if err != nil || e.Kind == envelope.KindExpire {
				return
			}
			if readBack != (e.Raw == nil) {
				t.Errorf("the match stage received the record: %v, want %v", e.Raw != nil, !readBack)
			}
			if e.Offset == 3 {
				var none []int
				_ = none[len(e.MsgId)] // an index out of range: the kind of bug a record could trigger
			}
		}
	}, nil)
	for _, r := range recs {
		g.send("K", r)
	}
	x := g.oneException(t)
	if x.Reason != "INTERNAL" || x.NACK != "" || x.ID != "0-3" ||
		!strings.Contains(x.Detail, "match stage failed") || !strings.Contains(x.Detail, "index out of range") {
		t.Fatalf("exception %+v", x)
	}
	switch {
	case readFails:
		if len(x.Payload) != 0 || !strings.Contains(x.Detail, "find them on t.inbound partition 0 offset 3") {
			t.Fatalf("exception without its record: %+v", x)
		}
	case !bytes.Equal(x.Payload, victim):
		t.Fatalf("payload %q, want the record", x.Payload)
	}
	if want := map[bool]int{false: 0, true: 1}[readBack]; reads != want {
		t.Fatalf("%d read-backs, want %d", reads, want)
	}
	rejected := 0
	for _, b := range g.drain(g.names.Audit()) {
		var a schemas.AuditEvent
		if err := json.Unmarshal(b, &a); err != nil {
			t.Fatal(err)
		}
		if a.Outcome == "rejected" {
			rejected++
			if a.Reason != "INTERNAL" || a.Steps[len(a.Steps)-1].Stage != "match" {
				t.Fatalf("audit of the INTERNAL record %+v", a)
			}
		}
	}
	if rejected != 1 {
		t.Fatalf("%d rejected journeys, want 1", rejected)
	}
	if got := count(g.metrics.Internal.WithLabelValues("match")); got != 1 {
		t.Fatalf("ste_internal_errors_total{match} = %v", got)
	}
	if got := count(g.metrics.In.WithLabelValues("match")); got < float64(len(recs)) {
		t.Fatalf("ste_stage_records_in_total{match} = %v for %d records", got, len(recs))
	}
	if cls := g.drain(g.names.CLS()); len(cls) != 1 {
		t.Fatalf("%d CLS: the other trade should match", len(cls))
	}
}

// The trade finds a CONFLICTING_DUPLICATE the identity stage did not see
// (here its entry claims the other content was the one accepted, so the
// identity stage passes it on as a duplicate; in service, an entry
// forgotten past its memory): the match stage, which received no record,
// reads it back from inbound for the exception's payload.
func TestMatchStageConflictReadsTheRecordBack(t *testing.T) {
	var sent [][]byte
	g := newGraphWith(t, func(c *Config) {
		c.Inbound = readFrom(&sent)
	}, nil)
	send := func(rec []byte) { sent = append(sent, rec); g.send("K", rec) }
	recs := generated(t, workload.Options{Trades: 1})
	genuine := recs[0]
	var dec schemas.Decoder
	m, _ := dec.Decode(genuine)
	send(genuine)
	g.drain(g.names.Outbound())
	other := append(bytes.Clone(genuine[:len(genuine)-len("</Msg>")]), "<X/></Msg>"...)
	vd := validation.New(refdata.Default()).Inspect(&dec, other)
	g.tt.SetTableValue(goka.GroupTable(goka.Group(g.names.IdentityGroup())), envelope.IdentityKey(m.Sender, m.MsgId),
		envelope.Identity{Digest: vd.Digest, Created: m.Created, TradeKey: m.Key.TradeKey()}.Marshal())
	send(other)
	x := g.oneException(t)
	if x.Reason != "CONFLICTING_DUPLICATE" || !bytes.Equal(x.Payload, other) || x.ID != "0-1" || x.NACK == "" {
		t.Fatalf("exception %+v", x)
	}
	var last schemas.AuditEvent
	for _, b := range g.drain(g.names.Audit()) {
		if err := json.Unmarshal(b, &last); err != nil {
			t.Fatal(err)
		}
	}
	if last.Outcome != "rejected" || last.Steps[len(last.Steps)-1].Stage != "match" {
		t.Fatalf("the conflict was not found by the trade: %+v", last)
	}
}

// A valid message's verdict carries no record (a sixth of the brokers'
// bytes); the identity stage, finding another content under an accepted
// identity, reads the record back for the exception's payload. A message
// already invalid keeps its record: its exception is certain, and no read
// is made for it.
func TestIdentityStageConflictReadsTheRecordBack(t *testing.T) {
	var sent [][]byte
	reads := 0
	read := readFrom(&sent)
	rawAtIdentity := map[int64]bool{}
	g := newGraphWith(t, func(c *Config) {
		c.Inbound = func(p int32, offset int64) ([]byte, error) { reads++; return read(p, offset) }
		c.Hook = func(st topology.Stage, ctx goka.Context, msg []byte) {
			if e, err := envelope.Unmarshal(msg); st == topology.StageIdentity && err == nil {
				rawAtIdentity[e.Offset] = e.Raw != nil
			}
		}
	}, nil)
	send := func(rec []byte) { sent = append(sent, rec); g.send("K", rec) }
	recs := generated(t, workload.Options{Trades: 1})
	genuine := recs[0]
	send(genuine)
	// Same identity, other bytes (outside the signed range: still valid).
	other := append(bytes.Clone(genuine[:len(genuine)-len("</Msg>")]), "<X/></Msg>"...)
	send(other)
	x := g.oneException(t)
	if x.Reason != "CONFLICTING_DUPLICATE" || !bytes.Equal(x.Payload, other) || x.ID != "0-1" || x.NACK == "" {
		t.Fatalf("exception %+v", x)
	}
	if rawAtIdentity[0] || rawAtIdentity[1] || reads != 1 {
		t.Fatalf("records at the identity stage %v, read-backs %d: want none, and one read", rawAtIdentity, reads)
	}
	// Another message's signature broken: invalid at validation, decided at
	// identity with its record in hand.
	bad := bytes.Replace(bytes.Clone(recs[1]), []byte("<Sig alg=\"ed25519\">"), []byte("<Sig alg=\"ed25519\">AAAA"), 1)
	send(bad)
	x = g.oneException(t)
	if x.Reason != "SIGNATURE" || !bytes.Equal(x.Payload, bad) || !rawAtIdentity[2] || reads != 1 {
		t.Fatalf("exception %+v, record at identity %v, read-backs %d", x, rawAtIdentity[2], reads)
	}
}

// oneException is the one exception written since the last drain.
func (g *graph) oneException(t *testing.T) schemas.Exception {
	t.Helper()
	excs := g.drain(g.names.Exceptions())
	if len(excs) != 1 {
		t.Fatalf("%d exceptions, want 1", len(excs))
	}
	var x schemas.Exception
	if err := json.Unmarshal(excs[0], &x); err != nil {
		t.Fatal(err)
	}
	return x
}

// readFrom reads the tester's inbound back as Run's reader reads Kafka's:
// one partition, the records at their order of sending.
func readFrom(recs *[][]byte) func(p int32, offset int64) ([]byte, error) {
	return func(p int32, offset int64) ([]byte, error) {
		if p != 0 || offset < 0 || offset >= int64(len(*recs)) {
			return nil, readback.ErrGone
		}
		return (*recs)[offset], nil
	}
}

// A NACK is the same whether or not its record could be read back for the
// exception: the note on a missing record is the operator's, in the
// exception's detail. A message applied again after a restart answers the
// same NACK (make chaos-cluster found one NACK:… of two contents when the
// second read-back failed).
func TestANackDoesNotDependOnTheReadBack(t *testing.T) {
	nackDetail := func(readFails bool) (string, schemas.Exception) {
		var sent [][]byte
		read := readFrom(&sent)
		g := newGraphWith(t, func(c *Config) {
			c.Inbound = func(p int32, offset int64) ([]byte, error) {
				if readFails {
					return nil, readback.ErrGone
				}
				return read(p, offset)
			}
		}, nil)
		genuine := generated(t, workload.Options{Trades: 1})[0]
		other := append(bytes.Clone(genuine[:len(genuine)-len("</Msg>")]), "<X/></Msg>"...)
		for _, rec := range [][]byte{genuine, other} {
			sent = append(sent, rec)
			g.send("K", rec)
		}
		x := g.oneException(t)
		for _, b := range g.drain(g.names.Outbound()) {
			if s := string(b); strings.Contains(s, "<MsgType>NACK</MsgType>") {
				return s[strings.Index(s, "<Detail>"):strings.Index(s, "</Detail>")], x
			}
		}
		t.Fatal("no NACK")
		return "", x
	}
	read, x := nackDetail(false)
	if x.Reason != "CONFLICTING_DUPLICATE" || len(x.Payload) == 0 {
		t.Fatalf("exception %+v", x)
	}
	unread, ux := nackDetail(true)
	if unread != read {
		t.Fatalf("the NACK's detail depends on the read-back:\n%s\n%s", read, unread)
	}
	if len(ux.Payload) != 0 || !strings.Contains(ux.Detail, "find them on") {
		t.Fatalf("the exception without its record says nothing of it: %+v", ux)
	}
}
