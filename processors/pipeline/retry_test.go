package pipeline

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/lovoo/goka"
	"github.com/lovoo/goka/tester"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/workload"
)

// An operator's retry (docs/spec/messages.md §7): the ste-retry-of and ste-retry-by
// headers of an inbound record reach the exception of a record rejected
// again (retry_of) and the audit record of its journey, whichever stage
// ends it.
func TestRetryHeadersReachExceptionAndAudit(t *testing.T) {
	g := newGraph(t)
	recs := generated(t, workload.Options{Trades: 1})
	retry := func(id string) tester.EmitOption {
		return tester.WithHeaders(goka.Headers{schemas.RetryOfHeader: []byte(id), schemas.RetryByHeader: []byte("alice")})
	}
	// Valid: its journey ends at match, accepted.
	g.tt.Consume(g.names.Inbound(), "K", recs[0], retry("2-40"))
	// Rejected at validate (no identity) and at identity (readable identity).
	g.tt.Consume(g.names.Inbound(), "K", []byte("<Msg>"), retry("5-7"))
	bad := bytes.Replace(recs[1], []byte("<Sig alg=\"ed25519\">"), []byte("<Sig alg=\"ed25519\">AAAA"), 1)
	g.tt.Consume(g.names.Inbound(), "K", bad, retry("6-8"))
	// An ordinary record carries neither.
	g.send("K", recs[2])

	var audits []schemas.AuditEvent
	for _, b := range g.drain(g.names.Audit()) {
		var a schemas.AuditEvent
		if err := json.Unmarshal(b, &a); err != nil {
			t.Fatal(err)
		}
		audits = append(audits, a)
	}
	want := []struct{ outcome, retryOf string }{{"accepted", "2-40"}, {"rejected", "5-7"}, {"rejected", "6-8"}, {"accepted", ""}}
	if len(audits) != len(want) {
		t.Fatalf("%d audit records, want %d", len(audits), len(want))
	}
	for i, w := range want {
		a := audits[i]
		by := ""
		if w.retryOf != "" {
			by = "alice"
		}
		if a.Outcome != w.outcome || a.RetryOf != w.retryOf || a.RetriedBy != by {
			t.Errorf("audit %d: outcome %s retry_of %q retried_by %q, want %s %q %q", i, a.Outcome, a.RetryOf, a.RetriedBy, w.outcome, w.retryOf, by)
		}
	}
	excs := g.drain(g.names.Exceptions())
	if len(excs) != 2 {
		t.Fatalf("%d exceptions, want 2", len(excs))
	}
	for i, id := range []string{"5-7", "6-8"} {
		var e schemas.Exception
		if err := json.Unmarshal(excs[i], &e); err != nil {
			t.Fatal(err)
		}
		if e.RetryOf != id {
			t.Errorf("exception %s: retry_of %q, want %q", e.ID, e.RetryOf, id)
		}
	}
}
