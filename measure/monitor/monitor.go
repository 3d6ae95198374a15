// Package monitor samples STE's queues at a fixed interval, like the source
// benchmark's monitor: per stage, the queue length is its consumer group's
// lag on its input (end offset − committed offset, per partition), arrivals
// are end-offset deltas and completions committed-offset deltas. The whole
// network is measured end to end: arrivals on <ns>.inbound, completions =
// journeys ended (one audit event is written when a message's journey
// ends; the pipeline writes them in batches, so the monitor reads
// <ns>.audit and counts the events), queue = messages in the system.
//
// Committed offsets trail processing by up to the groups' commit interval, so
// per-stage queues read high by about rate × interval; the network figures
// do not depend on commits, except for where they start: the first sample
// takes the journeys ended before it as the inbound records less the
// stages' lags (exact on an idle system, high by the commit lag otherwise)
// and counts the events written after it.
package monitor

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/measure/oplaw"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topics/lag"
	"github.com/ste-utility/ste/topology"
)

// Stage is one monitored queue.
type Stage struct {
	Name  string
	Group string // "" for the network
	Topic string
}

// Stages of a namespace, from the topology: each group on its input stream
// (its loopback only carries retention checks), in pipeline order, then the
// network.
func Stages(ns string) []Stage {
	t := topology.Describe(ns)
	var out []Stage
	for _, g := range t.Groups {
		out = append(out, Stage{g.Stage.String(), g.Name, g.Inputs[0]})
	}
	return append(out, Stage{topology.Network, "", t.Names.Inbound()})
}

// Monitor keeps the previous sample to compute deltas.
type Monitor struct {
	cl     *kgo.Client
	adm    *kadm.Client
	ns     string
	stages []Stage
	groups []lag.Group
	prev   map[string]snapshot
	prevAt time.Time

	// The network's completions: journeys ended before the first sample
	// (estimated from the lags) plus the audit events read since, by a
	// client of the monitor's own that reads <ns>.audit from where the
	// first sample found its end.
	audit *kgo.Client
	ended int64
	next  map[int32]int64 // per audit partition, the next offset to count
	ahead []counted       // read past the end a sample listed: the next samples' to count
}

// counted is one audit record's events.
type counted struct {
	p      int32
	offset int64
	events int
}

type snapshot struct {
	end, done int64 // summed over partitions
}

// New returns a monitor of namespace ns that reads through cl (a client
// that consumes nothing itself: the monitor's reader of the audit topic
// takes its options). Close releases that reader.
func New(cl *kgo.Client, ns string) *Monitor {
	m := &Monitor{cl: cl, adm: kadm.NewClient(cl), ns: ns, stages: Stages(ns), prev: map[string]snapshot{}}
	for _, st := range m.stages {
		if st.Group != "" {
			m.groups = append(m.groups, lag.Group{Name: st.Group, Stage: st.Name, Topics: []string{st.Topic}})
		}
	}
	return m
}

