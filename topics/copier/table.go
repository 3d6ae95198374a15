package copier

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Fold reads a compacted topic to the end it has when called and returns the
// latest value of each key; a key whose latest record is a tombstone (nil
// value) is absent. each, when not nil, sees every record read, overwritten
// ones included, in offset order per partition (a table's clock is derived
// from all of them).
func Fold(ctx context.Context, dial Dial, topic string, each func(*kgo.Record)) (map[string][]byte, error) {
	cl, err := dial()
	if err != nil {
		return nil, err
	}
	spans, err := EndSpans(ctx, kadm.NewClient(cl), topic)
	cl.Close()
	if err != nil {
		return nil, err
	}
	latest := map[string][]byte{}
	_, err = Read(ctx, dial, topic, spans, func(r *kgo.Record) error {
		if each != nil {
			each(r)
		}
		if r.Value == nil {
			delete(latest, string(r.Key))
		} else {
			latest[string(r.Key)] = r.Value
		}
		return nil
	})
	return latest, err
}

// Converged says what Converge wrote.
type Converged struct {
	Keys    int     `json:"keys"`    // keys wanted
	Written int     `json:"written"` // values written (missing or different)
	Deleted int     `json:"deleted"` // keys deleted (held, not wanted)
	Seconds float64 `json:"seconds"`
}

// ConvergeOptions configure Converge.
type ConvergeOptions struct {
	Dial  Dial
	Topic string
	// Partitions of Topic: every key is written where the shared
	// partitioner puts it (one partition: all in partition 0).
	Partitions int32
	// Want is the latest value every key must have; keys the topic holds
	// beyond it are deleted (a nil value: a tombstone for compaction).
	Want map[string][]byte
	// Rate, Progress: as in Options (Progress counts writes).
	Rate     float64
	Progress func(written int64)
}

// Converge makes a compacted topic hold o.Want: it reads what the topic
// holds and writes only the keys whose latest value is missing or differs,
// then deletes the keys it holds that are not wanted. A second run writes
// nothing, and a run cut short (a crash, kill -9) is completed by the next:
// what the first wrote is read back and not written again.
func Converge(ctx context.Context, o ConvergeOptions) (Converged, error) {
	start := time.Now()
	res := Converged{Keys: len(o.Want)}
	if o.Partitions < 1 {
		return res, errors.New("copier: no partition count")
	}
	held, err := Fold(ctx, o.Dial, o.Topic, nil)
	if err != nil {
		return res, err
	}
	w, err := newWriter(o.Dial, o.Topic, o.Rate)
	if err != nil {
		return res, err
	}
	defer w.close()
	stop := progress(w, o.Progress)
	defer stop()
	route := Route{Partitions: o.Partitions}
	// Sorted keys: the same input writes the same log.
	for _, k := range slices.Sorted(maps.Keys(o.Want)) {
		v := o.Want[k]
		if h, ok := held[k]; ok && bytes.Equal(h, v) {
			continue
		}
		key := []byte(k)
		if err := w.write(ctx, &kgo.Record{Key: key, Value: v, Partition: route.Partition(key, 0)}); err != nil {
			return res, err
		}
		res.Written++
	}
	for _, k := range slices.Sorted(maps.Keys(held)) {
		if _, ok := o.Want[k]; ok {
			continue
		}
		key := []byte(k)
		if err := w.write(ctx, &kgo.Record{Key: key, Value: nil, Partition: route.Partition(key, 0)}); err != nil {
			return res, err
		}
		res.Deleted++
	}
	err = w.flush(ctx)
	res.Seconds = time.Since(start).Seconds()
	return res, err
}
