// Package monitor samples STE's queues at a fixed interval, like the source
// benchmark's monitor: per stage, the queue length is its consumer group's
// lag on its input (end offset − committed offset, per partition), arrivals
// are end-offset deltas and completions committed-offset deltas. The whole
// network is measured end to end: arrivals on <ns>.inbound, completions =
// journeys ended (one audit record is written when a message's journey
// ends), queue = messages in the system.
//
// Committed offsets trail processing by up to the groups' commit interval, so
// per-stage queues read high by about rate × interval; the network figures
// do not depend on commits.
package monitor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/ste-utility/ste/processors/pipeline"
	"github.com/ste-utility/ste/schemas"
)

// Stage is one monitored queue.
type Stage struct {
	Name  string
	Group string // "" for the network
	Topic string
}

// Stages of a namespace, in pipeline order, then the network.
func Stages(ns string) []Stage {
	n := pipeline.Names{NS: ns}
	return []Stage{
		{"validate", n.ValidateGroup(), n.Inbound()},
		{"identity", n.IdentityGroup(), n.Verdicts()},
		{"match", n.MatchGroup(), n.Accepted()},
		{"network", "", n.Inbound()},
	}
}

// Monitor keeps the previous sample to compute deltas.
type Monitor struct {
	adm    *kadm.Client
	ns     string
	stages []Stage
	prev   map[string]snapshot
	prevAt time.Time
}

type snapshot struct {
	end, done int64 // summed over partitions
}

// New returns a monitor of namespace ns.
func New(adm *kadm.Client, ns string) *Monitor {
	return &Monitor{adm: adm, ns: ns, stages: Stages(ns), prev: map[string]snapshot{}}
}

// Sample reads the offsets once and returns one sample per stage. The first
// call returns samples with zero deltas (it only sets the baseline).
func (m *Monitor) Sample(ctx context.Context) ([]schemas.MonitorSample, error) {
	n := pipeline.Names{NS: m.ns}
	now := time.Now()
	ends, err := m.adm.ListEndOffsets(ctx, n.Inbound(), n.Verdicts(), n.Accepted(), n.Audit())
	if err != nil {
		return nil, err
	}
	endOf := func(topic string, p int32) int64 {
		o, _ := ends.Lookup(topic, p)
		return o.Offset
	}
	var out []schemas.MonitorSample
	interval := 0.0
	if !m.prevAt.IsZero() {
		interval = now.Sub(m.prevAt).Seconds()
	}
	for _, st := range m.stages {
		s := schemas.MonitorSample{At: now.UTC().Format("2006-01-02T15:04:05.000000Z"), Namespace: m.ns,
			Stage: st.Name, Interval: interval}
		var cur snapshot
		if st.Group == "" {
			// Network: inbound arrivals against ended journeys.
			ends.Each(func(o kadm.ListedOffset) {
				switch o.Topic {
				case n.Inbound():
					cur.end += o.Offset
				case n.Audit():
					cur.done += o.Offset
				}
			})
		} else {
			committed, err := m.adm.FetchOffsets(ctx, st.Group)
			if errors.Is(err, kerr.GroupIDNotFound) {
				committed, err = nil, nil // no processor has joined yet: nothing done
			}
			if err != nil {
				return nil, fmt.Errorf("group %s: %w", st.Group, err)
			}
			ends.Each(func(o kadm.ListedOffset) {
				if o.Topic != st.Topic {
					return
				}
				c, ok := committed.Lookup(st.Topic, o.Partition)
				done := int64(0)
				if ok && c.At >= 0 {
					done = c.At
				}
				lag := max(o.Offset-done, 0)
				s.Partitions = append(s.Partitions, schemas.PartitionSample{Partition: o.Partition,
					End: endOf(st.Topic, o.Partition), Committed: done, Lag: lag})
				cur.end += o.Offset
				cur.done += done
			})
		}
		s.Queue = max(cur.end-cur.done, 0)
		if p, ok := m.prev[st.Name]; ok {
			s.Arrivals, s.Completions = cur.end-p.end, cur.done-p.done
		}
		m.prev[st.Name] = cur
		out = append(out, s)
	}
	m.prevAt = now
	return out, nil
}
