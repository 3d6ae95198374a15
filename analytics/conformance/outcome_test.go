package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/analytics/ingest"
	"github.com/ste-utility/ste/analytics/rows"
	"github.com/ste-utility/ste/analytics/store"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/processors/offline"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/outcome"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/workload"
)

// testOutcome: a run's outcome read from the store (ste diff --clickhouse)
// is the one read from its topics (ste diff), and so is the comparison of
// two runs — one set matched with and without a security suspended —
// difference for difference.
func (s *suite) testOutcome(t *testing.T) {
	st, _ := s.open(t, store.Options{})
	ctx := ctxFor(t, 2*time.Minute)
	var set bytes.Buffer
	if _, err := workload.Generate(workload.Options{Trades: 80, Mix: workload.Realistic, Seed: 13},
		func(b []byte) error { set.Write(b); set.WriteByte('\n'); return nil }, nil); err != nil {
		t.Fatal(err)
	}
	// The ISIN of the first valid message's trade is suspended in run B.
	var dec schemas.Decoder
	var isin string
	for _, line := range bytes.Split(set.Bytes(), []byte("\n")) {
		if m, rej := dec.Decode(line); rej == nil && m.Key.ISIN != "" {
			isin = m.Key.ISIN
			break
		}
	}
	suspended := refdata.Default().Clone()
	sec, ok := suspended.Security(isin)
	if !ok {
		t.Fatalf("ISIN %q not in the reference data", isin)
	}
	sec.Status = refdata.Suspended
	suspended.PutSecurity(sec)

	var fromTopics, fromStore []*outcome.Set
	var names []string
	for i, ref := range []*refdata.Set{refdata.Default(), suspended} {
		ns := s.name("outcome")
		names = append(names, ns)
		s.topicsFor(t, ns)
		s.produce(t, matchRecords(t, ns, set.Bytes(), ref))
		in := s.startIngest(t, ctx, st, ns, nil)
		if err := in.CatchUp(ctx); err != nil {
			t.Fatal(err)
		}
		if err := in.Stop(); err != nil {
			t.Fatal(err)
		}
		ft, err := topics.ReadOutcome(ctx, kafkaconn.Plaintext(s.brokers), ns)
		if err != nil {
			t.Fatal(err)
		}
		ids, err := ingest.TopicIDs(ctx, s.admin(t), ns)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := st.Outcome(ctx, ns, ids)
		if err != nil {
			t.Fatal(err)
		}
		if d := outcome.Compare(ft, fs, outcome.Options{A: "topics", B: "clickhouse", Expiries: true}); !d.Equal() {
			t.Fatalf("run %d: %s", i, d.Report(5))
		}
		if ft.Counts() != fs.Counts() || ft.Counts().Settled == 0 || ft.Counts().Repeats == 0 {
			t.Fatalf("run %d: topics %+v, clickhouse %+v", i, ft.Counts(), fs.Counts())
		}
		fromTopics, fromStore = append(fromTopics, ft), append(fromStore, fs)
	}
	// The first namespace made again under its name: rows of another topic
	// (the deleted one) stay in the store until their TTL. Read with the
	// current topics' ids, the outcome is the current one.
	stale := matchRecords(t, "stale", set.Bytes(), suspended)
	var cls []rows.CLS
	var out []rows.Outbound
	staleID := uuid.New()
	for i, r := range stale {
		src := rows.Source{Namespace: names[0], TopicID: staleID, Offset: int64(i), Time: time.Now()}
		switch r.Topic {
		case "stale.cls":
			c, err := rows.DecodeCLS(src, r.Value)
			if err != nil {
				t.Fatal(err)
			}
			cls = append(cls, c)
		case "stale.outbound":
			o, err := rows.DecodeOutbound(src, r.Value)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, o)
		}
	}
	if err := errors.Join(st.InsertCLS(ctx, "", cls), st.InsertOutbound(ctx, "", out)); err != nil {
		t.Fatal(err)
	}
	mixed, err := st.Outcome(ctx, names[0], nil)
	if err != nil || outcome.Compare(fromTopics[0], mixed, outcome.Options{}).Equal() {
		t.Fatalf("read whole, the rows of the old topics change nothing (%v): the test's stale rows test nothing", err)
	}
	ids, err := ingest.TopicIDs(ctx, s.admin(t), names[0])
	if err != nil {
		t.Fatal(err)
	}
	if ids[store.TableCLS] == uuid.Nil || ids[store.TableOutbound] == uuid.Nil {
		t.Fatalf("topic ids %v", ids)
	}
	current, err := st.Outcome(ctx, names[0], ids)
	if err != nil {
		t.Fatal(err)
	}
	if d := outcome.Compare(fromTopics[0], current, outcome.Options{A: "topics", B: "clickhouse", Expiries: true}); !d.Equal() {
		t.Fatalf("the current topics' rows: %s", d.Report(5))
	}
	if byTable, err := st.TopicIDs(ctx, names[0]); err != nil || len(byTable[store.TableCLS]) != 2 || len(byTable[store.TableExceptions]) != 1 {
		t.Fatalf("topics of the rows: %d of CLS, %d of exceptions (%v), want 2 and 1", len(byTable[store.TableCLS]), len(byTable[store.TableExceptions]), err)
	}

	o := outcome.Options{A: "with", B: "suspended"}
	dt, ds := outcome.Compare(fromTopics[0], fromTopics[1], o), outcome.Compare(fromStore[0], fromStore[1], o)
	jt, _ := json.Marshal(dt)
	js, _ := json.Marshal(ds)
	if dt.Equal() || !bytes.Equal(jt, js) {
		t.Fatalf("the suspension changed nothing, or the two sources disagree:\ntopics     %s\nclickhouse %s", dt, ds)
	}
}

// matchRecords runs the engine over a message set (as ste match does) and
// returns its outputs as the processors write them, keyed as they key them;
// every fifth output is written twice (a re-emission after a crash).
func matchRecords(t *testing.T, ns string, set []byte, ref *refdata.Set) []*kgo.Record {
	t.Helper()
	n := topology.Names{NS: ns}
	var recs []*kgo.Record
	sink := func(topic string) func([]byte) error {
		return func(b []byte) error {
			key := fmt.Sprint(len(recs))
			r := &kgo.Record{Topic: topic, Key: []byte(key), Value: slices.Clone(b)}
			recs = append(recs, r)
			if len(recs)%5 == 0 {
				recs = append(recs, &kgo.Record{Topic: topic, Key: []byte(key + "'"), Value: r.Value})
			}
			return nil
		}
	}
	src, err := msgset.NewReader(bytes.NewReader(set), "set.xml")
	if err != nil {
		t.Fatal(err)
	}
	signer := &schemas.Signer{BIC: refdata.DefaultUtilityBIC, Key: refdata.DemoPrivateKey(refdata.DefaultUtilityBIC)}
	if _, _, err := offline.Run(context.Background(), src,
		offline.Sinks{CLS: sink(n.CLS()), Outbound: sink(n.Outbound()), Exceptions: sink(n.Exceptions())},
		offline.Options{Validator: validation.New(ref), Signer: signer}); err != nil {
		t.Fatal(err)
	}
	return recs
}
