// Package replay makes sandboxes for backtests: a namespace holding a range
// of another namespace's inbound records, with the same partitions and the
// original record times, and reference data of the caller's choice — the
// change being backtested, or the source's current reference data. The
// processors then run on the sandbox like on any namespace (Run waits until
// every group is at lag 0), and `ste diff` compares its outcome with
// another's. See docs/backtests.md.
//
// A sandbox is marked by its origin (topics/origin): its processors judge
// the Created rule by record time (instance.Options.Sandbox), and only a
// sandbox can be deleted by Delete. A replay reads the source and writes
// only the sandbox.
package replay

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/copier"
	"github.com/ste-utility/ste/topics/origin"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/trust"
)

// Options configure Replay.
type Options struct {
	Dial copier.Dial
	// Secret proves the origin records the replay writes and reads (the
	// utility's shared secret, trust).
	Secret *trust.Secret
	// From is the namespace replayed; To the sandbox.
	From, To string
	// Since and Until bound the inbound records copied: by record time
	// (the live inbound's time is when the utility received a record) or
	// by offset per partition; zero bounds are open.
	Since, Until copier.Bound
	// Refdata is published to the sandbox (RefdataDir names it in the
	// origin); nil copies From's reference data as it is now — today's
	// state, not the state as of Since.
	Refdata    *refdata.Set
	RefdataDir string
	// Partitions of the sandbox; 0 is From's count. With another count,
	// records are placed by key with the shared partitioner.
	Partitions int32
	// Append allows a sandbox that already holds inbound records (a
	// second range); without it such a sandbox is refused.
	Append bool
	// Topics configure the sandbox's topics (retention, replication); its
	// inbound always keeps the producer's record times.
	Topics topics.Options
	// Rate and Progress: as copier.Options (Progress gets the total too).
	Rate     float64
	Progress func(copied, total int64)
}

// Result says what a replay did.
type Result struct {
	From       string        `json:"from"`
	To         string        `json:"to"`
	Partitions int32         `json:"partitions"`
	Spans      []copier.Span `json:"spans"`
	Copied     int64         `json:"copied"`
	Refdata    string        `json:"refdata"` // "source" or the directory
	Seconds    float64       `json:"seconds"`
	MsgPerSec  float64       `json:"msgs_per_sec"` // of the copying alone
	// Windows is the number of windows of record time copied one after
	// another (1: all at once).
	Windows int `json:"windows"`
}

// Refused is a replay (or a delete) that must not run.
type Refused struct{ Reason string }

func (r *Refused) Error() string { return r.Reason }

// Replay copies o.From's inbound records in the range into sandbox o.To
// (Prepare, then Copy at once).
func Replay(ctx context.Context, o Options) (Result, error) {
	p, err := Prepare(ctx, o)
	if err != nil {
		return p.Result(), err
	}
	return p.Copy(ctx, 0, nil)
}

// Prepared is a sandbox made and marked, its reference data published,
// its records not yet copied.
type Prepared struct {
	o     Options
	res   Result
	rec   origin.Record
	start time.Time
}

// Result is what the replay did so far.
func (p *Prepared) Result() Result {
	if p == nil {
		return Result{}
	}
	return p.res
}

