package goka

import (
	"sync"

	"github.com/IBM/sarama"
)

// Promise as in https://en.wikipedia.org/wiki/Futures_and_promises
type Promise struct {
	sync.Mutex
	err      error
	msg      *sarama.ProducerMessage
	finished bool

	callbacks []func(msg *sarama.ProducerMessage, err error)

	// STE patch 6: the context an emit completes, in place of a callback
	// (PATCHES.md). table says that the emit is a table write, whose
	// offset the context stores.
	emitted *cbContext
	topic   string
	table   bool
	// first is the first callback Then registered, when it was the first
	// registered at all: held as it is, not wrapped for ThenWithMessage and
	// appended to callbacks (STE patch 6).
	first func(err error)
}

// PromiseFinisher finishes a promise
type PromiseFinisher func(msg *sarama.ProducerMessage, err error) *Promise

// NewPromise creates a new Promise
func NewPromise() *Promise {
	return new(Promise)
}

// NewPromiseWithFinisher creates a new Promise and a separate finish method.
// This is necessary if the promise is used outside of goka package.
func NewPromiseWithFinisher() (*Promise, PromiseFinisher) {
	p := new(Promise)
	return p, p.finish
}

// execute all callbacks conveniently
// The caller needs to lock!
func (p *Promise) executeCallbacks() {
	// already resolved
	if p.finished {
		return
	}
	if p.first != nil {
		p.first(p.err) // registered before any other
	}
	for _, s := range p.callbacks {
		s(p.msg, p.err)
	}
	if p.emitted != nil {
		p.emitted.emitted(p.topic, p.table, p.msg, p.err)
	}
	// mark as finished
	p.finished = true
}

// thenEmitted completes ctx's emit to topic when the promise finishes, as
// a callback registered with Then would, without allocating one (STE patch
// 6). A promise completes at most one context's emit; the completion runs
// after the promise's callbacks, whenever they were registered.
func (p *Promise) thenEmitted(ctx *cbContext, topic string, table bool) {
	p.Lock()
	defer p.Unlock()
	if p.finished {
		ctx.emitted(topic, table, p.msg, p.err)
		return
	}
	if p.emitted != nil {
		// Shared by a second emit: the first keeps the field.
		p.callbacks = append(p.callbacks, func(msg *sarama.ProducerMessage, err error) { ctx.emitted(topic, table, msg, err) })
		return
	}
	p.emitted, p.topic, p.table = ctx, topic, table
}

// Then chains a callback to the Promise
func (p *Promise) Then(callback func(err error)) *Promise {
	// STE patch 6: the first callback of a promise is held as it is.
	p.Lock()
	if !p.finished && p.first == nil && len(p.callbacks) == 0 && p.emitted == nil {
		p.first = callback
		p.Unlock()
		return p
	}
	p.Unlock()
	return p.ThenWithMessage(func(_ *sarama.ProducerMessage, err error) {
		callback(err)
	})
}

// ThenWithMessage chains a callback to the Promise
func (p *Promise) ThenWithMessage(callback func(msg *sarama.ProducerMessage, err error)) *Promise {
	p.Lock()
	defer p.Unlock()

	// promise already run, call the callback immediately
	if p.finished {
		callback(p.msg, p.err)
		// append it to the subscribers otherwise
	} else {
		p.callbacks = append(p.callbacks, callback)
	}
	return p
}

// Finish finishes the promise as the finisher NewPromiseWithFinisher returns
// does; a producer that keeps the promise calls it instead of keeping that
// function, a closure allocated with every promise (STE patch 6).
func (p *Promise) Finish(msg *sarama.ProducerMessage, err error) *Promise {
	return p.finish(msg, err)
}

// Finish finishes the promise by executing all callbacks and saving the message/error for late subscribers
func (p *Promise) finish(msg *sarama.ProducerMessage, err error) *Promise {
	p.Lock()
	defer p.Unlock()

	p.err = err
	p.msg = msg

	p.executeCallbacks()
	return p
}
