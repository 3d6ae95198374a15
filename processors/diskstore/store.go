package diskstore

import (
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/ste-utility/ste/processors/fence"
	"github.com/ste-utility/ste/processors/memstore"
)

// Store is one table partition: goka's storage.Storage. goka writes from
// the partition's goroutine and reads from it and others (metrics, views);
// the producer's acknowledgements arrive from the producer's goroutine.
//
// A write is an op: applied to memory at once (pend), committed to Pebble
// later, in order, once it may be: a replayed changelog record at any time,
// a processor's write once its changelog record is acknowledged, a local
// deletion (DropDue) once everything before it may be.
type Store struct {
	db        *DB
	topic     string
	partition int32
	pfx       []byte
	index     memstore.Index
	openedAt  time.Time

	commitMu sync.Mutex // one commit at a time

	mu   sync.RWMutex
	pend map[string]pendVal // newest uncommitted value of a key (nil: deleted)
	ops  []op               // uncommitted, in order
	// ops[:ready] may be committed.
	ready int
	seq   uint64
	meta  meta // as committed

	// Ahead of meta: the state with every op applied, and the offset and
	// reference time the committable ops reach.
	clock     int64
	count     int64
	offset    int64
	hasOffset bool
	ref       int64
	epoch     fence.Epoch // the latest ownership applied (package fence)
	end       int64       // the changelog's end when goka's replay was done

	recovered bool
	standby   bool // never recovered: every write is a replayed record (DB.StandbyBuilder)
	hotWrites bool // written values are kept hot (Options.HotWrites), counted in DB.nHot
	closed    bool
	poisoned  bool
	// poisonUnwritten is why the partition was poisoned when the disk had
	// no room for the mark: the next commit writes it first.
	poisonUnwritten string
	frozen          bool  // another writer's records were seen: the offset stays
	lastAck         int64 // the last acknowledged changelog offset
	partial         bool  // more writes of the record at lastAck are to be acknowledged
	follows         bool  // the record at lastAck follows the offset: it moves there with its last write

	// The due index: entries below scanFrom were looked at; none committed
	// lies in [scanFrom, nextDue); no uncommitted op is due before
	// minPendingDue. returned holds keys Due handed out whose value has not
	// changed since, so that they are handed out once.
	scanFrom      int64
	nextDue       int64
	minPendingDue int64
	returned      map[string]struct{}

	// hot holds the values most recently committed or read from Pebble (a
	// trade's later messages come shortly after its first): two generations
	// of at most hotKeys keys and hotCap bytes each, so a key read again
	// soon is not read from Pebble. hotSize is the newer generation's bytes;
	// hotCap is set when a generation starts (hotGenBytes), so the first
	// value kept, with hotCap 0, starts the first.
	hot, hotOld     map[string][]byte
	hotSize, hotCap int

	// The last value Get returned and the op count when it was read: a
	// callback reads a key, then writes it, and the write needs the old
	// value again (index entry, key count).
	last atomic.Pointer[lastRead]

	// filt answers reads of keys never written (nil until its first build
	// from Pebble is done); building is the filter being built (filter.go).
	filt, building *keyFilter
	builders       sync.WaitGroup

	restored atomic.Int64
	filtered atomic.Int64
	entries  atomic.Int64 // written to Pebble by commits
}

type lastRead struct {
	key string
	v   []byte
	seq uint64
}

type pendVal struct {
	v   []byte
	seq uint64
}

type opKind uint8

const (
	opReplay opKind = iota // a changelog record replayed by goka's recovery
	opWrite                // a processor's write, with a changelog record of its own
	opLocal                // a local deletion, with no changelog record (DropDue)
	opEpoch                // no value: the partition's epoch is raised (RaiseEpoch)
)

type op struct {
	kind   opKind
	acked  bool // may be committed (as far as this op goes)
	key    string
	val    []byte // nil: delete
	seq    uint64
	oldDue int64
	newDue int64
	oldIdx bool
	newIdx bool
	wm     int64
	delta  int8
	epoch  fence.Epoch // opEpoch's
}

