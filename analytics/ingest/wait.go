package ingest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/analytics/store"
	"github.com/ste-utility/ste/topology"
)

// EndOffsets lists the current end offsets of a namespace's ingested topics
// (topics that do not exist yet are left out).
func EndOffsets(ctx context.Context, adm *kadm.Client, ns string) (Offsets, error) {
	ends, err := adm.ListEndOffsets(ctx, Topics(ns)...)
	if err != nil {
		return nil, fmt.Errorf("end offsets: %w", err)
	}
	out := Offsets{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Err != nil || o.Offset <= 0 {
			return
		}
		if out[o.Topic] == nil {
			out[o.Topic] = map[int32]int64{}
		}
		out[o.Topic][o.Partition] = o.Offset
	})
	return out, nil
}

// Committed reads a group's committed offsets for a namespace's topics.
func Committed(ctx context.Context, adm *kadm.Client, group string) (Offsets, error) {
	resp, err := adm.FetchOffsets(ctx, group)
	if err != nil {
		return nil, fmt.Errorf("committed offsets of %s: %w", group, err)
	}
	if err := resp.Error(); err != nil {
		return nil, fmt.Errorf("committed offsets of %s: %w", group, err)
	}
	out := Offsets{}
	resp.Each(func(o kadm.OffsetResponse) {
		if out[o.Topic] == nil {
			out[o.Topic] = map[int32]int64{}
		}
		out[o.Topic][o.Partition] = o.At
	})
	return out, nil
}

// covers reports whether got reaches want on every partition.
func covers(got, want Offsets) bool {
	for t, ps := range want {
		for p, end := range ps {
			if got[t][p] < end {
				return false
			}
		}
	}
	return true
}

// WaitCommitted polls a group's committed offsets until they reach ends.
// Offsets are committed only after their rows are inserted, so then every
// record before ends is in the store. It works for any process running the
// group (a `ste analytics` subprocess, several instances).
func WaitCommitted(ctx context.Context, adm *kadm.Client, group string, ends Offsets) error {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		got, err := Committed(ctx, adm, group)
		if err == nil && covers(got, ends) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for analytics to catch up: %w", ctx.Err())
		case <-t.C:
		}
	}
}

// WaitFor waits until every record before ends is inserted and committed,
// by this ingester or by another member of its group. It returns early
// with the ingest's error if the ingest ends.
func (in *Ingester) WaitFor(ctx context.Context, ends Offsets) error {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for i := 0; ; i++ {
		in.mu.Lock()
		ok := covers(in.committed, ends)
		in.mu.Unlock()
		if !ok && i%4 == 3 {
			// Partitions another member owns.
			if got, err := Committed(ctx, in.adm, in.o.Group); err == nil {
				ok = covers(got, ends)
			}
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for analytics to catch up: %w", ctx.Err())
		case <-in.done:
			if in.err != nil {
				return in.err
			}
			return errors.New("analytics ingest stopped before catching up")
		case <-t.C:
		}
	}
}

// CatchUp waits until everything on the namespace's topics now is in the
// store: what a demo or bench calls once its pipeline has finished.
func (in *Ingester) CatchUp(ctx context.Context) error {
	ends, err := EndOffsets(ctx, in.adm, in.o.Namespace)
	if err != nil {
		return err
	}
	return in.WaitFor(ctx, ends)
}

// Client is the ingest's franz-go client (for EndOffsets and the like).
func (in *Ingester) Client() *kgo.Client { return in.cl }

// TopicIDs returns, by store table, the Kafka id of the namespace's topic
// whose records the table holds (the rows of that topic are its current
// ones: a namespace made again under its name has new ids). Topics that do
// not exist are left out.
func TopicIDs(ctx context.Context, adm *kadm.Client, ns string) (map[string]uuid.UUID, error) {
	n := topology.Names{NS: ns}
	tables := map[string]string{n.CLS(): store.TableCLS, n.Audit(): store.TableAudit, n.Exceptions(): store.TableExceptions,
		n.Outbound(): store.TableOutbound, n.Monitor(): store.TableMonitor}
	td, err := adm.ListTopics(ctx, Topics(ns)...)
	if err != nil {
		return nil, fmt.Errorf("topic IDs of %s: %w", ns, err)
	}
	out := map[string]uuid.UUID{}
	for topic, table := range tables {
		if d, ok := td[topic]; ok && d.Err == nil {
			out[table] = uuid.UUID(d.ID)
		}
	}
	return out, nil
}
