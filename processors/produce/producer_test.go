package produce

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/lovoo/goka"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ste-utility/ste/topology"
)

// TestProducerCompletesInEmitOrder: a record whose partition refuses it for
// a while (REQUEST_TIMED_OUT, retried, as a leader moving is) and one emitted
// after it to a partition that accepts it at once. The second is
// acknowledged first, but its promise must not complete first: goka would
// mark the second record's input message consumed, committing past the
// first one's, whose outputs a kill -9 before the retries went through
// would lose (the cluster chaos suite's lost trades).
func TestProducerCompletesInEmitOrder(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	keyOn := func(p int) string {
		for i := 0; ; i++ {
			if k := fmt.Sprint("k", i); topology.Partition([]byte(k), 2) == p {
				return k
			}
		}
	}
	p, err := Builder(Options{})(c.ListenAddrs(), "order-test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	// Warm up: metadata and producer id, so the fault meets the records.
	if err := wait(p.Emit("out", keyOn(0), []byte("warm"))); err != nil {
		t.Fatal(err)
	}
	fault := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: "out", Partitions: []int32{0},
		Err: kerr.RequestTimedOut, Count: 3})
	defer fault.Remove()

	var (
		mu    sync.Mutex
		order []string
		wg    sync.WaitGroup
	)
	for _, rec := range []struct{ name, key string }{{"first (refused 3 times)", keyOn(0)}, {"second", keyOn(1)}} {
		wg.Add(1)
		p.Emit("out", rec.key, []byte(rec.name)).Then(func(err error) {
			defer wg.Done()
			if err != nil {
				t.Errorf("%s: %v", rec.name, err)
			}
			mu.Lock()
			order = append(order, rec.name)
			mu.Unlock()
		})
	}
	wg.Wait()
	if order[0] != "first (refused 3 times)" {
		t.Fatalf("promises completed in the order %q: the second record's before the first's", order)
	}
	if n := fault.Hits(); n == 0 {
		t.Fatal("the fault never met the first record: the test tested nothing")
	}
}

func wait(pr *goka.Promise) error {
	done := make(chan error, 1)
	pr.Then(func(err error) { done <- err })
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		return fmt.Errorf("no acknowledgement in 30 s")
	}
}

// TestProducerFailsWhatFollowsAFailure: a record the broker refuses for
// good (INVALID_RECORD) fails every record emitted after it, even those
// the brokers acknowledge: goka stops the partition on the failure, but an
// acknowledged later record would still mark its message consumed, past the
// failed one's.
func TestProducerFailsWhatFollowsAFailure(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p, err := Builder(Options{})(c.ListenAddrs(), "fail-test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	k0, k1 := "", ""
	for i := 0; k0 == "" || k1 == ""; i++ {
		k := fmt.Sprint("k", i)
		if topology.Partition([]byte(k), 2) == 0 {
			k0 = k
		} else {
			k1 = k
		}
	}
	if err := wait(p.Emit("out", k0, []byte("warm"))); err != nil {
		t.Fatal(err)
	}
	fault := c.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Produce}, Topic: "out", Partitions: []int32{0},
		Err: kerr.InvalidRecord, Count: 1})
	defer fault.Remove()
	first := p.Emit("out", k0, []byte("refused"))
	second := p.Emit("out", k1, []byte("acknowledged"))
	if err := wait(first); err == nil {
		t.Fatal("the refused record succeeded")
	}
	if err := wait(second); err == nil {
		t.Fatal("a record emitted after a failed one completed without error")
	}
}

