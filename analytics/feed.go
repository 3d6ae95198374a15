package analytics

import (
	"context"
	"log/slog"
	"time"

	"github.com/ste-utility/ste/analytics/ingest"
	"github.com/ste-utility/ste/analytics/store"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/trust"
)

// Feed is analytics ingesting alongside a run (ste demo, ste bench): the
// store, and the ingest of one namespace into it.
type Feed struct {
	Store *store.Store
	in    *ingest.Ingester
}

// StartFeed opens the store (the ClickHouse at dsn, or the embedded one
// under home: see Open) and starts ingesting namespace ns from the cluster
// k. ctx must outlive the processors: the ingest catches up after they
// finish. secret, when the run's processes prove their control records, is
// their shared secret: exceptions without its proof are not ingested.
func StartFeed(ctx context.Context, dsn, home string, k kafkaconn.Config, ns string, secret *trust.Secret, log *slog.Logger) (*Feed, error) {
	st, err := Open(ctx, dsn, home, store.Options{})
	if err != nil {
		return nil, err
	}
	in, err := ingest.Start(ctx, ingest.Options{Kafka: k, Namespace: ns, Store: st, Secret: secret, Logger: log})
	if err != nil {
		st.Close()
		return nil, err
	}
	return &Feed{Store: st, in: in}, nil
}

// catchUpTimeout bounds the wait for the ingest to store what the run
// wrote: a run's outputs are minutes of ingest at most.
const catchUpTimeout = 3 * time.Minute

// Finish waits until everything on the namespace's topics is stored, then
// stops the ingest.
func (f *Feed) Finish(ctx context.Context) error {
	err := f.CatchUp(ctx)
	if serr := f.Stop(); err == nil {
		err = serr
	}
	return err
}

// CatchUp waits until everything on the namespace's topics is stored, and
// keeps ingesting.
func (f *Feed) CatchUp(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, catchUpTimeout)
	defer cancel()
	return f.in.CatchUp(cctx)
}

// Stop stops the ingest; the store stays open.
func (f *Feed) Stop() error { return f.in.Stop() }

// Close closes the store (and releases the embedded endpoint).
func (f *Feed) Close() { f.Store.Close() }

// Opener opens the store of dsn, or the embedded one under home, whenever
// called (the console's Options.Analytics).
func Opener(dsn, home string) func(context.Context) (*store.Store, error) {
	return func(ctx context.Context) (*store.Store, error) {
		return Open(ctx, dsn, home, store.Options{})
	}
}