// Sample reads the offsets once and returns one sample per stage. The first
// call returns samples with zero deltas (it only sets the baseline).
func (m *Monitor) Sample(ctx context.Context) ([]schemas.MonitorSample, error) {
	n := topology.Names{NS: m.ns}
	now := time.Now()
	lags, err := lag.Read(ctx, m.adm, m.groups)
	if err != nil {
		return nil, err
	}
	// The network's offsets are read after the groups' (see lag.Read).
	ends, err := m.adm.ListEndOffsets(ctx, n.Inbound(), n.Audit())
	if err != nil {
		return nil, err
	}
	if err := m.countEnded(ctx, lags, ends); err != nil {
		return nil, err
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
				if o.Topic == n.Inbound() {
					cur.end += o.Offset
				}
			})
			cur.done = m.ended
		} else {
			for _, p := range lags.Partitions {
				if p.Group != st.Group || p.Topic != st.Topic {
					continue
				}
				s.Partitions = append(s.Partitions, schemas.PartitionSample{Partition: p.Partition,
					End: p.End, Committed: p.Done(), Lag: p.Lag})
				cur.end += p.End
				cur.done += p.Done()
			}
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

// countEnded brings m.ended up to the audit end offsets just listed, or as
// far as it gets in catchUp: the first call sets the baseline, later ones
// count the events of the records written since. Only the baseline fails
// it: a partition's end not listed, or the reader not made.
func (m *Monitor) countEnded(ctx context.Context, lags lag.Sample, ends kadm.ListedOffsets) error {
	n := topology.Names{NS: m.ns}
	audit := map[int32]int64{} // a partition the broker did not answer for waits for a later sample
	ends.Each(func(o kadm.ListedOffset) {
		if o.Topic == n.Audit() && o.Err == nil {
			audit[o.Partition] = o.Offset
		}
	})
	if m.audit == nil {
		// The baseline wants every partition's end: one left out now would
		// later look added since and be counted from its start.
		var missing error
		ends.Each(func(o kadm.ListedOffset) {
			if o.Topic == n.Audit() && o.Err != nil && missing == nil {
				missing = fmt.Errorf("monitor: end of %s/%d: %w", o.Topic, o.Partition, o.Err)
			}
		})
		if missing != nil {
			return missing
		}
		// Ended = inbound records less the stages' lags. Exact on an idle
		// system; under load the lags, the inbound ends and the audit's
		// ends are read a moment apart, and no order of the reads closes
		// every window (a journey's audit record is written before its
		// input is committed). This order errs towards ended: arrivals
		// between the lags and the ends count as ended (~throughput × the
		// gap). The other orders err the other way, and a journey counted
		// neither at the baseline nor from the audit would show as queued
		// forever on an idle system. A monitor started with its namespace
		// (ste bench) has nothing in flight to misjudge.
		var arrived, held int64
		ends.Each(func(o kadm.ListedOffset) {
			if o.Topic == n.Inbound() {
				arrived += o.Offset
			}
		})
		for _, p := range lags.Partitions {
			for _, st := range m.stages {
				if st.Group != "" && p.Group == st.Group && p.Topic == st.Topic {
					held += p.Lag
				}
			}
		}
		from := map[int32]kgo.Offset{}
		for p, o := range audit {
			from[p] = kgo.NewOffset().At(o)
		}
		cl, err := kgo.NewClient(append(m.cl.Opts(), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{n.Audit(): from}))...)
		if err != nil {
			return err
		}
		// The reader fetches only while a sample counts: between samples it
		// would fetch every batch as it is written, work for the broker that
		// the run it measures pays for.
		cl.PauseFetchTopics(n.Audit())
		m.audit, m.ended, m.next = cl, max(arrived-held, 0), audit
		return nil
	}
	// Records the reader got past a sample's end are counted by the sample
	// whose end is past them: the count stays that of the ends listed.
	count := func(c counted) bool {
		if c.offset >= audit[c.p] {
			return false
		}
		m.ended += int64(c.events)
		return true
	}
	ahead := m.ahead[:0]
	for _, c := range m.ahead {
		if !count(c) {
			ahead = append(ahead, c)
		}
	}
	m.ahead = ahead
	m.audit.ResumeFetchTopics(n.Audit())
	defer m.audit.PauseFetchTopics(n.Audit())
	for p := range audit {
		if _, ok := m.next[p]; !ok { // a partition added since: counted from its start
			m.next[p] = 0
			m.audit.AddConsumePartitions(map[string]map[int32]kgo.Offset{n.Audit(): {p: kgo.NewOffset().At(0)}})
		}
	}
	// A reader that cannot get there in a while (the broker moving a
	// leader) leaves the rest to the next sample rather than hold this one.
	ctx, cancel := context.WithTimeout(ctx, catchUp)
	defer cancel()
	behind := func() bool {
		for p, o := range audit {
			if m.next[p] < o {
				return true
			}
		}
		return false
	}
	for behind() {
		// Errors are the client's to retry (a fetch's errors are a broker's
		// passing state here): the count waits, the sample does not.
		fs := m.audit.PollFetches(ctx)
		if ctx.Err() != nil {
			return nil
		}
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset < m.next[r.Partition] {
				return // read before
			}
			m.next[r.Partition] = r.Offset + 1
			if c := (counted{r.Partition, r.Offset, schemas.CountAuditEvents(r.Value)}); !count(c) {
				m.ahead = append(m.ahead, c)
			}
		})
	}
	return nil
}

