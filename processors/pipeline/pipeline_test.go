package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/lovoo/goka"
	"github.com/lovoo/goka/tester"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/ste-utility/ste/processors/envelope"
	"github.com/ste-utility/ste/processors/gokaconf"
	"github.com/ste-utility/ste/processors/metrics"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/workload"
)

// graph runs the three groups in goka's broker-free tester: the topology and
// the stages' logic, not partitioning, rebalances or crashes (e2e does those).
type graph struct {
	tt      *tester.Tester
	names   topology.Names
	out     map[string]*tester.QueueTracker
	metrics *metrics.Metrics
	log     *bytes.Buffer // what the stages logged
}

func newGraph(t testing.TB) *graph { return newGraphWith(t, nil, nil) }

// newGraphWith is newGraph with the stages' configuration changed by cfg and
// their callbacks by cbs (either nil: as they are).
// generated is a generated set's records, in order.
func generated(t testing.TB, o workload.Options) [][]byte {
	t.Helper()
	var recs [][]byte
	if _, err := workload.Generate(o, func(b []byte) error { recs = append(recs, b); return nil }, nil); err != nil {
		t.Fatal(err)
	}
	return recs
}

func newGraphWith(t testing.TB, cfg func(*Config), cbs func(Callbacks) Callbacks) *graph {
	tt := tester.New(t)
	n := topology.Names{NS: "t"}
	var logBuf bytes.Buffer
	m := metrics.New(prometheus.NewRegistry())
	c := Config{Names: n, Validator: validation.New(refdata.Default()),
		Signer:  &schemas.Signer{BIC: "STEUTLSGXXX", Key: refdata.DemoPrivateKey("STEUTLSGXXX")},
		Metrics: m, Logger: slog.New(slog.NewTextHandler(&logBuf, nil))}
	if cfg != nil {
		cfg(&c)
	}
	s := newWiring(c, nil)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	callbacks := s.callbacks()
	if cbs != nil {
		callbacks = cbs(callbacks)
	}
	for _, g := range Graphs(n, callbacks) {
		p, err := goka.NewProcessor(nil, g, nilHandling(), goka.WithTester(tt), goka.WithLogger(gokaconf.Logger(s.log)))
		if err != nil {
			t.Fatal(err)
		}
		go p.Run(ctx)
		if err := p.WaitForReadyContext(ctx); err != nil {
			t.Fatal(err)
		}
	}
	gr := &graph{tt: tt, names: n, out: map[string]*tester.QueueTracker{}, metrics: m, log: &logBuf}
	for _, topic := range []string{n.CLS(), n.Outbound(), n.Exceptions(), n.Audit()} {
		gr.out[topic] = tt.NewQueueTracker(topic)
	}
	return gr
}

func (g *graph) send(key string, rec []byte) { g.tt.Consume(g.names.Inbound(), key, rec) }

// drain returns what was emitted to a topic since the last call.
func (g *graph) drain(topic string) [][]byte {
	var out [][]byte
	for {
		_, v, ok := g.out[topic].NextRaw()
		if !ok {
			return out
		}
		out = append(out, v)
	}
}

