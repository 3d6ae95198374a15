package query

import (
	"cmp"
	"errors"
	"slices"
	"time"

	"github.com/ste-utility/ste/processors/query/internal/index"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/date"
	"github.com/ste-utility/ste/schemas/refdata"
)

// The work queue (gateway.md v2 §4c): each participant's own trades, a
// page at a time, by TradeDate then trade key, filtered by status,
// lifecycle, what the participant owes and time to cutoff. Each match
// partition's index (internal/index) keeps, for each party, its trades' record
// numbers ordered by (TradeDate, trade key), and in each trade's record
// what a queue entry shows and the filters read — summarised from the
// engine's view of the trade (matching.QueueFacts: what matching.View, the
// same the trade view of §4 is rendered from, says), so that an entry and
// the trade's view agree.
//
// Summarising a trade means decoding and evaluating it (tens of µs), too
// much to add to every write of the match stage. So the storage's writes
// only mark the trade dirty (Partition.Put: a map insert), and the trades
// marked are summarised after a short delay (index.DrainDelay), off the stage's
// path and once for all the writes of that delay — a trade's messages
// arrive close together. A question drains what is still marked in the
// partitions it reads before it answers, so an answer reflects every write
// made before it was asked, as a point lookup does; the delay bounds what
// is left to drain. The index is built from the whole table once the
// partition is recovered (like the TradeRef index); until that build has
// run, a question of the partition gets ErrRecovering.

// QueueStatuses and QueueLifecycles are the values of the status and
// lifecycle filters, as gateway.md §4 names them.
var (
	QueueStatuses   = index.Statuses
	QueueLifecycles = index.Lifecycles
)

// MaxQueueLimit bounds a page of the work queue (gateway.md §4c).
const MaxQueueLimit = 500

// QueuePos is a position in a work queue: after the trade of this
// TradeDate and key. The order is on values a trade never changes.
type QueuePos struct {
	Date date.Date
	Key  schemas.TradeKey
}

// Compare orders positions by TradeDate, then trade key.
func (p QueuePos) Compare(q QueuePos) int {
	return cmp.Or(cmp.Compare(p.Date, q.Date), cmp.Compare(p.Key, q.Key))
}

// QueueQuery is a participant's question of its work queue.
type QueueQuery struct {
	Party     string   // required: only its trades are examined
	Date      string   // TradeDate (YYYY-MM-DD); "" for any
	Status    []string // of QueueStatuses; none for any
	Lifecycle []string // of QueueLifecycles; none for any
	Owes      bool     // only trades where Party is alleged an item
	AtRisk    bool     // only trades at risk
	After     *QueuePos
	Limit     int // 1..MaxQueueLimit
	// Now and Lead are what at_risk and past_cutoff are read against (the
	// asker's wall clock and at-risk lead).
	Now  time.Time
	Lead time.Duration
}

// ErrBadQueue: a question of the work queue out of its form.
var ErrBadQueue = errors.New("work queue: a parameter out of its form")

// QueueOwed is an item a party owes, without its `from` (it is the party).
type QueueOwed struct {
	MsgType string `json:"msg_type"`
	Account string `json:"account,omitempty"`
	Count   int    `json:"count,omitempty"`
}

// QueueTrade is one trade of a party's work queue as gateway.md §4c lists
// it, as that party sees it.
type QueueTrade struct {
	TradeKey        string      `json:"trade_key"`
	TradeRef        string      `json:"trade_ref"`
	TradeDate       string      `json:"trade_date"`
	ISIN            string      `json:"isin"`
	Side            string      `json:"side"`
	Broker          string      `json:"broker"`
	InvMgr          string      `json:"inv_mgr"`
	Status          string      `json:"status"`
	Lifecycle       string      `json:"lifecycle"`
	CLSVersion      int         `json:"cls_version"`
	FailingCriteria []int       `json:"failing_criteria"`
	Owes            []QueueOwed `json:"owes"`
	MissingCount    int         `json:"missing_count"`
	Market          string      `json:"market"`
	Cutoff          string      `json:"cutoff"`
	AtRisk          bool        `json:"at_risk"`
	PastCutoff      bool        `json:"past_cutoff"`
}

// Pos is the trade's position in a queue.
func (t *QueueTrade) Pos() (QueuePos, bool) {
	d, err := date.Parse(t.TradeDate)
	k, ok := schemas.ParseTradeKey(t.TradeKey)
	return QueuePos{Date: d, Key: k}, err == nil && ok
}

// QueueFound is a queue entry with the partition holding its trade.
type QueueFound struct {
	Partition int32
	Trade     QueueTrade
}

// queueFilter is a question's filters, read once.
type queueFilter struct {
	party             string
	status, lifecycle uint8 // bit masks; 0: any
	owes, atRisk      bool
	day               date.Date
	hasDay            bool
	now               time.Time
	lead              time.Duration
	ref               *refdata.Set
	cutoffs           map[cutoffKey]marketCutoff
}

