package instance_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/ste-utility/ste/e2e/v3set"
	"github.com/ste-utility/ste/instance"
	"github.com/ste-utility/ste/processors/offline"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/outcome"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/broker"
)

// steMatch is ste match's outcome of recs against ref.
func steMatch(t *testing.T, recs [][]byte, ref *refdata.Set) *outcome.Set {
	t.Helper()
	src, _ := msgset.NewReader(bytes.NewReader(append(bytes.Join(recs, []byte("\n")), '\n')), "set")
	o := outcome.New()
	u := refdata.DefaultUtilityBIC
	if _, _, err := offline.Run(context.Background(), src, offline.Sinks{CLS: o.AddOutput, Outbound: o.AddOutput, Exceptions: o.AddException},
		offline.Options{Validator: validation.New(ref, validation.WithUtilityBIC(u)), Signer: &schemas.Signer{BIC: u, Key: refdata.DemoPrivateKey(u)}}); err != nil {
		t.Fatal(err)
	}
	return o
}

// publishAuto loads the set's AUTO rows (affirmation.csv) into the namespace.
func (e *env) publishAuto(s *v3set.Set) {
	e.t.Helper()
	auto := refdata.NewSet()
	for _, im := range s.Auto {
		auto.PutAffirmation(refdata.Affirmation{InvMgr: im, Mode: refdata.AffirmAuto})
	}
	if _, err := topics.PublishRefdata(e.ctx, e.cl, e.ns, auto); err != nil {
		e.t.Fatal(err)
	}
}

// waitStanding reads the outputs until they hold ste match's standing
// outputs (allegements come the allegement delay after a trade's last
// message), or fails with what still differs.
func (e *env) waitStanding(want *outcome.Set, within time.Duration) *outcome.Set {
	e.t.Helper()
	deadline := time.Now().Add(within)
	for {
		got, err := topics.ReadOutcome(e.ctx, e.brokers, e.ns)
		if err != nil {
			e.t.Fatal(err)
		}
		d := outcome.Compare(want, got, outcome.Options{A: "ste match", B: "kafka", Standing: true})
		if d.Equal() {
			return got
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the Kafka path's standing outputs differ from ste match's: %s", d.Report(10))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// A version 3 set (AUTO and MANUAL affirmation, a rejection, an amendment,
// cancellations, rogue SETs), shuffled, through two instances: the Kafka
// path ends with ste match's standing outputs — the last STATUS, CNF, BLK
// and ALG of each trade to each receiver, the CLS, every ACK (the
// utility's AFFs' included) and NACK — its allegements sent after the
// delay by the match table's timers.
func TestV3SetOnKafkaIsSteMatchs(t *testing.T) {
	e := newEnv(t, "v3set", 4*time.Minute, broker.Options{})
	s, err := v3set.Build(v3set.Options{Trades: 120, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	e.publishAuto(s)
	o := instance.Options{AllegementDelay: 500 * time.Millisecond}
	e.start("a", o)
	e.start("b", o)
	e.drive(s.Records)
	e.waitZero()
	want := steMatch(t, s.Records, s.Ref)
	got := e.waitStanding(want, time.Minute)
	c := got.Counts()
	t.Logf("%d records: %d ACKs, %d exceptions, %d settled trades; cases %v", len(s.Records), c.ACKs, c.Exceptions, c.Settled, s.Cases)
}
