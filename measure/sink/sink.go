// Package sink is the benchmark's message sink, like the source's: it reads
// <ns>.cls, correlates each trade with the driver's send times, and measures
// per-trade latency (send of the trade's last message → arrival of its CLS)
// and the completion time of the whole set.
package sink

import (
	"cmp"
	"context"
	"errors"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
)

// Sink collects send and arrival times.
type Sink struct {
	mu        sync.Mutex
	sent      []int64                    // Unix ns of each message's send, by its place in the set (0: not sent)
	lastSend  map[schemas.TradeKey]int64 // Unix ns of the latest send of the trade's messages (Resolve)
	firstSend int64
	arrived   map[schemas.TradeKey]int64 // Unix ns of the first CLS NEW
	lastCLS   int64
	changed   chan struct{}
}

// New returns an empty sink.
func New() *Sink {
	return &Sink{lastSend: map[schemas.TradeKey]int64{}, arrived: map[schemas.TradeKey]int64{}, changed: make(chan struct{}, 1)}
}

// Sent records a send (the driver's OnSent): the message's place in the
// set and when it went. Which trade it belongs to is found after the run
// (Resolve), so that the driver does not decode every message while the
// pipeline is being measured.
func (s *Sink) Sent(i int64, at time.Time) {
	ns := at.UnixNano()
	s.mu.Lock()
	if n := int(i) + 1; n > len(s.sent) {
		s.sent = append(s.sent, make([]int64, max(n, 2*len(s.sent))-len(s.sent))...)
	}
	s.sent[i] = ns
	if s.firstSend == 0 || ns < s.firstSend {
		s.firstSend = ns
	}
	s.mu.Unlock()
}

// Resolve reads the set that was sent and folds each message's send time
// into its trade's latest (messages that do not decode to a trade are
// passed over, as they have no CLS to wait for).
func (s *Sink) Resolve(src *msgset.Reader) error {
	var dec schemas.Decoder
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := 0; ; i++ {
		line, _, err := src.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if i >= len(s.sent) || s.sent[i] == 0 {
			continue
		}
		m, _ := dec.Decode(line)
		if m == nil || m.Key.TradeRef == "" {
			continue
		}
		if k := m.Key.TradeKey(); s.sent[i] > s.lastSend[k] {
			s.lastSend[k] = s.sent[i]
		}
	}
}

// Run consumes <ns>.cls from its start until ctx ends.
func (s *Sink) Run(ctx context.Context, c kafkaconn.Config, ns string) error {
	cl, err := topics.Client(c, kgo.ConsumeTopics(topology.Names{NS: ns}.CLS()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(50*time.Millisecond))
	if err != nil {
		return err
	}
	defer cl.Close()
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return nil
		}
		now := time.Now().UnixNano()
		s.mu.Lock()
		fs.EachRecord(func(r *kgo.Record) {
			o, err := schemas.ParseOutput(r.Value)
			if err != nil || o.MsgType != "CLS" || o.Function != "NEW" {
				return
			}
			k, ok := schemas.ParseTradeKey(o.TradeKey)
			if !ok {
				return
			}
			if _, seen := s.arrived[k]; !seen {
				s.arrived[k] = now
				s.lastCLS = max(s.lastCLS, now)
			}
		})
		s.mu.Unlock()
		select {
		case s.changed <- struct{}{}:
		default:
		}
	}
}

// Count is the number of trades with a CLS.
func (s *Sink) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.arrived)
}

// Wait blocks until n trades have a CLS, ctx ends, or nothing new arrives for
// idle; it returns the count.
func (s *Sink) Wait(ctx context.Context, n int, idle time.Duration) int {
	for {
		c := s.Count()
		if c >= n {
			return c
		}
		select {
		case <-ctx.Done():
			return c
		case <-s.changed:
		case <-time.After(idle):
			if s.Count() == c {
				return c
			}
		}
	}
}

// Result is what the sink measured.
type Result struct {
	CLS       int
	Seconds   float64   // first send → last CLS
	Latencies []float64 // ms per trade, sorted
	Series    []Point   // per trade, in arrival order
}

// Point is one trade's CLS: when it arrived (seconds after the first send)
// and its latency.
type Point struct {
	At        float64 `json:"t"`
	LatencyMs float64 `json:"latency_ms"`
}

// Result computes latencies of the trades with both a send and a CLS.
func (s *Sink) Result() Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := Result{CLS: len(s.arrived)}
	if s.firstSend > 0 && s.lastCLS > s.firstSend {
		r.Seconds = float64(s.lastCLS-s.firstSend) / 1e9
	}
	for k, at := range s.arrived {
		if sent, ok := s.lastSend[k]; ok && at >= sent {
			ms := float64(at-sent) / 1e6
			r.Latencies = append(r.Latencies, ms)
			r.Series = append(r.Series, Point{At: float64(at-s.firstSend) / 1e9, LatencyMs: ms})
		}
	}
	slices.Sort(r.Latencies)
	slices.SortFunc(r.Series, func(a, b Point) int { return cmp.Compare(a.At, b.At) })
	return r
}

// Quantile of sorted values (nearest rank); 0 for none.
func Quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
