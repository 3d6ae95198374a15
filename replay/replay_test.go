package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/internal/testing/brokertest"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/processors/offline"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/replay"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/outcome"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/copier"
	"github.com/ste-utility/ste/topics/lag"
	"github.com/ste-utility/ste/topics/origin"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/trust"
	"github.com/ste-utility/ste/workload"
)

// testSecret is the utility secret of the tests' processes.
var testSecret, _ = trust.New([]byte("0123456789abcdef0123456789abcdef"))

type env struct {
	t       *testing.T
	brokers string
	dial    copier.Dial
	cl      *kgo.Client
	adm     *kadm.Client
}

func newEnv(t *testing.T) *env {
	t.Helper()
	addr, dial := brokertest.Start(t)
	cl := brokertest.Client(t, dial)
	return &env{t: t, brokers: addr, dial: dial, cl: cl, adm: kadm.NewClient(cl)}
}

// live makes a live namespace (broker-stamped inbound) with reference data
// and a generated set driven into it, and returns the set.
func (e *env) live(ns string, trades int) []byte {
	e.t.Helper()
	ctx := context.Background()
	if _, err := topics.Create(ctx, e.adm, ns, topics.Options{Partitions: 4}); err != nil {
		e.t.Fatal(err)
	}
	if _, err := topics.PublishRefdata(ctx, e.cl, ns, refdata.Default()); err != nil {
		e.t.Fatal(err)
	}
	var set bytes.Buffer
	if _, err := workload.Generate(workload.Options{Trades: trades, Mix: workload.Realistic, Seed: 4},
		func(b []byte) error { set.Write(b); set.WriteByte('\n'); return nil }, nil); err != nil {
		e.t.Fatal(err)
	}
	src, err := msgset.NewReader(bytes.NewReader(set.Bytes()), "set.xml")
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := topics.Drive(ctx, e.cl, ns, src, topics.DriveOptions{}); err != nil {
		e.t.Fatal(err)
	}
	return set.Bytes()
}

func (e *env) records(topic string) map[int32][]*kgo.Record {
	e.t.Helper()
	spans, err := copier.EndSpans(context.Background(), e.adm, topic)
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[int32][]*kgo.Record{}
	if _, err := copier.Read(context.Background(), e.dial, topic, spans, func(r *kgo.Record) error {
		out[r.Partition] = append(out[r.Partition], r)
		return nil
	}); err != nil {
		e.t.Fatal(err)
	}
	return out
}

