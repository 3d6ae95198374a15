package pipeline_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/internal/testing/brokertest"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/workload"
)

// On Kafka the stages write their audit events in batches: every inbound
// record's journey is on <ns>.audit exactly once, in far fewer records
// than events, and every event with a trade is in its trade key's
// partition (the exceptions workflow reads a trade's partition).
func TestAuditEventsAreBatchedInTheirTradesPartition(t *testing.T) {
	const ns = "auditbatch"
	ctx, env := brokertest.Namespace(t, ns, 4, 2*time.Minute)
	ref := refdata.Default()
	defer runPipeline(ctx, t, env, ns, "")()
	// The realistic mix (duplicates, invalid messages) with forgeries, so
	// that journeys end in every stage.
	var buf bytes.Buffer
	man, err := workload.Generate(workload.Options{Trades: 300, Ref: ref, Mix: workload.Realistic, Forged: 0.1}, func(b []byte) error {
		buf.Write(b)
		return buf.WriteByte('\n')
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	src, _ := msgset.NewReader(&buf, "set.xml")
	if _, err := topics.Drive(ctx, env.Client, ns, src, topics.DriveOptions{}); err != nil {
		t.Fatal(err)
	}
	audit := topology.Names{NS: ns}.Audit()
	type journey struct {
		p   int32
		off int64
	}
	var records, events int
	seen := map[journey]int{}
	var misplaced []string
	for ctx.Err() == nil {
		records, events = 0, 0
		clear(seen)
		misplaced = misplaced[:0]
		_, err := topics.Dump(ctx, env.Conn, audit, func(r *kgo.Record) error {
			records++
			return schemas.EachAuditEvent(r.Value, func(ev schemas.AuditEvent) error {
				events++
				seen[journey{ev.Partition, ev.Offset}]++
				if ev.TradeKey != "" && topics.PartitionOf(ev.TradeKey, 4) != r.Partition {
					misplaced = append(misplaced, ev.TradeKey)
				}
				return nil
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		if events >= man.Messages {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if events != man.Messages || len(seen) != man.Messages {
		t.Fatalf("%d audit events for %d journeys, %d messages sent", events, len(seen), man.Messages)
	}
	if records*5 > events {
		t.Errorf("%d records for %d events: not batched", records, events)
	}
	if len(misplaced) > 0 {
		t.Errorf("%d events outside their trade key's partition, e.g. %s", len(misplaced), misplaced[0])
	}
	t.Logf("%d audit events in %d records", events, records)
}