func newStore(db *DB, topic string, partition int32, index memstore.Index) (*Store, string, error) {
	pfx, err := db.prefixOf(topic, partition)
	if err != nil {
		return nil, "", fmt.Errorf("diskstore: %s/%d: %w", topic, partition, err)
	}
	s := &Store{db: db, topic: topic, partition: partition, pfx: pfx, index: index,
		openedAt: db.o.Now(), pend: map[string]pendVal{}, returned: map[string]struct{}{},
		hot: map[string][]byte{}, hotOld: map[string][]byte{},
		scanFrom: math.MinInt64, nextDue: math.MinInt64, minPendingDue: math.MaxInt64}
	m, why, err := s.readMeta()
	if err != nil {
		return nil, "", err
	}
	if err := db.room(); err != nil && (why != "" || m.topicID != ([16]byte{})) {
		return nil, "", fmt.Errorf("diskstore: %s/%d: %w", topic, partition, err)
	}
	if why != "" {
		if m, err = s.wipe(m); err != nil {
			return nil, "", err
		}
	} else if m.topicID != ([16]byte{}) {
		// Written now, not with the next commit: an id adopted by a
		// partition that is then only read must be there at the next open.
		if err := s.db.pdb.Set(s.sub('m'), m.encode(), pebble.NoSync); err != nil {
			return nil, "", fmt.Errorf("diskstore: %s/%d: %w", topic, partition, err)
		}
	}
	s.meta = m
	s.clock, s.count, s.offset, s.hasOffset, s.ref, s.epoch = m.clock, m.count, m.offset, m.hasOffset, m.ref, m.epoch
	s.mu.Lock()
	s.buildFilterLocked()
	s.mu.Unlock()
	db.o.Logger.Debug("table partition opened", "topic", topic, "partition", partition,
		"seconds", db.o.Now().Sub(s.openedAt).Seconds(), "keys", s.count)
	return s, why, nil
}

// readMeta reads the partition's meta and says why the local state cannot
// be used ("" if it can).
func (s *Store) readMeta() (meta, string, error) {
	fresh := meta{version: layoutVersion}
	var cl *Changelog
	if s.db.o.Changelog != nil {
		c, err := s.db.o.Changelog(s.topic, s.partition)
		if err != nil {
			return meta{}, "", fmt.Errorf("diskstore: %s/%d: changelog: %w", s.topic, s.partition, err)
		}
		cl, fresh.topicID = &c, c.TopicID
	}
	if _, closer, err := s.db.pdb.Get(s.sub('p')); err == nil {
		closer.Close()
		return fresh, "an earlier inconsistency marked it for a rebuild", nil
	} else if !errors.Is(err, pebble.ErrNotFound) {
		return meta{}, "", err
	}
	v, closer, err := s.db.pdb.Get(s.sub('m'))
	if errors.Is(err, pebble.ErrNotFound) {
		return fresh, "", nil
	}
	if err != nil {
		return meta{}, "", err
	}
	m, derr := decodeMeta(v)
	closer.Close()
	switch {
	case derr != nil:
		return fresh, derr.Error(), nil
	case m.version != layoutVersion:
		return fresh, fmt.Sprintf("written by layout %d, this build reads %d", m.version, layoutVersion), nil
	case cl != nil && m.topicID != ([16]byte{}) && cl.TopicID != ([16]byte{}) && m.topicID != cl.TopicID:
		return fresh, "the changelog was deleted and created again (another topic id)", nil
	}
	if m.topicID == ([16]byte{}) {
		m.topicID = fresh.topicID
	}
	if !m.hasOffset {
		return m, "", nil
	}
	if age := s.openedAt.Sub(time.Unix(0, m.ref)); age > s.db.o.staleAfter() {
		return fresh, fmt.Sprintf("its changelog may have dropped tombstones since (local offset %d is %s old, tombstones are kept %s)",
			m.offset, age.Round(time.Second), s.db.o.TombstoneRetention), nil
	}
	switch {
	case cl == nil:
	case m.offset >= cl.End:
		return fresh, fmt.Sprintf("local offset %d is past the changelog's end %d (the topic was recreated?)", m.offset, cl.End), nil
	case m.offset+1 < cl.Start:
		return fresh, fmt.Sprintf("local offset %d is before the changelog's start %d (records were deleted)", m.offset, cl.Start), nil
	}
	return m, "", nil
}

