package exceptions_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/exceptions"
	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/broker"
	"github.com/ste-utility/ste/topics/lag"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/trust"
	"github.com/ste-utility/ste/workload"
)

// cluster is an embedded broker with the processors of one namespace.
type cluster struct {
	t      *testing.T
	ctx    context.Context
	conn   kafkaconn.Config
	cl     *kgo.Client
	adm    *kadm.Client
	ns     string
	names  topology.Names
	secret *trust.Secret
}

func startCluster(t *testing.T, ctx context.Context) *cluster {
	c, err := broker.Start(broker.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	k := &cluster{t: t, ctx: ctx, conn: kafkaconn.Plaintext(broker.Addr(c)), ns: "exc", names: topology.Names{NS: "exc"}}
	if k.secret, err = trust.New(bytes.Repeat([]byte("k"), trust.Size)); err != nil {
		t.Fatal(err)
	}
	if k.cl, err = topics.Connect(ctx, k.conn); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(k.cl.Close)
	k.adm = kadm.NewClient(k.cl)
	if _, err := topics.Create(ctx, k.adm, k.ns, topics.Options{Partitions: 4}); err != nil {
		t.Fatal(err)
	}
	if _, err := topics.PublishRefdata(ctx, k.cl, k.ns, refdata.Default()); err != nil {
		t.Fatal(err)
	}
	ictx, stop := context.WithCancel(ctx)
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() {
		done <- instance.Run(ictx, instance.Options{Kafka: k.conn, Namespace: k.ns, Verify: true, Home: t.TempDir(), Secret: k.secret,
			Signer: &schemas.Signer{BIC: "STEUTLSGXXX", Key: refdata.DemoPrivateKey("STEUTLSGXXX")}, Ready: ready,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	}()
	t.Cleanup(func() { stop(); <-done })
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("processors: %v", err)
	}
	return k
}

// send produces records to inbound as the driver does and waits until the
// processors are done with them.
func (k *cluster) send(recs ...[]byte) {
	k.t.Helper()
	var dec schemas.Decoder
	for _, r := range recs {
		m, _ := dec.Decode(r)
		if err := k.cl.ProduceSync(k.ctx, &kgo.Record{Topic: k.names.Inbound(), Key: topics.InboundKey(m), Value: r}).FirstErr(); err != nil {
			k.t.Fatal(err)
		}
	}
	k.settle()
}

func (k *cluster) settle() {
	k.t.Helper()
	if _, err := lag.WaitZero(k.ctx, k.adm, lag.Groups(k.ns), lag.WaitOptions{Poll: 50 * time.Millisecond}); err != nil {
		k.t.Fatal(err)
	}
}

// records reads a topic whole.
func (k *cluster) records(topic string) []*kgo.Record {
	k.t.Helper()
	var out []*kgo.Record
	if _, err := topics.Dump(k.ctx, k.conn, topic, func(r *kgo.Record) error { out = append(out, r); return nil }); err != nil {
		k.t.Fatal(err)
	}
	return out
}

// unknownSecurity is a NOE of a generated trade moved to an ISIN with a
// valid check digit that the reference data lacks, signed again: rejected
// UNKNOWN_SECURITY until that security is loaded.
func unknownSecurity(t *testing.T, recs [][]byte) ([]byte, refdata.Security) {
	d, err := schemas.ParseDraft(recs[slices.IndexFunc(recs, func(r []byte) bool { return bytes.Contains(r, []byte("<MsgType>NOE")) })])
	if err != nil {
		t.Fatal(err)
	}
	sec, _ := refdata.Default().Security(d.Get("ISIN"))
	isin := refdata.ISINWithCheckDigit(sec.ISIN[:2] + "ZZ9999999")
	if _, known := refdata.Default().Security(isin); known || isin == "" {
		t.Fatalf("%q is in the reference data", isin)
	}
	d.Set("ISIN", isin)
	d.MsgId += "-NEWSEC"
	sec.ISIN, sec.Name = isin, "Listed today"
	return d.AppendSigned(nil, refdata.DemoPrivateKey(d.Sender)), sec
}

// TestRetryWorkflow goes through docs/spec/messages.md §7 with real processors: an
// UNKNOWN_SECURITY exception retried before the fix is rejected again (a
// new exception with retry_of, the first stays retried, a second retry is
// refused without force), then after the security is loaded the new one's
// retry is ACKed and resolved, its audit record naming both the exception
// and the operator; archiving, dry runs, filters, groups, and a TOO_LARGE
// record read whole from inbound.
func TestRetryWorkflow(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a broker and the processors")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	k := startCluster(t, ctx)
	var recs [][]byte
	if _, err := workload.Generate(workload.Options{Trades: 1}, func(b []byte) error { recs = append(recs, b); return nil }, nil); err != nil {
		t.Fatal(err)
	}
	bad, sec := unknownSecurity(t, recs)
	huge := append([]byte("<Msg>"), bytes.Repeat([]byte("x"), schemas.MaxRecord+10)...)
	k.send(append(recs, bad, []byte("<Msg>"), huge)...)
	var dec schemas.Decoder
	badMsg, _ := dec.Decode(bad)

	book, err := exceptions.Load(ctx, k.conn, k.ns, k.secret)
	if err != nil {
		t.Fatal(err)
	}
	all := book.List(exceptions.Filter{})
	if len(all) != 3 || !book.CaughtUp() {
		t.Fatalf("%d exceptions, want 3: %+v", len(all), all)
	}
	sel := book.List(exceptions.Filter{Reason: "unknown_security", Sender: badMsg.Sender, MsgId: "NEWSEC", States: []exceptions.State{exceptions.Open}})
	if len(sel) != 1 || sel[0].State.State != exceptions.Open {
		t.Fatalf("filtered: %+v", sel)
	}
	first := sel[0]
	if n := len(book.List(exceptions.Filter{Since: time.Now().Add(time.Minute)})); n != 0 {
		t.Fatalf("%d exceptions received in the future", n)
	}
	byReason, bySender := exceptions.Groups(all)
	if len(byReason) != 3 || len(bySender) != 2 || bySender[0].Key != "(unknown)" || bySender[0].Total != 2 {
		t.Fatalf("groups: %+v %+v", byReason, bySender)
	}
	fields, err := exceptions.Fields(first.Payload)
	if err != nil || !slices.Contains(fields, exceptions.Field{Path: "Body/ISIN", Value: sec.ISIN}) {
		t.Fatalf("fields %+v %v", fields, err)
	}

	w, err := exceptions.NewWorkflow(ctx, k.conn, k.ns, book)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if nack, err := w.NACK(ctx, first); err != nil || !bytes.Contains(nack, []byte("<Reason>UNKNOWN_SECURITY</Reason>")) {
		t.Fatalf("NACK %s %v", nack, err)
	}
	if _, err := w.Retry(ctx, []string{first.ID}, exceptions.Options{}); err != exceptions.ErrNoOperator {
		t.Fatalf("a retry without an operator: %v", err)
	}

	// Retried before the fix: rejected again.
	res, _ := w.Retry(ctx, []string{first.ID}, exceptions.Options{Operator: "alice"})
	if res[0].Outcome != exceptions.OutcomeRetried {
		t.Fatalf("retry: %+v", res)
	}
	res, _ = w.Retry(ctx, []string{first.ID}, exceptions.Options{Operator: "alice"})
	if res[0].Outcome != exceptions.OutcomeRefused || !strings.Contains(res[0].Detail, "already retried by alice") {
		t.Fatalf("second retry without force: %+v", res)
	}
	k.settle()
	inbound := k.records(k.names.Inbound())
	last := inbound[slices.IndexFunc(inbound, func(r *kgo.Record) bool { return len(r.Headers) > 0 })]
	if string(last.Key) != badMsg.Sender || !bytes.Equal(last.Value, bad) || len(last.Headers) != 2 ||
		last.Headers[0].Key != "ste-retry-of" || string(last.Headers[0].Value) != first.ID {
		t.Fatalf("retry record: key %q headers %+v", last.Key, last.Headers)
	}
	book, err = exceptions.Load(ctx, k.conn, k.ns, k.secret)
	if err != nil {
		t.Fatal(err)
	}
	w2, err := exceptions.NewWorkflow(ctx, k.conn, k.ns, book)
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	again := w2.Outcome(first.ID)
	if again.State != exceptions.Retried || again.RejectedAs == "" || again.Reason != "UNKNOWN_SECURITY" || !again.Done() {
		t.Fatalf("outcome of a retry before the fix: %+v", again)
	}
	if e, _ := book.Get(again.RejectedAs); e.RetryOf != first.ID || e.State.State != exceptions.Open {
		t.Fatalf("the new exception: %+v", e)
	}
	if e, _ := book.Get(first.ID); e.State.By != "alice" || len(e.State.Retries) != 1 || !slices.Equal(e.RetriedAs, []string{again.RejectedAs}) {
		t.Fatalf("the first exception's state: %+v", e)
	}

	// Follow sees what other consoles record.
	follower := exceptions.NewBook(k.secret)
	fctx, stopFollow := context.WithCancel(ctx)
	defer stopFollow()
	go follower.Follow(fctx, k.conn, k.ns)

	// The fix, then the retry of the new exception: ACKed and resolved.
	fix := refdata.NewSet()
	fix.PutSecurity(sec)
	if _, err := topics.PublishRefdata(ctx, k.cl, k.ns, fix); err != nil {
		t.Fatal(err)
	}
	k.waitRefdata(bad)
	res, _ = w2.Retry(ctx, []string{again.RejectedAs}, exceptions.Options{Operator: "bob"})
	if res[0].Outcome != exceptions.OutcomeRetried {
		t.Fatalf("retry after the fix: %+v", res)
	}
	k.settle()
	resolved, err := w2.Resolve(ctx)
	if err != nil || !slices.Equal(resolved, []string{again.RejectedAs}) {
		t.Fatalf("resolve: %v %v", resolved, err)
	}
	done := w2.Outcome(again.RejectedAs)
	if done.State != exceptions.Resolved || done.ACK != schemas.ACKId(badMsg.Sender, badMsg.MsgId) {
		t.Fatalf("outcome after the fix: %+v", done)
	}
	if !hasAudit(k.records(k.names.Audit()), again.RejectedAs, "bob", "accepted") {
		t.Fatal("no audit record of the accepted retry naming the exception and the operator")
	}
	if !slices.ContainsFunc(k.records(k.names.Outbound()), func(r *kgo.Record) bool {
		return bytes.Contains(r.Value, []byte("<MsgId>"+done.ACK+"</MsgId>"))
	}) {
		t.Fatal("no ACK on the outbound topic")
	}
	for {
		if e, _ := follower.Get(again.RejectedAs); e.State.State == exceptions.Resolved && e.State.By == "bob" {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("a following book never saw the resolution")
		}
		time.Sleep(20 * time.Millisecond)
	}

	// Archive the MALFORMED one; a second archive and a retry without force
	// are refused; a forced dry run writes nothing.
	mal := book.List(exceptions.Filter{Reason: "MALFORMED"})[0]
	res, _ = w2.Archive(ctx, []string{mal.ID}, exceptions.Options{Operator: "carol", Note: "test garbage"})
	if res[0].Outcome != exceptions.OutcomeArchived {
		t.Fatalf("archive: %+v", res)
	}
	res, _ = w2.Archive(ctx, []string{mal.ID, "9-999"}, exceptions.Options{Operator: "carol"})
	if res[0].Outcome != exceptions.OutcomeRefused || res[1].Outcome != exceptions.OutcomeFailed {
		t.Fatalf("archive again: %+v", res)
	}
	before := len(k.records(k.names.Inbound()))
	res, _ = w2.Retry(ctx, []string{mal.ID}, exceptions.Options{Operator: "carol"})
	if res[0].Outcome != exceptions.OutcomeRefused {
		t.Fatalf("retry of an archived one: %+v", res)
	}
	res, _ = w2.Retry(ctx, []string{mal.ID}, exceptions.Options{Operator: "carol", Force: true, DryRun: true})
	if res[0].Outcome != exceptions.OutcomeWouldRetry || len(k.records(k.names.Inbound())) != before {
		t.Fatalf("dry run: %+v", res)
	}
	if e, _ := book.Get(mal.ID); e.State.State != exceptions.Archived || e.State.Note != "test garbage" {
		t.Fatalf("archived state %+v", e.State)
	}

	// TOO_LARGE: the retry reads the whole record back from inbound.
	big := book.List(exceptions.Filter{Reason: "TOO_LARGE"})[0]
	if !big.PayloadDropped {
		t.Fatal("a 64 KiB payload is kept in the book")
	}
	whole, err := w2.Payload(ctx, big, true)
	if err != nil || !bytes.Equal(whole, huge) {
		t.Fatalf("whole TOO_LARGE record: %d bytes, %v", len(whole), err)
	}
	if part, err := w2.Payload(ctx, big, false); err != nil || len(part) != schemas.MaxRecord {
		t.Fatalf("its exception's payload: %d bytes, %v", len(part), err)
	}
}

// waitRefdata waits until the processors validate with the new reference
// data: a copy of msg under a fresh MsgId is ACKed (reference data is
// followed beside inbound, so it may take a moment to apply).
func (k *cluster) waitRefdata(msg []byte) {
	k.t.Helper()
	for i := 0; ; i++ {
		d, _ := schemas.ParseDraft(msg)
		d.MsgId += "-PROBE" + strconv.Itoa(i)
		k.send(d.AppendSigned(nil, refdata.DemoPrivateKey(d.Sender)))
		ack := []byte("<MsgId>" + schemas.ACKId(d.Sender, d.MsgId) + "</MsgId>")
		if slices.ContainsFunc(k.records(k.names.Outbound()), func(r *kgo.Record) bool { return bytes.Contains(r.Value, ack) }) {
			return
		}
		if k.ctx.Err() != nil {
			k.t.Fatal("the new reference data never applied")
		}
	}
}

func hasAudit(recs []*kgo.Record, retryOf, by, outcome string) bool {
	found := false
	for _, r := range recs {
		_ = schemas.EachAuditEvent(r.Value, func(a schemas.AuditEvent) error {
			found = found || a.RetryOf == retryOf && a.RetriedBy == by && a.Outcome == outcome
			return nil
		})
	}
	return found
}
