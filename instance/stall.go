package instance

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ste-utility/ste/topics/lag"
	"github.com/ste-utility/ste/topology"
)

// DefaultStallAfter is how long a partition may be behind without progress
// before the instance reports itself unhealthy.
const DefaultStallAfter = 60 * time.Second

// RefusedAfter is how long the groups' produces may go unacknowledged
// before the instance reports itself unhealthy with the brokers' reason
// (below min ISR: NOT_ENOUGH_REPLICAS). Much shorter than the stall limit:
// the broker says what is wrong, and a leader election ends well within it.
const RefusedAfter = 5 * time.Second

// stallKey is one input partition of one of this instance's groups.
type stallKey struct {
	stage     topology.Stage
	topic     string
	partition int32
}

// watch is what is known of one partition's progress. The entry of an
// assigned partition with no topic marks when it was assigned.
type watch struct {
	done  int64     // consumed up to here (commit, or log start without one)
	since time.Time // when done last moved, the partition was assigned, or its lag was 0
}

// stallDetector finds the partitions this instance owns that are behind
// and have made no progress for a while: a consumer that is alive but no
// longer moving (a callback blocked, a fetch session lost, a rebalance that
// never ends) keeps the process up and the lag growing, and nothing else
// reports it. A group that keeps failing owns nothing, so a group that has
// not been up for as long is reported too.
type stallDetector struct {
	after   time.Duration
	watches map[stallKey]watch
	// down is when each group that is not running went down.
	down map[topology.Stage]time.Time
	// downErr is the last error of a group that is down.
	downErr map[topology.Stage]string
}

// A group that has not come up yet is not down: starting (reading
// reference data, recovering tables) has no deadline here.
func newStallDetector(after time.Duration) *stallDetector {
	return &stallDetector{after: after, watches: map[stallKey]watch{}, down: map[topology.Stage]time.Time{},
		downErr: map[topology.Stage]string{}}
}

// assigned restarts the watch of a stage's partitions: a newly assigned
// partition has until now+after to show progress, table recovery included
// (a table that takes longer to recover reads as a stall: raise the limit
// for large state).
func (d *stallDetector) assigned(st topology.Stage, parts []int32, now time.Time) {
	for k := range d.watches {
		if k.stage == st {
			delete(d.watches, k)
		}
	}
	for _, p := range parts {
		d.watches[stallKey{stage: st, partition: p}] = watch{since: now}
	}
}

// group records a group coming up (err nil) or going down.
func (d *stallDetector) group(st topology.Stage, err error, now time.Time) {
	if err == nil {
		delete(d.down, st)
		delete(d.downErr, st)
		return
	}
	if _, ok := d.down[st]; !ok {
		d.down[st] = now
	}
	d.downErr[st] = oneLine(err.Error())
}

// Stall is one reason the instance is stalled.
type Stall struct {
	Stage     topology.Stage
	Topic     string
	Partition int32 // -1: the whole group is down
	Lag       int64
	For       time.Duration
	Err       string // a group down: its last error
}

func (s Stall) String() string {
	if s.Partition < 0 {
		return fmt.Sprintf("group %s down for %s (last error: %s)", s.Stage, s.For.Round(time.Second), s.Err)
	}
	return fmt.Sprintf("%s partition %d of %s: %d behind, no progress for %s",
		s.Stage, s.Partition, s.Topic, s.Lag, s.For.Round(time.Second))
}

// observe takes a lag sample and returns what is stalled now, in a stable
// order. Only partitions this instance owns count: where another instance
// owns a partition, its progress is that instance's business.
func (d *stallDetector) observe(s lag.Sample, now time.Time) []Stall {
	var out []Stall
	for st, since := range d.down {
		if now.Sub(since) >= d.after {
			out = append(out, Stall{Stage: st, Partition: -1, For: now.Sub(since), Err: d.downErr[st]})
		}
	}
	for _, p := range s.Partitions {
		st, ok := topology.ParseStage(p.Stage)
		if !ok {
			continue
		}
		assignedAt, owned := d.watches[stallKey{stage: st, partition: p.Partition}]
		if !owned {
			continue
		}
		k := stallKey{stage: st, topic: p.Topic, partition: p.Partition}
		w, ok := d.watches[k]
		if !ok {
			w = watch{done: p.Done(), since: assignedAt.since}
		}
		if p.Lag == 0 || p.Done() > w.done {
			w.since = now
		}
		w.done = p.Done()
		d.watches[k] = w
		if p.Lag > 0 && now.Sub(w.since) >= d.after {
			out = append(out, Stall{Stage: st, Topic: p.Topic, Partition: p.Partition, Lag: p.Lag, For: now.Sub(w.since)})
		}
	}
	slices.SortFunc(out, func(a, b Stall) int {
		if a.Stage != b.Stage {
			return int(a.Stage) - int(b.Stage)
		}
		if c := strings.Compare(a.Topic, b.Topic); c != 0 {
			return c
		}
		return int(a.Partition - b.Partition)
	})
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