// TestReplayCopiesARangeWithItsTimes: a replay of a time range holds the
// source's records of that range partition by partition, with their keys
// and the times the live utility received them; the sandbox is marked by
// its origin; a second replay into it needs --append; a live namespace is
// never a target; Delete removes a sandbox and nothing else.
func TestReplayCopiesARangeWithItsTimes(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.live("live", 30)
	src := e.records("live.inbound")
	var times []time.Time
	for _, rs := range src {
		for _, r := range rs {
			times = append(times, r.Timestamp)
		}
	}
	if len(times) < 100 {
		t.Fatalf("%d records driven", len(times))
	}
	// A cut in the middle of the records' times.
	cut := times[len(times)/2]
	res, err := replay.Replay(ctx, replay.Options{Dial: e.dial, Secret: testSecret, From: "live", To: "sb", Since: copier.Bound{Time: cut}})
	if err != nil {
		t.Fatal(err)
	}
	got := e.records("sb.inbound")
	n := int64(0)
	for p, rs := range src {
		var want []*kgo.Record
		for _, r := range rs {
			if !r.Timestamp.Before(cut) {
				want = append(want, r)
			}
		}
		if len(got[p]) != len(want) {
			t.Fatalf("partition %d: %d records, want %d", p, len(got[p]), len(want))
		}
		for i, r := range want {
			g := got[p][i]
			if string(g.Key) != string(r.Key) || !bytes.Equal(g.Value, r.Value) || !g.Timestamp.Equal(r.Timestamp) {
				t.Fatalf("partition %d record %d differs (times %v, %v)", p, i, g.Timestamp, r.Timestamp)
			}
		}
		n += int64(len(want))
	}
	if res.Copied != n || n == 0 || res.Partitions != 4 {
		t.Fatalf("%+v, want %d copied", res, n)
	}
	rs, err := origin.Read(ctx, e.dial, "sb", testSecret)
	if r, ok := origin.Find(rs, origin.Replay, "live"); err != nil || !ok || r.State != origin.Complete || copier.Total(r.Spans) != n {
		t.Fatalf("origin %+v %v", rs, err)
	}
	ref, err := copier.Fold(ctx, e.dial, "sb.refdata", nil)
	if want, _ := copier.Fold(ctx, e.dial, "live.refdata", nil); err != nil || len(ref) != len(want) || len(ref) == 0 {
		t.Fatalf("reference data: %d records, want %d (%v)", len(ref), len(want), err)
	}

	refused := func(o replay.Options, want string) {
		t.Helper()
		_, err := replay.Replay(ctx, o)
		var r *replay.Refused
		if !errors.As(err, &r) || !strings.Contains(err.Error(), want) {
			t.Fatalf("want a refusal naming %q, got %v", want, err)
		}
	}
	refused(replay.Options{Dial: e.dial, Secret: testSecret, From: "live", To: "sb"}, "--append")
	if _, err := replay.Replay(ctx, replay.Options{Dial: e.dial, Secret: testSecret, From: "live", To: "sb", Until: copier.Bound{Time: cut}, Append: true}); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, rs := range e.records("sb.inbound") {
		total += len(rs)
	}
	if total != len(times) {
		t.Fatalf("after --append of the rest: %d records, want %d", total, len(times))
	}
	refused(replay.Options{Dial: e.dial, Secret: testSecret, From: "sb", To: "live"}, "no sandbox")
	refused(replay.Options{Dial: e.dial, Secret: testSecret, From: "live", To: "live"}, "same namespace")
	if _, err := topics.Create(ctx, e.adm, "empty", topics.Options{Partitions: 4}); err != nil {
		t.Fatal(err)
	}
	refused(replay.Options{Dial: e.dial, Secret: testSecret, From: "live", To: "empty"}, "LogAppendTime")

	if _, err := replay.Delete(ctx, e.dial, "live", testSecret); err == nil || !strings.Contains(err.Error(), "not a sandbox") {
		t.Fatalf("deleting a live namespace: %v", err)
	}
	// Finding 4 (issue 30): one forged origin record on a live namespace
	// does not make it a sandbox to delete; nor does a proven one while its
	// inbound holds records no replay copied.
	cl := e.cl
	forged, _ := json.Marshal(origin.Record{Kind: origin.Replay, From: "prod", State: origin.Complete})
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "live.origin", Key: []byte("replay:prod"), Value: forged}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if _, err := replay.Delete(ctx, e.dial, "live", testSecret); err == nil || !strings.Contains(err.Error(), "without its proof") {
		t.Fatalf("deleting a live namespace with a forged origin: %v", err)
	}
	if err := origin.Write(ctx, cl, "live", testSecret, origin.Record{Kind: origin.Replay, From: "prod", State: origin.Complete}); err != nil {
		t.Fatal(err)
	}
	if _, err := replay.Delete(ctx, e.dial, "live", testSecret); err == nil || !strings.Contains(err.Error(), "more than the 0 its replays copied") {
		t.Fatalf("deleting a namespace whose inbound holds records no replay copied: %v", err)
	}
	d, err := replay.Delete(ctx, e.dial, "sb", testSecret)
	if err != nil || len(d.Topics) != len(topics.Specs("sb", topics.Options{})) {
		t.Fatalf("deleted %+v: %v", d, err)
	}
	if l, err := e.adm.ListTopics(ctx); err != nil || l.Has("sb.inbound") || !l.Has("live.inbound") {
		t.Fatalf("topics after delete: %v %v", l.Names(), err)
	}
}

