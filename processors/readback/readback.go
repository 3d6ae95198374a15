// Package readback reads a record of <ns>.inbound back by partition and
// offset: the payload of the rare exception a stage after validation
// writes (processors/stages, Config.Inbound), since a valid message
// travels decoded, without its record.
package readback

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
)

// readBackTimeout bounds one attempt of a read-back; readBackRetry is the
// first pause between attempts, doubled up to readBackMaxPause.
const (
	readBackTimeout  = 30 * time.Second
	readBackRetry    = 500 * time.Millisecond
	readBackMaxPause = 5 * time.Second
)

// ErrGone: the record is not on the topic (deleted by retention, or never
// there); a read-back that fails so is not tried again.
var ErrGone = errors.New("no record at that offset (deleted by retention, or never there)")

// Reader reads single records of topic back, one at a time over one
// client made when first needed; close releases it. A read that fails for
// any other reason than the record not being there (the broker restarting,
// the network) is tried again until ctx ends: the exception waits for its
// payload as the partition's other writes wait for the broker.
func Reader(ctx context.Context, k kafkaconn.Config, topic string) (read func(p int32, offset int64) ([]byte, error), close func()) {
	var (
		mu sync.Mutex
		cl *kgo.Client
	)
	once := func(p int32, offset int64) ([]byte, error) {
		mu.Lock()
		defer mu.Unlock()
		ctx, cancel := context.WithTimeout(ctx, readBackTimeout)
		defer cancel()
		if cl == nil {
			c, err := kgo.NewClient(k.Opts()...)
			if err != nil {
				return nil, err
			}
			cl = c
		}
		ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
		if err != nil {
			return nil, err
		}
		// Only an end at or before the offset says the record is not
		// there. A partition the answer lacks or could not list (its
		// leader moving: the cluster chaos suite removed two of three
		// nodes) is asked again, as any broker fault is.
		end, ok := ends.Lookup(topic, p)
		switch {
		case !ok:
			return nil, fmt.Errorf("the end of %s partition %d was not listed", topic, p)
		case end.Err != nil:
			return nil, fmt.Errorf("the end of %s partition %d: %w", topic, p, end.Err)
		case offset >= end.Offset:
			return nil, ErrGone
		}
		cl.AddConsumePartitions(map[string]map[int32]kgo.Offset{topic: {p: kgo.NewOffset().At(offset)}})
		defer cl.RemoveConsumePartitions(map[string][]int32{topic: {p}})
		for {
			fs := cl.PollFetches(ctx)
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			var ferr error
			fs.EachError(func(_ string, _ int32, err error) { ferr = err })
			if ferr != nil {
				return nil, ferr
			}
			for it := fs.RecordIter(); !it.Done(); {
				r := it.Next()
				switch {
				case r.Topic != topic || r.Partition != p || r.Offset < offset:
				case r.Offset == offset:
					return r.Value, nil
				default:
					return nil, ErrGone
				}
			}
		}
	}
	return func(p int32, offset int64) ([]byte, error) { return retryRead(ctx, p, offset, once) }, func() {
		mu.Lock()
		defer mu.Unlock()
		if cl != nil {
			cl.Close()
		}
	}
}

// retryRead calls read until it returns the record, says it is not there,
// or ctx ends, pausing between attempts.
func retryRead(ctx context.Context, p int32, offset int64, read func(int32, int64) ([]byte, error)) ([]byte, error) {
	pause := readBackRetry
	for {
		raw, err := read(p, offset)
		if err == nil || errors.Is(err, ErrGone) {
			return raw, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (stopping)", err)
		case <-time.After(pause):
		}
		pause = min(2*pause, readBackMaxPause)
	}
}
