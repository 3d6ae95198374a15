package pipeline_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ste-utility/ste/internal/testing/brokertest"
	"github.com/ste-utility/ste/processors/metrics"
	"github.com/ste-utility/ste/processors/pipeline"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/lag"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/workload"
)

// TestClockJumpWarned (issue 51): a message dated far ahead of the trades
// a partition holds moves its event-time clock past them by more than the
// retention at once. Those trades expire, as the contract says; the match
// stage also logs a warning and counts the jump with its size
// (ste_event_time_jumps_total, ste_event_time_last_jump_seconds), which the
// console shows. A set of one day makes no jump.
func TestClockJumpWarned(t *testing.T) {
	const ns = "jump"
	ctx, env := brokertest.Namespace(t, ns, 1, 3*time.Minute)
	env.Refdata(t, ctx, refdata.Default())
	var logBuf syncBuffer
	reg := prometheus.NewRegistry()
	m := metrics.New(reg)
	pctx, cancel := context.WithCancel(ctx)
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() {
		done <- pipeline.Run(pctx, pipeline.Options{Kafka: env.Conn, Ready: ready,
			Logger: slog.New(slog.NewTextHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelWarn})),
			Config: pipeline.Config{Names: topology.Names{NS: ns}, Validator: validation.New(refdata.Default()), Metrics: m,
				Signer: &schemas.Signer{BIC: "STEUTLSGXXX", Key: refdata.DemoPrivateKey("STEUTLSGXXX")}}})
	}()
	defer func() { cancel(); <-done }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("processors stopped: %v", err)
	}
	drive := func(o workload.Options) {
		t.Helper()
		var buf bytes.Buffer
		if _, err := workload.Generate(o, func(b []byte) error { buf.Write(b); return buf.WriteByte('\n') }, nil); err != nil {
			t.Fatal(err)
		}
		src, _ := msgset.NewReader(&buf, "set")
		if _, err := topics.Drive(ctx, env.Client, ns, src, topics.DriveOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := lag.WaitZero(ctx, env.Admin, lag.Groups(ns), lag.WaitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	drive(workload.Options{Trades: 20, TradeDate: date.MustParse("2026-11-02")})
	if n := sum(t, reg, "ste_event_time_jumps_total"); n != 0 || strings.Contains(logBuf.String(), "clock jumped") {
		t.Fatalf("%v jumps within one day's set; log:\n%s", n, logBuf.String())
	}
	// One trade of a month later.
	drive(workload.Options{Trades: 1, Seed: 9, TradeDate: date.MustParse("2026-12-02")})
	if n := sum(t, reg, "ste_event_time_jumps_total"); n != 1 {
		t.Fatalf("the clock moved a month at once: %v jumps counted, want 1", n)
	}
	if by := sum(t, reg, "ste_event_time_last_jump_seconds"); by < 29*24*3600 || by > 31*24*3600 {
		t.Errorf("last jump %v s, want about a month", by)
	}
	if log := logBuf.String(); !strings.Contains(log, "event-time clock jumped by more than the retention") || !strings.Contains(log, "from=2026-11-02") {
		t.Errorf("no warning naming the old clock in the log:\n%s", log)
	}
}

// sum is the sum of a gathered family's series.
func sum(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n float64
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			n += m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return n
}

// syncBuffer is a buffer the processors' goroutines write to.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
