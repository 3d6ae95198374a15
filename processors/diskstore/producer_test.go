package diskstore

import (
	"errors"
	"hash"
	"testing"

	"github.com/IBM/sarama"
	"github.com/lovoo/goka"
)

// heldProducer hands out promises the test finishes.
type heldProducer struct{ promises []*goka.Promise }

func (h *heldProducer) Emit(topic, key string, value []byte) *goka.Promise {
	return h.EmitWithHeaders(topic, key, value, nil)
}

func (h *heldProducer) EmitWithHeaders(string, string, []byte, goka.Headers) *goka.Promise {
	p := goka.NewPromise()
	h.promises = append(h.promises, p)
	return p
}

func (h *heldProducer) Close() error { return nil }

// TestStoreHearsTheAcknowledgementFirst: goka stores a table write's
// offset (SetOffset) from a callback it registers on the promise
// DB.Producer hands back, and a store refuses an offset whose record it has
// not heard acknowledged. So the store hears first, on the same promise.
func TestStoreHearsTheAcknowledgementFirst(t *testing.T) {
	e := newEnv(t)
	e.open()
	s := e.store(0)
	inner := &heldProducer{}
	p, err := e.db.Producer(func([]string, string, func() hash.Hash32) (goka.Producer, error) { return inner, nil })(nil, "t", nil)
	must(t, err)
	must(t, s.Set("a", val(1)))
	got := errors.New("goka's callback did not run")
	p.EmitWithHeaders("tab", "a", val(1), nil).ThenWithMessage(func(m *sarama.ProducerMessage, err error) {
		if err == nil {
			got = s.SetOffset(m.Offset)
		}
	})
	inner.promises[0].Finish(&sarama.ProducerMessage{Topic: "tab", Partition: 0, Offset: 0}, nil)
	if got != nil {
		t.Fatal(got)
	}
	e.close()
}
