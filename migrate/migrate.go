// Package migrate is the scale-out procedure: a namespace's matching state
// carried into a new namespace with more (or fewer) partitions, since the
// partition count of a keyed topic is never changed in place (it would split
// trades from their state). See docs/scale-out.md for the runbook.
//
// Migrate refuses while the old namespace runs (Check); otherwise it creates
// the new namespace, records the cut-over in the new namespace's origin
// (topics/origin), makes its identity and match table changelogs and its
// reference data hold what the old ones hold — every value re-keyed with
// the shared partitioner, tombstones included, so that retention, CLS
// versions and status counts continue — starts each new partition's
// event-time clock at the largest clock of the old partitions its values
// come from (a clock marker, changelog.ClockMarker), copies the inbound
// records that arrived after the old processors stopped (participants need
// not pause), and records completion.
// Every write is a convergence (copier.Converge): a run killed half way is
// finished by running it again, and a run after success changes nothing.
// Follow then bridges inbound records that still arrive on the old
// namespace to the new one, for drivers not yet switched.
package migrate

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/instance/registry"
	"github.com/ste-utility/ste/processors/changelog"
	"github.com/ste-utility/ste/processors/fence"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/copier"
	"github.com/ste-utility/ste/topics/lag"
	"github.com/ste-utility/ste/topics/origin"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/trust"
)

// Options configure Migrate.
type Options struct {
	Dial copier.Dial
	// Secret proves the origin records the migration writes and reads
	// (the utility's shared secret, trust).
	Secret *trust.Secret
	// Instances lists the instances of a namespace from its registry
	// (registry.List on the caller's connection).
	Instances func(ctx context.Context, ns string) ([]registry.Entry, error)
	// From is the namespace migrated, To the new one with Partitions.
	From, To   string
	Partitions int32
	// Topics configure the new namespace's topics (retention, replication);
	// the partition count is Partitions.
	Topics topics.Options
	// Rate limits every copy to that many records per second (0: none).
	Rate float64
	// Log, when set, is told each step.
	Log func(format string, args ...any)
	// Progress, when set, is called during a copy with the step and the
	// records written so far.
	Progress func(step string, written int64)
}

// Step is one copy of a migration.
type Step struct {
	Topic string `json:"topic"` // the new namespace's topic
	copier.Converged
	// Clocks are the event-time clocks the new partitions start at (Unix
	// nanoseconds, as the tables hold them), by partition; only partitions
	// that received values.
	Clocks map[int32]int64 `json:"clocks,omitempty"`
	// Markers is the number of clock markers among the keys.
	Markers int `json:"markers,omitempty"`
}

// Result says what a migration did.
type Result struct {
	From       string `json:"from"`
	To         string `json:"to"`
	Partitions int32  `json:"partitions"`
	// AlreadyDone: the new namespace's origin said complete; nothing was
	// read or written.
	AlreadyDone bool          `json:"already_done"`
	Origin      origin.Record `json:"origin"`
	// Removed are the static members of stopped instances taken out of
	// the old namespace's groups.
	Removed []string `json:"removed,omitempty"`
	// Bridged counts inbound records that arrived after the old namespace
	// stopped, copied to the new one's inbound.
	Bridged int64   `json:"bridged"`
	Steps   []Step  `json:"steps,omitempty"`
	Seconds float64 `json:"seconds"`
}

// Refused is a migration that must not run: the reason says what to do.
type Refused struct{ Reason string }

func (r *Refused) Error() string { return r.Reason }

func (o *Options) logf(format string, args ...any) {
	if o.Log != nil {
		o.Log(format, args...)
	}
}

