package pipeline

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/workload"
)

// FuzzPipeline drives the three groups (goka's tester: no broker, fresh
// state for every input, so that an input always takes the same path) with
// the input's lines as inbound records, in order — a sequence, so that the
// fuzzer reaches duplicates, conflicts, cancels and matches. Whatever a record
// is, it ends in exactly one journey on <ns>.audit (nothing dropped
// silently), in an exception when rejected and an ACK when accepted or a
// duplicate; every output is a well-formed message in valid UTF-8, every
// exception one JSON object that echoes at most 128 characters of a value.
func FuzzPipeline(f *testing.F) {
	var trade [][]byte
	if _, err := workload.Generate(workload.Options{Trades: 3, Mix: workload.Realistic, Seed: 7},
		func(b []byte) error { trade = append(trade, append([]byte(nil), b...)); return nil }, nil); err != nil {
		f.Fatal(err)
	}
	f.Add(bytes.Join(trade, []byte("\n")))
	for _, r := range trade[:4] {
		f.Add(r)
	}
	f.Add(append(append(append([]byte(nil), trade[0]...), '\n'), trade[0]...)) // a duplicate
	f.Add([]byte("\n<Msg><Header><Sender>BRKASGSGXXX</Sender></Header><Body/></Msg>"))
	f.Fuzz(func(t *testing.T, in []byte) {
		recs := bytes.Split(in, []byte("\n"))
		if len(recs) > 32 {
			return // long sequences add time, not paths
		}
		g := newGraph(t)
		for _, rec := range recs {
			checkOneRecord(t, g, rec)
		}
	})
}

// checkOneRecord sends one inbound record and checks what came of it.
func checkOneRecord(t *testing.T, g *graph, rec []byte) {
	g.send("K", rec)
	journeys, outcome := 0, ""
	for _, b := range g.drain(g.names.Audit()) {
		var a schemas.AuditEvent
		if err := json.Unmarshal(b, &a); err != nil {
			t.Fatalf("audit event is not JSON: %v: %.300s", err, b)
		}
		if a.Outcome != "expired" {
			journeys++
			outcome = a.Outcome
		}
	}
	if journeys != 1 {
		t.Fatalf("%d journeys for the record %q", journeys, rec)
	}
	excs := g.drain(g.names.Exceptions())
	if (outcome == "rejected") != (len(excs) == 1) || len(excs) > 1 {
		t.Fatalf("outcome %s with %d exceptions", outcome, len(excs))
	}
	for _, b := range excs {
		var e schemas.Exception
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatalf("exception is not JSON: %v", err)
		}
		if _, ok := schemas.ParseReason(e.Reason); !ok {
			t.Fatalf("exception reason %q", e.Reason)
		}
		if utf8.RuneCountInString(e.MsgId) > schemas.MaxEcho || utf8.RuneCountInString(e.Sender) > schemas.MaxEcho {
			t.Fatalf("exception echoes %d and %d characters", utf8.RuneCountInString(e.MsgId), utf8.RuneCountInString(e.Sender))
		}
	}
	acked := false
	for _, topic := range []string{g.names.Outbound(), g.names.CLS()} {
		for _, b := range g.drain(topic) {
			o, err := schemas.ParseOutput(b)
			if err != nil || !utf8.Valid(b) {
				t.Fatalf("output is not a well-formed message (%v): %.300s", err, b)
			}
			acked = acked || o.MsgType == "ACK"
		}
	}
	if (outcome == "accepted" || outcome == "duplicate") && !acked {
		t.Fatalf("outcome %s without an ACK", outcome)
	}
}
