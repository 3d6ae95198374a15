package topics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topology"
)

// PublishRefdata upserts every row of set into <ns>.refdata (compacted, keyed
// by entity id). Nothing is deleted: an entity leaves use by its status.
func PublishRefdata(ctx context.Context, cl *kgo.Client, ns string, set *refdata.Set) (int, error) {
	topic := topology.Names{NS: ns}.Refdata()
	recs := set.Records()
	krs := make([]*kgo.Record, len(recs))
	for i, r := range recs {
		krs[i] = &kgo.Record{Topic: topic, Key: r.Key, Value: r.Value}
	}
	if err := cl.ProduceSync(ctx, krs...).FirstErr(); err != nil {
		return 0, fmt.Errorf("publish reference data to %s: %w", topic, err)
	}
	return len(recs), nil
}

// KeepRefdata follows <ns>.refdata (FollowRefdata) until ctx ends, calling
// set with the whole set and after every later batch of changes, and
// follows it again a second later whenever the brokers are away: what a
// long-running server (the gateway, the adapters) keeps its participants'
// reference data with. Skipped records and retries are logged to log.
func KeepRefdata(ctx context.Context, c kafkaconn.Config, ns string, set func(*refdata.Set), log *slog.Logger) {
	for ctx.Err() == nil {
		err := FollowRefdata(ctx, c, ns, set, set, func(key []byte, err error) {
			log.Warn("reference data record skipped", "key", schemas.Echo(string(key)), "err", err)
		})
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			log.Warn("reading reference data; trying again", "err", err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// FollowRefdata reads <ns>.refdata from the start. It calls onLoad once with
// the whole set when it has read to the end of the topic as it stood at the
// start (the processors consume no inbound before that), then onUpdate with
// a new copy after every later batch of changes, until ctx ends. Bad records
// are reported to onBad and skipped; a participant record whose public key
// fails refdata.KeyProblem is applied without that key and reported to onBad
// as a *refdata.KeyIgnoredError.
func FollowRefdata(ctx context.Context, c kafkaconn.Config, ns string, onLoad, onUpdate func(*refdata.Set), onBad func(key []byte, err error)) error {
	topic := topology.Names{NS: ns}.Refdata()
	cl, err := Client(c, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err != nil {
		return fmt.Errorf("reference data topic %s: %w", topic, err)
	}
	if err := ends.Error(); err != nil {
		return fmt.Errorf("reference data topic %s: %w (run ste topics create)", topic, err)
	}
	remaining := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			remaining[o.Partition] = o.Offset
		}
	})
	set := refdata.NewSet()
	loaded := len(remaining) == 0
	if loaded {
		onLoad(set.Clone())
	}
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return nil
		}
		changed := false
		fs.EachError(func(_ string, _ int32, err error) {
			if onBad != nil {
				onBad(nil, err)
			}
		})
		fs.EachRecord(func(r *kgo.Record) {
			err := set.Apply(r.Key, r.Value)
			var ignored *refdata.KeyIgnoredError
			if err == nil || errors.As(err, &ignored) {
				changed = true // a bad key is dropped, its row applied
			}
			if err != nil && onBad != nil {
				onBad(r.Key, err)
			}
			if end, ok := remaining[r.Partition]; ok && r.Offset+1 >= end {
				delete(remaining, r.Partition)
			}
		})
		switch {
		case !loaded && len(remaining) == 0:
			loaded = true
			onLoad(set.Clone())
		case loaded && changed:
			onUpdate(set.Clone())
		}
	}
}

// LoadRefdata is ste refdata load: the namespace's topics made if missing
// (o), then set published to <ns>.refdata.
func LoadRefdata(ctx context.Context, c kafkaconn.Config, ns string, o Options, set *refdata.Set) (int, error) {
	cl, err := Connect(ctx, c)
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	if err := Ensure(ctx, kadm.NewClient(cl), ns, o); err != nil {
		return 0, err
	}
	if err := KeepStoredSigners(ctx, c, ns, set); err != nil {
		return 0, err
	}
	return PublishRefdata(ctx, cl, ns, set)
}

// KeepStoredSigners completes set, read from a directory, before it is
// published: a participant whose participants.csv had no signers column
// keeps the signers <ns>.refdata holds for it (messages.md §8), and its
// record says them, so compaction cannot lose them with the earlier record
// that said them. It reads the topic only when some participant lacks the
// column (refdata.Set.KeepStoredSigners).
func KeepStoredSigners(ctx context.Context, c kafkaconn.Config, ns string, set *refdata.Set) error {
	need := false
	for _, p := range set.Participants() {
		need = need || p.KeepSigners
	}
	if !need {
		return nil
	}
	stored, err := ReadRefdata(ctx, c, ns)
	if err != nil {
		return fmt.Errorf("reading the stored signers from %s: %w", topology.Names{NS: ns}.Refdata(), err)
	}
	set.KeepStoredSigners(stored)
	return nil
}
