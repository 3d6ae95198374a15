// Package fence orders the owners of a table partition, so that whoever
// reads a table's changelog back can skip what an owner wrote after the
// partition had passed to another.
//
// A consumer group gives a partition to one member at a time, but a member
// the coordinator leaves out of a generation — it did not rejoin within the
// rebalance timeout, its session expired, or the embedded broker forgot
// every member in a restart — goes on processing until a heartbeat or a
// commit tells it, and its records in flight land after that. Its table
// writes can then reach the changelog after the new owner's writes of the
// same key. Nothing fences them at the broker (that needs transactions), so
// a restore, a rebuild or a standby would take the old owner's value as
// the key's state, and the messages the new owner applied in between would
// be lost from it, though answered and committed (docs/ARCHITECTURE.md,
// "Non-obvious").
//
// Each owner stamps its writes with its Epoch: the changelog's end offset
// its recovery read when it took the partition over, and the consumer
// group generation that assigned it. Ownerships follow one another, and
// both numbers only grow along them: a later owner's recovery read at
// least as far, and when two read the same end (the earlier wrote nothing
// that landed before the later took over) the later one's generation is
// higher. The end comes first so that a group deleted and made again
// (generations start over) cannot make an old owner look newer. A reader
// keeps the largest epoch applied so far in each partition and skips a
// write stamped before it (Filter; the table stores keep it with their
// offset).
//
// The old owner's late writes are of messages it never committed, so the
// new owner processes them again and writes their keys itself: skipping
// them loses nothing. The package is a leaf: it knows no Kafka client.
package fence

import "encoding/binary"

// Header is the record header that carries a write's epoch.
const Header = "ste-epoch"

const version = 1

// Epoch is one ownership of a table partition.
type Epoch struct {
	// End is the changelog's end offset when the owner's recovery was
	// done: every record before it was there when it took over.
	End int64
	// Generation is the consumer group generation of the assignment.
	Generation int32
}

// IsZero reports an epoch that says nothing (no owner stamped it).
func (e Epoch) IsZero() bool { return e == Epoch{} }

// Before reports whether e is an earlier ownership than o.
func (e Epoch) Before(o Epoch) bool {
	return e.End < o.End || e.End == o.End && e.Generation < o.Generation
}

// Max is the later of e and o.
func (e Epoch) Max(o Epoch) Epoch {
	if e.Before(o) {
		return o
	}
	return e
}

// Encode is e as a header value.
func (e Epoch) Encode() []byte {
	b := make([]byte, 0, 13)
	b = append(b, version)
	b = binary.BigEndian.AppendUint64(b, uint64(e.End))
	return binary.BigEndian.AppendUint32(b, uint32(e.Generation))
}

// Decode reads a header value; ok is false for one this build cannot read
// (absent, or of another version): such a write is applied as it is.
func Decode(b []byte) (e Epoch, ok bool) {
	if len(b) != 13 || b[0] != version {
		return Epoch{}, false
	}
	return Epoch{End: int64(binary.BigEndian.Uint64(b[1:])), Generation: int32(binary.BigEndian.Uint32(b[9:]))}, true
}

// Filter admits the writes of one reading of a changelog, every partition
// read from its beginning (a reader that resumes keeps the epoch with its
// state instead: the table stores).
type Filter struct{ max map[int32]Epoch }

// Admit reports whether a record of partition p with epoch header value h
// (nil: none) is to be applied: not when a later owner's write came before
// it.
func (f *Filter) Admit(p int32, h []byte) bool {
	e, ok := Decode(h)
	if !ok {
		return true
	}
	if f.max == nil {
		f.max = map[int32]Epoch{}
	}
	if e.Before(f.max[p]) {
		return false
	}
	f.max[p] = e
	return true
}
