package pipeline

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/lovoo/goka"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/workload"
)

// A record that makes a stage panic becomes one INTERNAL exception (payload
// kept, no NACK) with its journey on the audit topic, counted, and the
// stage goes on with the next record; every record, however its callback
// ended, is counted in.
func TestGuardTurnsAPanicIntoAnInternalException(t *testing.T) {
	var recs [][]byte
	if _, err := workload.Generate(workload.Options{Trades: 2}, func(b []byte) error { recs = append(recs, b); return nil }, nil); err != nil {
		t.Fatal(err)
	}
	victim := recs[3]
	g := newGraphWith(t, func(c *Config) {
		c.Hook = func(st Stage, ctx goka.Context, msg any) {
			if st != StageMatch {
				return
			}
			if e, err := UnmarshalEnvelope(msg.([]byte)); err == nil && bytes.Equal(e.Raw, victim) {
				var none []int
				_ = none[len(e.Raw)] // an index out of range: the kind of bug a record could trigger
			}
		}
	}, nil)
	for _, r := range recs {
		g.send("K", r)
	}
	excs := g.drain(g.names.Exceptions())
	if len(excs) != 1 {
		t.Fatalf("%d exceptions, want 1", len(excs))
	}
	var x schemas.Exception
	if err := json.Unmarshal(excs[0], &x); err != nil {
		t.Fatal(err)
	}
	if x.Reason != "INTERNAL" || !bytes.Equal(x.Payload, victim) || x.NACK != "" ||
		!strings.Contains(x.Detail, "match stage failed") || !strings.Contains(x.Detail, "index out of range") {
		t.Fatalf("exception %+v", x)
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
