package copier

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// FollowOptions configure Follow and CatchUp.
type FollowOptions struct {
	Dial     Dial
	From, To string
	Route    Route
	// Group is the consumer group whose commits on From are the bridge's
	// position: a bridge stopped or killed resumes where it was.
	Group string
	// Start is the position on From when Group has committed nothing yet
	// (the cut-over: the offsets up to which the old namespace processed).
	Start map[int32]int64
	// Progress is called after every committed batch with the records
	// copied by this call so far.
	Progress func(copied int64)
}

// Follow copies records as they arrive on o.From to o.To until ctx ends
// (then it returns nil), keeping key, value, headers and per-partition order,
// and commits its position after every acknowledged batch. Delivery is at
// least once: after a crash between a write and its commit the records are
// copied again, and downstream they are exact duplicates.
func Follow(ctx context.Context, o FollowOptions) error {
	_, err := bridge(ctx, o, false)
	return err
}

// CatchUp is Follow up to the end o.From has when it is called: it returns
// once every record before that end is copied and committed, with their
// number. A later Follow continues from there.
func CatchUp(ctx context.Context, o FollowOptions) (int64, error) {
	return bridge(ctx, o, true)
}

func bridge(ctx context.Context, o FollowOptions, bounded bool) (int64, error) {
	if o.Group == "" || o.Route.Partitions < 1 {
		return 0, errors.New("copier: a bridge needs a group and a target partition count")
	}
	remaining, err := startAt(ctx, o, bounded)
	if err != nil || (bounded && len(remaining) == 0) {
		return 0, err
	}
	cl, err := o.Dial(kgo.ConsumerGroup(o.Group), kgo.ConsumeTopics(o.From), kgo.DisableAutoCommit(),
		kgo.BlockRebalanceOnPoll(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		return 0, err
	}
	defer cl.CloseAllowingRebalance()
	w, err := newWriter(o.Dial, o.To, 0)
	if err != nil {
		return 0, err
	}
	defer w.close()
	var copied int64
	for !bounded || len(remaining) > 0 {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			if bounded {
				return copied, ctx.Err()
			}
			return copied, nil
		}
		var ferr error
		fs.EachError(func(t string, p int32, err error) {
			if ferr == nil {
				ferr = fmt.Errorf("%s partition %d: %w", t, p, err)
			}
		})
		if ferr != nil {
			cl.AllowRebalance()
			return copied, ferr
		}
		n := 0
		var werr error
		fs.EachRecord(func(r *kgo.Record) {
			if werr == nil {
				werr = w.write(ctx, &kgo.Record{Key: r.Key, Value: r.Value, Headers: r.Headers, Timestamp: r.Timestamp,
					Partition: o.Route.Partition(r.Key, r.Partition)})
				n++
				if end, ok := remaining[r.Partition]; ok && r.Offset+1 >= end {
					delete(remaining, r.Partition)
				}
			}
		})
		if werr == nil && n > 0 {
			if werr = w.flush(ctx); werr == nil {
				werr = cl.CommitUncommittedOffsets(ctx)
			}
		}
		cl.AllowRebalance()
		if werr != nil {
			if ctx.Err() != nil && !bounded {
				return copied, nil
			}
			return copied, werr
		}
		if n > 0 {
			copied += int64(n)
			if o.Progress != nil {
				o.Progress(copied)
			}
		}
	}
	return copied, nil
}

// startAt commits o.Start for the group unless it has a position already,
// and returns, for a bounded bridge, the end of every partition the group's
// position is behind.
func startAt(ctx context.Context, o FollowOptions, bounded bool) (map[int32]int64, error) {
	cl, err := o.Dial()
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	have, err := adm.FetchOffsets(ctx, o.Group)
	if errors.Is(err, kerr.GroupIDNotFound) {
		err, have = nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("group %s: %w", o.Group, err)
	}
	if len(have) == 0 && len(o.Start) > 0 {
		offs := kadm.Offsets{}
		for p, at := range o.Start {
			offs.Add(kadm.Offset{Topic: o.From, Partition: p, At: at, LeaderEpoch: -1})
		}
		resp, err := adm.CommitOffsets(ctx, o.Group, offs)
		if err == nil {
			err = resp.Error()
		}
		if err != nil {
			return nil, fmt.Errorf("group %s: commit the start position: %w", o.Group, err)
		}
		if have, err = adm.FetchOffsets(ctx, o.Group); err != nil {
			return nil, fmt.Errorf("group %s: %w", o.Group, err)
		}
	}
	if !bounded {
		return nil, nil
	}
	spans, err := EndSpans(ctx, adm, o.From)
	if err != nil {
		return nil, err
	}
	remaining := map[int32]int64{}
	for _, s := range spans {
		at := s.From // no position: the group starts at the oldest record
		if c, ok := have.Lookup(o.From, s.Partition); ok && c.Err == nil && c.At >= 0 {
			at = max(c.At, s.From)
		}
		if at < s.To {
			remaining[s.Partition] = s.To
		}
	}
	return remaining, nil
}
