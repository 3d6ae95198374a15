package conformance

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/ste-utility/ste/analytics/ingest"
	"github.com/ste-utility/ste/analytics/store"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/broker"
)

// MeasureIngest times the ingest of a generated dataset of trades trades
// into the ClickHouse at dsn (a fresh database), with the default batch
// size, and describes the result. The records are produced to an
// in-process kfake first, so only the ingest is timed.
func MeasureIngest(ctx context.Context, dsn string, trades int) (string, error) {
	c, err := broker.Start(broker.Options{Addr: "127.0.0.1:0", Partitions: 8})
	if err != nil {
		return "", err
	}
	defer c.Close()
	brokers := kafkaconn.Plaintext(broker.Addr(c))
	ns := fmt.Sprintf("measure%d", time.Now().UnixNano()%1e9)
	cl, err := topics.Client(brokers)
	if err != nil {
		return "", err
	}
	defer cl.Close()
	if _, err := topics.Create(ctx, kadm.NewClient(cl), ns, topics.Options{}); err != nil {
		return "", err
	}
	d := Generate(ns, trades, time.Now().UTC().Add(-time.Hour))
	for i := 0; i < len(d.Records); i += 10000 {
		if err := cl.ProduceSync(ctx, d.Records[i:min(i+10000, len(d.Records))]...).FirstErr(); err != nil {
			return "", err
		}
	}
	db, _ := WithDatabase(dsn, "ste_measure_"+ns)
	st, err := store.Open(ctx, db, store.Options{})
	if err != nil {
		return "", err
	}
	defer st.Close()
	start := time.Now()
	in, err := ingest.Start(ctx, ingest.Options{Kafka: brokers, Namespace: ns, Store: st})
	if err != nil {
		return "", err
	}
	if err := in.CatchUp(ctx); err != nil {
		return "", err
	}
	secs := time.Since(start).Seconds()
	stats := in.Stats()
	if err := in.Stop(); err != nil {
		return "", err
	}
	var rows, recs, inserts int64
	var insertTime time.Duration
	for t, n := range stats.Rows {
		rows += n
		recs += stats.Records[t]
		inserts += stats.Inserts[t]
		insertTime += stats.InsertTime[t]
	}
	return fmt.Sprintf("%d records, %d rows in %.2f s: %.0f rows/s, %.0f records/s; %d inserts, %.2f s inside inserts (%.0f rows/s)",
		recs, rows, secs, float64(rows)/secs, float64(recs)/secs, inserts, insertTime.Seconds(), float64(rows)/insertTime.Seconds()), nil
}