type cutoffKey struct {
	market string
	day    date.Date
}

type marketCutoff struct {
	market string
	at     time.Time
}

func mask(values, names []string) (uint8, bool) {
	var m uint8
	for _, v := range values {
		i := slices.Index(names, v)
		if i < 0 {
			return 0, false
		}
		m |= 1 << i
	}
	return m, true
}

func newQueueFilter(q QueueQuery, ref *refdata.Set) (*queueFilter, error) {
	f := &queueFilter{party: q.Party, owes: q.Owes, atRisk: q.AtRisk, now: q.Now, lead: q.Lead, ref: ref,
		cutoffs: map[cutoffKey]marketCutoff{}}
	var ok1, ok2 bool
	f.status, ok1 = mask(q.Status, QueueStatuses)
	f.lifecycle, ok2 = mask(q.Lifecycle, QueueLifecycles)
	if !ok1 || !ok2 || q.Party == "" || q.Limit < 1 || q.Limit > MaxQueueLimit {
		return nil, ErrBadQueue
	}
	if q.Date != "" {
		d, err := date.Parse(q.Date)
		if err != nil {
			return nil, ErrBadQueue
		}
		f.day, f.hasDay = d, true
	}
	return f, nil
}

// cutoff is a market (as markets.csv has it) and its cutoff on day, read
// once a question for each market and TradeDate.
func (f *queueFilter) cutoff(market string, day date.Date) (string, time.Time) {
	k := cutoffKey{market, day}
	c, ok := f.cutoffs[k]
	if !ok {
		c.market, c.at = f.ref.CutoffOf(market, day.String())
		f.cutoffs[k] = c
	}
	return c.market, c.at
}

// keeps says whether a trade with these facts (its record's, for f's
// party) passes f.
func (f *queueFilter) keeps(t *index.Facts) bool {
	switch {
	case f.status != 0 && f.status&(1<<t.Status) == 0,
		f.lifecycle != 0 && f.lifecycle&(1<<t.Lifecycle) == 0,
		f.owes && !t.Owes:
		return false
	case f.atRisk:
		if t.Settled {
			return false
		}
		_, at := f.cutoff(t.Market, t.Date)
		return !f.now.Before(at.Add(-f.lead))
	}
	return true
}

// render is e as f's party sees it in its queue.
func (f *queueFilter) render(e *index.Entry) QueueTrade {
	market, at := f.cutoff(e.Market, e.Date)
	t := QueueTrade{TradeKey: e.Key.String(), TradeRef: e.Ref, TradeDate: e.Date.String(), ISIN: e.ISIN, Side: e.Side,
		Broker: e.Broker, InvMgr: e.InvMgr, Status: QueueStatuses[e.Status], Lifecycle: QueueLifecycles[e.Lifecycle],
		CLSVersion: e.CLSVersion, FailingCriteria: e.Failing, Owes: make([]QueueOwed, len(e.Owes)), MissingCount: e.Missing,
		Market: market, Cutoff: at.UTC().Format(time.RFC3339), AtRisk: !e.Settled && !f.now.Before(at.Add(-f.lead)),
		PastCutoff: f.now.After(at)}
	for i, o := range e.Owes {
		t.Owes[i] = QueueOwed{MsgType: o.MsgType, Account: o.Account, Count: o.Count}
	}
	return t
}

// Queue answers a participant's work queue question from the owned
// partitions' queue indexes: the first q.Limit of q.Party's trades after
// q.After that pass the filters, by TradeDate then trade key. Only trades
// q.Party is a party to are examined. A partition whose index is not built
// yet makes it ErrRecovering; a question out of its form ErrBadQueue.
func (t *Tables) Queue(q QueueQuery, partitions []int32) ([]QueueFound, error) {
	c, parts, err := t.owned(partitions)
	if err != nil {
		return nil, err
	}
	f, err := newQueueFilter(q, c.Refdata())
	if err != nil {
		return nil, err
	}
	for _, p := range partitions {
		// A partition owned whose table is not open yet (a rebalance) is
		// as one recovering: its trades cannot be listed.
		if x, ok := parts[p]; !ok || !x.idx.Ready() {
			return nil, ErrRecovering
		}
	}
	var day *date.Date
	if f.hasDay {
		day = &f.day
	}
	type hit struct {
		p int32
		e *index.Entry
	}
	var hits []hit
	for p, x := range parts {
		x.idx.DrainFor(q.Party)
		es := x.idx.Page(q.Party, day, (*index.Pos)(q.After), index.Narrow{Status: f.status, Owes: f.owes}, f.keeps, q.Limit)
		for i := range es {
			hits = append(hits, hit{p, &es[i]})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int { return a.e.Pos().Compare(b.e.Pos()) })
	out := make([]QueueFound, min(len(hits), q.Limit))
	for i := range out {
		out[i] = QueueFound{Partition: hits[i].p, Trade: f.render(hits[i].e)}
	}
	return out, nil
}