// The completion window: acknowledgements in any order, from several
// goroutines at once, complete in emit order, each once, and the window is
// empty when every emit is done.
func TestProducerWindowCompletesInOrder(t *testing.T) {
	const n = 5000
	// Any order; and nearly in order (shuffled within runs of 16), as a
	// broker acknowledges.
	nearly := make([]int, n)
	for i := range nearly {
		nearly[i] = i
	}
	for i := 0; i < n; i += 16 {
		r := nearly[i:min(i+16, n)]
		rand.Shuffle(len(r), func(a, b int) { r[a], r[b] = r[b], r[a] })
	}
	// Leapfrog (1, 3, 0, 5, 2, 7, 4, …): the window never empties, its
	// front completes as its back grows past the array's end.
	leap := []int{1}
	for k := 1; 2*k+1 < n; k++ {
		leap = append(leap, 2*k+1, 2*k-2)
	}
	for e := leap[len(leap)-1] + 2; e < n; e += 2 {
		leap = append(leap, e)
	}
	for name, perm := range map[string][]int{"any": rand.Perm(n), "nearly": nearly, "leapfrog": leap} {
		t.Run(name, func(t *testing.T) { testWindow(t, perm) })
	}
}

func testWindow(t *testing.T, perm []int) {
	n := len(perm)
	p := &producer{}
	var (
		mu    sync.Mutex
		order []int
		wg    sync.WaitGroup
	)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := w; j < n; j += 4 {
				seq := perm[j]
				finish := goka.NewPromise()
				finish.Then(func(error) {
					mu.Lock()
					order = append(order, seq)
					mu.Unlock()
				})
				p.complete(uint64(seq), completion{finish: finish})
			}
		}()
	}
	wg.Wait()
	if len(order) != n {
		t.Fatalf("%d completions of %d", len(order), n)
	}
	for i, seq := range order {
		if seq != i {
			t.Fatalf("completion %d was emit %d", i, seq)
		}
	}
	if len(p.held) != 0 || p.off != 0 || p.done != uint64(n) {
		t.Fatalf("after all: %d held from %d, done %d", len(p.held), p.off, p.done)
	}
}

// TestOnlyTheChangelogsCompletionsCarryTheRecord: goka stores a table
// write's offset from the message its promise completes with, and the disk
// tables route its acknowledgement by partition; the other records'
// promises complete without one. Without Options.Changelog every promise
// carries its message; a stateless stage's none.
func TestOnlyTheChangelogsCompletionsCarryTheRecord(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "out", "g-table"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, o := range []Options{{Changelog: "g-table"}, {}, {Stateless: true}} {
		changelog := o.Changelog
		p, err := Builder(o)(c.ListenAddrs(), "changelog-test", nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, topic := range []string{"g-table", "out", "g-table"} {
			done := make(chan *sarama.ProducerMessage, 1)
			p.Emit(topic, "k", []byte("v")).ThenWithMessage(func(m *sarama.ProducerMessage, err error) {
				if err != nil {
					t.Error(err)
				}
				done <- m
			})
			var m *sarama.ProducerMessage
			select {
			case m = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("no acknowledgement in 30 s")
			}
			want := !o.Stateless && (changelog == "" || topic == changelog)
			if (m != nil) != want {
				t.Fatalf("options %+v, a record to %s: completed with a message %v, want %v", o, topic, m != nil, want)
			}
			if m != nil && (m.Topic != topic || int(m.Partition) != topology.Partition([]byte("k"), 2)) {
				t.Fatalf("completed with %s/%d, want %s/%d", m.Topic, m.Partition, topic, topology.Partition([]byte("k"), 2))
			}
		}
		p.Close()
	}
}

var emissionSink *emission

// An emit is one allocation: its record, its key (the string's bytes), its
// promise and what its acknowledgement needs. A record, its key, a promise
// and a closure for franz-go's acknowledgement were four; the tests above
// hold the acknowledgement finding its emission (acked).
func TestEmissionIsOneAllocation(t *testing.T) {
	value := []byte("<Msg/>")
	if n := testing.AllocsPerRun(100, func() { emissionSink = newEmission("ns.outbound", "BRKASGSGXXX", value, nil) }); n != 1 {
		t.Errorf("an emission allocates %.0f times, want 1", n)
	}
	e := newEmission("ns.outbound", "BRKASGSGXXX", value, goka.Headers{"h": []byte("v")})
	if string(e.r.Key) != "BRKASGSGXXX" || string(e.r.Value) != "<Msg/>" || len(e.r.Headers) != 1 {
		t.Fatalf("record %+v", e.r)
	}
}