// catchUp bounds the time a sample waits for the audit events to be read.
const catchUp = 5 * time.Second

// Close stops the monitor's reader of the audit topic.
func (m *Monitor) Close() {
	if m.audit != nil {
		m.audit.Close()
	}
}

// Loop samples the queues every interval until ctx ends, publishing every
// sample to <ns>.monitor and handing it to collect (may be nil), then
// closes mon. A sample that fails is skipped: alongside a run, the monitor
// must not end it. The returned channel closes when it has stopped.
func Loop(ctx context.Context, mon *Monitor, cl *kgo.Client, ns string, interval time.Duration,
	collect func([]schemas.MonitorSample)) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		sample(ctx, mon, cl, ns, interval, collect, true)
	}()
	return done
}

// Run is `ste monitor`: it samples the queues every interval until ctx
// ends (then closes mon), publishing every sample to <ns>.monitor and
// handing it to each (may be nil), and returns every sample once they are
// flushed to the topic. A sample that fails while ctx is live ends it with
// the error: a monitor on its own that cannot read the groups says so.
func Run(ctx context.Context, mon *Monitor, cl *kgo.Client, ns string, interval time.Duration,
	each func([]schemas.MonitorSample)) ([]schemas.MonitorSample, error) {
	var all []schemas.MonitorSample
	err := sample(ctx, mon, cl, ns, interval, func(ss []schemas.MonitorSample) {
		all = append(all, ss...)
		if each != nil {
			each(ss)
		}
	}, false)
	if err != nil {
		return all, err
	}
	cl.Flush(context.Background())
	return all, nil
}

// sample is the loop of Loop and Run; skip says whether a failed sample is
// skipped or ends it. It closes mon when it returns.
func sample(ctx context.Context, mon *Monitor, cl *kgo.Client, ns string, interval time.Duration,
	collect func([]schemas.MonitorSample), skip bool) error {
	defer mon.Close()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		ss, err := mon.Sample(ctx)
		switch {
		case err == nil:
			if collect != nil {
				collect(ss)
			}
			// A sample taken as ctx ends is published all the same: the
			// record is failed, not sent, if its context is already done.
			Publish(context.WithoutCancel(ctx), cl, ns, ss)
		case !skip && ctx.Err() == nil:
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Publish writes samples to <ns>.monitor, keyed by stage.
func Publish(ctx context.Context, cl *kgo.Client, ns string, ss []schemas.MonitorSample) {
	topic := topology.Names{NS: ns}.Monitor()
	for i := range ss {
		cl.Produce(ctx, &kgo.Record{Topic: topic, Key: []byte(ss[i].Stage), Value: ss[i].Marshal()}, nil)
	}
}

// Laws computes the operational laws per stage from samples of several
// stages, in the order the stages first appear.
func Laws(samples []schemas.MonitorSample) []oplaw.Laws {
	by := map[string][]schemas.MonitorSample{}
	var order []string
	for _, s := range samples {
		if _, ok := by[s.Stage]; !ok {
			order = append(order, s.Stage)
		}
		by[s.Stage] = append(by[s.Stage], s)
	}
	var laws []oplaw.Laws
	for _, st := range order {
		laws = append(laws, oplaw.Compute(st, oplaw.TrimIdle(by[st])))
	}
	return laws
}
