package diskstore_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lovoo/goka"
	"github.com/lovoo/goka/codec"
	gokastorage "github.com/lovoo/goka/storage"
	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/ste-utility/ste/processors/diskstore"
	stproduce "github.com/ste-utility/ste/processors/produce"
)

// member is one instance of the counting processor with its tables in its
// own directory, optionally keeping the partitions it does not own as hot
// standbys (goka's WithHotStandby, DB.StandbyBuilder), as STE's stages do.
type member struct {
	dir      string
	db       *diskstore.DB
	mu       sync.Mutex
	owned    []int32         // this generation's assignment
	restored map[int32]int64 // records replayed when a partition was opened to be owned
	done     chan error
	cancel   context.CancelFunc
}

func startMember(t *testing.T, brokers string, standby bool) *member {
	t.Helper()
	m := &member{dir: t.TempDir(), restored: map[int32]int64{}, done: make(chan error, 1)}
	db, err := diskstore.Open(diskstore.Options{Dir: m.dir, Logger: quiet,
		OnRecovered: func(_ string, p int32, n int64, _ time.Duration) {
			m.mu.Lock()
			m.restored[p] += n
			m.mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	m.db = db
	active, passive := db.Builder(nil, nil), db.StandbyBuilder(nil)
	opts := append(clientOptions(),
		goka.WithRejoinWait(100*time.Millisecond),
		goka.WithProducerBuilder(db.Producer(stproduce.Builder(stproduce.Options{}))),
		goka.WithRebalanceCallback(func(a goka.Assignment) {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.owned = m.owned[:0]
			for p := range a {
				m.owned = append(m.owned, p)
			}
		}),
		// The assignment is known before goka opens any table of the
		// generation: owned partitions open as owned, the rest as standbys.
		goka.WithStorageBuilder(func(topic string, p int32) (gokastorage.Storage, error) {
			m.mu.Lock()
			own := slices.Contains(m.owned, p)
			m.mu.Unlock()
			if own {
				return active(topic, p)
			}
			return passive(topic, p)
		}))
	if standby {
		opts = append(opts, goka.WithHotStandby())
	}
	p, err := goka.NewProcessor([]string{brokers},
		goka.DefineGroup(group, goka.Input(input, new(codec.Bytes), count), goka.Persist(new(codec.Bytes))), opts...)
	if err != nil {
		t.Fatal(err)
	}
	var ctx context.Context
	ctx, m.cancel = context.WithCancel(context.Background())
	go func() { m.done <- p.Run(ctx) }()
	t.Cleanup(func() { m.stop(t) })
	return m
}

func (m *member) stop(t *testing.T) {
	if m.cancel == nil {
		return
	}
	m.cancel()
	m.cancel = nil
	if err := <-m.done; err != nil {
		t.Errorf("processor: %v", err)
	}
	if err := m.db.Close(); err != nil {
		t.Error(err)
	}
}

func (m *member) owns() []int32 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Sorted(slices.Values(m.owned))
}

// TestStandbyTakeoverRestoresNothing: two instances share the table's
// partitions, each keeping the other's as hot standbys on disk. When one
// leaves, the other takes its partitions over without replaying their
// changelogs — the standbys are at their ends — and its tables still hold
// exactly what the changelog holds. Without the standbys the survivor
// replays every record of the partitions it takes over.
func TestStandbyTakeoverRestoresNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("broker")
	}
	_, brokers := startBroker(t, nil)
	a := startMember(t, brokers, true)
	waitOwned(t, a, parts)
	b := startMember(t, brokers, true)
	waitOwned(t, b, parts/2)
	cl := producer(t, brokers)
	want := produce(t, cl, 0, 4000, 800, rand.New(rand.NewPCG(3, 4)))
	waitDone(t, brokers)
	bOwned := b.owns()
	// b's standbys reach the changelog's end.
	ends := changelogEnds(t, brokers)
	deadline := time.Now().Add(time.Minute)
	for p := range int32(parts) {
		if slices.Contains(bOwned, p) {
			continue
		}
		for {
			s := b.db.Store(table, p)
			if s == nil {
				t.Fatalf("partition %d: no standby open on the instance that does not own it", p)
			}
			if off, _ := s.GetOffset(-1); off >= ends[p]-1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("partition %d: standby not at the changelog's end %d in a minute", p, ends[p])
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	b.mu.Lock()
	clear(b.restored)
	b.mu.Unlock()

	a.stop(t) // leaves the group: b is given every partition
	waitOwned(t, b, parts)
	var takenOver, records int64
	b.mu.Lock()
	for p := range int32(parts) {
		if !slices.Contains(bOwned, p) {
			takenOver++
			records += b.restored[p]
		}
	}
	b.mu.Unlock()
	t.Logf("took over %d partitions (changelog ends %v), replaying %d records", takenOver, ends, records)
	if records != 0 {
		t.Errorf("the takeover replayed %d changelog records; its standbys were at the changelogs' ends", records)
	}
	// The survivor goes on counting from the taken-over state.
	add(want, produce(t, cl, 4000, 1000, 800, rand.New(rand.NewPCG(5, 6))))
	waitDone(t, brokers)
	b.stop(t)
	if d := diff(local(t, b.dir), want); d != "" {
		t.Fatal(d)
	}
	if d := diff(changelog(t, brokers), want); d != "" {
		t.Fatal(d)
	}
}

// waitOwned waits until m owns n partitions with every table open.
func waitOwned(t *testing.T, m *member, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		owned := m.owns()
		m.mu.Lock()
		recovered := 0
		for _, p := range owned {
			if _, ok := m.restored[p]; ok {
				recovered++
			}
		}
		m.mu.Unlock()
		if len(owned) == n && recovered == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("owns %v, %d recovered, want %d partitions", owned, recovered, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func changelogEnds(t *testing.T, brokers string) map[int32]int64 {
	t.Helper()
	adm := kadm.NewClient(producer(t, brokers))
	ends, err := adm.ListEndOffsets(context.Background(), table)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) { out[o.Partition] = o.Offset })
	return out
}
