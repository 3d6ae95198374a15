package workload

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/refdata"
)

// Mix names a kind of message set.
type Mix string

const (
	Standard  Mix = "standard"  // every trade 1 NOE + 2 ALC + 2 NPR + 2 SET, shuffled
	Realistic Mix = "realistic" // see the realistic scenario table
)

// Options configure Generate.
type Options struct {
	Trades int
	// Seed selects the set; the same options give the same bytes. Default 1.
	Seed uint64
	// Mix is standard or realistic. Default standard.
	Mix Mix
	// Ref is the reference data trades are drawn from. Default refdata.Default().
	Ref *refdata.Set
	// TradeDate of every trade. Default 2026-11-02 (a fixed day: the same
	// options give the same bytes; ste gen, ste demo and ste bench pass
	// Today). Created times run through that day from 01:00Z (09:00 in
	// Singapore) for 8 hours, so a whole set sits well inside the 72 h
	// retention.
	TradeDate date.Date
	// Window is how many trades' messages are shuffled together: messages of a
	// trade arrive in any order, interleaved with their neighbours'. Default 64.
	Window int
	// Workers sign in parallel. Default GOMAXPROCS.
	Workers int
	// Progress, when set, is told after each window written: the trades
	// and the bytes written so far (records and their newlines).
	Progress func(trades int, bytes int64)
	// Forged is the share of the set's records that are forgeries (0 ≤
	// Forged < 0.5): NOEs claiming to come from one of three brokers, signed
	// with another participant's key, spread evenly through the set — the
	// adversarial load of a few senders flooding bad signatures. Each is a
	// SIGNATURE exception and a NACK; the trades still match. Default 0.
	Forged float64
}

// floodSenders is how many senders the forgeries claim to come from.
const floodSenders = 3

// Manifest is what a set was built to contain.
type Manifest struct {
	Mix        Mix            `json:"mix"`
	Seed       uint64         `json:"seed"`
	Trades     int            `json:"trades"`
	Messages   int            `json:"messages"`
	Matched    int            `json:"matched"`
	Mismatched int            `json:"mismatched"`
	Incomplete int            `json:"incomplete"`
	Duplicates int            `json:"duplicates"`
	Exceptions int            `json:"exceptions"`
	Forged     int            `json:"forged,omitempty"`
	Rejected   map[string]int `json:"rejected"`
	Scenarios  map[string]int `json:"scenarios"`
	Seconds    float64        `json:"seconds"`
	// Version 3 (messages.md §5a). Matched counts the trades a CLS stands
	// for at the end, locked ones included; Cancelled those both principals
	// cancelled (no CLS). Locked are the matched trades with an agreement
	// (AFFIRMED, CHANGE_PENDING, CANCEL_PENDING), Auto those of them whose
	// agreement is the utility's affirmation (AUTO investment managers),
	// Amended those whose agreement moved by an amendment both principals
	// affirmed. Lifecycle counts the trades by the version 3 status value
	// they end with, and LifecycleMessages the AFF, CXL, CXA and CXJ
	// messages of the set (the utility's AFFs are not in the set).
	Cancelled         int            `json:"cancelled"`
	Locked            int            `json:"locked"`
	Auto              int            `json:"auto_affirmed"`
	Amended           int            `json:"amended"`
	Lifecycle         map[string]int `json:"lifecycle"`
	LifecycleMessages map[string]int `json:"lifecycle_messages"`
}

// TradePlan is the manifest line of one trade.
type TradePlan struct {
	TradeKey string `json:"trade_key"`
	TradeRef string `json:"trade_ref"`
	Scenario string `json:"scenario"`
	Outcome  string `json:"outcome"`
	Criteria []int  `json:"criteria,omitempty"`
	// Tolerance: criteria a matched trade holds only within tolerance.
	Tolerance []int    `json:"tolerance,omitempty"`
	Rejected  []string `json:"rejected,omitempty"`
	// Version 3: the investment manager's affirmation mode (AUTO, MANUAL),
	// the version 3 status value the trade ends with ("" when none:
	// MATCHED, MISMATCHED or no status), who its agreement's root is
	// (INVMGR, AUTO), the standing MatchDigest of a matched trade (of the
	// agreement when locked: what its STATUS carries), and the state of its
	// cancellation request (PENDING, REJECTED, ACCEPTED).
	Mode          string `json:"mode,omitempty"`
	Lifecycle     string `json:"lifecycle,omitempty"`
	AffirmedBy    string `json:"affirmed_by,omitempty"`
	MatchDigest   string `json:"match_digest,omitempty"`
	CancelRequest string `json:"cancel_request,omitempty"`
}