// Migrate carries namespace o.From into o.To (see the package comment).
func Migrate(ctx context.Context, o Options) (Result, error) {
	start := time.Now()
	res := Result{From: o.From, To: o.To, Partitions: o.Partitions}
	switch {
	case o.From == "" || o.To == "":
		return res, errors.New("migrate: two namespaces are needed")
	case o.From == o.To:
		return res, &Refused{"--from and --to are the same namespace: a migration goes into a new one"}
	case o.Partitions < 1:
		return res, errors.New("migrate: the partition count must be positive")
	}
	cl, err := o.Dial()
	if err != nil {
		return res, err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	from, to := topology.Names{NS: o.From}, topology.Names{NS: o.To}

	// A second run after success changes nothing.
	recs, err := origin.Read(ctx, o.Dial, o.To, o.Secret)
	if err != nil {
		return res, err
	}
	prev, resumed := origin.Find(recs, origin.Migration, o.From)
	if resumed && prev.State == origin.Complete {
		res.AlreadyDone, res.Origin = true, prev
		if prev.Partitions != o.Partitions {
			return res, &Refused{fmt.Sprintf("%s was migrated into %s with %d partitions, not %d", o.From, o.To, prev.Partitions, o.Partitions)}
		}
		return res, nil
	}
	if err := checkTarget(ctx, adm, o, recs, resumed); err != nil {
		return res, err
	}
	stopped, err := Check(ctx, adm, o.Instances, o.From)
	res.Removed = stopped.Removed
	if err != nil {
		return res, err
	}
	if resumed {
		o.logf("resuming the migration started %s", prev.Started.Format(time.RFC3339))
	}

	topts := o.Topics
	topts.Partitions = o.Partitions
	if _, err := topics.Create(ctx, adm, o.To, topts); err != nil {
		return res, err
	}
	// The cut-over: inbound up to where the old namespace validated it,
	// and what its tables and reference data hold now (nothing is in
	// flight between its stages, so that is the effect of every record
	// validated).
	// What is carried: every group table the topology declares, into the
	// same stage's table of the new namespace, then the reference data.
	type step struct {
		src, dst string
		stage    topology.Stage // 0: no clock (reference data)
		parts    int32
	}
	var steps []step
	toTables := topology.Describe(o.To)
	for _, tb := range topology.Describe(o.From).Tables {
		dst, ok := toTables.Table(tb.Stage)
		if !ok {
			return res, fmt.Errorf("migrate: no %s table in %s", tb.Stage, o.To)
		}
		steps = append(steps, step{tb.Changelog, dst.Changelog, tb.Stage, o.Partitions})
	}
	steps = append(steps, step{from.Refdata(), to.Refdata(), 0, 1})
	cut := map[string]map[int32]int64{from.Inbound(): stopped.Processed}
	for _, st := range steps {
		spans, err := copier.EndSpans(ctx, adm, st.src)
		if err != nil {
			return res, err
		}
		cut[st.src] = map[int32]int64{}
		for _, s := range spans {
			cut[st.src][s.Partition] = s.To
		}
	}
	rec := origin.Record{Kind: origin.Migration, From: o.From, State: origin.Started, Partitions: o.Partitions,
		Started: time.Now().UTC(), Refdata: "source", Cutover: cut, Copied: map[string]int64{}}
	if err := origin.Write(ctx, cl, o.To, o.Secret, rec); err != nil {
		return res, err
	}
	o.logf("cut-over recorded in %s", to.Origin())

	for _, s := range steps {
		st, err := carry(ctx, o, s.src, s.dst, s.stage, s.parts)
		if err != nil {
			return res, err
		}
		o.logf("%s: %d values and %d clock markers; %d written, %d deleted (%.1fs)", s.dst, st.Keys-st.Markers, st.Markers, st.Written, st.Deleted, st.Seconds)
		res.Steps = append(res.Steps, st)
		rec.Copied[s.src] = int64(st.Keys - st.Markers)
	}
	// Inbound records that arrived after the old namespace stopped go to
	// the new one, through the bridge's group: --follow continues from
	// there, and a run killed here resumes without copying twice.
	res.Bridged, err = copier.CatchUp(ctx, followOptions(o, rec.Cutover[from.Inbound()], nil))
	if err != nil {
		return res, err
	}
	if res.Bridged > 0 || stopped.Unvalidated > 0 {
		o.logf("%s: %d records that arrived after %s stopped copied to %s", from.Inbound(), res.Bridged, o.From, to.Inbound())
	}
	rec.Copied[from.Inbound()] = res.Bridged
	rec.State, rec.Completed = origin.Complete, time.Now().UTC()
	if err := origin.Write(ctx, cl, o.To, o.Secret, rec); err != nil {
		return res, err
	}
	res.Origin = rec
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// epochHeader is r's ownership epoch header (processors/fence), nil if none.
func epochHeader(r *kgo.Record) []byte {
	for _, h := range r.Headers {
		if h.Key == fence.Header {
			return h.Value
		}
	}
	return nil
}

// carry makes table changelog dst hold what src holds, re-keyed into parts
// partitions, with clock markers where a new partition's values would
// otherwise give it an older clock than the old partitions they come from.
func carry(ctx context.Context, o Options, src, dst string, stage topology.Stage, parts int32) (Step, error) {
	clocks := map[int32]int64{} // old partition -> clock
	from := map[string]int32{}  // key -> old partition
	// The values the changelog stands for, a batch record's writes
	// (changelog.EachValue) each under its own key.
	want := map[string][]byte{}
	var unread error
	// A match table write of a partition's former owner that landed after
	// its new owner's is not the key's state (processors/fence).
	var owners fence.Filter
	_, err := copier.Fold(ctx, o.Dial, src, func(r *kgo.Record) {
		if stage == topology.StageMatch && !owners.Admit(r.Partition, epochHeader(r)) {
			return
		}
		err := changelog.EachValue(stage, string(r.Key), r.Value, func(k string, v []byte) {
			from[k] = r.Partition
			if v == nil {
				delete(want, k)
				return
			}
			want[k] = v
			if w, ok := changelog.Watermark(stage, v); ok {
				clocks[r.Partition] = max(clocks[r.Partition], w)
			}
		})
		if err != nil && unread == nil {
			unread = fmt.Errorf("%s/%d at %d: %w", src, r.Partition, r.Offset, err)
		}
	})
	if err == nil {
		err = unread
	}
	if err != nil {
		return Step{}, err
	}
	step := Step{Topic: dst}
	if stage != 0 {
		start, held := map[int32]int64{}, map[int32]int64{} // new partition -> clock wanted, clock of its values
		for k, v := range want {
			p := topics.PartitionOf(k, parts)
			start[p] = max(start[p], clocks[from[k]])
			if w, ok := changelog.Watermark(stage, v); ok {
				held[p] = max(held[p], w)
			}
		}
		for _, p := range slices.Sorted(maps.Keys(start)) {
			if start[p] <= held[p] {
				continue // its own values give it that clock
			}
			k, v := changelog.ClockMarker(stage, start[p], func(k string) bool {
				_, taken := want[k]
				return !taken && topics.PartitionOf(k, parts) == p
			})
			want[k] = v
			step.Markers++
		}
		step.Clocks = start
	}
	var progress func(int64)
	if o.Progress != nil {
		progress = func(n int64) { o.Progress(dst, n) }
	}
	c, err := copier.Converge(ctx, copier.ConvergeOptions{Dial: o.Dial, Topic: dst, Partitions: parts, Want: want,
		Rate: o.Rate, Progress: progress})
	step.Converged = c
	return step, err
}

// checkTarget refuses a new namespace that is not new: one made otherwise
// than by a migration from o.From, or whose processors already ran.
func checkTarget(ctx context.Context, adm *kadm.Client, o Options, recs []origin.Record, resumed bool) error {
	to := topology.Names{NS: o.To}
	if !resumed {
		if len(recs) > 0 {
			return &Refused{fmt.Sprintf("%s was made by a %s from %s, not a migration from %s: choose a new namespace", o.To, recs[0].Kind, recs[0].From, o.From)}
		}
		ends, err := adm.ListEndOffsets(ctx, to.Inbound())
		if err != nil {
			return err
		}
		held := int64(0)
		ends.Each(func(e kadm.ListedOffset) {
			if e.Err == nil {
				held += e.Offset
			}
		})
		if held > 0 {
			return &Refused{fmt.Sprintf("%s already holds %d inbound records: a migration goes into a new namespace", o.To, held)}
		}
	}
	s, err := lag.Read(ctx, adm, lag.Groups(o.To))
	if err != nil {
		return err
	}
	for _, g := range s.Groups {
		if g.Members > 0 {
			return &Refused{fmt.Sprintf("%s is being processed (group %s has %d members) before its migration completed: stop its instances, delete it and migrate again", o.To, g.Name, g.Members)}
		}
	}
	for _, p := range s.Partitions {
		if p.Committed >= 0 {
			return &Refused{fmt.Sprintf("%s was processed (group %s committed offsets) before its migration completed: delete it and migrate again", o.To, p.Group)}
		}
	}
	return nil
}

// Follow bridges inbound records that arrive on o.From after the cut-over
// to o.To's inbound, by key with the shared partitioner, until ctx ends; it
// resumes where it stopped (consumer group FollowGroup). The migration must
// be complete.
func Follow(ctx context.Context, o Options, progress func(copied int64)) error {
	recs, err := origin.Read(ctx, o.Dial, o.To, o.Secret)
	if err != nil {
		return err
	}
	rec, ok := origin.Find(recs, origin.Migration, o.From)
	if !ok || rec.State != origin.Complete {
		return &Refused{fmt.Sprintf("%s is not a completed migration of %s: run ste migrate without --follow first", o.To, o.From)}
	}
	o.Partitions = rec.Partitions
	return copier.Follow(ctx, followOptions(o, rec.Cutover[topology.Names{NS: o.From}.Inbound()], progress))
}

// followOptions are the bridge's: from the old inbound to the new one, by
// key, starting at the cut-over unless the bridge's group has a position.
func followOptions(o Options, start map[int32]int64, progress func(int64)) copier.FollowOptions {
	from, to := topology.Names{NS: o.From}, topology.Names{NS: o.To}
	return copier.FollowOptions{Dial: o.Dial, From: from.Inbound(), To: to.Inbound(),
		Route: copier.Route{Partitions: o.Partitions}, Group: FollowGroup(o.From, o.To), Start: start, Progress: progress}
}

// FollowGroup is the consumer group of the bridge from one namespace to
// another; its commits on the old inbound are the bridge's position.
func FollowGroup(from, to string) string { return topology.Names{NS: to}.FollowGroup(from) }