func TestGraphMatchesAStandardTrade(t *testing.T) {
	g := newGraph(t)
	recs := generated(t, workload.Options{Trades: 3})
	for _, r := range recs {
		g.send("any", r)
	}
	cls := g.drain(g.names.CLS())
	if len(cls) != 3 {
		t.Fatalf("%d CLS, want 3", len(cls))
	}
	out := g.drain(g.names.Outbound())
	acks := 0
	for _, o := range out {
		if bytes.Contains(o, []byte("<MsgType>ACK</MsgType>")) {
			acks++
		}
	}
	if acks != len(recs) {
		t.Fatalf("%d ACKs for %d messages", acks, len(recs))
	}
	if n := len(g.drain(g.names.Audit())); n != len(recs) {
		t.Fatalf("%d audit records for %d messages (one journey each)", n, len(recs))
	}
	// An exact duplicate re-emits the trade's CLS and changes nothing.
	g.send("any", recs[0])
	if again := g.drain(g.names.CLS()); len(again) == 0 {
		t.Fatal("duplicate of a matched trade's message did not re-emit its CLS")
	}
	if len(g.drain(g.names.Exceptions())) != 0 {
		t.Fatal("a duplicate is not an exception")
	}
	// Conflicting duplicate: same identity, other bytes (outside the signed range).
	g.send("any", append(recs[1][:len(recs[1])-len("</Msg>"):len(recs[1])-len("</Msg>")], []byte("<X/></Msg>")...))
	excs := g.drain(g.names.Exceptions())
	if len(excs) != 1 || !bytes.Contains(excs[0], []byte("CONFLICTING_DUPLICATE")) {
		t.Fatalf("exceptions %s", excs)
	}
}

func TestGraphRejectsWhatCannotBeRead(t *testing.T) {
	g := newGraph(t)
	g.send("", []byte("not xml"))
	g.send("", []byte(strings.Repeat("x", schemas.MaxRecord+1)))
	excs := g.drain(g.names.Exceptions())
	if len(excs) != 2 || !bytes.Contains(excs[0], []byte(`"reason":"MALFORMED"`)) ||
		!bytes.Contains(excs[1], []byte(`"payload_truncated":true`)) {
		t.Fatalf("exceptions %s", excs)
	}
	if out := g.drain(g.names.Outbound()); len(out) != 0 {
		t.Fatalf("no NACK for an unreadable sender, got %d outputs", len(out))
	}
}

// Issue 15, defect 3: goka drops a record with no value before any callback
// by default; on <ns>.inbound it must end as a MALFORMED exception with its
// audit event and its count, like any record that is not a message.
func TestGraphEmptyInboundRecordIsMalformed(t *testing.T) {
	g := newGraph(t)
	g.tt.Consume(g.names.Inbound(), "K", nil)
	g.send("K", []byte{})
	excs := g.drain(g.names.Exceptions())
	if len(excs) != 2 {
		t.Fatalf("%d exceptions for two empty records, want 2", len(excs))
	}
	for _, b := range excs {
		var e map[string]any
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatal(err)
		}
		if e["reason"] != "MALFORMED" || e["payload"] != "" || e["sender"] != "" || e["msg_id"] != "" {
			t.Fatalf("exception %s", b)
		}
	}
	if n := len(g.drain(g.names.Audit())); n != 2 {
		t.Fatalf("%d audit events, want 2", n)
	}
	if got := count(g.metrics.Rejected.WithLabelValues("MALFORMED")); got != 2 {
		t.Fatalf("ste_rejected_total{reason=MALFORMED} = %v, want 2", got)
	}
	if out := g.drain(g.names.Outbound()); len(out) != 0 {
		t.Fatalf("%d outputs for records with no sender", len(out))
	}
}