// wipe deletes the partition's local state (goka then replays the whole
// changelog into it) and writes m, a fresh meta, in its place.
func (s *Store) wipe(m meta) (meta, error) {
	b := s.db.pdb.NewBatch()
	defer b.Close()
	b.DeleteRange(s.pfx, prefixEnd(s.pfx), nil)
	b.Set(s.sub('m'), m.encode(), nil)
	if err := b.Commit(pebble.Sync); err != nil {
		return meta{}, fmt.Errorf("diskstore: wipe %s/%d: %w", s.topic, s.partition, err)
	}
	return m, nil
}

func (s *Store) Open() error { return nil }

// Close commits what may be committed and forgets the rest: writes whose
// changelog records were not acknowledged are replayed from the changelog
// at the next start if they reached it.
func (s *Store) Close() error {
	err := s.commit()
	s.mu.Lock()
	s.closed = true
	s.pend, s.ops, s.ready, s.hot, s.hotOld, s.hotSize = nil, nil, 0, nil, nil, 0
	s.filt, s.building = nil, nil
	s.mu.Unlock()
	s.builders.Wait() // a filter build holds a Pebble iterator
	s.db.closed(s)
	return err
}

func (s *Store) Has(key string) (bool, error) {
	v, err := s.Get(key)
	return v != nil, err
}

// Get returns the value of key, nil if there is none. A pending value is
// returned as written (goka hands over buffers it does not reuse); a
// committed one is a copy.
func (s *Store) Get(key string) ([]byte, error) {
	s.mu.RLock()
	p, ok := s.pend[key]
	if !ok {
		p.v, ok = s.hotValue(key)
	}
	absent := !ok && s.filt != nil && !s.filt.has(key)
	seq := s.seq
	s.mu.RUnlock()
	if ok {
		return p.v, nil
	}
	if absent {
		s.filtered.Add(1)
		s.last.Store(&lastRead{key, nil, seq})
		return nil, nil
	}
	// A commit writes Pebble before it drops the value from pend, so a
	// value missing from pend is in Pebble.
	v, err := s.committed(key)
	if err != nil {
		return nil, err
	}
	s.last.Store(&lastRead{key, v, seq})
	if v != nil {
		s.mu.Lock()
		if s.seq == seq && !s.closed { // no write since: v is the newest value
			s.keepHot(key, v)
		}
		s.mu.Unlock()
	}
	return v, nil
}

// A generation of hot values holds at most hotKeys keys or hotGenBytes
// bytes, whichever comes first: a partition keeps at most twice that. A
// trade's messages reach its partition close together when the stages keep
// up, but in a backlog (a saturated run, a restart after an outage) the
// validate stage drains its partitions unevenly, and a trade's next message
// came 15,000–50,000 committed keys after its last: with 4,096 keys a
// generation, 175,000 reads of a 250,000-trade run went to Pebble's files
// at ~55 µs each, ~4 % of the run's CPU (docs/benchmarks.md, "Issue 26,
// 6 December"). A matched trade's value is deleted, and with it its hot
// entry, so the match table's hot set is its open trades.
//
// The bytes follow the process's soft memory limit (instance/gc.go, or the
// operator's GOMEMLIMIT): the hot values of all partitions that keep their
// writes hot (Options.HotWrites: the match table's) take at most
// 1/hotShare of it, each entry counted with hotEntryBytes for its map slot
// beside its key and value (a profile of a 250,000-trade drain held as
// much in the maps as in the values: docs/benchmarks.md, "Memory: 250,000
// trades in 600 MB"). The identity table's values are read back only for
// a duplicate or a release, so it keeps none of its writes hot and takes
// none of the budget. Under the 768 MiB limit of disk tables with the
// broker elsewhere that is 48 MiB: 3 MiB a generation for 8 match
// partitions, ~4,000 trades (as much as the 2 MiB a generation the 16
// partitions of both tables had under the earlier 1 GiB). With the broker
// in the process or tables in memory the limit is ¾ of RAM and the key
// bound decides.
const (
	hotKeys       = 32768
	hotShare      = 16
	hotNoLimit    = 256 << 20 // the budget without a memory limit
	hotEntryBytes = 64        // a hot entry's map slot (string and slice headers, control byte, load)
)

