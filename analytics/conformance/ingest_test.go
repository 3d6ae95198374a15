package conformance

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ste-utility/ste/analytics/ingest"
	"github.com/ste-utility/ste/analytics/rows"
	"github.com/ste-utility/ste/analytics/store"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/testgate"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/trust"
)

// base is the time of the generated datasets: recent (the TTL keeps them)
// and inside one day (one partition per table).
func base() time.Time {
	return time.Now().UTC().Add(-time.Hour).Truncate(time.Minute)
}

// logger writes the ingest's log to the test's log.
func logger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

func (s *suite) testMigrations(t *testing.T) {
	st, dsn := s.open(t, store.Options{})
	ctx := ctxFor(t, 2*time.Minute)
	// Several processes starting at once against one store: all succeed.
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s2, err := store.Open(ctx, dsn, store.Options{})
			if err == nil {
				s2.Close()
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent Open: %v", err)
		}
	}
	vs, err := st.Migrations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != store.SchemaVersion() || vs[len(vs)-1] != store.SchemaVersion() {
		t.Fatalf("applied versions %v, want 1..%d once each", vs, store.SchemaVersion())
	}
	names := []string{"audit", "cls", "exceptions", "outbound", "monitor", "bench_runs", "throughput_1s", "namespaces",
		"store_settings", "schema_migrations", "throughput_steps_mv", "throughput_network_mv",
		"throughput_inbound_mv", "throughput_cls_mv", "throughput_exceptions_mv"}
	if n := count(t, st, "SELECT count() FROM system.tables WHERE database = ?", st.Database()); int(n) != len(names) {
		t.Fatalf("%d tables and views in %s, want %d (%v)", n, st.Database(), len(names), names)
	}
	if r, err := st.Retention(ctx); err != nil || r != store.DefaultRetention {
		t.Fatalf("retention %v, %v; want %v", r, err, store.DefaultRetention)
	}
	// A changed retention is applied to every TTL, once.
	st2, err := store.Open(ctx, dsn, store.Options{Retention: 48 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	if r, _ := st2.Retention(ctx); r != 48*time.Hour {
		t.Fatalf("retention after Open with 48h: %v", r)
	}
	for _, table := range []string{"audit", "cls", "exceptions", "outbound", "monitor", "throughput_1s"} {
		var engine string
		if err := st.Conn().QueryRow(ctx, "SELECT engine_full FROM system.tables WHERE database = ? AND name = ?",
			st.Database(), table).Scan(&engine); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(engine, "toIntervalSecond(172800)") {
			t.Fatalf("%s: TTL not changed to 48h: %s", table, engine)
		}
	}
	if _, err := store.Open(ctx, dsn, store.Options{NoMigrate: true}); err != nil {
		t.Fatalf("Open without migrating a current store: %v", err)
	}
}

func (s *suite) startIngest(t *testing.T, ctx context.Context, st *store.Store, ns string, mod func(*ingest.Options)) *ingest.Ingester {
	t.Helper()
	o := ingest.Options{Kafka: kafkaconn.Plaintext(s.brokers), Namespace: ns, Store: st, BatchRows: 500,
		FlushInterval: 100 * time.Millisecond, Logger: logger(t)}
	if mod != nil {
		mod(&o)
	}
	in, err := ingest.Start(ctx, o)
	if err != nil {
		t.Fatalf("ingest.Start: %v", err)
	}
	t.Cleanup(func() { _ = in.Stop() })
	return in
}

func (s *suite) testIngestExactRows(t *testing.T) {
	st, _ := s.open(t, store.Options{})
	ns := s.name("ing")
	s.topicsFor(t, ns)
	d := Generate(ns, 300, base())
	s.produce(t, d.Records)
	ctx := ctxFor(t, 2*time.Minute)

	in := s.startIngest(t, ctx, st, ns, nil)
	if err := in.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	stats := in.Stats()
	if err := in.Stop(); err != nil {
		t.Fatal(err)
	}
	expectStored(t, st, ns, d.Want)
	for topic, n := range d.Want.Bad {
		if stats.BadRecords[topic] != int64(n) {
			t.Errorf("%s: %d bad records counted, want %d", topic, stats.BadRecords[topic], n)
		}
	}
	if audit := (topology.Names{NS: ns}).Audit(); stats.Inserts[audit] < int64(d.Want.AuditSteps/500) {
		t.Errorf("audit: %d inserts for %d rows in batches of 500", stats.Inserts[audit], d.Want.AuditSteps)
	}
	// A restart resumes where it stopped: nothing is read twice.
	in2 := s.startIngest(t, ctx, st, ns, nil)
	if err := in2.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	if st2 := in2.Stats(); len(st2.Rows) != 0 {
		t.Errorf("restarted ingest read rows again: %v", st2.Rows)
	}
	if err := in2.Stop(); err != nil {
		t.Fatal(err)
	}
	expectStored(t, st, ns, d.Want)
	// Another group told to resume from the store reads nothing stored again.
	in3 := s.startIngest(t, ctx, st, ns, func(o *ingest.Options) { o.Group, o.FromStore = ns+".refill", true })
	if err := in3.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	if st3 := in3.Stats(); len(st3.Rows) != 0 && sum64(st3.Rows) != 0 {
		t.Errorf("FromStore read stored rows again: %v", st3.Rows)
	}
	if err := in3.Stop(); err != nil {
		t.Fatal(err)
	}
	expectStored(t, st, ns, d.Want)
	if got, _ := st.LatestNamespace(ctx); got != ns {
		t.Errorf("latest namespace %q, want %q", got, ns)
	}
}

func sum64(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// decodeAll turns a dataset's records into rows directly, with made-up
// offsets (no Kafka).
func decodeAll(t *testing.T, d *Dataset) (a []rows.Audit, c []rows.CLS, e []rows.Exception, m []rows.Monitor) {
	t.Helper()
	n := topology.Names{NS: d.NS}
	for i, r := range d.Records {
		src := rows.Source{Namespace: d.NS, Partition: 0, Offset: int64(i), Time: r.Timestamp.UTC()}
		var err error
		switch r.Topic {
		case n.Audit():
			a, err = rows.DecodeAudit(a, src, r.Value)
		case n.CLS():
			var x rows.CLS
			if x, err = rows.DecodeCLS(src, r.Value); err == nil {
				c = append(c, x)
			}
		case n.Exceptions():
			var x rows.Exception
			if x, err = rows.DecodeException(src, r.Value); err == nil {
				e = append(e, x)
			}
		case n.Monitor():
			var x rows.Monitor
			if x, err = rows.DecodeMonitor(src, r.Value); err == nil {
				m = append(m, x)
			}
		}
		if err != nil && string(r.Key) != "bad" {
			t.Fatalf("record %d on %s: %v", i, r.Topic, err)
		}
	}
	return
}

func (s *suite) testReplayedBatch(t *testing.T) {
	st, _ := s.open(t, store.Options{})
	ctx := ctxFor(t, 2*time.Minute)
	insertAll := func(ns, token string, d *Dataset) {
		t.Helper()
		a, c, e, m := decodeAll(t, d)
		for _, err := range []error{
			st.InsertAudit(ctx, token, a), st.InsertCLS(ctx, token, c),
			st.InsertExceptions(ctx, token, e), st.InsertMonitor(ctx, token, m),
		} {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	// The same batch twice with the same token: stored once, counted once
	// in every view.
	ns := s.name("replay")
	d := Generate(ns, 60, base())
	insertAll(ns, "batch-"+ns, d)
	insertAll(ns, "batch-"+ns, d)
	expectStored(t, st, ns, d.Want)

	// Control: without the same token the copy is stored — the check above
	// would have seen a double.
	ns2 := s.name("replay")
	d2 := Generate(ns2, 20, base())
	insertAll(ns2, "first-"+ns2, d2)
	insertAll(ns2, "second-"+ns2, d2)
	got := storedRows(t, st, ns2)
	if got.AuditSteps != 2*d2.Want.AuditSteps || got.Stages["match"] != 2*d2.Want.Stages["match"] {
		t.Fatalf("two different tokens: %d audit rows, view match %d; want both doubled (%d, %d)",
			got.AuditSteps, got.Stages["match"], 2*d2.Want.AuditSteps, 2*d2.Want.Stages["match"])
	}
}

var errCrash = errors.New("simulated crash between insert and commit")

func (s *suite) testCrashBetweenInsertAndCommit(t *testing.T) {
	st, _ := s.open(t, store.Options{})
	ns := s.name("crash")
	s.topicsFor(t, ns)
	d := Generate(ns, 300, base())
	s.produce(t, d.Records)
	ctx := ctxFor(t, 2*time.Minute)

	var n atomic.Int32
	var crashed ingest.Batch
	in := s.startIngest(t, ctx, st, ns, func(o *ingest.Options) {
		o.AfterInsert = func(b ingest.Batch) error {
			if n.Add(1) == 4 {
				crashed = b
				return errCrash
			}
			return nil
		}
	})
	select {
	case <-in.Done():
	case <-ctx.Done():
		t.Fatal("the ingest did not crash")
	}
	if !errors.Is(in.Err(), errCrash) {
		t.Fatalf("ingest ended with %v, want the simulated crash", in.Err())
	}
	// The crashed batch is stored but its offsets are not committed.
	committed, err := ingest.Committed(ctx, s.admin(t), ingest.Group(ns))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range crashed.Ranges {
		if got := committed[r.Topic][r.Partition]; got > r.First {
			t.Fatalf("%s/%d committed at %d, but the crashed batch starts at %d", r.Topic, r.Partition, got, r.First)
		}
	}
	mid := storedRows(t, st, ns)
	if mid.AuditSteps+mid.CLSRecords+mid.ExceptionRecords+mid.Monitor == 0 {
		t.Fatal("nothing stored before the crash")
	}
	t.Logf("crashed after inserting %s (%d rows, uncommitted); stored so far: %d audit rows", crashed.Table, crashed.Rows, mid.AuditSteps)

	in2 := s.startIngest(t, ctx, st, ns, nil)
	if err := in2.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	if err := in2.Stop(); err != nil {
		t.Fatal(err)
	}
	expectStored(t, st, ns, d.Want)
}

// flakyProxy is an HTTP proxy in front of ClickHouse that can be down, or
// forward an insert and then drop the answer — the ambiguous failure a
// retry must not turn into a duplicate.
type flakyProxy struct {
	rp          *httputil.ReverseProxy
	down        atomic.Bool
	dropReplies atomic.Int32
	dropped     atomic.Int32
}

func (p *flakyProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p.down.Load() {
		panic(http.ErrAbortHandler) // connection reset, as a dead server
	}
	if strings.HasPrefix(strings.TrimSpace(r.URL.Query().Get("query")), "INSERT") && p.dropReplies.Add(-1) >= 0 {
		rec := httptest.NewRecorder()
		p.rp.ServeHTTP(rec, r)
		if rec.Code == http.StatusOK {
			p.dropped.Add(1)
		}
		panic(http.ErrAbortHandler)
	}
	p.rp.ServeHTTP(w, r)
}

func (s *suite) testInsertRetry(t *testing.T) {
	u, err := url.Parse(s.b.DSN)
	if err != nil || u.Scheme != "http" {
		testgate.Skip(t, "needs a ClickHouse HTTP endpoint (http:// DSN) to put a proxy in front of")
	}
	direct, _ := s.open(t, store.Options{})
	proxy := &flakyProxy{rp: httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: u.Host})}
	proxy.rp.ErrorLog = log.New(io.Discard, "", 0)
	srv := httptest.NewServer(proxy)
	defer srv.Close()
	pu, _ := url.Parse(srv.URL)
	pu.User = u.User // the endpoint's credentials, through the proxy
	dsn, _ := WithDatabase(pu.String(), direct.Database())
	ctx := ctxFor(t, 2*time.Minute)
	st, err := store.Open(ctx, dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	ns := s.name("retry")
	s.topicsFor(t, ns)
	d := Generate(ns, 200, base())
	s.produce(t, d.Records)

	// ClickHouse away at start: the ingest waits (it cannot know what is
	// stored) and consumes nothing.
	proxy.down.Store(true)
	var inserts atomic.Int32
	in := s.startIngest(t, ctx, st, ns, func(o *ingest.Options) {
		o.AfterInsert = func(ingest.Batch) error {
			if inserts.Add(1) == 2 {
				// Away again mid-ingest, then back: inserts fail and are
				// retried with the same batch and token.
				proxy.down.Store(true)
				time.AfterFunc(700*time.Millisecond, func() { proxy.down.Store(false) })
			}
			return nil
		}
	})
	time.Sleep(time.Second)
	if got := storedRows(t, direct, ns); got.AuditSteps+got.CLSRecords != 0 {
		t.Fatalf("rows stored while ClickHouse was away: %+v", got.Want)
	}
	// Back, but the answers to the next three inserts are lost after they
	// landed.
	proxy.dropReplies.Store(3)
	proxy.down.Store(false)
	if err := in.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	stats := in.Stats()
	if err := in.Stop(); err != nil {
		t.Fatal(err)
	}
	if proxy.dropped.Load() != 3 || stats.InsertErrors < 4 {
		t.Fatalf("%d inserts landed with their answer lost, %d insert errors; want 3 and at least 4", proxy.dropped.Load(), stats.InsertErrors)
	}
	expectStored(t, direct, ns, d.Want)
}

// An exception record anyone could have written to <ns>.exceptions (no
// proof, or a proof under another secret) never becomes a row when the
// ingest holds the utility's secret; the proven ones all do.
func (s *suite) testIngestSkipsUnprovenExceptions(t *testing.T) {
	st, _ := s.open(t, store.Options{})
	ns := s.name("prf")
	s.topicsFor(t, ns)
	d := Generate(ns, 100, base())
	secret, _ := trust.New(bytes.Repeat([]byte{7}, trust.Size))
	other, _ := trust.New(bytes.Repeat([]byte{8}, trust.Size))
	exceptions := topology.Names{NS: ns}.Exceptions()
	proven, n := 0, 0
	for _, r := range d.Records {
		if r.Topic != exceptions {
			continue
		}
		switch n++; n % 3 {
		case 0:
			topics.Prove(secret, r)
			if _, err := rows.DecodeException(rows.Source{Namespace: ns}, r.Value); err == nil {
				proven++ // the dataset's undecodable records are skipped as bad anyway
			}
		case 1:
			topics.Prove(other, r)
		}
	}
	if proven == 0 || n == proven {
		t.Fatalf("dataset: %d exceptions, %d proven: want some of each", n, proven)
	}
	s.produce(t, d.Records)
	ctx := ctxFor(t, 2*time.Minute)
	in := s.startIngest(t, ctx, st, ns, func(o *ingest.Options) { o.Secret = secret })
	if err := in.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	if err := in.Stop(); err != nil {
		t.Fatal(err)
	}
	if got := int(count(t, st, "SELECT count() FROM {db}.exceptions WHERE namespace = ?", ns)); got != proven {
		t.Fatalf("%d exception rows stored, want the %d proven of %d records", got, proven, n)
	}
	if got := int(count(t, st, "SELECT count() FROM {db}.cls WHERE namespace = ?", ns)); got != d.Want.CLSRecords {
		t.Fatalf("%d CLS rows, want %d: the proof is asked of exceptions only", got, d.Want.CLSRecords)
	}
}
