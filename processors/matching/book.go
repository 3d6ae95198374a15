package matching

import (
	"container/heap"
	"slices"
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
	// tombIDs are the identities of purged trades, remembered while their
	// tombstone lives (messages.md §4): forgotten when it expires.
	tombIDs map[schemas.TradeKey][]schemas.Identity
	clock   int64 // newest Created of any accepted, non-duplicate message
	due     expiryHeap
	tombs   map[schemas.TradeKey]Tombstone
	tombQ   expiryHeap // tombstones by the event time they expire at
	intern  Interner
	autos   []*schemas.Draft // the utility's AFFs the last Accept asks for
	// purgedMatched counts trades purged while matched: silently purged, their
	// CLS still stands, so they are matched at the end.
	purgedMatched int
}

type idRef struct {
	digest Digest
	trade  schemas.TradeKey
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
		tombIDs:   map[schemas.TradeKey][]schemas.Identity{},
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

// KeyCollision is the KEY_COLLISION rejection of a message whose trade key
// is held by a trade or a living tombstone with other key fields, nil when
// there is none (messages.md §4, §5). Like CONFLICTING_DUPLICATE it looks at
// messages already accepted, so the caller asks it last, before Accept.
func (b *Book) KeyCollision(m *schemas.Message) *schemas.Rejection {
	return b.keyCollisionAt(m.Key.TradeKey(), m)
}

func (b *Book) keyCollisionAt(key schemas.TradeKey, m *schemas.Message) *schemas.Rejection {
	if t := b.trades[key]; t != nil {
		if t.Collides(m.Key) {
			return schemas.KeyCollisionOf(key, &t.Keys[0], &m.Key)
		}
		return nil
	}
	if ts, ok := b.tombs[key]; ok && b.alive(ts) && ts.Key != (schemas.Key{}) && ts.Key != m.Key {
		return schemas.KeyCollisionOf(key, &ts.Key, &m.Key)
	}
	return nil
}

// tombTTLOf is how long a tombstone lives: the tombstone TTL, and no shorter
// than the retention for a trade purged while locked or cancelled.
func (b *Book) tombTTLOf(ts Tombstone) int64 {
	if ts.Locked || ts.Cancelled {
		return max(b.tombTTL, b.retention)
	}
	return b.tombTTL
}

func (b *Book) alive(ts Tombstone) bool { return b.clock-ts.PurgedAt <= b.tombTTLOf(ts) }

// Duplicate re-emits what the accepted message id caused (see Trade.Reemit);
// for a message of a purged trade (its tombstone lives), its ACK.
func (b *Book) Duplicate(id schemas.Identity) []schemas.Output {
	r := b.ids[id]
	if t := b.trades[r.trade]; t != nil {
		for i := range t.Entries {
			if e := &t.Entries[i]; e.Sender == id.Sender && e.MsgId == id.MsgId {
				return t.Reemit(e, &b.cfg)
			}
		}
	}
	return []schemas.Output{ack(id.Sender, id.MsgId)}
}

// Accept applies a validated message that is neither a duplicate, a
// conflicting duplicate nor a key collision (the caller checked Known and
// KeyCollision), then advances the event-time clock and purges the trades it
// leaves behind. AutoAffirmations then holds the AFF the utility must send,
// if the message made a trade of an AUTO investment manager match.
func (b *Book) Accept(in *Inbound) []schemas.Output {
	m := in.Msg
	key := m.Key.TradeKey()
	t := b.trades[key]
	if t == nil {
		var tomb *Tombstone
		if ts, ok := b.tombs[key]; ok {
			delete(b.tombs, key)
			if b.alive(ts) {
				tomb = &ts
			} else {
				b.forget(key)
			}
		}
		t = NewTrade(key, tomb)
		b.trades[key] = t
	}
	before := t.Newest
	out, res := t.Apply(in, &b.cfg, b.intern)
	t.assessed = nil // a book keeps every trade: not their assessments too
	if res != Applied {
		panic("matching: Accept given a message the book already holds, or of another trade's key fields")
	}
	if d := t.AutoAffirmation(); d != nil {
		b.autos = append(b.autos, d)
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
			b.tombIDs[d.key] = append(b.tombIDs[d.key], schemas.Identity{Sender: t.Entries[i].Sender, MsgId: t.Entries[i].MsgId})
		}
		delete(b.trades, d.key)
		b.tombs[d.key] = tomb
		heap.Push(&b.tombQ, due{tomb.PurgedAt + b.tombTTLOf(tomb), d.key})
	}
	for len(b.tombQ) > 0 && b.clock > b.tombQ[0].newest {
		r := heap.Pop(&b.tombQ).(due)
		if ts, ok := b.tombs[r.key]; ok && !b.alive(ts) {
			delete(b.tombs, r.key)
			b.forget(r.key)
		}
	}
	return out
}

// forget drops the identities of a key's purged trades, unless a trade of
// the key is held again (they are then forgotten with its tombstone).
func (b *Book) forget(key schemas.TradeKey) {
	if b.trades[key] != nil {
		return
	}
	for _, id := range b.tombIDs[key] {
		if r, ok := b.ids[id]; ok && r.trade == key {
			delete(b.ids, id)
		}
	}
	delete(b.tombIDs, key)
}

// AutoAffirmations returns, once, the AFFs the utility must send since the
// last call (Trade.AutoAffirmation): `ste match` signs each and processes
// it before its next line.
func (b *Book) AutoAffirmations() []*schemas.Draft {
	d := b.autos
	b.autos = nil
	return d
}

// Allege is the allegement step over every trade (Trade.Allege), in trade
// key order: `ste match` calls it once after its last line.
func (b *Book) Allege() []schemas.Output {
	keys := make([]schemas.TradeKey, 0, len(b.trades))
	for k := range b.trades {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []schemas.Output
	for _, k := range keys {
		out = append(out, b.trades[k].Allege()...)
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

// Lifecycle returns how many trades held are locked and cancelled (their
// last evaluation; a trade purged while locked is not counted, its CLS
// stands and Counts counts it).
func (b *Book) Lifecycle() (locked, cancelled int) {
	for _, t := range b.trades {
		switch {
		case t.Locked:
			locked++
		case t.Cancelled || t.TombCancelled:
			cancelled++
		}
	}
	return
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
