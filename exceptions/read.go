package exceptions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/trust"
)

// Load reads namespace ns's exceptions and their states, each topic to the
// end it has now.
func Load(ctx context.Context, conn kafkaconn.Config, ns string, secret *trust.Secret) (*Book, error) {
	b := NewBook(secret)
	return b, b.read(ctx, conn, ns, false)
}

// Follow reads namespace ns's exceptions and states into b until ctx ends:
// to the topics' current ends first (then CaughtUp reports true), then each
// record as it arrives. It returns ctx's error, or why it could not read.
func (b *Book) Follow(ctx context.Context, conn kafkaconn.Config, ns string) error {
	return b.read(ctx, conn, ns, true)
}

// ErrNoNamespace: the namespace has no exceptions topic.
var ErrNoNamespace = errors.New("no exceptions topic")

func (b *Book) read(ctx context.Context, conn kafkaconn.Config, ns string, follow bool) error {
	n := topology.Names{NS: ns}
	cl, err := topics.Connect(ctx, conn)
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	// A namespace made before the states topic existed has none: its
	// exceptions are all open (ste topics create adds the topic).
	want := []string{n.Exceptions(), n.ExceptionStates()}
	td, err := adm.ListTopics(ctx, want...)
	if err != nil {
		return fmt.Errorf("list topics: %w", err)
	}
	var present []string
	for _, t := range want {
		if d, ok := td[t]; ok && d.Err == nil {
			present = append(present, t)
		}
	}
	if len(present) == 0 || present[0] != n.Exceptions() {
		return fmt.Errorf("namespace %s: %w %s (is the namespace right?)", ns, ErrNoNamespace, n.Exceptions())
	}
	ends, err := adm.ListEndOffsets(ctx, present...)
	if err != nil {
		return fmt.Errorf("list offsets: %w", err)
	}
	remaining := map[string]map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Err == nil && o.Offset > 0 {
			if remaining[o.Topic] == nil {
				remaining[o.Topic] = map[int32]int64{}
			}
			remaining[o.Topic][o.Partition] = o.Offset
		}
	})
	caughtUp := func() bool {
		for t, ps := range remaining {
			if len(ps) == 0 {
				delete(remaining, t)
			}
		}
		if len(remaining) > 0 {
			return false
		}
		b.mu.Lock()
		b.caughtUp = true
		b.mu.Unlock()
		return true
	}
	if caughtUp() && !follow {
		return nil
	}
	cl.AddConsumeTopics(present...)
	for {
		fs, err := topics.Poll(ctx, cl)
		if err != nil {
			return err
		}
		fs.EachRecord(func(r *kgo.Record) {
			b.apply(n, r)
			if end, ok := remaining[r.Topic][r.Partition]; ok && r.Offset+1 >= end {
				delete(remaining[r.Topic], r.Partition)
			}
		})
		if caughtUp() && !follow {
			return nil
		}
	}
}

// apply reads one record of either topic; what does not read is skipped
// (the topics are written by STE: a bad record is no exception to show),
// and so is a record without the utility's proof — anyone who can write
// the topics could otherwise replace an exception (and what a retry
// publishes) or mark one resolved.
func (b *Book) apply(n topology.Names, r *kgo.Record) {
	if !topics.Proven(b.secret, r) {
		b.mu.Lock()
		b.unproven++
		b.mu.Unlock()
		return
	}
	switch r.Topic {
	case n.Exceptions():
		e := &Exception{Partition: r.Partition, Offset: r.Offset, Time: r.Timestamp.UTC()}
		if json.Unmarshal(r.Value, &e.Exception) != nil || e.ID == "" {
			return
		}
		b.addException(e)
	case n.ExceptionStates():
		rec := Record{ID: string(r.Key)}
		if r.Value != nil && json.Unmarshal(r.Value, &rec) != nil {
			return
		}
		rec.ID = string(r.Key)
		b.setState(rec)
	}
}
