package origin_test

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/ste-utility/ste/internal/testing/brokertest"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/origin"
	"github.com/ste-utility/ste/trust"
)

// testSecret is the utility secret of the tests' processes.
var testSecret, _ = trust.New([]byte("0123456789abcdef0123456789abcdef"))

// TestTheLatestRecordPerKindAndSourceIsRead: a migration's "started" is
// replaced by its "complete"; a replay beside it makes a sandbox; a
// namespace without topics has no origin.
func TestTheLatestRecordPerKindAndSourceIsRead(t *testing.T) {
	_, dial := brokertest.Start(t)
	cl := brokertest.Client(t, dial)
	ctx := context.Background()
	if rs, err := origin.Read(ctx, dial, "none", testSecret); err != nil || rs != nil {
		t.Fatalf("no namespace: %v %v", rs, err)
	}
	if _, err := topics.Create(ctx, kadm.NewClient(cl), "n2", topics.Options{Partitions: 2}); err != nil {
		t.Fatal(err)
	}
	if rs, err := origin.Read(ctx, dial, "n2", testSecret); err != nil || len(rs) != 0 || origin.IsSandbox(rs) {
		t.Fatalf("a new namespace: %v %v", rs, err)
	}
	m := origin.Record{Kind: origin.Migration, From: "n1", State: origin.Started, Partitions: 2, Started: time.Now().UTC(),
		Cutover: map[string]map[int32]int64{"n1.inbound": {0: 5, 1: 7}}}
	for _, r := range []origin.Record{m, {Kind: origin.Migration, From: "n1", State: origin.Complete, Cutover: m.Cutover}} {
		if err := origin.Write(ctx, cl, "n2", testSecret, r); err != nil {
			t.Fatal(err)
		}
	}
	rs, err := origin.Read(ctx, dial, "n2", testSecret)
	if err != nil || len(rs) != 1 || origin.IsSandbox(rs) {
		t.Fatalf("%+v %v", rs, err)
	}
	if r, ok := origin.Find(rs, origin.Migration, "n1"); !ok || r.State != origin.Complete || r.Cutover["n1.inbound"][1] != 7 {
		t.Fatalf("%+v", r)
	}
	if err := origin.Write(ctx, cl, "n2", testSecret, origin.Record{Kind: origin.Replay, From: "n0", State: origin.Complete}); err != nil {
		t.Fatal(err)
	}
	if rs, err := origin.Read(ctx, dial, "n2", testSecret); err != nil || len(rs) != 2 || !origin.IsSandbox(rs) || rs[0].Kind != origin.Migration {
		t.Fatalf("%+v %v", rs, err)
	}
}
