// Package conformance is the analytics conformance suite: one set of tests,
// in the style of watermill's pub/sub test suite, that every ClickHouse STE
// supports must pass — the embedded chDB endpoint (always, in `go test`) and
// a real ClickHouse server (when CLICKHOUSE_ADDR is set). Everything goes
// through clickhouse-go/v2 and the same analytics packages production uses.
//
// It checks: migrations are idempotent; records produced to a Kafka cluster
// (kfake, in-process) end as exactly the expected rows and per-second view
// counts; a replayed batch (same offsets, same token) doubles nothing in
// tables or views; a crash between insert and offset commit, and a kill -9
// of a `ste analytics` process mid-ingest, followed by a restart, lose and
// double nothing; each report returns the right numbers on a small known
// dataset (the lifecycle of contract version 3 included: affirmation by the
// cutoff, allegement age); bad records are skipped, never fatal.
package conformance

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/analytics/store"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/broker"
)

// Backend is a ClickHouse the suite runs against.
type Backend struct {
	// Name labels the subtests.
	Name string
	// DSN of the ClickHouse (clickhouse-go form, see store.Open). Each test
	// creates a database of its own in it.
	DSN string
	// DropDatabases drops each test's database at the end (a shared
	// server); an embedded endpoint in a temporary directory need not.
	DropDatabases bool
	// SteBinary returns the path of a built ste binary, for the tests that
	// run `ste analytics` and `ste report` as processes; nil skips them.
	SteBinary func(t *testing.T) string
}

// Run runs the suite against b.
func Run(t *testing.T, b Backend) {
	s := &suite{b: b, run: fmt.Sprintf("%d%03d", time.Now().Unix()%100000, os.Getpid()%1000)}
	c, err := broker.Start(broker.Options{Addr: "127.0.0.1:0", Partitions: 4})
	if err != nil {
		t.Fatalf("kfake: %v", err)
	}
	t.Cleanup(c.Close)
	s.kafka, s.brokers = c, broker.Addr(c)
	tests := []struct {
		name string
		fn   func(*testing.T)
	}{
		{"Migrations", s.testMigrations},
		{"IngestExactRows", s.testIngestExactRows},
		{"IngestSkipsUnprovenExceptions", s.testIngestSkipsUnprovenExceptions},
		{"ReplayedBatch", s.testReplayedBatch},
		{"CrashBetweenInsertAndCommit", s.testCrashBetweenInsertAndCommit},
		{"InsertRetryWhileClickHouseAway", s.testInsertRetry},
		{"Reports", s.testReports},
		{"Lifecycle", s.testLifecycle},
		{"Kill9AnalyticsProcess", s.testKill9},
		{"PipelineThroughBinaries", s.testPipelineThroughBinaries},
		{"Outcome", s.testOutcome},
	}
	for _, tc := range tests {
		t.Run(b.Name+"/"+tc.name, tc.fn)
	}
}

type suite struct {
	b       Backend
	run     string
	kafka   *kfake.Cluster
	brokers string
	seq     atomic.Int64
}

// name is a fresh identifier for a test's database or namespace.
func (s *suite) name(prefix string) string {
	return fmt.Sprintf("%s_%s_%d", prefix, s.run, s.seq.Add(1))
}

// open opens a store in a database of the test's own.
func (s *suite) open(t *testing.T, o store.Options) (*store.Store, string) {
	t.Helper()
	db := s.name("ste_conf")
	dsn, err := WithDatabase(s.b.DSN, db)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := store.Open(ctx, dsn, o)
	if err != nil {
		t.Fatalf("store.Open: %v", err)
	}
	t.Cleanup(func() {
		if s.b.DropDatabases {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_ = st.Conn().Exec(ctx, "DROP DATABASE IF EXISTS "+db)
		}
		st.Close()
	})
	return st, dsn
}

// WithDatabase returns dsn with its database (URL path) set to db.
func WithDatabase(dsn, db string) (string, error) {
	if !strings.Contains(dsn, "://") {
		dsn = "clickhouse://" + dsn
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "", err
	}
	u.Path = "/" + db
	return u.String(), nil
}

// topicsFor creates a namespace's topics with 4 partitions.
func (s *suite) topicsFor(t *testing.T, ns string) {
	t.Helper()
	cl, err := topics.Client(kafkaconn.Plaintext(s.brokers))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := topics.Create(context.Background(), kadm.NewClient(cl), ns, topics.Options{Partitions: 4}); err != nil {
		t.Fatal(err)
	}
}

// produce writes records (keyed with STE's partitioner) and waits for acks.
func (s *suite) produce(t *testing.T, recs []*kgo.Record) {
	t.Helper()
	cl, err := topics.Client(kafkaconn.Plaintext(s.brokers))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i := 0; i < len(recs); i += 5000 {
		if err := cl.ProduceSync(ctx, recs[i:min(i+5000, len(recs))]...).FirstErr(); err != nil {
			t.Fatalf("produce: %v", err)
		}
	}
}

func (s *suite) admin(t *testing.T) *kadm.Client {
	t.Helper()
	cl, err := topics.Client(kafkaconn.Plaintext(s.brokers))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return kadm.NewClient(cl)
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
