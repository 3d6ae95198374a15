// Package changelog holds what the tables' changelogs carry besides one
// value per record: batch records (many identity table writes in one
// record, written by the identity stage's producer) and clock markers (a
// partition's event-time clock carried into a namespace with another
// partition count, ste migrate), and reads both back. It links no Kafka
// client.
package changelog

import (
	"hash/fnv"
	"strconv"

	"github.com/ste-utility/ste/processors/envelope"
	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topology"
)

// Carrying tables into a namespace with another partition count (ste
// migrate). A table value keeps its meaning wherever its key lands, so
// values are copied as they are; what does not travel by itself is a
// partition's event-time clock. A table store derives it from the values
// it holds — the largest watermark of any value written (memstore: the
// largest Newest of a trade or PurgedAt of a tombstone; for identities the
// largest Created) — so when the trades of one old partition are spread
// over several new ones, a new partition that did not receive the old
// partition's newest trade would start with an older clock, and its trades
// would outlive the retention they had. A clock marker is a value whose
// only effect is to raise its partition's clock: written into the changelog
// beside the copied values, the store reads it back on every start like
// any value, so no store needs to know about migrations.

// Watermark is what a value of the table of stage st contributes to its
// partition's clock (ok false: nothing, or not a value of that table).
func Watermark(st topology.Stage, v []byte) (int64, bool) {
	switch st {
	case topology.StageMatch:
		_, at, ok := matching.Header(v)
		return at, ok
	case topology.StageIdentity:
		ie, ok := envelope.UnmarshalIdentity(v)
		return ie.Created, ok
	}
	return 0, false
}

// ClockMarker returns the key and value of a clock marker at event time at
// for the table of stage st: the first of a fixed sequence of keys that
// fits (fit says whether a key lands in the wanted partition and is free).
//
//   - Match table: a tombstone with no counters (version 0, status count 0)
//     of a trade key made from "ste-clock|n". A tombstone with no counters
//     is what "no trade" means to the stage, so even a real trade with that
//     key (odds 2^-64) would start as it would have without it; the marker
//     falls due after the tombstone TTL and is deleted like any tombstone,
//     by when the clock has long passed it.
//   - Identity table: an accepted identity "~clock:n" with Created at: no
//     message has it (a Sender is a BIC), and it is forgotten after the
//     retention like any identity.
func ClockMarker(st topology.Stage, at int64, fit func(key string) bool) (key string, value []byte) {
	for n := 0; ; n++ {
		switch st {
		case topology.StageMatch:
			h := fnv.New64a()
			h.Write([]byte("ste-clock|" + strconv.Itoa(n)))
			k := schemas.TradeKey(h.Sum64())
			if k == 0 || !fit(k.String()) {
				continue
			}
			return k.String(), matching.MarshalTombstone(k, matching.Tombstone{PurgedAt: at})
		case topology.StageIdentity:
			k := "~clock:" + strconv.Itoa(n)
			if !fit(k) {
				continue
			}
			return k, envelope.Identity{Created: at}.Marshal()
		default:
			return "", nil
		}
	}
}
