package copier

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// FollowOptions configure Follow.
type FollowOptions struct {
	Dial     Dial
	From, To string
	Route    Route
	// Group is the consumer group whose commits on From are Follow's
	// position: a Follow stopped or killed resumes where it was.
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
	if o.Group == "" || o.Route.Partitions < 1 {
		return errors.New("copier: Follow needs a group and a target partition count")
	}
	if err := startAt(ctx, o); err != nil {
		return err
	}
	cl, err := o.Dial(kgo.ConsumerGroup(o.Group), kgo.ConsumeTopics(o.From), kgo.DisableAutoCommit(),
		kgo.BlockRebalanceOnPoll(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		return err
	}
	defer cl.CloseAllowingRebalance()
	w, err := newWriter(o.Dial, o.To, 0)
	if err != nil {
		return err
	}
	defer w.close()
	var copied int64
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return nil
		}
		var ferr error
		fs.EachError(func(t string, p int32, err error) {
			if ferr == nil {
				ferr = fmt.Errorf("%s partition %d: %w", t, p, err)
			}
		})
		if ferr != nil {
			cl.AllowRebalance()
			return ferr
		}
		n := 0
		var werr error
		fs.EachRecord(func(r *kgo.Record) {
			if werr == nil {
				werr = w.write(ctx, &kgo.Record{Key: r.Key, Value: r.Value, Headers: r.Headers, Timestamp: r.Timestamp,
					Partition: o.Route.Partition(r.Key, r.Partition)})
				n++
			}
		})
		if werr == nil && n > 0 {
			if werr = w.flush(ctx); werr == nil {
				werr = cl.CommitUncommittedOffsets(ctx)
			}
		}
		cl.AllowRebalance()
		if werr != nil {
			if ctx.Err() != nil {
				return nil
			}
			return werr
		}
		if n > 0 {
			copied += int64(n)
			if o.Progress != nil {
				o.Progress(copied)
			}
		}
	}
}

// startAt commits o.Start for the group unless it has a position already.
func startAt(ctx context.Context, o FollowOptions) error {
	cl, err := o.Dial()
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	have, err := adm.FetchOffsets(ctx, o.Group)
	if errors.Is(err, kerr.GroupIDNotFound) {
		err, have = nil, nil
	}
	if err != nil {
		return fmt.Errorf("group %s: %w", o.Group, err)
	}
	if len(have) > 0 {
		return nil
	}
	offs := kadm.Offsets{}
	for p, at := range o.Start {
		offs.Add(kadm.Offset{Topic: o.From, Partition: p, At: at, LeaderEpoch: -1})
	}
	if len(offs) == 0 {
		return nil
	}
	resp, err := adm.CommitOffsets(ctx, o.Group, offs)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		return fmt.Errorf("group %s: commit the start position: %w", o.Group, err)
	}
	return nil
}
