package deliver_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/internal/testing/brokertest"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/outcome"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/lag"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/workload"
)

// TestUnionOfParticipantTopicsIsOutbound drives a realistic set (matches,
// mismatches, rejections) through one instance with per-participant
// delivery on: the union of every <ns>.out.<BIC> is <ns>.outbound by the
// outcome comparator and record for record, each topic holds only its BIC's
// records, in outbound's order, and the delivery group adds nothing to the
// pipeline's topics.
func TestUnionOfParticipantTopicsIsOutbound(t *testing.T) {
	const ns = "dlv"
	ctx, env := brokertest.Namespace(t, ns, 4, 2*time.Minute)
	env.Refdata(t, ctx, refdata.Default())
	brokers, cl, adm := env.Conn, env.Client, env.Admin
	// One topic made ahead by ste topics create's path, the others on first use.
	if _, err := topics.CreateDelivery(ctx, adm, ns, []string{"BRKASGSGXXX"}, topics.Options{}); err != nil {
		t.Fatal(err)
	}

	ictx, stop := context.WithCancel(ctx)
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- instance.Run(ictx, instance.Options{Kafka: brokers, Namespace: ns, Verify: true,
			Signer: &schemas.Signer{BIC: refdata.DefaultUtilityBIC, Key: refdata.DemoPrivateKey(refdata.DefaultUtilityBIC)},
			Tables: instance.TablesMemory, Home: t.TempDir(), Ready: ready, DeliverPerParticipant: true,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	}()
	defer func() { stop(); <-done }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("instance stopped: %v", err)
	}

	var buf bytes.Buffer
	if _, err := workload.Generate(workload.Options{Trades: 80, Mix: workload.Realistic, Ref: refdata.Default()}, func(b []byte) error {
		buf.Write(b)
		return buf.WriteByte('\n')
	}, nil); err != nil {
		t.Fatal(err)
	}
	src, _ := msgset.NewReader(&buf, "set")
	if _, err := topics.Drive(ctx, cl, ns, src, topics.DriveOptions{}); err != nil {
		t.Fatal(err)
	}
	groups := append(lag.Groups(ns), lag.Group{Name: topics.DeliveryGroup(ns), Stage: "deliver", Topics: []string{topology.Names{NS: ns}.Outbound()}})
	if _, err := lag.WaitZero(ctx, adm, groups, lag.WaitOptions{}); err != nil {
		t.Fatal(err)
	}

	dump := func(topic string) []*kgo.Record {
		var out []*kgo.Record
		if _, err := topics.Dump(ctx, brokers, topic, func(r *kgo.Record) error { out = append(out, r); return nil }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	outbound := dump(topology.Names{NS: ns}.Outbound())
	if len(outbound) == 0 {
		t.Fatal("nothing on outbound")
	}
	listed, err := adm.ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	perBIC := map[string][]*kgo.Record{}
	for _, name := range listed.Names() {
		if bic, ok := strings.CutPrefix(name, ns+".out."); ok {
			perBIC[bic] = dump(name)
		}
	}
	if len(perBIC) < 3 {
		t.Fatalf("%d per-participant topics, want one per receiver", len(perBIC))
	}

	// The comparator: the same outcome (ACKs, NACKs, trades' statuses).
	want, got := outcome.New(), outcome.New()
	for _, r := range outbound {
		if err := want.AddOutput(r.Value); err != nil {
			t.Fatal(err)
		}
	}
	for bic, rs := range perBIC {
		for _, r := range rs {
			if string(r.Key) != bic {
				t.Fatalf("%s.out.%s holds a record keyed %s", ns, bic, r.Key)
			}
			if err := got.AddOutput(r.Value); err != nil {
				t.Fatal(err)
			}
			if rcv, err := schemas.ParseOutput(r.Value); err != nil || rcv.Receiver != bic {
				t.Fatalf("%s.out.%s holds an output for %s (%v)", ns, bic, rcv.Receiver, err)
			}
		}
	}
	if d := outcome.Compare(want, got, outcome.Options{A: "outbound", B: "out.*"}); !d.Equal() {
		t.Fatalf("the per-participant topics differ from outbound:\n%s", d.Report(20))
	}
	if w, g := want.Counts(), got.Counts(); w != g {
		t.Fatalf("counts: outbound %+v, out.* %+v", w, g)
	}
	// Same bytes, same order per BIC.
	byBIC := map[string][][]byte{}
	for _, r := range outbound {
		byBIC[string(r.Key)] = append(byBIC[string(r.Key)], r.Value)
	}
	for bic, vals := range byBIC {
		rs := perBIC[bic]
		if len(rs) != len(vals) {
			t.Fatalf("%s: %d records on its topic, %d on outbound", bic, len(rs), len(vals))
		}
		for i, r := range rs {
			if !bytes.Equal(r.Value, vals[i]) {
				t.Fatalf("%s: record %d differs from outbound's %d-th for it", bic, i, i)
			}
		}
	}
	for bic, rs := range perBIC {
		if _, ok := byBIC[bic]; !ok && len(rs) > 0 {
			t.Fatalf("%s: %d records on its topic, none on outbound", bic, len(rs))
		}
	}
	if rs, ok := perBIC["BRKASGSGXXX"]; !ok {
		t.Fatal("the topic made ahead is gone")
	} else if len(byBIC["BRKASGSGXXX"]) != len(rs) {
		t.Fatalf("the topic made ahead holds %d records of %d", len(rs), len(byBIC["BRKASGSGXXX"]))
	}
	// Nothing added to the pipeline's own topics.
	for _, tp := range topology.Describe(ns).Topics {
		if strings.Contains(tp.Name, ".out.") {
			t.Fatalf("the topology lists %s", tp.Name)
		}
	}
}
