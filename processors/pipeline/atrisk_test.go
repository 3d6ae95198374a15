package pipeline

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lovoo/goka"
	"github.com/lovoo/goka/tester"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/ste-utility/ste/processors/gokaconf"
	"github.com/ste-utility/ste/processors/metrics"
	"github.com/ste-utility/ste/processors/query"
	"github.com/ste-utility/ste/processors/tablestore"
	"github.com/ste-utility/ste/processors/validation"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/workload"
)

// riskGraph runs the three groups in goka's tester with the match table's
// at-risk index, on a clock the test sets.
type riskGraph struct {
	tt  *tester.Tester
	reg *prometheus.Registry
	s   *wiring
	now atomic.Pointer[time.Time]
}

func newRiskGraph(t *testing.T, ref *refdata.Set, lead time.Duration) *riskGraph {
	g := &riskGraph{tt: tester.New(t), reg: prometheus.NewRegistry()}
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	g.now.Store(&start)
	n := topology.Names{NS: "t"}
	c := Config{Names: n, Validator: validation.New(ref), AtRiskLead: lead, Tolerances: ref,
		Signer:  &schemas.Signer{BIC: "STEUTLSGXXX", Key: refdata.DemoPrivateKey("STEUTLSGXXX")},
		Metrics: metrics.New(g.reg), Logger: slog.New(slog.DiscardHandler),
		Now: func() time.Time { return *g.now.Load() }}
	g.s = newWiring(c, nil)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	for i, gg := range Graphs(n, g.s.callbacks()) {
		opts := []goka.ProcessorOption{nilHandling(), goka.WithTester(g.tt), goka.WithLogger(gokaconf.Logger(g.s.cfg.Logger))}
		if topology.Stages[i] == topology.StageMatch {
			opts = append(opts, goka.WithStorageBuilder(tablestore.Indexed(g.s.query, g.tt.StorageBuilder())))
		}
		p, err := goka.NewProcessor(nil, gg, opts...)
		if err != nil {
			t.Fatal(err)
		}
		go p.Run(ctx)
		if err := p.WaitForReadyContext(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

func (g *riskGraph) set(at time.Time) { g.now.Store(&at) }

// gauges sums a gauge family over its markets as /metrics reports it.
func (g *riskGraph) gauges(t *testing.T, name string) (sum int, byMarket map[string]int) {
	t.Helper()
	mfs, err := g.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	byMarket = map[string]int{}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			n := int(m.GetGauge().GetValue())
			byMarket[m.GetLabel()[0].GetValue()] = n
			sum += n
		}
	}
	return sum, byMarket
}

// Every market's cutoff at 12:00 UTC of the set's TradeDate: as the injected
// clock passes it, the unmatched trades move from at risk to past cutoff,
// each counted once, and the matched ones never count.
func TestTradesMoveFromAtRiskToPastCutoff(t *testing.T) {
	ref := refdata.Default().Clone()
	for _, m := range refdata.Markets() {
		c, err := refdata.ParseCutoff(m.MIC, "UTC", "12:00")
		if err != nil {
			t.Fatal(err)
		}
		ref.PutCutoff(c)
	}
	g := newRiskGraph(t, ref, time.Hour)
	unmatched := map[string]bool{}
	var recs [][]byte
	man, err := workload.Generate(workload.Options{Trades: 120, Mix: workload.Realistic, Ref: ref},
		func(b []byte) error { recs = append(recs, b); return nil },
		func(p workload.TradePlan) {
			if p.Outcome != "matched" {
				unmatched[p.TradeKey] = true
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		g.tt.Consume(g.s.cfg.Names.Inbound(), "k", r)
	}
	// The index holds exactly the trades left unmatched with messages in force.
	held := map[string]bool{}
	noMarket := 0
	all, err := g.s.query.AtRisk(query.AtRiskQuery{}, []int32{0})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all {
		k := r.Trade.TradeKey
		if held[k] {
			t.Fatalf("trade %s in two groups", k)
		}
		held[k] = true
		if r.Market == refdata.NoMarket {
			noMarket++
		}
	}
	for k := range held {
		if !unmatched[k] {
			t.Errorf("trade %s indexed but planned matched", k)
		}
	}
	if len(held) == 0 || noMarket == 0 || noMarket == len(held) {
		t.Fatalf("%d trades held, %d without a market: the set should have both kinds (manifest %+v)", len(held), noMarket, man)
	}
	withMarket := len(held) - noMarket
	t.Logf("held %d, no market %d, planned unmatched %d", len(held), noMarket, len(unmatched))

	day := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		at           time.Time
		risk, past   int
		pastNoMarket int
	}{
		{day.Add(10 * time.Hour), 0, 0, 0},                                // 2 h before: outside the 1 h lead
		{day.Add(11*time.Hour + 55*time.Minute), withMarket, 0, 0},        // 5 min before
		{day.Add(12*time.Hour + time.Minute), 0, withMarket, 0},           // 1 min after
		{day.Add(23*time.Hour + 30*time.Minute), noMarket, withMarket, 0}, // "-" at 23:59 UTC
		{day.Add(24 * time.Hour), 0, len(held), noMarket},
	} {
		g.set(c.at)
		risk, _ := g.gauges(t, "ste_trades_at_risk")
		past, byMarket := g.gauges(t, "ste_trades_past_cutoff")
		if risk != c.risk || past != c.past || byMarket[refdata.NoMarket] != c.pastNoMarket {
			t.Errorf("at %s: at risk %d past %d (- %d), want %d %d (- %d)", c.at.Format(time.TimeOnly),
				risk, past, byMarket[refdata.NoMarket], c.risk, c.past, c.pastNoMarket)
		}
		if _, ok := byMarket["XNYS"]; !ok {
			t.Errorf("no series for XNYS at zero")
		}
	}
}