// memLimit is the process's soft memory limit (tests replace it).
var memLimit = func() int64 { return debug.SetMemoryLimit(-1) }

// hotGenBytes is what one generation of a partition's hot values may hold
// with the soft memory limit limit and open partitions.
func hotGenBytes(limit int64, open int) int {
	budget := int64(hotNoLimit)
	if limit > 0 && limit < math.MaxInt64 {
		budget = limit / hotShare
	}
	return int(budget / int64(2*max(open, 1)))
}

// hotValue is key's value kept hot, from the newer generation first.
func (s *Store) hotValue(key string) ([]byte, bool) {
	if v, ok := s.hot[key]; ok {
		return v, true
	}
	v, ok := s.hotOld[key]
	return v, ok
}

func (s *Store) keepHot(key string, v []byte) {
	n := len(key) + len(v) + hotEntryBytes
	if len(s.hot) >= hotKeys || s.hotSize+n > s.hotCap {
		s.hot, s.hotOld, s.hotSize = make(map[string][]byte, len(s.hot)), s.hot, 0
		s.hotCap = hotGenBytes(memLimit(), int(s.db.nHot.Load()))
	}
	s.hot[key] = v
	s.hotSize += n
}

// dropHot forgets key's hot value.
func (s *Store) dropHot(key string) {
	if v, ok := s.hot[key]; ok {
		s.hotSize -= len(key) + len(v) + hotEntryBytes
		delete(s.hot, key)
	}
	delete(s.hotOld, key)
}

// old is the current value of key for a write: what Get just read if no
// write came between.
func (s *Store) old(key string) ([]byte, error) {
	if l := s.last.Load(); l != nil && l.key == key {
		s.mu.RLock()
		fresh := l.seq == s.seq
		s.mu.RUnlock()
		if fresh {
			return l.v, nil
		}
	}
	return s.Get(key)
}

func (s *Store) committed(key string) ([]byte, error) {
	v, closer, err := s.db.pdb.Get(s.valueKey(key))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("diskstore: get %s/%d %q: %w", s.topic, s.partition, key, err)
	}
	out := append([]byte(nil), v...)
	closer.Close()
	return out, nil
}

func (s *Store) Set(key string, value []byte) error {
	if value == nil {
		value = []byte{} // nil means deleted here; goka never sets nil
	}
	return s.write(key, value, opWrite)
}

func (s *Store) Delete(key string) error { return s.write(key, nil, opWrite) }

func (s *Store) write(key string, value []byte, kind opKind) error {
	// The old value decides the index entry to replace and the key count.
	// Only this goroutine writes, so it cannot change before the lock.
	old, err := s.old(key)
	if err != nil {
		return err
	}
	o := op{kind: kind, key: key, val: value}
	if old != nil && s.index != nil {
		o.oldDue, _, o.oldIdx = s.index(old)
	}
	if value != nil && s.index != nil {
		o.newDue, o.wm, o.newIdx = s.index(value)
	}
	switch {
	case old == nil && value != nil:
		o.delta = 1
	case old != nil && value == nil:
		o.delta = -1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("diskstore: %s/%d is closed", s.topic, s.partition)
	}
	if !s.recovered && kind == opWrite {
		o.kind = opReplay
		s.restored.Add(1)
	}
	o.acked = o.kind != opWrite || s.poisoned
	s.seq++
	o.seq = s.seq
	s.ops = append(s.ops, o)
	s.pend[key] = pendVal{value, o.seq}
	if value != nil {
		s.addKeyLocked(key)
	}
	if o.newIdx {
		s.clock = max(s.clock, o.wm)
		s.minPendingDue = min(s.minPendingDue, o.newDue)
	}
	s.count += int64(o.delta)
	delete(s.returned, key)
	s.advanceReady()
	return nil
}

