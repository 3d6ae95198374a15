// Package batch is the one way the pipeline gathers work into batches and
// hands it on in order (as benthos has one batch policy): the signatures
// the validate stage verifies together, the outputs a producer signs
// together, the audit events and the identity table's writes a stage
// writes as one record. A Batcher takes items in the order they are added;
// a batch is taken when Count items wait, Linger after its first item was
// added, or — with no linger — as soon as a worker is free; batches are
// prepared by Workers goroutines at once and handed off one at a time, in
// the order they were taken. Adding waits while MaxWaiting items are added
// and not yet handed off. Each use observes its batch sizes in a metric of
// its own.
package batch

import (
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Policy is how a Batcher batches.
type Policy struct {
	// Count is the most items a batch holds (at least 1).
	Count int
	// Linger is how long the first item of a batch waits for others; 0: a
	// batch is taken as soon as a worker is free (nothing waits for a batch
	// to fill, and what is added meanwhile makes the next one).
	Linger time.Duration
	// MaxWaiting bounds the items added and not yet handed off: Add waits
	// while that many are (back-pressure). 0: no bound.
	MaxWaiting int
	// Workers is how many batches are prepared at once (default 1).
	Workers int
	// Size observes each batch's size (nil: not observed).
	Size prometheus.Observer
}

// Batcher batches items of type T by its Policy.
type Batcher[T any] struct {
	p       Policy
	prepare func([]T) // on the workers, in parallel; nil: nothing
	handOff func([]T) // one batch at a time, in the order taken

	mu      sync.Mutex
	ready   *sync.Cond // items wait, the linger ran out, or closing
	room    *sync.Cond // below MaxWaiting, or closing
	items   []T
	first   time.Time // when the first item waiting was added (Linger)
	waiting int       // added, not handed off
	closing bool
	handed  chan struct{} // closed once the last batch taken is handed off
	workers sync.WaitGroup
	done    chan struct{} // closed when the workers have handed everything off
}

// New starts a Batcher whose batches are prepared with prepare (nil:
// nothing) and handed off with handOff.
func New[T any](p Policy, prepare, handOff func([]T)) *Batcher[T] {
	p.Count = max(p.Count, 1)
	p.Workers = max(p.Workers, 1)
	b := &Batcher[T]{p: p, prepare: prepare, handOff: handOff, handed: make(chan struct{}), done: make(chan struct{})}
	close(b.handed)
	b.ready, b.room = sync.NewCond(&b.mu), sync.NewCond(&b.mu)
	b.workers.Add(p.Workers)
	for range p.Workers {
		go b.run()
	}
	go func() { b.workers.Wait(); close(b.done) }()
	return b
}

// Add adds x: it waits while MaxWaiting items wait.
func (b *Batcher[T]) Add(x T) { b.add(x, nil) }

// AddFunc adds the item make returns, made under the Batcher's lock: an
// item numbered by make (an emit's sequence number) takes its place in the
// batches in the order of its number.
func (b *Batcher[T]) AddFunc(make func() T) {
	var zero T
	b.add(zero, make)
}

func (b *Batcher[T]) add(x T, make func() T) {
	b.mu.Lock()
	for b.p.MaxWaiting > 0 && b.waiting >= b.p.MaxWaiting && !b.closing {
		b.room.Wait()
	}
	if make != nil {
		x = make()
	}
	b.waiting++
	if b.closing {
		// Nothing adds to a closing Batcher; should anything, it is
		// handed off alone, after what was taken before, rather than
		// dropped.
		prev, handed := b.next()
		b.mu.Unlock()
		b.process([]T{x}, prev, handed)
		return
	}
	b.items = append(b.items, x)
	if len(b.items) == 1 {
		b.first = time.Now()
		if b.p.Linger > 0 {
			time.AfterFunc(b.p.Linger, b.wake)
		}
	}
	b.mu.Unlock()
	b.ready.Signal()
}

// wake wakes the workers when a linger runs out (under the lock, so that
// a worker about to wait does not miss it).
func (b *Batcher[T]) wake() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ready.Broadcast()
}

// next chains a batch being taken after the one taken before it: prev is
// closed once that one is handed off, handed is to be closed once this one
// is. b.mu is held.
func (b *Batcher[T]) next() (prev, handed chan struct{}) {
	prev, handed = b.handed, make(chan struct{})
	b.handed = handed
	return prev, handed
}

// due says whether the waiting items make a batch now (b.mu held).
func (b *Batcher[T]) due() bool {
	return len(b.items) > 0 &&
		(b.closing || b.p.Linger <= 0 || len(b.items) >= b.p.Count || time.Since(b.first) >= b.p.Linger)
}

// run takes, prepares and hands off batches until the Batcher closes and
// nothing waits.
func (b *Batcher[T]) run() {
	defer b.workers.Done()
	for {
		b.mu.Lock()
		for !b.due() {
			if b.closing && len(b.items) == 0 {
				b.mu.Unlock()
				return
			}
			b.ready.Wait()
		}
		n := min(len(b.items), b.p.Count)
		batch := slices.Clone(b.items[:n])
		rest := copy(b.items, b.items[n:])
		clear(b.items[rest:])
		b.items = b.items[:rest]
		// What is left keeps the first item's time: due at once if its
		// linger ran out, else when the timer armed with it fires.
		prev, handed := b.next()
		b.mu.Unlock()
		if rest > 0 {
			b.ready.Signal()
		}
		b.process(batch, prev, handed)
	}
}

// process prepares a batch, waits for the batch taken before it to be
// handed off and hands it off.
func (b *Batcher[T]) process(batch []T, prev, handed chan struct{}) {
	if b.p.Size != nil {
		b.p.Size.Observe(float64(len(batch)))
	}
	if b.prepare != nil {
		b.prepare(batch)
	}
	<-prev
	b.handOff(batch)
	close(handed)
	b.mu.Lock()
	b.waiting -= len(batch)
	b.mu.Unlock()
	b.room.Broadcast()
}

// Close hands off what waits and stops the workers; it returns once every
// batch is handed off.
func (b *Batcher[T]) Close() {
	b.mu.Lock()
	b.closing = true
	b.mu.Unlock()
	b.ready.Broadcast()
	b.room.Broadcast()
	<-b.done
}
