// Package lag is consumer-group lag done once: per group, input topic and
// partition, how far the group's committed offset is behind the end of the
// log, and which member owns the partition. Metrics, the monitor, health and
// every "wait until processed" in tests and tools read it from here.
//
// kadm's Lag describes only partitions a group has been assigned or has
// committed to, so a group that has not joined yet looks idle. Lag here
// covers every partition of the group's input topics: a partition without a
// commit is behind by everything still in the log (end − start), which is
// where a new group starts reading.
package lag

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/ste-utility/ste/topology"
)

// Group is a consumer group and the topics whose lag is measured.
type Group struct {
	Name   string
	Stage  string // label for metrics: validate, identity, match, ...
	Topics []string
}

// Groups are the processor groups of namespace ns with their input topics
// (loopbacks included), from the topology; stages nil means all.
func Groups(ns string, stages ...topology.Stage) []Group {
	var out []Group
	for _, g := range topology.Describe(ns).Groups {
		if len(stages) > 0 && !slices.Contains(stages, g.Stage) {
			continue
		}
		topics := slices.Clone(g.Inputs)
		if g.Loop != "" {
			topics = append(topics, g.Loop)
		}
		out = append(out, Group{Name: g.Name, Stage: g.Stage.String(), Topics: topics})
	}
	return out
}