func (s *Store) advanceReady() {
	for s.ready < len(s.ops) && s.ops[s.ready].acked {
		s.ready++
	}
	if s.recovered && s.ready >= commitOps {
		select {
		case s.db.kick <- s:
		default:
		}
	}
}

// GetOffset is the offset of the last changelog record reflected.
func (s *Store) GetOffset(def int64) (int64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if !s.hasOffset {
		return def, nil
	}
	return s.offset, nil
}

// SetOffset is goka's: during recovery after each replayed record, later
// after each acknowledged table write. The latter the store has already
// seen through DB.Producer; if it has not, the producer is not wrapped and
// the store cannot know what reached the changelog.
func (s *Store) SetOffset(offset int64) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	if s.recovered {
		defer s.mu.Unlock()
		if offset > s.lastAck && !s.poisoned {
			s.poisonLocked("table writes are not tracked")
			return fmt.Errorf("diskstore: %s/%d: table writes are not tracked: the processor must produce through diskstore.DB.Producer", s.topic, s.partition)
		}
		return nil
	}
	s.offset, s.hasOffset = offset, true
	full := len(s.ops) >= recoveryBatch
	s.mu.Unlock()
	if full {
		return s.commit()
	}
	return nil
}

// MarkRecovered ends goka's replay: what was replayed is committed, and from
// now on every record after the offset is one appended after the partition
// was opened (goka read the changelog's end after that).
func (s *Store) MarkRecovered() error {
	if s.standby {
		// A standby has caught up with the changelog and goes on following
		// it: what goka writes next are more replayed records, committed
		// with their offset. Every record past the offset was still written
		// after the store was opened (goka read the changelog's end after).
		s.mu.Lock()
		s.ref = s.openedAt.UnixNano()
		s.mu.Unlock()
		return s.commit()
	}
	s.mu.Lock()
	s.recovered = true
	s.ref = s.openedAt.UnixNano()
	s.lastAck = s.offset
	if !s.hasOffset {
		s.lastAck = -1
	}
	s.end = s.lastAck + 1
	s.mu.Unlock()
	err := s.commit()
	if s.db.o.OnRecovered != nil {
		s.db.o.OnRecovered(s.topic, s.partition, s.restored.Load(), s.db.o.Now().Sub(s.openedAt))
	}
	return err
}

// acked is the producer's report of one changelog record of this partition.
func (s *Store) acked(key string, offset int64, err error) { s.ackedPart(key, offset, false, err) }

// ackedPart is the producer's report of one write of this partition: its
// changelog record's offset, and whether more writes of that record are to
// be acknowledged after it (RecordPart).
func (s *Store) ackedPart(key string, offset int64, more bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.poisoned {
		return
	}
	if err != nil {
		s.poisonLocked("a changelog write failed: " + err.Error())
		return
	}
	i := s.ready
	for i < len(s.ops) && (s.ops[i].kind != opWrite || s.ops[i].acked) {
		i++
	}
	if i == len(s.ops) || s.ops[i].key != key {
		s.poisonLocked(fmt.Sprintf("acknowledgement of %q at offset %d matches no pending write", key, offset))
		return
	}
	s.ops[i].acked = true
	switch {
	case s.partial:
		// The next write of the record acknowledged last.
		if offset != s.lastAck {
			s.poisonLocked(fmt.Sprintf("record at offset %d acknowledged before the rest of the one at %d", offset, s.lastAck))
			return
		}
	case offset <= s.lastAck:
		s.poisonLocked(fmt.Sprintf("changelog offset went back from %d to %d", s.lastAck, offset))
		return
	case s.frozen:
	case offset == s.lastAck+1 && (s.hasOffset || offset == 0):
		s.follows = true
	default:
		// Records between ours that this store never applied (a previous
		// owner still writing): the offset stays before them, so that the
		// next start replays them. Acknowledged writes are still committed.
		s.frozen = true
		s.db.o.Logger.Warn("table changelog has records of another writer: local offset held",
			"topic", s.topic, "partition", s.partition, "offset", s.offset, "record", offset)
	}
	s.partial = more
	if s.follows && !more {
		s.offset, s.hasOffset, s.ref = offset, true, s.db.o.Now().UnixNano()
		s.follows = false
	}
	s.lastAck = offset
	s.advanceReady()
}