// Marshal is the manifest as indented JSON.
func (m *Manifest) Marshal() []byte {
	b, _ := json.MarshalIndent(m, "", "  ")
	return append(b, '\n')
}

type generator struct {
	opts       Options
	u          *universe
	invalidSeq int
	forgedSeq  int
	forgedOwed float64 // forgeries due so far, not yet added
}

// Today is the current day in UTC: the default day of the sets ste gen,
// ste demo and ste bench make, so that they sit in one event-time clock
// with live messages (retention runs on event time: a set dated weeks back
// expires on the first message of today).
func Today() date.Date { return date.FromTime(time.Now().UTC()) }

// Generate writes the set's records, in order, to write, and reports each
// trade's plan to plans when it is not nil.
func Generate(opts Options, write func([]byte) error, plans func(TradePlan)) (*Manifest, error) {
	start := time.Now()
	if opts.Trades <= 0 {
		return nil, errors.New("--trades must be positive")
	}
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	if opts.Mix == "" {
		opts.Mix = Standard
	}
	if opts.Mix != Standard && opts.Mix != Realistic {
		return nil, fmt.Errorf("unknown mix %q (want standard or realistic)", opts.Mix)
	}
	if opts.Forged < 0 || opts.Forged >= 0.5 {
		return nil, fmt.Errorf("forged share %g out of range (want 0 ≤ share < 0.5)", opts.Forged)
	}
	if opts.Ref == nil {
		opts.Ref = refdata.Default()
	}
	if opts.TradeDate == 0 {
		opts.TradeDate = date.MustParse("2026-11-02")
	}
	if opts.Window <= 0 {
		opts.Window = 64
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	u, err := newUniverse(opts.Ref)
	if err != nil {
		return nil, err
	}
	if opts.Mix == Realistic && u.notCustodian == "" {
		return nil, errors.New("reference data needs an active participant without the CUSTODIAN role for invalid messages")
	}
	g := &generator{opts: opts, u: u}
	r := rand.New(rand.NewPCG(opts.Seed, 0x5e7e))
	man := &Manifest{Mix: opts.Mix, Seed: opts.Seed, Trades: opts.Trades, Rejected: map[string]int{}, Scenarios: map[string]int{},
		Lifecycle: map[string]int{}, LifecycleMessages: map[string]int{}}
	dayStart := opts.TradeDate.Time().Add(time.Hour)
	spacing := 8 * time.Hour / time.Duration(opts.Trades)

	// Windows are built in order here and signed in parallel; records are
	// written in window order so the file is deterministic.
	type window struct {
		items  []item
		trades int
		out    [][]byte
		done   chan struct{}
	}
	pending := make(chan *window, opts.Workers*2)
	work := make(chan *window, opts.Workers*2)
	var wg sync.WaitGroup
	for i := 0; i < opts.Workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for w := range work {
				w.out = make([][]byte, len(w.items))
				for i, it := range w.items {
					w.out[i] = it.encode()
				}
				close(w.done)
			}
		}()
	}
	var writeErr error
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		var trades int
		var bytes int64
		for w := range pending {
			<-w.done
			for _, rec := range w.out {
				if writeErr == nil {
					writeErr = write(rec)
					bytes += int64(len(rec)) + 1
				}
			}
			if trades += w.trades; opts.Progress != nil && writeErr == nil {
				opts.Progress(trades, bytes)
			}
		}
	}()

	var w *window
	for i := 0; i < opts.Trades; i++ {
		if w == nil {
			w = &window{done: make(chan struct{})}
		}
		at := dayStart.Add(time.Duration(i) * spacing)
		var p *plan
		var t *trade
		if opts.Mix == Realistic {
			sc := weighted(r, realistic, func(s scenario) int { return s.weight })
			if sc.manual && len(u.manual) == 0 {
				sc = realistic[0] // every investment manager is AUTO: clean instead
			}
			k := weighted(r, allocationCounts, func(a struct{ k, weight int }) int { return a.weight }).k
			var pool []string
			if sc.manual {
				pool = u.manual
			}
			t = u.newTrade(r, i, opts.TradeDate, at, k, pool, sc.principals)
			p = sc.build(g, r, t)
			p.scenario = sc.name
		} else {
			t = u.newTrade(r, i, opts.TradeDate, at, 2, nil, false)
			p = clean(g, r, t)
			p.scenario = "standard"
		}
		g.settle(p, t)
		g.forge(p, t)
		man.record(p)
		if plans != nil {
			k := t.key()
			tp := TradePlan{TradeKey: k.TradeKey().String(), TradeRef: t.ref, Scenario: p.scenario,
				Outcome: p.outcome, Criteria: p.criteria, Tolerance: p.tolerance, Rejected: p.rejected,
				Mode: opts.Ref.AffirmationMode(t.invMgr).String(), Lifecycle: p.lifecycle, AffirmedBy: p.by, CancelRequest: p.request}
			if p.outcome == OutcomeMatched && p.final != nil {
				tp.MatchDigest = t.digest(p.final)
			}
			plans(tp)
		}
		w.items = append(w.items, p.items...)
		w.trades++
		if (i+1)%opts.Window == 0 || i == opts.Trades-1 {
			r.Shuffle(len(w.items), func(a, b int) { w.items[a], w.items[b] = w.items[b], w.items[a] })
			pending <- w
			work <- w
			w = nil
		}
	}
	close(work)
	close(pending)
	wg.Wait()
	<-wrote
	man.Seconds = time.Since(start).Seconds()
	return man, writeErr
}

