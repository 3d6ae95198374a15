package diskstore

import (
	"errors"
	"hash"

	"github.com/IBM/sarama"
	"github.com/lovoo/goka"
)

// Producer wraps a processor's producer builder so that the stores see every
// changelog record's fate: goka reports only the offsets of acknowledged
// value writes (SetOffset), not which write they belong to, not deletions,
// and not failures. A store commits a write only once this says its record
// is in the changelog.
func (db *DB) Producer(pb goka.ProducerBuilder) goka.ProducerBuilder {
	return func(brokers []string, clientID string, hasher func() hash.Hash32) (goka.Producer, error) {
		p, err := pb(brokers, clientID, hasher)
		if err != nil {
			return nil, err
		}
		return &producer{Producer: p, db: db}, nil
	}
}

// RecordPart, as a produced message's Metadata, says that the write is one
// of several in one changelog record (a batch: processors/produce,
// tablebatch.go) and whether more of that record's writes are still to be
// acknowledged after it. The store moves its offset to the record only
// with the last one, so that a commit between them never claims a record
// it holds only part of.
type RecordPart struct{ More bool }

type producer struct {
	goka.Producer
	db *DB
}

func (p *producer) Emit(topic, key string, value []byte) *goka.Promise {
	return p.EmitWithHeaders(topic, key, value, nil)
}

func (p *producer) EmitWithHeaders(topic, key string, value []byte, headers goka.Headers) *goka.Promise {
	inner := p.Producer.EmitWithHeaders(topic, key, value, headers)
	p.db.mu.Lock()
	tracked := p.db.topics[topic]
	p.db.mu.Unlock()
	if !tracked {
		return inner
	}
	// The store hears first: its callback is the promise's first, and
	// goka's (SetOffset among them), registered on the promise handed back,
	// run after it, in the order registered. (A promise of its own, finished
	// from this callback, ordered them the same at two allocations a write.)
	inner.ThenWithMessage(func(msg *sarama.ProducerMessage, err error) {
		p.db.acked(topic, key, msg, err)
	})
	return inner
}

// acked routes a changelog record's fate to its partition's store. A
// failure marks every open partition of the table (its partition may be
// unknown): the processor stops on it anyway.
func (db *DB) acked(topic, key string, msg *sarama.ProducerMessage, err error) {
	if err == nil && msg == nil {
		err = errors.New("acknowledged without a record")
	}
	db.mu.Lock()
	var stores []*Store
	if err == nil {
		if s := db.open[tp{topic, msg.Partition}]; s != nil {
			stores = append(stores, s)
		}
	} else {
		for k, s := range db.open {
			if k.topic == topic {
				stores = append(stores, s)
			}
		}
	}
	db.mu.Unlock()
	more := false
	if err == nil {
		part, _ := msg.Metadata.(RecordPart)
		more = part.More
	}
	for _, s := range stores {
		if err != nil {
			s.acked(key, -1, err)
		} else {
			s.ackedPart(key, msg.Offset, more, nil)
		}
	}
}
