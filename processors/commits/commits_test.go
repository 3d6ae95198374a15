package commits

import (
	"context"
	"errors"
	"math/rand"
	"slices"
	"testing"
)

// A partition's deferred commits are released in the order they were
// taken, each once nothing holds it: a later record whose holds are all
// released waits for an earlier one still held (its audit event not yet
// written); once one fails, every later one of the same run fails with it
// (it would mark the failed one consumed), and a new run starts afresh.
func TestCommitOrderReleasesInOrder(t *testing.T) {
	var o commitOrder
	run := context.Background()
	var committed []int
	var errs []error
	gates := make([]*Gate, 4)
	for i := range gates {
		gates[i] = o.add(run, func(err error) {
			committed = append(committed, i)
			errs = append(errs, err)
		})
	}
	gates[0].Hold() // record 0 has an audit event waiting for its batch
	gates[2].Hold()
	for _, i := range []int{1, 2, 3} {
		gates[i].Done(nil) // the callbacks return
	}
	if len(committed) != 0 {
		t.Fatalf("committed %v while record 0's event waits", committed)
	}
	gates[0].Done(nil)
	if !slices.Equal(committed, []int{}) {
		t.Fatalf("committed %v before record 0's callback returned", committed)
	}
	gates[0].Done(nil)
	if !slices.Equal(committed, []int{0, 1}) {
		t.Fatalf("committed %v, want 0 and 1 (2's event waits)", committed)
	}
	failed := errors.New("batch not written")
	gates[2].Done(failed)
	if !slices.Equal(committed, []int{0, 1, 2, 3}) || errs[0] != nil || errs[1] != nil || errs[2] != failed || errs[3] != failed {
		t.Fatalf("committed %v with %v", committed, errs)
	}
	if len(o.queue) != 0 {
		t.Fatalf("%d gates left", len(o.queue))
	}
	later := errors.New("not committed")
	o.add(run, func(err error) { later = err }).Done(nil)
	if later != failed {
		t.Fatalf("a later record of the failed run committed with %v", later)
	}
	next, cancel := context.WithCancel(run)
	defer cancel()
	o.add(next, func(err error) { later = err }).Done(nil)
	if later != nil {
		t.Fatalf("the next run's first record committed with %v", later)
	}
}

// Records taken while earlier ones still wait, released in random order:
// every one is committed once, in the order taken, and none before all of
// its holds are released — across the queue's compaction of its front.
func TestCommitOrderKeepsOrderWhileTheQueueMoves(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var o commitOrder
	run := context.Background()
	var committed []int
	var gates []*Gate
	var held []int // gates with holds left, by index
	released := map[int]int{}
	take := func() {
		i := len(gates)
		gates = append(gates, o.add(run, func(err error) {
			if err != nil || released[i] != 0 {
				t.Fatalf("record %d committed with %v, %d holds left", i, err, released[i])
			}
			committed = append(committed, i)
		}))
		n := 1 + rng.Intn(3)
		for range n - 1 {
			gates[i].Hold()
		}
		released[i] = n
		for range n {
			held = append(held, i)
		}
	}
	for range 3000 {
		if len(held) == 0 || rng.Intn(3) == 0 {
			take()
			continue
		}
		k := rng.Intn(len(held))
		i := held[k]
		held = append(held[:k], held[k+1:]...)
		released[i]--
		gates[i].Done(nil)
	}
	for len(held) > 0 {
		i := held[0]
		held = held[1:]
		released[i]--
		gates[i].Done(nil)
	}
	if len(committed) != len(gates) {
		t.Fatalf("%d committed of %d", len(committed), len(gates))
	}
	for i, c := range committed {
		if c != i {
			t.Fatalf("commit %d was record %d", i, c)
		}
	}
	if len(o.queue) != 0 || o.head != 0 {
		t.Fatalf("queue %d, head %d left", len(o.queue), o.head)
	}
}