// settle completes a plan with what an AUTO investment manager's mode adds:
// the utility affirms a matched trade that nobody rejected, at its
// MatchedAt — before any affirmation the generator writes (those come
// minutes later) — so its agreement's root is the utility's.
func (g *generator) settle(p *plan, t *trade) {
	if p.outcome != OutcomeMatched || !g.auto(t) {
		return
	}
	if p.lifecycle == "" {
		p.lifecycle = LifecycleAffirmed
	}
	p.by = ByAuto
}

func (m *Manifest) record(p *plan) {
	m.Scenarios[p.scenario]++
	m.Messages += len(p.items)
	for _, it := range p.items {
		if it.draft != nil {
			switch typ := it.draft.MsgType; typ {
			case "AFF", "CXL", "CXA", "CXJ":
				m.LifecycleMessages[typ]++
			}
		}
	}
	if p.lifecycle != "" {
		m.Lifecycle[p.lifecycle]++
	}
	switch p.lifecycle {
	case LifecycleAffirmed, LifecycleChangePending, LifecycleCancelPending:
		m.Locked++
		if p.by == ByAuto {
			m.Auto++
		}
		if p.amended {
			m.Amended++
		}
	}
	m.Duplicates += p.duplicates
	m.Forged += p.forged
	for _, c := range p.rejected {
		m.Rejected[c]++
		m.Exceptions++
	}
	switch p.outcome {
	case OutcomeMatched:
		m.Matched++
	case OutcomeMismatched:
		m.Mismatched++
	case OutcomeCancelled:
		m.Cancelled++
	default:
		m.Incomplete++
	}
}

func (it item) encode() []byte {
	if it.raw != nil {
		return it.raw
	}
	b := it.draft.AppendSigned(make([]byte, 0, 1024), it.key)
	if it.post != nil {
		b = it.post(b)
	}
	return b
}

func weighted[T any](r *rand.Rand, xs []T, weight func(T) int) T {
	total := 0
	for _, x := range xs {
		total += weight(x)
	}
	n := r.IntN(total)
	for _, x := range xs {
		if n -= weight(x); n < 0 {
			return x
		}
	}
	return xs[len(xs)-1]
}

// Criteria of a plan, sorted (for comparisons in tests).
func (p TradePlan) SortedCriteria() []int {
	c := slices.Clone(p.Criteria)
	slices.Sort(c)
	return c
}
