package pipeline

import (
	"context"
	"testing"
	"time"

	"github.com/lovoo/goka"
	"github.com/lovoo/goka/tester"

	"github.com/ste-utility/ste/processors/envelope"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/workload"
)

// TestSandboxJudgesCreatedByTheRecordTime: a message received 25 h before
// its Created was rejected (BAD_DATE) by the live utility; replayed later,
// the wall clock would let it pass, the record time does not. Live
// processors keep the wall clock — here an injected one, a day after the
// message's Created, so the test runs whatever the date (it skipped while
// the machine's clock was before the generated set's dates).
func TestSandboxJudgesCreatedByTheRecordTime(t *testing.T) {
	var rec []byte
	if _, err := workload.Generate(workload.Options{Trades: 1}, func(b []byte) error {
		if rec == nil {
			rec = append([]byte(nil), b...)
		}
		return nil
	}, nil); err != nil {
		t.Fatal(err)
	}
	var dec schemas.Decoder
	m, rej := dec.Decode(rec)
	if rej != nil {
		t.Fatal(rej)
	}
	received := time.Unix(0, m.Created).Add(-25 * time.Hour)
	later := func() time.Time { return time.Unix(0, m.Created).Add(24 * time.Hour) } // the replay's wall clock
	for _, sandbox := range []bool{false, true} {
		tt := tester.New(t)
		n := topology.Names{NS: "t"}
		s := newWiring(Config{Names: n, Validator: validation.New(refdata.Default(), validation.WithClock(later)), Sandbox: sandbox, Now: later,
			Signer: &schemas.Signer{BIC: "STEUTLSGXXX", Key: refdata.DemoPrivateKey("STEUTLSGXXX")}}, nil)
		p, err := goka.NewProcessor(nil, Graphs(n, s.callbacks())[0], goka.WithTester(tt))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		go p.Run(ctx)
		if err := p.WaitForReadyContext(ctx); err != nil {
			t.Fatal(err)
		}
		verdicts := tt.NewQueueTracker(n.Verdicts())
		tt.Consume(n.Inbound(), m.Sender, rec, tester.WithTime(received))
		_, v, ok := verdicts.NextRaw()
		cancel()
		if !ok {
			t.Fatal("no verdict")
		}
		e, err := envelope.Unmarshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]schemas.Reason{false: 0, true: schemas.BadDate}[sandbox]; e.Reason != want {
			t.Fatalf("sandbox %v: reason %v, want %v", sandbox, e.Reason, want)
		}
	}
}
