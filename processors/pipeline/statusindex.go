package pipeline

import (
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/schemas"
)

// The trades by status, as a matching utility's users count them: each
// match partition keeps, beside its at-risk index, the status of every
// trade its table holds — matched (a CLS stands), mismatched (the last
// STATUS said so), incomplete (neither: waiting for a counterparty's
// message, or cancelled), expired (purged by retention; its tombstone is
// held for the tombstone TTL) — and the matched trades by the UTC day of
// their newest message. Like the at-risk index it sees every value the
// table stores (riskStorage.Set: the processor's writes and the
// changelog's replay alike), so the counts are the table's, after a
// restart too. ste_trades{status} and ste_trades_matched_today are read
// from it at each scrape; the console shows them.

type tradeStatus uint8

const (
	statusIncomplete tradeStatus = iota
	statusMatched
	statusMismatched
	statusExpired
	nStatus
)

var tradeStatusNames = [nStatus]string{"incomplete", "matched", "mismatched", "expired"}

type statusEntry struct {
	st  tradeStatus
	day int64 // matched: UTC day (Unix days) of the newest message
}

// statusTally is one partition's trades by status (kept by its riskIndex,
// whose one map holds each trade's status beside its at-risk group).
type statusTally struct {
	counts [nStatus]int
	byDay  map[int64]int // matched trades by day
}

func (x *statusTally) add(e statusEntry) {
	x.counts[e.st]++
	if e.st == statusMatched {
		x.byDay[e.day]++
	}
}

func (x *statusTally) sub(e statusEntry) {
	x.counts[e.st]--
	if e.st == statusMatched {
		if x.byDay[e.day]--; x.byDay[e.day] <= 0 {
			delete(x.byDay, e.day)
		}
	}
}

// classify reads a stored value's status; ok is false for a value that
// cannot be read (left out of the counts).
func classify(value []byte) (statusEntry, bool) {
	tomb, _, ok := matching.Header(value)
	if !ok {
		return statusEntry{}, false
	}
	if tomb {
		return statusEntry{st: statusExpired}, true
	}
	live, status, newest, ok := matching.ReadStatus(value)
	if !ok {
		return statusEntry{}, false
	}
	switch {
	case live:
		return statusEntry{st: statusMatched, day: newest / int64(24*time.Hour)}, true
	case status == schemas.Mismatched:
		return statusEntry{st: statusMismatched}, true
	}
	return statusEntry{st: statusIncomplete}, true
}

// statusCounts sums the partitions this instance owns: trades by status,
// and the matched trades of day (Unix days, UTC).
func (s *stages) statusCounts(day int64) (counts [nStatus]int, matchedDay int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range s.risk {
		x.mu.Lock()
		for i, n := range x.status.counts {
			counts[i] += n
		}
		matchedDay += x.status.byDay[day]
		x.mu.Unlock()
	}
	return counts, matchedDay
}

// statusCollector reports ste_trades{status} and ste_trades_matched_today
// at each scrape.
type statusCollector struct {
	src           atomic.Pointer[stages]
	trades, today *prometheus.Desc
}

func newStatusCollector() *statusCollector {
	return &statusCollector{
		trades: prometheus.NewDesc("ste_trades",
			"Trades held by this instance's match partitions, by status: matched (a CLS stands), mismatched, incomplete (waiting or cancelled), expired (purged by retention, tombstone still held).",
			[]string{"status"}, nil),
		today: prometheus.NewDesc("ste_trades_matched_today",
			"Matched trades of this instance's match partitions whose newest message was created today (UTC).", nil, nil),
	}
}

func (c *statusCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.trades; ch <- c.today }

func (c *statusCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.src.Load()
	if s == nil {
		return
	}
	counts, today := s.statusCounts(time.Now().UnixNano() / int64(24*time.Hour))
	for i, n := range counts {
		ch <- prometheus.MustNewConstMetric(c.trades, prometheus.GaugeValue, float64(n), tradeStatusNames[i])
	}
	ch <- prometheus.MustNewConstMetric(c.today, prometheus.GaugeValue, float64(today))
}
