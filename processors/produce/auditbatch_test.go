package produce

import (
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/lovoo/goka"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topology"
)

// fakeProducer records what is emitted and completes each emit with err.
type fakeProducer struct {
	mu   sync.Mutex
	keys []string
	vals [][]byte
	err  error
}

func (f *fakeProducer) Emit(topic, key string, value []byte) *goka.Promise {
	return f.EmitWithHeaders(topic, key, value, nil)
}

func (f *fakeProducer) EmitWithHeaders(topic, key string, value []byte, _ goka.Headers) *goka.Promise {
	f.mu.Lock()
	f.keys, f.vals = append(f.keys, key), append(f.vals, value)
	f.mu.Unlock()
	p, finish := goka.NewPromiseWithFinisher()
	finish(nil, f.err)
	return p
}

func (f *fakeProducer) Close() error { return nil }

// A batch of audit events is one record per audit partition, keyed by its
// first event's trade key, the events in the order added; events without a
// trade are a record of their own, keyed empty; every event's done is told
// its record's fate, and without a producer that nothing was written.
func TestAuditBatchesARecordPerPartition(t *testing.T) {
	keyOn := func(p, nth int) string {
		for i, n := 0, 0; ; i++ {
			k := schemas.TradeKey(uint64(i + 1)).String()
			if topology.Partition([]byte(k), 4) == p {
				if n == nth {
					return k
				}
				n++
			}
		}
	}
	var prod atomic.Pointer[goka.Producer]
	f := &fakeProducer{err: errors.New("refused")}
	var gp goka.Producer = f
	prod.Store(&gp)
	written := 0
	a := NewAuditBatches("audit", &prod, func() (int, error) { return 4, nil }, func() { written++ }, nil)
	var errs []error
	done := func(err error) { errs = append(errs, err) }
	for _, tk := range []string{keyOn(1, 0), keyOn(2, 0), "", keyOn(1, 1)} {
		a.Add(tk, &schemas.AuditEvent{MsgId: "m-" + tk, TradeKey: tk}, done)
	}
	a.Close()
	if !slices.Equal(f.keys, []string{keyOn(1, 0), keyOn(2, 0), ""}) || written != 3 {
		t.Fatalf("records keyed %q, %d counted", f.keys, written)
	}
	var msgIds []string
	if err := schemas.EachAuditEvent(f.vals[0], func(ev schemas.AuditEvent) error { msgIds = append(msgIds, ev.MsgId); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(msgIds, []string{"m-" + keyOn(1, 0), "m-" + keyOn(1, 1)}) {
		t.Fatalf("partition 1's record holds %q", msgIds)
	}
	if len(errs) != 4 || errs[0] == nil {
		t.Fatalf("done told %v", errs)
	}
	var none atomic.Pointer[goka.Producer]
	b := NewAuditBatches("audit", &none, func() (int, error) { return 4, nil }, nil, nil)
	errs = nil
	b.Add("", &schemas.AuditEvent{MsgId: "m"}, done)
	b.Close()
	if len(errs) != 1 || !errors.Is(errs[0], errNoAuditProducer) {
		t.Fatalf("without a producer: %v", errs)
	}
}