// poisonLocked marks the partition for a rebuild at its next open (durably,
// at once) and makes every write committable: local state can no longer be
// trusted to match the changelog, and the rebuild does not depend on it.
func (s *Store) poisonLocked(why string) {
	s.poisoned = true
	if err := s.db.room(); err != nil {
		// Every write is committable from now on, so no commit may happen
		// without the mark: commit writes it with the first batch.
		s.poisonUnwritten = why
	} else if err := s.db.pdb.Set(s.sub('p'), []byte(why), pebble.Sync); err != nil {
		s.db.o.Logger.Error("table partition: cannot mark for rebuild", "topic", s.topic, "partition", s.partition, "err", err)
	}
	s.db.o.Logger.Warn("table partition will be rebuilt from its changelog at its next start",
		"topic", s.topic, "partition", s.partition, "reason", why)
	for i := range s.ops {
		s.ops[i].acked = true
	}
	s.advanceReady()
}

// commit writes the committable ops with the meta they reach, in one batch.
func (s *Store) commit() error {
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	n := s.ready
	m := s.meta
	for _, o := range s.ops[:n] {
		if o.kind == opEpoch {
			m.epoch = m.epoch.Max(o.epoch)
			continue
		}
		if o.newIdx {
			m.clock = max(m.clock, o.wm)
		}
		m.count += int64(o.delta)
	}
	m.offset, m.hasOffset, m.ref = s.offset, s.hasOffset, s.ref
	poison := s.poisonUnwritten
	if n == 0 && m == s.meta && poison == "" {
		s.mu.Unlock()
		return nil
	}
	// Nothing is written to a full disk: the ops stay in memory, served from
	// there, until a commit finds room.
	if err := s.db.room(); err != nil {
		s.mu.Unlock()
		return fmt.Errorf("diskstore: commit %s/%d: %w", s.topic, s.partition, err)
	}
	// A key written several times in the batch is written once: with its
	// newest value, and the index entry of its first op's old value (what
	// Pebble has) replaced by its newest op's. A trade's messages come close
	// together, and every version written costs a memtable entry, a flush and
	// compactions.
	b := s.db.pdb.NewBatch()
	firstOf := make(map[string]int, n)
	for i := n - 1; i >= 0; i-- {
		if s.ops[i].kind != opEpoch {
			firstOf[s.ops[i].key] = i
		}
	}
	for i := n - 1; i >= 0; i-- {
		o := s.ops[i]
		if o.kind == opEpoch {
			continue
		}
		f, ok := firstOf[o.key]
		if !ok {
			continue // a newer op of the key was written
		}
		delete(firstOf, o.key)
		if o.val == nil {
			b.Delete(s.valueKey(o.key), nil)
		} else {
			b.Set(s.valueKey(o.key), o.val, nil)
		}
		first := s.ops[f]
		if first.oldIdx && (!o.newIdx || first.oldDue != o.newDue) {
			b.Delete(s.dueKey(first.oldDue, o.key), nil)
		}
		if o.newIdx && (!first.oldIdx || first.oldDue != o.newDue) {
			b.Set(s.dueKey(o.newDue, o.key), nil, nil)
		}
	}
	b.Set(s.sub('m'), m.encode(), nil)
	sync := pebble.NoSync
	if poison != "" {
		b.Set(s.sub('p'), []byte(poison), nil)
		sync = pebble.Sync
	}
	s.mu.Unlock()
	s.entries.Add(int64(b.Count()))

	err := b.Commit(sync)
	b.Close()
	if err != nil {
		return fmt.Errorf("diskstore: commit %s/%d: %w", s.topic, s.partition, err)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	for _, o := range s.ops[:n] {
		if o.kind == opEpoch {
			continue
		}
		if p, ok := s.pend[o.key]; ok && p.seq == o.seq {
			delete(s.pend, o.key)
		}
		// Every committed value is kept hot, not only those read back: a
		// trade's next message usually comes after its last write is
		// committed, and such a read reached Pebble's files and cost
		// 30–45 µs (block reads), 81,000 of them in 95 s of a 250,000-trade
		// run (docs/benchmarks.md, "Issue 26, 3 December, sixth session").
		// Ops are in order, so the newest op's value is what stays. A
		// partition still replaying its changelog (a restore, a standby)
		// keeps only the values read back current: nothing reads it, and
		// a standby would hold 8,192 values a partition for nobody.
		keep := s.recovered && s.hotWrites
		if !keep {
			_, keep = s.hotValue(o.key)
		}
		if keep {
			s.dropHot(o.key)
			if o.val != nil {
				s.keepHot(o.key, o.val)
			}
		}
		if o.newIdx {
			// Committed entries below the scan start must be looked at
			// again: the uncommitted ops Due saw them in are gone.
			s.scanFrom = min(s.scanFrom, o.newDue)
			s.nextDue = min(s.nextDue, o.newDue)
		}
	}
	if s.poisonUnwritten == poison {
		s.poisonUnwritten = ""
	}
	s.ops = append(s.ops[:0], s.ops[n:]...)
	s.ready -= n
	s.minPendingDue = math.MaxInt64
	for _, o := range s.ops {
		if o.newIdx {
			s.minPendingDue = min(s.minPendingDue, o.newDue)
		}
	}
	s.meta = m
	return nil
}

// Clock is the largest watermark of any value written.
func (s *Store) Clock() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.clock
}

