package copier_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/internal/testing/brokertest"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/copier"
)

type env struct {
	t    *testing.T
	dial copier.Dial
	cl   *kgo.Client
	adm  *kadm.Client
}

func newEnv(t *testing.T) *env {
	t.Helper()
	_, dial := brokertest.Start(t)
	cl := brokertest.Client(t, dial, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	return &env{t: t, dial: dial, cl: cl, adm: kadm.NewClient(cl)}
}

func (e *env) topic(name string, parts int32, cfg map[string]*string) {
	e.t.Helper()
	if _, err := e.adm.CreateTopic(context.Background(), parts, 1, cfg, name); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) produce(recs ...*kgo.Record) {
	e.t.Helper()
	if err := e.cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		e.t.Fatal(err)
	}
}

// read returns every record of topic by partition, in offset order.
func (e *env) read(topic string) map[int32][]*kgo.Record {
	e.t.Helper()
	ctx := context.Background()
	spans, err := copier.EndSpans(ctx, e.adm, topic)
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[int32][]*kgo.Record{}
	if _, err := copier.Read(ctx, e.dial, topic, spans, func(r *kgo.Record) error {
		out[r.Partition] = append(out[r.Partition], r)
		return nil
	}); err != nil {
		e.t.Fatal(err)
	}
	return out
}

var base = time.Date(2026, 11, 2, 1, 0, 0, 0, time.UTC)

// source writes 4 partitions of records at one-second steps of record time
// (producer times kept: CreateTime), every third without a key, with a header.
func (e *env) source(name string) []*kgo.Record {
	e.topic(name, 4, map[string]*string{"message.timestamp.type": kadm.StringPtr("CreateTime")})
	var recs []*kgo.Record
	for i := range 200 {
		r := &kgo.Record{Topic: name, Partition: int32(i % 4), Value: []byte(fmt.Sprintf("v%03d", i)),
			Timestamp: base.Add(time.Duration(i) * time.Second),
			Headers:   []kgo.RecordHeader{{Key: "h", Value: []byte(fmt.Sprint(i))}}}
		if i%3 != 0 {
			r.Key = []byte(fmt.Sprintf("k%d", i%17))
		}
		recs = append(recs, r)
	}
	e.produce(recs...)
	return recs
}

func same(a, b *kgo.Record) bool {
	return string(a.Key) == string(b.Key) && (a.Key == nil) == (b.Key == nil) && string(a.Value) == string(b.Value) &&
		a.Timestamp.Equal(b.Timestamp) && fmt.Sprint(a.Headers) == fmt.Sprint(b.Headers)
}

// TestCopyKeepsPartitionsOrderAndTimes: a time range copied into a topic
// of the same count is the source's records of that range, record for
// record, partition for partition.
func TestCopyKeepsPartitionsOrderAndTimes(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.source("a.in")
	e.topic("b.in", 4, map[string]*string{"message.timestamp.type": kadm.StringPtr("CreateTime")})
	since, until := base.Add(40*time.Second), base.Add(120*time.Second)
	spans, err := copier.Spans(ctx, e.adm, "a.in", copier.Bound{Time: since}, copier.Bound{Time: until})
	if err != nil {
		t.Fatal(err)
	}
	if copier.Total(spans) != 80 {
		t.Fatalf("spans %v: %d records, want the 80 of [40 s, 120 s)", spans, copier.Total(spans))
	}
	var last int64
	res, err := copier.Copy(ctx, copier.Options{Dial: e.dial, From: "a.in", To: "b.in", Spans: spans,
		Route: copier.Route{Partitions: 4, Keep: true}, Progress: func(n int64) { last = n }})
	if err != nil || res.Copied != 80 || last != 80 {
		t.Fatalf("copied %+v (progress %d): %v", res, last, err)
	}
	src, dst := e.read("a.in"), e.read("b.in")
	for p := int32(0); p < 4; p++ {
		var want []*kgo.Record
		for _, r := range src[p] {
			if !r.Timestamp.Before(since) && r.Timestamp.Before(until) {
				want = append(want, r)
			}
		}
		if len(dst[p]) != len(want) {
			t.Fatalf("partition %d: %d records, want %d", p, len(dst[p]), len(want))
		}
		for i := range want {
			if !same(dst[p][i], want[i]) {
				t.Fatalf("partition %d record %d: %+v, want %+v", p, i, dst[p][i], want[i])
			}
		}
	}
}

