package monitor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/internal/testing/brokertest"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/measure/monitor"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topics"
)

// TestRunPublishesWhatItReturns: ste monitor's loop hands every sample to
// its caller as it is taken, returns them all when its context ends, and
// by then each is on <ns>.monitor.
func TestRunPublishesWhatItReturns(t *testing.T) {
	addr, _ := brokertest.Start(t)
	brokers := kafkaconn.Plaintext(addr)
	const ns = "run"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl, err := topics.Client(brokers)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := topics.Create(ctx, kadm.NewClient(cl), ns, topics.Options{}); err != nil {
		t.Fatal(err)
	}

	rctx, stop := context.WithTimeout(ctx, 1200*time.Millisecond)
	defer stop()
	var handed []schemas.MonitorSample
	rounds := 0
	all, err := monitor.Run(rctx, monitor.New(cl, ns), cl, ns, 200*time.Millisecond,
		func(ss []schemas.MonitorSample) { rounds++; handed = append(handed, ss...) })
	if err != nil {
		t.Fatal(err)
	}
	if rounds < 2 || len(all) != len(handed) {
		t.Fatalf("%d rounds handed %d samples; Run returned %d", rounds, len(handed), len(all))
	}
	stages := len(monitor.Stages(ns))
	if len(all) != rounds*stages {
		t.Fatalf("%d samples in %d rounds, want %d a round", len(all), rounds, stages)
	}

	published, err := topics.Dump(ctx, brokers, ns+".monitor", func(r *kgo.Record) error {
		var s schemas.MonitorSample
		if err := json.Unmarshal(r.Value, &s); err != nil || s.Namespace != ns || string(r.Key) != s.Stage {
			return fmt.Errorf("record %q → %q: %+v, %v", r.Key, r.Value, s, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if published != len(all) {
		t.Fatalf("%d samples on %s.monitor, Run returned %d", published, ns, len(all))
	}
}