// Issue 15, defect 4: an identity-table entry that cannot be read is
// poisoned, not absent. It is counted and logged; a message under it is
// decided by its trade when the trade can (the genuine message's resend is
// re-ACKed, another content is a CONFLICTING_DUPLICATE) and is otherwise an
// INTERNAL exception — never accepted over the entry, never NACKed.
func TestGraphCorruptIdentityEntryIsPoisoned(t *testing.T) {
	g := newGraph(t)
	recs := generated(t, workload.Options{Trades: 2})
	var dec schemas.Decoder
	genuine := recs[0]
	m, rej := dec.Decode(genuine)
	if rej != nil {
		t.Fatal(rej)
	}
	g.send("K", genuine)
	g.drain(g.names.Outbound())
	g.drain(g.names.Audit())
	table := goka.GroupTable(goka.Group(g.names.IdentityGroup()))
	idKey := envelope.IdentityKey(m.Sender, m.MsgId)
	g.tt.SetTableValue(table, idKey, []byte("\x01garbage"))

	// Other content under the genuine identity (outside the signed range, so
	// it is valid): the trade holds the genuine message, so it is a conflict.
	other := append(append([]byte(nil), genuine[:len(genuine)-len("</Msg>")]...), "<X/></Msg>"...)
	g.send("K", other)
	excs := g.drain(g.names.Exceptions())
	if len(excs) != 1 || !bytes.Contains(excs[0], []byte(`"reason":"CONFLICTING_DUPLICATE"`)) {
		t.Fatalf("other content under a poisoned identity: exceptions %s", excs)
	}
	g.drain(g.names.Outbound())
	// The genuine message again: re-ACKed, not NACKed.
	g.send("K", genuine)
	out := g.drain(g.names.Outbound())
	if len(out) == 0 || !bytes.Contains(out[0], []byte("<MsgId>ACK:"+m.Sender+":"+m.MsgId+"</MsgId>")) {
		t.Fatalf("genuine resend under a poisoned identity: outputs %s", out)
	}
	if excs := g.drain(g.names.Exceptions()); len(excs) != 0 {
		t.Fatalf("genuine resend under a poisoned identity: exceptions %s", excs)
	}
	if v, _ := g.tt.TableValue(table, idKey).([]byte); string(v) != "\x01garbage" {
		t.Fatalf("the poisoned entry was overwritten: %x", v)
	}

	// A message whose entry is poisoned and whose trade never held it cannot
	// be decided: INTERNAL, no NACK, no ACK.
	fresh := recs[1] // never sent
	fm, _ := dec.Decode(fresh)
	g.tt.SetTableValue(table, envelope.IdentityKey(fm.Sender, fm.MsgId), []byte("short"))
	g.send("K", fresh)
	excs = g.drain(g.names.Exceptions())
	if len(excs) != 1 || !bytes.Contains(excs[0], []byte(`"reason":"INTERNAL"`)) {
		t.Fatalf("undecidable message: exceptions %s", excs)
	}
	if out := g.drain(g.names.Outbound()); len(out) != 0 {
		t.Fatalf("undecidable message: outputs %s", out)
	}
	if got := count(g.metrics.Corrupt.WithLabelValues("identity")); got != 3 {
		t.Fatalf("ste_corrupt_records_total{stage=identity} = %v, want 3", got)
	}
	if !strings.Contains(g.log.String(), "table="+string(table)) {
		t.Fatalf("poisoned entry not logged with its table:\n%s", g.log)
	}
}

// Garbage on internal topics is counted and logged with topic, partition and
// offset, and processing goes on.
func TestGraphCorruptInternalRecordsLogged(t *testing.T) {
	g := newGraph(t)
	g.tt.Consume(g.names.Verdicts(), "BRKASGSGXXX:X", []byte("garbage"))
	g.tt.Consume(g.names.Accepted(), "0123456789abcdef", []byte("garbage"))
	g.tt.Consume(g.names.Accepted(), "not a trade key", nil)
	for _, topic := range []string{g.names.Verdicts(), g.names.Accepted()} {
		if !strings.Contains(g.log.String(), "topic="+topic+" partition=0 offset=") {
			t.Fatalf("corrupt record on %s not logged with its place:\n%s", topic, g.log)
		}
	}
	if got := count(g.metrics.Corrupt.WithLabelValues("match")); got != 2 {
		t.Fatalf("ste_corrupt_records_total{stage=match} = %v, want 2", got)
	}
	var recs [][]byte
	workload.Generate(workload.Options{Trades: 1}, func(b []byte) error { recs = append(recs, b); return nil }, nil)
	for _, r := range recs {
		g.send("any", r)
	}
	if len(g.drain(g.names.CLS())) != 1 {
		t.Fatal("no CLS after garbage on internal topics")
	}
}

func count(c prometheus.Counter) float64 {
	var m dto.Metric
	c.Write(&m)
	return m.GetCounter().GetValue()
}