// TestCopyRekeysWithTheSharedPartitioner: into another partition count a
// keyed record lands where goka looks for its key, keyless records keep
// their partition modulo the count, and each key keeps its order.
func TestCopyRekeysWithTheSharedPartitioner(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	recs := e.source("a.in")
	e.topic("c.in", 6, nil)
	// Offsets as bounds: partition 1 from offset 10, the rest whole.
	spans, err := copier.Spans(ctx, e.adm, "a.in", copier.Bound{Offsets: map[int32]int64{1: 10}}, copier.Bound{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := copier.Copy(ctx, copier.Options{Dial: e.dial, From: "a.in", To: "c.in", Spans: spans, Route: copier.Route{Partitions: 6}}); err != nil {
		t.Fatal(err)
	}
	got := e.read("c.in")
	byKey := map[string][]string{}
	n := 0
	for p, rs := range got {
		for _, r := range rs {
			n++
			want := int32(-1)
			if r.Key != nil {
				want = topics.PartitionOf(string(r.Key), 6)
			} else {
				var i int
				fmt.Sscanf(string(r.Value), "v%d", &i)
				want = int32(i%4) % 6
			}
			if p != want {
				t.Fatalf("%s (key %q) in partition %d, want %d", r.Value, r.Key, p, want)
			}
			var i int
			fmt.Sscanf(string(r.Value), "v%d", &i)
			k := fmt.Sprintf("%s from %d", r.Key, i%4)
			byKey[k] = append(byKey[k], string(r.Value))
		}
	}
	skipped := 0
	wantByKey := map[string][]string{}
	for i, r := range recs {
		if r.Partition == 1 && i/4 < 10 {
			skipped++
			continue
		}
		k := fmt.Sprintf("%s from %d", r.Key, r.Partition)
		wantByKey[k] = append(wantByKey[k], string(r.Value))
	}
	if n != len(recs)-skipped || skipped != 10 {
		t.Fatalf("%d records copied, want %d", n, len(recs)-skipped)
	}
	// The order of each key's records from one source partition is kept.
	for k, vs := range wantByKey {
		if !slices.Equal(byKey[k], vs) {
			t.Fatalf("key %s: %v, want %v", k, byKey[k], vs)
		}
	}
}

func TestSpansRefuseAPartitionTheTopicLacks(t *testing.T) {
	e := newEnv(t)
	e.source("a.in")
	if _, err := copier.Spans(context.Background(), e.adm, "a.in", copier.Bound{Offsets: map[int32]int64{7: 0}}, copier.Bound{}); err == nil {
		t.Fatal("partition 7 of a 4-partition topic was accepted")
	}
	if _, err := copier.Spans(context.Background(), e.adm, "nope", copier.Bound{}, copier.Bound{}); err == nil {
		t.Fatal("a missing topic was accepted")
	}
}

// TestConvergeWritesOnlyWhatDiffers: a compacted topic converged to a set
// of values holds them; a second run writes nothing; a topic holding part
// of them, a stale value and a key not wanted (a run cut short, a changed
// source) is completed with only the difference.
func TestConvergeWritesOnlyWhatDiffers(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.topic("t.table", 5, map[string]*string{"cleanup.policy": kadm.StringPtr("compact")})
	want := map[string][]byte{}
	for i := range 300 {
		want[fmt.Sprintf("key-%d", i)] = []byte(fmt.Sprintf("value-%d", i))
	}
	o := copier.ConvergeOptions{Dial: e.dial, Topic: "t.table", Partitions: 5, Want: want}
	// Part of it is there already, one value is stale, one key is not wanted.
	var pre []*kgo.Record
	for i := range 100 {
		k := []byte(fmt.Sprintf("key-%d", i))
		pre = append(pre, &kgo.Record{Topic: "t.table", Key: k, Value: want[string(k)], Partition: topics.PartitionOf(string(k), 5)})
	}
	pre[7].Value = []byte("stale")
	gone := []byte("key-gone")
	pre = append(pre, &kgo.Record{Topic: "t.table", Key: gone, Value: []byte("x"), Partition: topics.PartitionOf(string(gone), 5)})
	e.produce(pre...)

	res, err := copier.Converge(ctx, o)
	if err != nil || res.Written != 201 || res.Deleted != 1 {
		t.Fatalf("first run %+v: %v (want 200 missing + 1 stale written, 1 deleted)", res, err)
	}
	held, err := copier.Fold(ctx, e.dial, "t.table", nil)
	if err != nil || !maps.EqualFunc(held, want, func(a, b []byte) bool { return string(a) == string(b) }) {
		t.Fatalf("the topic holds %d keys, want %d: %v", len(held), len(want), err)
	}
	for p, rs := range e.read("t.table") {
		for _, r := range rs {
			if p != topics.PartitionOf(string(r.Key), 5) {
				t.Fatalf("key %s in partition %d", r.Key, p)
			}
		}
	}
	again, err := copier.Converge(ctx, o)
	if err != nil || again.Written+again.Deleted != 0 {
		t.Fatalf("second run %+v: %v, want nothing written", again, err)
	}
}

// TestFollowResumesFromItsCommits: Follow starts at the cut-over, copies
// what arrives, and a second Follow after a stop continues where the first
// committed: every record after the cut-over once, none before it.
func TestFollowResumesFromItsCommits(t *testing.T) {
	e := newEnv(t)
	e.topic("old.in", 3, nil)
	e.topic("new.in", 5, nil)
	rec := func(i int) *kgo.Record {
		return &kgo.Record{Topic: "old.in", Partition: int32(i % 3), Key: []byte(fmt.Sprintf("s%d", i%7)), Value: []byte(fmt.Sprint(i))}
	}
	var before []*kgo.Record
	for i := range 30 {
		before = append(before, rec(i))
	}
	e.produce(before...)
	cut := map[int32]int64{0: 10, 1: 10, 2: 10} // everything so far was processed
	follow := func(from, to int) {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		var copied int64
		go func() {
			done <- copier.Follow(ctx, copier.FollowOptions{Dial: e.dial, From: "old.in", To: "new.in", Route: copier.Route{Partitions: 5},
				Group: "new.follow", Start: cut, Progress: func(n int64) { copied = n }})
		}()
		var recs []*kgo.Record
		for i := from; i < to; i++ {
			recs = append(recs, rec(i))
		}
		e.produce(recs...)
		deadline := time.Now().Add(20 * time.Second)
		for {
			n := 0
			for _, rs := range e.read("new.in") {
				n += len(rs)
			}
			if n >= to-30 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d records bridged after 20 s, want %d", n, to-30)
			}
			select {
			case err := <-done:
				t.Fatalf("Follow ended: %v", err)
			case <-time.After(50 * time.Millisecond):
			}
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if copied != int64(to-from) {
			t.Fatalf("this Follow copied %d records, want %d", copied, to-from)
		}
	}
	follow(30, 60)
	// Records that arrive while no bridge runs are caught up at once, then
	// a bridge follows from there.
	var recs []*kgo.Record
	for i := 60; i < 68; i++ {
		recs = append(recs, rec(i))
	}
	e.produce(recs...)
	o := copier.FollowOptions{Dial: e.dial, From: "old.in", To: "new.in", Route: copier.Route{Partitions: 5}, Group: "new.follow", Start: cut}
	if n, err := copier.CatchUp(context.Background(), o); err != nil || n != 8 {
		t.Fatalf("caught up %d records, want 8: %v", n, err)
	}
	if n, err := copier.CatchUp(context.Background(), o); err != nil || n != 0 {
		t.Fatalf("a second catch-up copied %d records: %v", n, err)
	}
	follow(68, 75)
	seen := map[string]int{}
	for p, rs := range e.read("new.in") {
		for _, r := range rs {
			seen[string(r.Value)]++
			if p != topics.PartitionOf(string(r.Key), 5) {
				t.Fatalf("%s in partition %d", r.Value, p)
			}
		}
	}
	for i := range 75 {
		if n := seen[fmt.Sprint(i)]; (i < 30 && n != 0) || (i >= 30 && n != 1) {
			t.Fatalf("record %d bridged %d times (the cut-over is at 30)", i, n)
		}
	}
}