// TestReplayRunsToTheOutcomeOfSteMatch: a namespace never processed,
// replayed into a sandbox whose processors run until every group is at
// lag 0, ends with the outcome ste match gives the same set.
func TestReplayRunsToTheOutcomeOfSteMatch(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the processors")
	}
	e := newEnv(t)
	ctx := context.Background()
	set := e.live("live2", 40)
	want := outcome.New()
	src, err := msgset.NewReader(bytes.NewReader(set), "set.xml")
	if err != nil {
		t.Fatal(err)
	}
	signer := &schemas.Signer{BIC: "STEUTLSGXXX", Key: refdata.DemoPrivateKey("STEUTLSGXXX")}
	if _, _, err := offline.Run(ctx, src, offline.Sinks{CLS: want.AddOutput, Outbound: want.AddOutput, Exceptions: want.AddException},
		offline.Options{Validator: validation.New(refdata.Default()), Signer: signer}); err != nil {
		t.Fatal(err)
	}
	p, err := replay.Prepare(ctx, replay.Options{Dial: e.dial, Secret: testSecret, From: "live2", To: "sb2"})
	if err != nil {
		t.Fatal(err)
	}
	samples := 0
	var res replay.Result
	ran, err := replay.Run(ctx, e.adm, instance.Options{Kafka: kafkaconn.Plaintext(e.brokers), Namespace: "sb2", Signer: signer, Verify: true,
		Identity: &instance.Identity{ID: "test-replay", Dir: t.TempDir()}, Home: t.TempDir(), Secret: testSecret, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))},
		func(lag.Sample) { samples++ },
		func(ctx context.Context, settle func(context.Context) error) (err error) {
			res, err = p.Copy(ctx, time.Hour, settle)
			return err
		})
	if err != nil || samples == 0 || ran.Last.Sum() != 0 || res.Copied == 0 || res.Windows != 1 {
		t.Fatalf("run %+v, copy %+v (%d samples): %v", ran, res, samples, err)
	}
	got, err := topics.ReadOutcome(ctx, kafkaconn.Plaintext(e.brokers), "sb2")
	if err != nil {
		t.Fatal(err)
	}
	if d := outcome.Compare(want, got, outcome.Options{A: "ste match", B: "sandbox"}); !d.Equal() {
		t.Fatal(d.Report(5))
	}
	// The live namespace was only read.
	n := topology.Names{NS: "live2"}
	for _, topic := range []string{n.Verdicts(), n.CLS(), n.Outbound(), n.Exceptions(), n.Audit()} {
		if spans, err := copier.EndSpans(ctx, e.adm, topic); err != nil || copier.Total(spans) != 0 {
			t.Fatalf("%s holds %d records: %v", topic, copier.Total(spans), err)
		}
	}
}

// TestCopyByWindowsOfRecordTime: records copied a window of record time at
// a time, across partitions: when a window settles, the sandbox holds every
// record before the window's end and none after it; a night without records
// is skipped.
func TestCopyByWindowsOfRecordTime(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if _, err := topics.Create(ctx, e.adm, "rec", topics.Options{Partitions: 3, ProducerTime: true}); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 2, 1, 0, 0, 0, time.UTC)
	var recs []*kgo.Record
	at := func(i int) time.Time {
		d := time.Duration(i) * 7 * time.Minute // 0 .. ~7 h
		if i >= 60 {
			d += 20 * time.Hour // the next day
		}
		return base.Add(d)
	}
	for i := range 90 {
		recs = append(recs, &kgo.Record{Topic: "rec.inbound", Partition: int32(i % 3), Key: []byte(fmt.Sprint(i)), Value: []byte(fmt.Sprint(i)), Timestamp: at(i)})
	}
	cl := brokertest.Client(t, e.dial, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	p, err := replay.Prepare(ctx, replay.Options{Dial: e.dial, Secret: testSecret, From: "rec", To: "rec-sb"})
	if err != nil {
		t.Fatal(err)
	}
	var cuts []int // records in the sandbox at each settle
	res, err := p.Copy(ctx, time.Hour, func(context.Context) error {
		n := 0
		var latest time.Time
		for _, rs := range e.records("rec-sb.inbound") {
			for _, r := range rs {
				n++
				if r.Timestamp.After(latest) {
					latest = r.Timestamp
				}
			}
		}
		// Every record up to the latest copied is there: nothing of a later
		// window came first.
		for i := range recs {
			if !at(i).After(latest) && i >= n {
				t.Fatalf("at a settle %d records copied, but record %d (%v) is not later than the latest copied (%v)", n, i, at(i), latest)
			}
		}
		cuts = append(cuts, n)
		return nil
	})
	if err != nil || res.Copied != 90 {
		t.Fatalf("%+v: %v", res, err)
	}
	// ~7 h of records in one-hour windows, a night skipped, ~3.5 h more.
	if res.Windows != len(cuts) || res.Windows < 10 || res.Windows > 13 || cuts[len(cuts)-1] != 90 {
		t.Fatalf("%d windows, records at each settle %v", res.Windows, cuts)
	}
}
