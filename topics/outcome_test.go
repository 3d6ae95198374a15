package topics_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

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

// TestReadOutcome: a namespace's outputs, written at least once, read back
// as the outcome of the run that wrote them.
func TestReadOutcome(t *testing.T) {
	var recs [][]byte
	if _, err := workload.Generate(workload.Options{Trades: 60, Mix: workload.Realistic, Seed: 9},
		func(b []byte) error { recs = append(recs, b); return nil }, nil); err != nil {
		t.Fatal(err)
	}
	src, err := msgset.NewReader(bytes.NewReader(append(bytes.Join(recs, []byte("\n")), '\n')), "set.xml")
	if err != nil {
		t.Fatal(err)
	}
	ns := topology.Names{NS: "oc"}
	want := outcome.New()
	var out []*kgo.Record
	emit := func(topic string, add func([]byte) error) func([]byte) error {
		return func(b []byte) error {
			out = append(out, &kgo.Record{Topic: topic, Key: []byte(fmt.Sprint(len(out))), Value: slices.Clone(b)})
			return add(b)
		}
	}
	signer := &schemas.Signer{BIC: "STEUTLSGXXX", Key: refdata.DemoPrivateKey("STEUTLSGXXX")}
	if _, _, err := offline.Run(context.Background(), src,
		offline.Sinks{CLS: emit(ns.CLS(), want.AddOutput), Outbound: emit(ns.Outbound(), want.AddOutput),
			Exceptions: emit(ns.Exceptions(), want.AddException)},
		offline.Options{Validator: validation.New(refdata.Default()), Signer: signer}); err != nil {
		t.Fatal(err)
	}
	if want.Counts().Exceptions == 0 || want.Counts().Settled == 0 {
		t.Fatalf("too little to read: %+v", want.Counts())
	}
	// At least once: every record twice, the second time in another partition.
	for i, r := range slices.Clone(out) {
		out = append(out, &kgo.Record{Topic: r.Topic, Key: []byte(fmt.Sprint(i + 1)), Value: r.Value})
	}

	addr, cl := startBroker(t)
	ctx := context.Background()
	if _, err := topics.Create(ctx, kadm.NewClient(cl), ns.NS, topics.Options{Partitions: 3}); err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(ctx, out...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	got, err := topics.ReadOutcome(ctx, kafkaconn.Plaintext(addr), ns.NS)
	if err != nil {
		t.Fatal(err)
	}
	if d := outcome.Compare(want, got, outcome.Options{A: "written", B: "read"}); !d.Equal() {
		t.Fatal(d.Report(5))
	}
	if g, w := got.Counts(), want.Counts(); g.Outputs != w.Outputs || g.Exceptions != w.Exceptions || g.Repeats != 2*w.Repeats+w.Outputs {
		t.Fatalf("read %+v, written %+v", g, w)
	}

	// A record that is no output is an error naming where it sits.
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: ns.Outbound(), Key: []byte("x"), Value: []byte("not xml")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if _, err := topics.ReadOutcome(ctx, kafkaconn.Plaintext(addr), ns.NS); err == nil || !strings.Contains(err.Error(), ns.Outbound()+" partition") {
		t.Fatalf("a bad record: %v", err)
	}
}
