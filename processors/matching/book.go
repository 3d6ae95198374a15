package matching

import (
	"container/heap"
	"time"

	"github.com/ste-utility/ste/schemas"
)

// Book holds every trade of one event-time domain in memory: the whole file
// for `ste match`. It owns the identity memory (which (Sender, MsgId) pairs
// were accepted, and with which bytes), the event-time clock and retention.
type Book struct {
	cfg       Config
	retention int64
	tombTTL   int64

	trades map[schemas.TradeKey]*Trade
	ids    map[schemas.Identity]idRef
	clock  int64 // newest Created of any accepted, non-duplicate message
	due    expiryHeap
	tombs  map[schemas.TradeKey]Tombstone
	tombQ  []tombRef // purge order = event-time order, since the clock only advances
	intern Interner
	// purgedMatched counts trades purged while matched: silently purged, their
	// CLS still stands, so they are matched at the end.
	purgedMatched int
}

type idRef struct {
	digest Digest
	trade  schemas.TradeKey
}

type tombRef struct {
	key schemas.TradeKey
	at  int64
}

// BookOption configures a Book.
type BookOption func(*Book)

// WithRetention sets how far past a trade's newest Created the clock may run
// before the trade is purged. Default 72h.
func WithRetention(d time.Duration) BookOption { return func(b *Book) { b.retention = int64(d) } }

// WithTombstoneTTL sets how long a purged trade's counters are kept. Default 30 days.
func WithTombstoneTTL(d time.Duration) BookOption { return func(b *Book) { b.tombTTL = int64(d) } }

// WithConfig sets the engine configuration. Default: Config{}.
func WithConfig(c Config) BookOption { return func(b *Book) { b.cfg = c } }

// NewBook returns an empty book.
func NewBook(opts ...BookOption) *Book {
	b := &Book{
		retention: int64(72 * time.Hour),
		tombTTL:   int64(30 * 24 * time.Hour),
		trades:    map[schemas.TradeKey]*Trade{},
		ids:       map[schemas.Identity]idRef{},
		tombs:     map[schemas.TradeKey]Tombstone{},
		intern:    Interner{},
	}
	for _, o := range opts {
		o(b)
	}
	return b
}

// Known returns the digest of the accepted message with this identity.
func (b *Book) Known(id schemas.Identity) (Digest, bool) {
	r, ok := b.ids[id]
	return r.digest, ok
}

// Duplicate re-emits what the accepted message id caused (see Trade.Reemit).
func (b *Book) Duplicate(id schemas.Identity) []schemas.Output {
	r := b.ids[id]
	t := b.trades[r.trade]
	for i := range t.Entries {
		if e := &t.Entries[i]; e.Sender == id.Sender && e.MsgId == id.MsgId {
			return t.Reemit(e, &b.cfg)
		}
	}
	panic("matching: identity index out of step with its trade")
}

// Accept applies a validated message that is neither a duplicate nor a
// conflicting duplicate (the caller checked Known), then advances the
// event-time clock and purges the trades it leaves behind.
func (b *Book) Accept(in *Inbound) []schemas.Output {
	m := in.Msg
	key := m.Key.TradeKey()
	t := b.trades[key]
	if t == nil {
		var tomb *Tombstone
		if ts, ok := b.tombs[key]; ok {
			delete(b.tombs, key)
			if b.clock-ts.PurgedAt <= b.tombTTL {
				tomb = &ts
			}
		}
		t = NewTrade(key, tomb)
		b.trades[key] = t
	}
	before := t.Newest
	out, res := t.Apply(in, &b.cfg, b.intern)
	if res != Applied {
		panic("matching: Accept given a message the book already holds")
	}
	last := &t.Entries[len(t.Entries)-1]
	b.ids[schemas.Identity{Sender: last.Sender, MsgId: last.MsgId}] = idRef{in.Digest, key}
	if t.Newest != before || len(t.Entries) == 1 {
		heap.Push(&b.due, due{t.Newest, key})
	}
	b.clock = max(b.clock, m.Created)
	return b.sweep(out)
}

// sweep purges every trade whose newest Created is more than the retention
// behind the clock, and forgets tombstones older than their TTL.
func (b *Book) sweep(out []schemas.Output) []schemas.Output {
	for len(b.due) > 0 && b.clock-b.due[0].newest > b.retention {
		d := heap.Pop(&b.due).(due)
		t := b.trades[d.key]
		if t == nil || t.Newest != d.newest {
			continue // stale: the trade moved on or is gone
		}
		if t.Live {
			b.purgedMatched++
		}
		exp, tomb := t.Expire(b.clock)
		out = append(out, exp...)
		for i := range t.Entries {
			delete(b.ids, schemas.Identity{Sender: t.Entries[i].Sender, MsgId: t.Entries[i].MsgId})
		}
		delete(b.trades, d.key)
		b.tombs[d.key] = tomb
		b.tombQ = append(b.tombQ, tombRef{d.key, tomb.PurgedAt})
	}
	for len(b.tombQ) > 0 && b.clock-b.tombQ[0].at > b.tombTTL {
		r := b.tombQ[0]
		b.tombQ = b.tombQ[1:]
		if ts, ok := b.tombs[r.key]; ok && ts.PurgedAt == r.at {
			delete(b.tombs, r.key)
		}
	}
	return out
}

// Clock is the event-time clock (Unix nanoseconds).
func (b *Book) Clock() int64 { return b.clock }

// Trade returns the live trade with this key.
func (b *Book) Trade(key schemas.TradeKey) *Trade { return b.trades[key] }

// Trades calls f for every live trade, in no particular order.
func (b *Book) Trades(f func(*Trade)) {
	for _, t := range b.trades {
		f(t)
	}
}

// Counts returns how many trades are matched and mismatched at the end: the
// live ones, and those purged while matched (their CLS stands; a trade purged
// unmatched got EXPIRED and is neither).
func (b *Book) Counts() (matched, mismatched int) {
	matched = b.purgedMatched
	for _, t := range b.trades {
		switch {
		case t.Matched():
			matched++
		case t.Mismatched():
			mismatched++
		}
	}
	return
}

type due struct {
	newest int64
	key    schemas.TradeKey
}

type expiryHeap []due

func (h expiryHeap) Len() int { return len(h) }
func (h expiryHeap) Less(i, j int) bool {
	if h[i].newest != h[j].newest {
		return h[i].newest < h[j].newest
	}
	return h[i].key < h[j].key // deterministic purge order for ties
}
func (h expiryHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *expiryHeap) Push(x any)   { *h = append(*h, x.(due)) }
func (h *expiryHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
