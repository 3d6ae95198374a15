package exceptions_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/exceptions"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/trust"
)

// Finding 6 (issue 30): a record written to <ns>.exceptions with a real
// exception's id, or to <ns>.exception-states, by anyone but the utility —
// no proof, or a proof under another secret — is skipped and counted; the
// real exception stays as the processors wrote it, and a retry publishes
// its bytes, not the forger's. A genuine record of that id copied later on
// the topic changes nothing either.
func TestForgedControlRecordsSkipped(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a broker and the processors")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	k := startCluster(t, ctx)
	real := []byte("<Msg>not well formed")
	k.send(real)
	book, err := exceptions.Load(ctx, k.conn, k.ns, k.secret)
	if err != nil {
		t.Fatal(err)
	}
	list := book.List(exceptions.Filter{})
	if len(list) != 1 || book.Unproven() != 0 {
		t.Fatalf("%d exceptions, %d unproven", len(list), book.Unproven())
	}
	id := list[0].ID

	other, _ := trust.New(bytes.Repeat([]byte("x"), trust.Size))
	evil := []byte("<Msg><Header><Sender>EVILGB2LXXX</Sender></Header></Msg>")
	forged := schemas.Exception{ID: id, Reason: "SCHEMA", Detail: "forged", Payload: evil, SourcePartition: -1, SourceOffset: -1}
	fv, _ := json.Marshal(forged)
	resolved, _ := json.Marshal(exceptions.Record{ID: id, State: exceptions.Resolved, By: "mallory", At: time.Now().Add(time.Hour)})
	var recs []*kgo.Record
	for _, s := range []*trust.Secret{nil, other} {
		e := &kgo.Record{Topic: k.names.Exceptions(), Partition: 0, Value: fv}
		st := &kgo.Record{Topic: k.names.ExceptionStates(), Key: []byte(id), Value: resolved}
		if s != nil {
			topics.Prove(s, e)
			topics.Prove(s, st)
		}
		recs = append(recs, e, st)
	}
	// A genuine exception record copied onto the topic after the real one,
	// in partition 0 (lower than or equal to the original's): the same
	// bytes, so the same exception, at whichever position.
	orig := k.records(k.names.Exceptions())[0]
	recs = append(recs, &kgo.Record{Topic: k.names.Exceptions(), Partition: orig.Partition, Key: orig.Key, Value: orig.Value, Headers: orig.Headers})
	cl, err := kgo.NewClient(kgo.SeedBrokers(k.conn.Brokers...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}

	before := testutilCount(k.names.Exceptions()) + testutilCount(k.names.ExceptionStates())
	book, err = exceptions.Load(ctx, k.conn, k.ns, k.secret)
	if err != nil {
		t.Fatal(err)
	}
	if book.Unproven() != 4 {
		t.Errorf("%d records counted unproven, want 4", book.Unproven())
	}
	if got := testutilCount(k.names.Exceptions()) + testutilCount(k.names.ExceptionStates()) - before; got != 4 {
		t.Errorf("ste_unproven_records_total grew by %v, want 4", got)
	}
	e, ok := book.Get(id)
	if !ok || book.Len() != 1 || e.Detail == "forged" || !bytes.Equal(e.Payload, real) || e.State.State != exceptions.Open {
		t.Fatalf("exception %s after the forgeries: %d in the book, %+v", id, book.Len(), e)
	}
	if e.Partition != orig.Partition || e.Offset != orig.Offset {
		t.Errorf("the copy at offset %d was taken for the original at %d", e.Offset, orig.Offset)
	}

	w, err := exceptions.NewWorkflow(ctx, k.conn, k.ns, book)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	res, _ := w.Retry(ctx, []string{id}, exceptions.Options{Operator: "alice"})
	if res[0].Outcome != exceptions.OutcomeRetried {
		t.Fatalf("retry: %+v", res)
	}
	inbound := k.records(k.names.Inbound())
	retried := inbound[slices.IndexFunc(inbound, func(r *kgo.Record) bool { return len(r.Headers) > 0 })]
	if !bytes.Equal(retried.Value, real) {
		t.Fatalf("the retry published %q, want the real record", retried.Value)
	}
	// The state the workflow wrote carries the proof: another book reads it.
	book, err = exceptions.Load(ctx, k.conn, k.ns, k.secret)
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := book.Get(id); e.State.State != exceptions.Retried || e.State.By != "alice" {
		t.Fatalf("state after the retry: %+v", e.State)
	}
	// Under another secret only what it proved is believed: the forgery.
	if b, err := exceptions.Load(ctx, k.conn, k.ns, other); err != nil || b.Len() != 1 || b.List(exceptions.Filter{})[0].Detail != "forged" {
		t.Fatalf("another secret's book: %d exceptions, %v", b.Len(), err)
	}
}

// A state record written again later (a replay of an older one) does not
// take an exception back.
func TestOlderStateIgnored(t *testing.T) {
	secret, _ := trust.New(bytes.Repeat([]byte("k"), trust.Size))
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	retried := exceptions.Record{ID: "0-1", State: exceptions.Retried, By: "a", At: at, Retries: []exceptions.Retry{{By: "a", At: at}}}
	resolved := retried
	resolved.State, resolved.At = exceptions.Resolved, at.Add(-time.Second) // a processor's clock behind
	for _, c := range []struct {
		seq  []exceptions.Record
		want exceptions.State
	}{
		{[]exceptions.Record{retried, resolved}, exceptions.Resolved},
		{[]exceptions.Record{retried, resolved, retried}, exceptions.Resolved},
	} {
		b := exceptions.NewBook(secret)
		exceptions.ApplyForTest(b, secret, "0-1", c.seq...)
		if e, _ := b.Get("0-1"); e.State.State != c.want {
			t.Errorf("%d records: state %s, want %s", len(c.seq), e.State.State, c.want)
		}
	}
}

func testutilCount(topic string) float64 {
	var m dto.Metric
	topics.Unproven.WithLabelValues(topic).Write(&m)
	return m.GetCounter().GetValue()
}