// Epoch is the latest ownership of the partition whose writes were applied
// (package fence; zero: none stamped), committed ones or not.
func (s *Store) Epoch() fence.Epoch {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.epoch
}

// RaiseEpoch records that writes of ownership e are applied from now on. It
// takes its place among the writes, and is committed with the offset it
// comes after: a store resumed from disk skips, when goka replays the
// changelog past its offset, the late writes of an earlier owner that
// landed after what it holds — without skipping an earlier owner's
// writes before that point.
func (s *Store) RaiseEpoch(e fence.Epoch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("diskstore: %s/%d is closed", s.topic, s.partition)
	}
	if !s.epoch.Before(e) {
		return nil
	}
	s.epoch = e
	s.ops = append(s.ops, op{kind: opEpoch, acked: true, epoch: e})
	s.advanceReady()
	return nil
}

// RecoveredEnd is the changelog's end offset when goka's replay into this
// (owned) partition was done: 0 before it, or for an empty changelog.
func (s *Store) RecoveredEnd() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.end
}

// Len is the number of keys.
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return int(s.count)
}

// Restored is how many changelog records goka replayed into this store
// since it was opened: those after the local offset.
func (s *Store) Restored() int64 { return s.restored.Load() }

// Offset is the local offset as committed (ok false: none).
func (s *Store) Offset() (int64, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.meta.offset, s.meta.hasOffset
}

