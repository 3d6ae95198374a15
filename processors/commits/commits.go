// Package commits is the one place goka's deferred commits are released,
// in offset order.
package commits

import (
	"context"
	"sync"

	"github.com/lovoo/goka"
)

// goka commits a record once its emits and deferred commits are done, and
// a commit (sarama's mark) moves the partition's offset forward over
// whatever came before it: record N+1, its emits acknowledged, would commit
// N while N's writes still wait — its audit events for their batch, or, on
// the validate stage, its results for the batch verification — and a kill
// -9 then would lose them. So on Kafka (Run) every record of every stage
// takes a deferred commit (take), held by its callback (or its place in
// the verify queue) and by each of its writes not yet done, and a
// partition's deferred commits are released in offset order, each once
// nothing holds it. With the producer completing promises in emit order
// (processors/produce), record N's commit then never comes after N+1's.
// Without Kafka (goka's tester) goka commits as it does.
//
// Upstream goka releases each record's commit on its own (v1.1.17, and its
// master as of this writing); docs/ARCHITECTURE.md, "Commits in offset
// order", says why the order is kept here and not in the goka fork.

// Order is every input partition's commit order of one pipeline run.
type Order struct {
	mu     sync.Mutex
	orders map[partitionOf]*commitOrder
}

type partitionOf struct {
	topic string
	p     int32
}

// Take takes ctx's deferred commit and returns it as the last of its
// partition's, held once (by the callback: release it with Done).
func (c *Order) Take(ctx goka.Context) *Gate {
	k := partitionOf{string(ctx.Topic()), ctx.Partition()}
	c.mu.Lock()
	if c.orders == nil {
		c.orders = map[partitionOf]*commitOrder{}
	}
	o := c.orders[k]
	if o == nil {
		o = &commitOrder{}
		c.orders[k] = o
	}
	c.mu.Unlock()
	return o.add(ctx.Context(), ctx.DeferCommit())
}

// commitOrder releases one input partition's deferred commits in the order
// they were taken, each once nothing holds it any more. Once a record's
// commit fails (its writes were not made), every later record of the same
// run of the partition fails too: goka stops the partition on the failure,
// and a later record's commit would mark the failed one consumed.
type commitOrder struct {
	mu     sync.Mutex
	queue  []*Gate // queue[head:] are not committed yet
	head   int
	run    context.Context // the partition's run (goka's context of its callbacks)
	failed error           // the first failure of the run
}

// Gate is one input record's deferred commit: held by its callback until
// it returns and by each of its writes until it is done.
type Gate struct {
	o      *commitOrder
	commit func(error)
	holds  int
	err    error
}

func (o *commitOrder) add(run context.Context, commit func(error)) *Gate {
	g := &Gate{o: o, commit: commit, holds: 1}
	o.mu.Lock()
	if o.run != run {
		o.run, o.failed = run, nil
	}
	if o.head > 0 && 2*o.head >= len(o.queue) {
		// The committed front is moved out once it is half the queue:
		// moving the rest down at every commit was a copy of every
		// waiting record's gate a message.
		n := copy(o.queue, o.queue[o.head:])
		clear(o.queue[n:])
		o.queue, o.head = o.queue[:n], 0
	}
	o.queue = append(o.queue, g)
	o.mu.Unlock()
	return g
}

// Hold adds a hold (a write of the record).
func (g *Gate) Hold() {
	g.o.mu.Lock()
	g.holds++
	g.o.mu.Unlock()
}

// Done releases a hold; err, the first one, fails the record's commit.
// Records whose holds are all released are committed in order, up to the
// first still held.
func (g *Gate) Done(err error) {
	o := g.o
	o.mu.Lock()
	defer o.mu.Unlock()
	if err != nil && g.err == nil {
		g.err = err
	}
	g.holds--
	for o.head < len(o.queue) && o.queue[o.head].holds == 0 {
		first := o.queue[o.head]
		if o.failed == nil {
			o.failed = first.err
		}
		first.commit(o.failed)
		o.queue[o.head] = nil
		o.head++
	}
	if o.head == len(o.queue) {
		o.queue, o.head = o.queue[:0], 0
	}
}