// Partition is the lag of one group on one partition of one of its topics.
type Partition struct {
	Group     string `json:"group"`
	Stage     string `json:"stage"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Start     int64  `json:"start"`
	End       int64  `json:"end"`
	// Committed is the group's committed offset, -1 when it has none.
	Committed int64 `json:"committed"`
	Lag       int64 `json:"lag"`
	// The owner, when a member of the group is assigned the partition.
	ClientID   string `json:"client_id,omitempty"`
	InstanceID string `json:"instance_id,omitempty"`
	MemberID   string `json:"member_id,omitempty"`
}

// Done is the position up to which the group has consumed: its commit, or
// the start of the log without one.
func (p Partition) Done() int64 {
	if p.Committed >= 0 {
		return p.Committed
	}
	return p.Start
}

// GroupState is what the broker says of a group as a whole.
type GroupState struct {
	Name    string `json:"name"`
	Stage   string `json:"stage"`
	State   string `json:"state"` // Stable, PreparingRebalance, Empty, Dead, ...
	Members int    `json:"members"`
}

// Sample is one reading of lag.
type Sample struct {
	At         time.Time    `json:"at"`
	Groups     []GroupState `json:"groups"`
	Partitions []Partition  `json:"partitions"`
}

// Read samples the lag of groups. Commits are read before end offsets, so a
// record produced by one stage before that stage committed is counted by
// the next one: a sample at zero everywhere means nothing is in flight.
func Read(ctx context.Context, adm *kadm.Client, groups []Group) (Sample, error) {
	s := Sample{At: time.Now()}
	names := make([]string, len(groups))
	var topics []string
	for i, g := range groups {
		names[i] = g.Name
		for _, t := range g.Topics {
			if !slices.Contains(topics, t) {
				topics = append(topics, t)
			}
		}
	}
	described, err := adm.DescribeGroups(ctx, names...)
	if err != nil && !isPartial(err) {
		return s, fmt.Errorf("describe groups: %w", err)
	}
	commits := adm.FetchManyOffsets(ctx, names...)
	starts, err := adm.ListStartOffsets(ctx, topics...)
	if err != nil && !isPartial(err) {
		return s, fmt.Errorf("list start offsets: %w", err)
	}
	ends, err := adm.ListEndOffsets(ctx, topics...)
	if err != nil && !isPartial(err) {
		return s, fmt.Errorf("list end offsets: %w", err)
	}
	for _, g := range groups {
		gs := GroupState{Name: g.Name, Stage: g.Stage, State: "Dead"}
		owners := map[string]map[int32]kadm.DescribedGroupMember{}
		if d, ok := described[g.Name]; ok && d.Err == nil {
			gs.State, gs.Members = d.State, len(d.Members)
			for _, m := range d.Members {
				c, ok := m.Assigned.AsConsumer()
				if !ok {
					continue
				}
				for _, t := range c.Topics {
					if owners[t.Topic] == nil {
						owners[t.Topic] = map[int32]kadm.DescribedGroupMember{}
					}
					for _, p := range t.Partitions {
						owners[t.Topic][p] = m
					}
				}
			}
		}
		s.Groups = append(s.Groups, gs)
		var committed kadm.OffsetResponses
		if r, ok := commits[g.Name]; ok && r.Err == nil {
			committed = r.Fetched
		}
		for _, t := range g.Topics {
			var parts []int32
			ends.Each(func(o kadm.ListedOffset) {
				if o.Topic == t && o.Err == nil {
					parts = append(parts, o.Partition)
				}
			})
			slices.Sort(parts)
			for _, p := range parts {
				end, _ := ends.Lookup(t, p)
				pl := Partition{Group: g.Name, Stage: g.Stage, Topic: t, Partition: p, End: end.Offset, Committed: -1}
				if st, ok := starts.Lookup(t, p); ok && st.Err == nil {
					pl.Start = st.Offset
				}
				if c, ok := committed.Lookup(t, p); ok && c.Err == nil && c.At >= 0 {
					pl.Committed = c.At
				}
				pl.Lag = max(pl.End-pl.Done(), 0)
				if m, ok := owners[t][p]; ok {
					pl.ClientID, pl.MemberID = m.ClientID, m.MemberID
					if m.InstanceID != nil {
						pl.InstanceID = *m.InstanceID
					}
				}
				s.Partitions = append(s.Partitions, pl)
			}
		}
	}
	return s, nil
}

// isPartial reports an error that left part of the answer usable (one
// broker of several did not answer): what is missing reads as unknown.
func isPartial(err error) bool {
	var se *kadm.ShardErrors
	return errors.As(err, &se) && !se.AllFailed
}

// Total is the lag of a group on a topic ("" for all its topics).
func (s Sample) Total(group, topic string) int64 {
	var n int64
	for _, p := range s.Partitions {
		if p.Group == group && (topic == "" || p.Topic == topic) {
			n += p.Lag
		}
	}
	return n
}

// Sum is the lag of every partition in the sample.
func (s Sample) Sum() int64 {
	var n int64
	for _, p := range s.Partitions {
		n += p.Lag
	}
	return n
}

// OwnedBy returns the partitions owned by instance id's clients (their
// client ids are topology.ClientID's).
func (s Sample) OwnedBy(id string) []Partition {
	var out []Partition
	for _, p := range s.Partitions {
		for _, st := range topology.Stages {
			if got, ok := topology.InstanceOf(p.ClientID, st); ok && got == id {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// WaitOptions tune WaitZero.
type WaitOptions struct {
	// Poll is the time between samples. Default 250 ms.
	Poll time.Duration
	// Progress, if set, is called with every sample.
	Progress func(Sample)
}

// WaitZero waits until every partition of every group is at lag 0 in one
// sample (see Read for why one is enough), or ctx ends; it returns the last
// sample. A group that has not joined yet is behind by whatever is in its
// input, so a backlog nobody processes never reads as done.
func WaitZero(ctx context.Context, adm *kadm.Client, groups []Group, o WaitOptions) (Sample, error) {
	if o.Poll <= 0 {
		o.Poll = 250 * time.Millisecond
	}
	var last Sample
	var lastErr error
	for {
		s, err := Read(ctx, adm, groups)
		if err == nil {
			last = s
			if o.Progress != nil {
				o.Progress(s)
			}
			if s.Sum() == 0 && len(s.Partitions) > 0 {
				return s, nil
			}
		} else {
			lastErr = err
		}
		select {
		case <-ctx.Done():
			if lastErr != nil && last.At.IsZero() {
				return last, fmt.Errorf("lag: %w (last error: %v)", ctx.Err(), lastErr)
			}
			return last, fmt.Errorf("lag: %w with %d records still behind", ctx.Err(), last.Sum())
		case <-time.After(o.Poll):
		}
	}
}