// Due returns the keys whose current value is due at or before now, each
// once while its value stays the same.
func (s *Store) Due(now int64) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.index == nil || s.closed {
		return nil
	}
	var keys []string
	consider := func(key string) {
		if _, done := s.returned[key]; done {
			return
		}
		v, ok := s.pend[key]
		if !ok {
			var err error
			if v.v, err = s.committed(key); err != nil {
				s.db.o.Logger.Error("due index", "err", err)
				return
			}
		}
		if v.v == nil {
			return
		}
		if due, _, ok := s.index(v.v); ok && due <= now {
			s.returned[key] = struct{}{}
			keys = append(keys, key)
		}
	}
	if now >= s.minPendingDue {
		for _, o := range s.ops {
			if o.newIdx && o.newDue <= now {
				consider(o.key)
			}
		}
	}
	if now >= s.nextDue && now >= s.scanFrom {
		lo := s.sub('d')
		it, err := s.db.pdb.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: prefixEnd(lo)})
		if err != nil {
			s.db.o.Logger.Error("due index", "err", err)
			return keys
		}
		next := int64(math.MaxInt64)
		for ok := it.SeekGE(s.dueKey(s.scanFrom, "")); ok; ok = it.Next() {
			due, key, ok := parseDue(it.Key()[len(lo):])
			if !ok {
				continue
			}
			if due > now {
				next = due
				break
			}
			consider(key)
		}
		it.Close()
		s.scanFrom, s.nextDue = now+1, next
	}
	return keys
}

// DropDue deletes, with no changelog record, the keys due at or before now:
// for tables whose changelog forgets by time on its own.
func (s *Store) DropDue(now int64) int {
	keys := s.Due(now)
	for _, k := range keys {
		if err := s.write(k, nil, opLocal); err != nil {
			s.db.o.Logger.Error("drop due", "err", err)
		}
	}
	return len(keys)
}

// addKeyLocked puts a written key in the filters. A filter holding more
// than twice the partition's keys (the others deleted: dropped identities,
// purged trades) is replaced by one built afresh.
func (s *Store) addKeyLocked(key string) {
	if f := s.building; f != nil {
		f.add(key)
	}
	if f := s.filt; f != nil {
		f.add(key)
		if s.building == nil && f.n > 2*int(s.count)+filterMinKeys {
			s.buildFilterLocked()
		}
	}
}

// buildFilterLocked starts building a filter of the partition's keys: those
// in Pebble (a scan, in the background) and those written but not committed
// (now). Keys written from now on are added by write, so once the scan is
// done the filter holds every key the partition has; until then reads go to
// the filter serving before (or to Pebble).
func (s *Store) buildFilterLocked() {
	if s.closed {
		return
	}
	f := newKeyFilter(int(s.count) + len(s.pend))
	for k, p := range s.pend {
		if p.v != nil {
			f.add(k)
		}
	}
	s.building = f
	s.builders.Add(1)
	go s.scanKeys(f)
}

// scanKeys adds every key in Pebble to f, then makes f the serving filter.
func (s *Store) scanKeys(f *keyFilter) {
	defer s.builders.Done()
	abandon := func(err error) {
		s.db.o.Logger.Error("table key filter: reads go to the store", "topic", s.topic, "partition", s.partition, "err", err)
		s.mu.Lock()
		if s.building == f {
			s.building = nil
		}
		s.mu.Unlock()
	}
	began := time.Now()
	lo := s.sub('v')
	it, err := s.db.pdb.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: prefixEnd(lo)})
	if err != nil {
		abandon(err)
		return
	}
	batch := make([]string, 0, 1024)
	// add hands a batch to f; false: the store closed or replaced f.
	add := func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed || s.building != f {
			return false
		}
		for _, k := range batch {
			f.add(k)
		}
		batch = batch[:0]
		return true
	}
	for ok := it.First(); ok; ok = it.Next() {
		batch = append(batch, string(it.Key()[len(lo):]))
		if len(batch) == cap(batch) && !add() {
			it.Close()
			return
		}
	}
	if err := it.Close(); err != nil {
		abandon(err)
		return
	}
	if !add() {
		return
	}
	s.mu.Lock()
	if s.building == f {
		s.filt, s.building = f, nil
	}
	n := f.n
	s.mu.Unlock()
	s.db.o.Logger.Debug("table key filter built", "topic", s.topic, "partition", s.partition,
		"keys", n, "seconds", time.Since(began).Seconds())
}

// Filtered is how many reads the key filter answered (the key was never
// written) without reading Pebble.
func (s *Store) Filtered() int64 { return s.filtered.Load() }
