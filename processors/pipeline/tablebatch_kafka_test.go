package pipeline_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/internal/testing/brokertest"
	"github.com/ste-utility/ste/processors/changelog"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/workload"
)

// On Kafka the identity stage writes its table's changelog in batch
// records, and every way of reading the table back gets each identity:
// a store resumed from its own disk, and stores rebuilt from the changelog
// alone (disk and memory). Each time the set is sent again, and every copy
// must be known to the identity stage as an exact duplicate — an identity
// lost on the way would be accepted there anew.
func TestIdentityChangelogInBatchesIsReadBack(t *testing.T) {
	const ns = "tablebatch"
	ctx, env := brokertest.Namespace(t, ns, 4, 3*time.Minute)
	names := topology.Names{NS: ns}
	ref := refdata.Default()
	run := func(tableDir string) (stop func()) { return runPipeline(ctx, t, env, ns, tableDir) }
	var set bytes.Buffer
	man, err := workload.Generate(workload.Options{Trades: 150, Ref: ref}, func(b []byte) error {
		set.Write(b)
		return set.WriteByte('\n')
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sent := 0
	// send drives the set once more and returns the identity stage's event
	// for each of its messages.
	send := func() map[string]int {
		ends, err := env.Admin.ListEndOffsets(ctx, names.Inbound())
		if err != nil {
			t.Fatal(err)
		}
		src, _ := msgset.NewReader(bytes.NewReader(set.Bytes()), "set.xml")
		if _, err := topics.Drive(ctx, env.Client, ns, src, topics.DriveOptions{}); err != nil {
			t.Fatal(err)
		}
		sent += man.Messages
		for ctx.Err() == nil {
			events := map[string]int{}
			n := 0
			if _, err := topics.Dump(ctx, env.Conn, names.Audit(), func(r *kgo.Record) error {
				return schemas.EachAuditEvent(r.Value, func(ev schemas.AuditEvent) error {
					n++
					if end, _ := ends.Lookup(names.Inbound(), ev.Partition); ev.Offset >= end.Offset {
						for _, s := range ev.Steps {
							if s.Stage == topology.StageIdentity.String() {
								events[s.Event]++
							}
						}
					}
					return nil
				})
			}); err != nil {
				t.Fatal(err)
			}
			if n >= sent {
				return events
			}
			time.Sleep(200 * time.Millisecond)
		}
		t.Fatal("the set's journeys did not end")
		return nil
	}
	diskA, diskB := t.TempDir(), t.TempDir()

	stop := run(diskA)
	if got := send(); got["accepted"] != man.Messages {
		t.Fatalf("first sending: identity events %v, want %d accepted", got, man.Messages)
	}
	stop()
	records, entries := 0, 0
	if _, err := topics.Dump(ctx, env.Conn, topology.Table(names.IdentityGroup()), func(r *kgo.Record) error {
		records++
		return changelog.EachValue(topology.StageIdentity, string(r.Key), r.Value, func(k string, _ []byte) {
			if topics.PartitionOf(k, 4) != r.Partition {
				t.Errorf("identity %s in changelog partition %d", k, r.Partition)
			}
			entries++
		})
	}); err != nil {
		t.Fatal(err)
	}
	if entries != man.Messages || records*5 > entries {
		t.Fatalf("identity changelog: %d identities in %d records, want %d in batches", entries, records, man.Messages)
	}
	t.Logf("%d identities in %d changelog records", entries, records)

	for _, c := range []struct{ name, dir string }{
		{"resumed from its disk", diskA},
		{"rebuilt on disk", diskB},
		{"rebuilt in memory", ""},
	} {
		stop := run(c.dir)
		if got := send(); got["duplicate"] != man.Messages {
			t.Errorf("%s: identity events %v, want %d exact duplicates", c.name, got, man.Messages)
		}
		stop()
	}
}
