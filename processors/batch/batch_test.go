package batch

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"
)

// Batches are handed off in the order they were taken, whatever the order
// their preparation ends in: every item once, in the order added, no batch
// above Count.
func TestHandOffInTheOrderTaken(t *testing.T) {
	var (
		mu    sync.Mutex
		got   []int
		sizes []int
	)
	b := New(Policy{Count: 8, Workers: 4},
		func(batch []int) { time.Sleep(time.Duration(rand.N(200)) * time.Microsecond) },
		func(batch []int) {
			mu.Lock()
			got = append(got, batch...)
			sizes = append(sizes, len(batch))
			mu.Unlock()
		})
	const n = 5000
	for i := range n {
		b.Add(i)
	}
	b.Close()
	if len(got) != n || !slices.IsSorted(got) {
		t.Fatalf("%d items handed off, sorted %v", len(got), slices.IsSorted(got))
	}
	if slices.Max(sizes) > 8 {
		t.Fatalf("a batch of %d, Count 8", slices.Max(sizes))
	}
}

// Items numbered as they are added (AddFunc: under the Batcher's lock) are
// handed off in the order of their numbers, from many goroutines at once.
func TestAddFuncKeepsTheNumbersInOrder(t *testing.T) {
	var got []uint64
	next := uint64(0)
	b := New(Policy{Count: 16, Workers: 3, MaxWaiting: 64}, nil, func(batch []uint64) { got = append(got, batch...) })
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 500 {
				b.AddFunc(func() uint64 { next++; return next })
			}
		}()
	}
	wg.Wait()
	b.Close()
	if len(got) != 4000 || !slices.IsSorted(got) {
		t.Fatalf("%d handed off, in order %v", len(got), slices.IsSorted(got))
	}
}

// With a linger, a batch is taken at Count items, or once the linger
// runs out; Close hands off what still waits.
func TestCountLingerAndClose(t *testing.T) {
	out := make(chan []int, 10)
	b := New(Policy{Count: 3, Linger: time.Hour}, nil, func(batch []int) { out <- slices.Clone(batch) })
	b.Add(1)
	b.Add(2)
	select {
	case batch := <-out:
		t.Fatalf("%v handed off before Count or the linger", batch)
	case <-time.After(50 * time.Millisecond):
	}
	b.Add(3)
	if batch := <-out; !slices.Equal(batch, []int{1, 2, 3}) {
		t.Fatalf("batch %v at Count", batch)
	}
	b.Add(4)
	b.Close()
	if batch := <-out; !slices.Equal(batch, []int{4}) {
		t.Fatalf("batch %v at Close", batch)
	}
	short := New(Policy{Count: 100, Linger: time.Millisecond}, nil, func(batch []int) { out <- slices.Clone(batch) })
	defer short.Close()
	short.Add(5)
	select {
	case batch := <-out:
		if !slices.Equal(batch, []int{5}) {
			t.Fatalf("batch %v after the linger", batch)
		}
	case <-time.After(time.Minute):
		t.Fatal("nothing handed off after the linger")
	}
}

// Add waits while MaxWaiting items are not handed off.
func TestMaxWaitingHoldsAdd(t *testing.T) {
	release := make(chan struct{})
	b := New(Policy{Count: 1, MaxWaiting: 2}, nil, func([]int) { <-release })
	b.Add(1)
	b.Add(2)
	added := make(chan struct{})
	go func() { b.Add(3); close(added) }()
	select {
	case <-added:
		t.Fatal("a third item added while two wait, MaxWaiting 2")
	case <-time.After(50 * time.Millisecond):
	}
	release <- struct{}{}
	<-added
	close(release)
	b.Close()
}
