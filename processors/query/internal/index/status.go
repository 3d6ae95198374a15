package index

import (
	"time"

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
// table stores (Partition.Put: the processor's writes and the
// changelog's replay alike), so the counts are the table's, after a
// restart too. ste_trades{status} and ste_trades_matched_today are read
// from it at each scrape; the console shows them.

type tradeStatus uint8

const (
	statusIncomplete tradeStatus = iota
	statusMatched
	statusMismatched
	statusExpired
	NStatus
)

var StatusNames = [NStatus]string{"incomplete", "matched", "mismatched", "expired"}

// tradeLifecycle is where a held trade stands after the match (contract
// version 3, messages.md §5a): the version 3 value of its last STATUS —
// the standing one, whatever the order its messages came in — or none.
// ste_trades_lifecycle reports them; the console's overview counts by them.
type tradeLifecycle uint8

const (
	lifecycleNone tradeLifecycle = iota
	lifecycleAffirmed
	lifecycleAffirmRejected
	lifecycleChangePending
	lifecycleCancelPending
	lifecycleCancelled
	NLifecycle
)

var LifecycleNames = [NLifecycle]string{"", "affirmed", "affirm_rejected", "change_pending", "cancel_pending", "cancelled"}

func lifecycleOf(s schemas.Status) tradeLifecycle {
	switch s {
	case schemas.Affirmed:
		return lifecycleAffirmed
	case schemas.AffirmRejected:
		return lifecycleAffirmRejected
	case schemas.ChangePending:
		return lifecycleChangePending
	case schemas.CancelPending:
		return lifecycleCancelPending
	case schemas.Cancelled:
		return lifecycleCancelled
	}
	return lifecycleNone
}

type statusEntry struct {
	st  tradeStatus
	lc  tradeLifecycle
	day int32 // matched: UTC day (Unix days) of the newest message
}

// statusTally is one partition's trades by status (kept by its index,
// whose record of a trade holds its status beside its at-risk group).
type statusTally struct {
	counts    [NStatus]int
	lifecycle [NLifecycle]int
	byDay     map[int32]int // matched trades by day
}

func (x *statusTally) add(e statusEntry) {
	x.counts[e.st]++
	x.lifecycle[e.lc]++
	if e.st == statusMatched {
		x.byDay[e.day]++
	}
}

func (x *statusTally) sub(e statusEntry) {
	x.counts[e.st]--
	x.lifecycle[e.lc]--
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
	lc := lifecycleOf(status)
	switch {
	case live:
		return statusEntry{st: statusMatched, lc: lc, day: int32(newest / int64(24*time.Hour))}, true
	case status == schemas.Mismatched:
		return statusEntry{st: statusMismatched}, true
	}
	return statusEntry{st: statusIncomplete, lc: lc}, true
}