// Prepare checks the source and the sandbox, makes the sandbox's topics,
// marks it a sandbox in its origin and publishes its reference data. Its
// processors may start then (they must not before: a process makes missing
// topics with the live specs).
func Prepare(ctx context.Context, o Options) (*Prepared, error) {
	p := &Prepared{o: o, start: time.Now(), res: Result{From: o.From, To: o.To, Refdata: "source"}}
	if o.RefdataDir != "" {
		p.res.Refdata = o.RefdataDir
	}
	if o.From == "" || o.To == "" {
		return p, errors.New("replay: two namespaces are needed")
	}
	if o.From == o.To {
		return p, &Refused{"--from and --to are the same namespace: a replay goes into a sandbox of its own"}
	}
	cl, err := o.Dial()
	if err != nil {
		return p, err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	from, to := topology.Names{NS: o.From}, topology.Names{NS: o.To}

	spans, err := copier.Spans(ctx, adm, from.Inbound(), o.Since, o.Until)
	if errors.Is(err, kerr.UnknownTopicOrPartition) {
		return p, &Refused{fmt.Sprintf("namespace %s has no inbound topic %s", o.From, from.Inbound())}
	}
	if err != nil {
		return p, err
	}
	p.res.Spans = spans
	parts := o.Partitions
	if parts <= 0 {
		parts = int32(len(spans))
	}
	p.res.Partitions = parts
	prev, err := checkSandbox(ctx, adm, o)
	if err != nil {
		return p, err
	}
	topts := o.Topics
	topts.Partitions, topts.ProducerTime = parts, true
	if _, err := topics.Create(ctx, adm, o.To, topts); err != nil {
		return p, err
	}
	p.rec = origin.Record{Kind: origin.Replay, From: o.From, State: origin.Started, Partitions: parts,
		Started: time.Now().UTC(), Refdata: p.res.Refdata, Spans: append(prev.Spans, spans...)}
	// Marked a sandbox before anything is in it: a replay cut short is
	// still a sandbox (Delete removes it).
	if err := origin.Write(ctx, cl, o.To, o.Secret, p.rec); err != nil {
		return p, err
	}
	if o.Refdata != nil {
		if _, err := topics.PublishRefdata(ctx, cl, o.To, o.Refdata); err != nil {
			return p, err
		}
		return p, nil
	}
	want, err := copier.Fold(ctx, o.Dial, from.Refdata(), nil)
	if err != nil {
		return p, err
	}
	_, err = copier.Converge(ctx, copier.ConvergeOptions{Dial: o.Dial, Topic: to.Refdata(), Partitions: 1, Want: want})
	return p, err
}

// Copy copies the records into the sandbox and marks it complete. With a
// window above zero it copies them a window of record time after another,
// across all partitions, and calls settle after each (the processors
// running on the sandbox wait there until they are at lag 0): processed as
// a backlog, partitions would run apart by hours of event time, and a trade
// would be judged by a clock its own partition's messages had not reached
// live; windowed, they stay within one window of each other.
func (p *Prepared) Copy(ctx context.Context, window time.Duration, settle func(context.Context) error) (Result, error) {
	o, res := p.o, &p.res
	cl, err := o.Dial()
	if err != nil {
		return *res, err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	from, to := topology.Names{NS: o.From}, topology.Names{NS: o.To}
	total := copier.Total(res.Spans)
	var progress func(int64)
	var done int64
	if o.Progress != nil {
		progress = func(n int64) { o.Progress(done+n, total) }
	}
	chunks := [][]copier.Span{res.Spans}
	if window > 0 {
		if chunks, err = windows(ctx, o.Dial, adm, from.Inbound(), res.Spans, window); err != nil {
			return *res, err
		}
	}
	var copySeconds float64
	for _, chunk := range chunks {
		cr, err := copier.Copy(ctx, copier.Options{Dial: o.Dial, From: from.Inbound(), To: to.Inbound(), Spans: chunk,
			Route: copier.Route{Partitions: res.Partitions, Keep: res.Partitions == int32(len(res.Spans))}, Rate: o.Rate, Progress: progress})
		done += cr.Copied
		copySeconds += cr.Seconds
		res.Copied = done
		if err != nil {
			return *res, err
		}
		if settle != nil {
			if err := settle(ctx); err != nil {
				return *res, err
			}
		}
	}
	p.rec.State, p.rec.Completed = origin.Complete, time.Now().UTC()
	p.rec.Copied = map[string]int64{from.Inbound(): res.Copied}
	if err := origin.Write(ctx, cl, o.To, o.Secret, p.rec); err != nil {
		return *res, err
	}
	res.Windows = len(chunks)
	res.Seconds = time.Since(p.start).Seconds()
	res.MsgPerSec = float64(res.Copied) / max(copySeconds, 1e-9)
	return *res, nil
}

// windows cuts spans at every window of record time, from the earliest
// first record: chunk k holds each partition's records before start + k ×
// window that no earlier chunk holds. A stretch without records (a night,
// a weekend) is skipped, not walked through.
func windows(ctx context.Context, dial copier.Dial, adm *kadm.Client, topic string, spans []copier.Span, window time.Duration) ([][]copier.Span, error) {
	cur := map[int32]int64{}
	for _, s := range spans {
		cur[s.Partition] = s.From
	}
	var chunks [][]copier.Span
	for {
		next, err := earliest(ctx, dial, topic, spans, cur)
		if err != nil || next.IsZero() {
			return chunks, err // zero: every span copied
		}
		at := next.Add(window)
		offs, err := adm.ListOffsetsAfterMilli(ctx, at.UnixMilli(), topic)
		if err == nil {
			err = offs.Error()
		}
		if err != nil {
			return nil, fmt.Errorf("%s: offsets at %s: %w", topic, at.Format(time.RFC3339), err)
		}
		var chunk []copier.Span
		for _, s := range spans {
			end := s.To
			if o, ok := offs.Lookup(topic, s.Partition); ok && o.Offset >= 0 {
				end = min(end, o.Offset)
			}
			if end > cur[s.Partition] {
				chunk = append(chunk, copier.Span{Partition: s.Partition, From: cur[s.Partition], To: end})
				cur[s.Partition] = end
			}
		}
		if len(chunk) == 0 {
			// The time index put nothing before at (times out of order):
			// take the rest at once rather than loop.
			for _, s := range spans {
				if cur[s.Partition] < s.To {
					chunk = append(chunk, copier.Span{Partition: s.Partition, From: cur[s.Partition], To: s.To})
					cur[s.Partition] = s.To
				}
			}
		}
		chunks = append(chunks, chunk)
	}
}

// earliest is the earliest record time among the next record of each span
// from cur (zero when every span is done).
func earliest(ctx context.Context, dial copier.Dial, topic string, spans []copier.Span, cur map[int32]int64) (time.Time, error) {
	var heads []copier.Span
	for _, s := range spans {
		if cur[s.Partition] < s.To {
			heads = append(heads, copier.Span{Partition: s.Partition, From: cur[s.Partition], To: cur[s.Partition] + 1})
		}
	}
	var first time.Time
	_, err := copier.Read(ctx, dial, topic, heads, func(r *kgo.Record) error {
		if first.IsZero() || r.Timestamp.Before(first) {
			first = r.Timestamp
		}
		return nil
	})
	return first, err
}

// checkSandbox refuses a target that is not a sandbox (or a new
// namespace), or one that holds inbound records without o.Append, or whose
// inbound stamps records with the broker's time. It returns the sandbox's
// earlier replay record from o.From, if any.
func checkSandbox(ctx context.Context, adm *kadm.Client, o Options) (origin.Record, error) {
	to := topology.Names{NS: o.To}
	recs, err := origin.Read(ctx, o.Dial, o.To, o.Secret)
	if err != nil {
		return origin.Record{}, err
	}
	prev, _ := origin.Find(recs, origin.Replay, o.From)
	if len(recs) > 0 && !origin.IsSandbox(recs) {
		return prev, &Refused{fmt.Sprintf("%s was made by a %s from %s, not a replay: a sandbox is a namespace of its own", o.To, recs[0].Kind, recs[0].From)}
	}
	held, err := inboundHeld(ctx, adm, to.Inbound())
	if err != nil {
		return prev, err
	}
	switch {
	case held > 0 && len(recs) == 0:
		return prev, &Refused{fmt.Sprintf("%s holds %d inbound records and is no sandbox: a replay never writes into a live namespace", o.To, held)}
	case held > 0 && !o.Append:
		return prev, &Refused{fmt.Sprintf("sandbox %s already holds %d inbound records: --append to add these, or ste replay --delete %s first", o.To, held, o.To)}
	}
	if rc, err := adm.DescribeTopicConfigs(ctx, to.Inbound()); err == nil {
		for _, r := range rc {
			for _, c := range r.Configs {
				if c.Key == "message.timestamp.type" && c.Value != nil && *c.Value == "LogAppendTime" && r.Err == nil {
					return prev, &Refused{fmt.Sprintf("%s exists with an inbound stamped by the broker (LogAppendTime): the records' original times would be lost; replay into a new namespace", o.To)}
				}
			}
		}
	}
	return prev, nil
}

// inboundHeld is the number of records an inbound topic holds (0 when it
// does not exist).
func inboundHeld(ctx context.Context, adm *kadm.Client, topic string) (int64, error) {
	spans, err := copier.EndSpans(ctx, adm, topic)
	if errors.Is(err, kerr.UnknownTopicOrPartition) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return copier.Total(spans), nil
}

// Deleted says what Delete removed.
type Deleted struct {
	Topics []string `json:"topics"`
	Groups []string `json:"groups"`
}

// Delete removes sandbox ns: its topics and its consumer groups (every
// group named <ns>.…: the processors', analytics', a follow's). A
// namespace whose origin does not say, with the utility's proof (secret),
// that it was made by a replay is refused; so is one whose inbound holds
// more records than its replays copied — records someone sent it, as to a
// live namespace: one forged origin record must not be enough to delete
// one.
func Delete(ctx context.Context, dial copier.Dial, ns string, secret *trust.Secret) (Deleted, error) {
	var d Deleted
	recs, err := origin.Read(ctx, dial, ns, secret)
	if err != nil {
		return d, err
	}
	if !origin.IsSandbox(recs) {
		why := "it has no origin"
		if len(recs) > 0 {
			why = "its origin is a " + recs[0].Kind + " from " + recs[0].From
		}
		return d, &Refused{fmt.Sprintf("%s is not a sandbox (%s): ste replay --delete removes only namespaces made by ste replay", ns, why)}
	}
	cl, err := dial()
	if err != nil {
		return d, err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	var copied int64
	for _, r := range recs {
		if r.Kind == origin.Replay {
			copied += copier.Total(r.Spans)
		}
	}
	held, err := inboundHeld(ctx, adm, topology.Names{NS: ns}.Inbound())
	if err != nil {
		return d, err
	}
	if held > copied {
		return d, &Refused{fmt.Sprintf("%s's inbound holds %d records, more than the %d its replays copied: records were sent to it as to a live namespace, so it is not deleted",
			ns, held, copied)}
	}
	groups, err := adm.ListGroups(ctx)
	if err != nil {
		return d, fmt.Errorf("list groups: %w", err)
	}
	for _, g := range groups.Groups() {
		if strings.HasPrefix(g, ns+".") {
			d.Groups = append(d.Groups, g)
		}
	}
	if len(d.Groups) > 0 {
		resp, err := adm.DeleteGroups(ctx, d.Groups...)
		if err != nil {
			return d, fmt.Errorf("delete groups: %w", err)
		}
		if err := resp.Error(); err != nil {
			return d, fmt.Errorf("delete groups (is a process still running on %s?): %w", ns, err)
		}
	}
	var names []string
	for _, s := range topics.Specs(ns, topics.Options{}) {
		names = append(names, s.Name)
	}
	have, err := adm.ListTopics(ctx, names...)
	if err != nil {
		return d, err
	}
	for name, td := range have {
		if td.Err == nil {
			d.Topics = append(d.Topics, name)
		}
	}
	slices.Sort(d.Topics)
	if len(d.Topics) > 0 {
		resp, err := adm.DeleteTopics(ctx, d.Topics...)
		if err == nil {
			err = resp.Error()
		}
		if err != nil {
			return d, fmt.Errorf("delete topics: %w", err)
		}
	}
	return d, nil
}
