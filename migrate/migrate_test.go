package migrate_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/instance/registry"
	"github.com/ste-utility/ste/internal/testing/brokertest"
	"github.com/ste-utility/ste/migrate"
	"github.com/ste-utility/ste/processors/changelog"
	"github.com/ste-utility/ste/processors/fence"
	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/copier"
	"github.com/ste-utility/ste/topics/origin"
	"github.com/ste-utility/ste/topology"
	"github.com/ste-utility/ste/trust"
)

// testSecret is the utility secret of the tests' processes.
var testSecret, _ = trust.New([]byte("0123456789abcdef0123456789abcdef"))

type env struct {
	t    *testing.T
	dial copier.Dial
	cl   *kgo.Client
	adm  *kadm.Client
	live []registry.Entry
}

func newEnv(t *testing.T) *env {
	t.Helper()
	_, dial := brokertest.Start(t)
	cl := brokertest.Client(t, dial, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	return &env{t: t, dial: dial, cl: cl, adm: kadm.NewClient(cl)}
}

func (e *env) options(from, to string, parts int32) migrate.Options {
	return migrate.Options{Dial: e.dial, Secret: testSecret, From: from, To: to, Partitions: parts,
		Instances: func(context.Context, string) ([]registry.Entry, error) { return e.live, nil }}
}

const hour = int64(time.Hour)

// written is what state wrote, as its own bookkeeping has it (not read back
// through the calls migrate makes): each table's final value of every key
// still held, and each old partition's clock — the newest event time of
// any value written there, overwritten or deleted since.
type written struct {
	values map[string]map[string][]byte // table changelog -> key -> value
	clocks map[string]map[int32]int64   // table changelog -> old partition -> clock
}

// state writes a namespace of 4 partitions whose tables hold trades,
// tombstones and identities, each in the partition goka would give its key,
// with partition clocks far apart (partition p's newest trade is at p+1
// days), overwritten values and deleted keys on the way.
func (e *env) state(ns string) written {
	e.t.Helper()
	ctx := context.Background()
	if _, err := topics.Create(ctx, e.adm, ns, topics.Options{Partitions: 4}); err != nil {
		e.t.Fatal(err)
	}
	n := topology.Names{NS: ns}
	match, ids := topology.Table(n.MatchGroup()), topology.Table(n.IdentityGroup())
	var recs []*kgo.Record
	batches := map[int32][]byte{}
	w := written{values: map[string]map[string][]byte{match: {}, ids: {}}, clocks: map[string]map[int32]int64{match: {}, ids: {}}}
	// final keeps what a key of table holds after this write (newest: the
	// value's event time; a deletion keeps the clock it had).
	final := func(table, key string, v []byte, newest int64) {
		p := topics.PartitionOf(key, 4)
		if v == nil {
			delete(w.values[table], key)
			return
		}
		w.values[table][key] = v
		w.clocks[table][p] = max(w.clocks[table][p], newest)
	}
	put := func(topic, key string, v []byte) {
		recs = append(recs, &kgo.Record{Topic: topic, Key: []byte(key), Value: v, Partition: topics.PartitionOf(key, 4)})
	}
	for i := range 400 {
		k := schemas.TradeKey(uint64(i)*0x9e3779b97f4a7c15 + 1)
		p := int64(topics.PartitionOf(k.String(), 4))
		newest := (p+1)*24*hour - int64(i)*hour/10 // partition p's clock: (p+1) days
		if i%10 == 0 {
			tomb := matching.MarshalTombstone(k, matching.Tombstone{PurgedAt: newest, Version: 2, StatusN: 5})
			put(match, k.String(), tomb)
			final(match, k.String(), tomb, newest)
			continue
		}
		old := &matching.Trade{Key: k, Newest: newest - hour, Keys: []schemas.Key{{TradeRef: fmt.Sprint(i)}}}
		b, _ := old.MarshalBinary()
		put(match, k.String(), b) // overwritten below
		final(match, k.String(), b, newest-hour)
		t := &matching.Trade{Key: k, Newest: newest, Version: i % 3, StatusN: i % 4, Keys: []schemas.Key{{TradeRef: fmt.Sprint(i)}}}
		b, _ = t.MarshalBinary()
		put(match, k.String(), b)
		final(match, k.String(), b, newest)
		id := fmt.Sprintf("BRKASGSGXXX:M%d", i)
		if i%5 == 1 && i%7 != 0 {
			// Written by the identity stage's producer, in batch records.
			ip := topics.PartitionOf(id, 4)
			batches[ip] = changelog.AppendEntry(batches[ip], id, identity(newest, k))
			final(ids, id, identity(newest, k), newest)
			continue
		}
		put(ids, id, identity(newest, k))
		final(ids, id, identity(newest, k), newest)
		if i%7 == 0 {
			put(ids, id, nil) // forgotten
			final(ids, id, nil, 0)
		}
	}
	for p, b := range batches {
		recs = append(recs, &kgo.Record{Topic: ids, Key: []byte(changelog.BatchKey(p, 4)), Value: b, Partition: p})
	}
	put(n.Refdata(), "security:SG1", []byte(`{"isin":"SG1"}`))
	put(n.Refdata(), "security:SG1", []byte(`{"isin":"SG1","status":"SUSPENDED"}`))
	put(n.Refdata(), "currency:SGD", []byte(`{"code":"SGD"}`))
	for _, r := range recs {
		if r.Topic == n.Refdata() {
			r.Partition = 0
		}
	}
	if err := e.cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		e.t.Fatal(err)
	}
	return w
}

// identity is an identity table value (pipeline's layout: version, digest,
// Created, trade key).
func identity(created int64, k schemas.TradeKey) []byte {
	b := make([]byte, 1, 33)
	b[0] = 1
	b = append(b, make([]byte, 16)...)
	b = binary.BigEndian.AppendUint64(b, uint64(created))
	return binary.BigEndian.AppendUint64(b, uint64(k))
}

// partitions reads a topic into key -> value by partition, keeping every
// record's watermark for the clock a store would rebuild.
func (e *env) partitions(topic string, st topology.Stage) (map[string][]byte, map[int32]int64, map[string]int32) {
	e.t.Helper()
	clocks, where := map[int32]int64{}, map[string]int32{}
	fold := map[string][]byte{} // a batch record's writes each under its key, as a store reads them
	_, err := copier.Fold(context.Background(), e.dial, topic, func(r *kgo.Record) {
		err := changelog.EachValue(st, string(r.Key), r.Value, func(k string, v []byte) {
			where[k] = r.Partition
			if v == nil {
				delete(fold, k)
				return
			}
			fold[k] = v
			if w, ok := changelog.Watermark(st, v); ok {
				clocks[r.Partition] = max(clocks[r.Partition], w)
			}
		})
		if err != nil {
			e.t.Errorf("%s/%d at %d: %v", topic, r.Partition, r.Offset, err)
		}
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return fold, clocks, where
}

func equalValues(a, b map[string][]byte) bool {
	return maps.EqualFunc(a, b, func(x, y []byte) bool { return string(x) == string(y) })
}

// TestMigrateCarriesTablesAndClocks: every value lands where goka looks for
// its key among the new partitions, tombstones included; each new partition
// starts at the clock of the old partition its values come from (4 → 6
// spreads each old partition over several new ones, so some need a
// marker); reference data is carried; a second run changes nothing.
func TestMigrateCarriesTablesAndClocks(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	wrote := e.state("old")
	// Records that arrived after the processors stopped (never validated).
	var late []*kgo.Record
	for i := range 5 {
		late = append(late, &kgo.Record{Topic: "old.inbound", Partition: int32(i % 4), Key: []byte(fmt.Sprintf("S%d", i)), Value: []byte(fmt.Sprint(i))})
	}
	if err := e.cl.ProduceSync(ctx, late...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	res, err := migrate.Migrate(ctx, e.options("old", "new", 6))
	if err != nil {
		t.Fatal(err)
	}
	if res.AlreadyDone || res.Origin.State != origin.Complete || len(res.Steps) != 3 || res.Bridged != 5 {
		t.Fatalf("%+v", res)
	}
	if in, _, where := e.partitions("new.inbound", 0); len(where) != 5 || len(in) != 5 {
		t.Fatalf("new.inbound holds %d records, want the 5 that arrived after the old namespace stopped", len(where))
	} else {
		for k, p := range where {
			if p != topics.PartitionOf(k, 6) {
				t.Fatalf("inbound record %s in partition %d", k, p)
			}
		}
	}
	from, to := topology.Names{NS: "old"}, topology.Names{NS: "new"}
	markers := 0
	for _, c := range []struct {
		src, dst string
		st       topology.Stage
	}{
		{topology.Table(from.MatchGroup()), topology.Table(to.MatchGroup()), topology.StageMatch},
		{topology.Table(from.IdentityGroup()), topology.Table(to.IdentityGroup()), topology.StageIdentity},
	} {
		// What the old namespace holds, by state's own bookkeeping; what
		// the new one holds, read back.
		old, oldClock := wrote.values[c.src], wrote.clocks[c.src]
		got, newClock, newWhere := e.partitions(c.dst, c.st)
		for k, v := range got {
			if newWhere[k] != topics.PartitionOf(k, 6) {
				t.Fatalf("%s: key %s in partition %d", c.dst, k, newWhere[k])
			}
			if _, ok := old[k]; !ok {
				markers++
				if w, _ := changelog.Watermark(c.st, v); w != newClock[newWhere[k]] {
					t.Fatalf("%s: marker %s at %d, partition clock %d", c.dst, k, w, newClock[newWhere[k]])
				}
				delete(got, k)
			}
		}
		if !equalValues(old, got) || len(got) == 0 {
			t.Fatalf("%s holds %d values, %s %d", c.dst, len(got), c.src, len(old))
		}
		want := map[int32]int64{}
		for k := range old {
			p := topics.PartitionOf(k, 6)
			want[p] = max(want[p], oldClock[topics.PartitionOf(k, 4)])
		}
		if !maps.Equal(want, newClock) {
			t.Fatalf("%s: clocks %v, want %v (old partitions: %v)", c.dst, newClock, want, oldClock)
		}
	}
	if markers == 0 {
		t.Fatal("no partition needed a clock marker: the test does not spread old partitions")
	}
	ref, _, _ := e.partitions(to.Refdata(), 0)
	if string(ref["security:SG1"]) != `{"isin":"SG1","status":"SUSPENDED"}` || len(ref) != 2 {
		t.Fatalf("reference data %q", ref)
	}

	ends := func() string {
		var s []string
		for _, topic := range []string{to.Refdata(), topology.Table(to.MatchGroup()), topology.Table(to.IdentityGroup()), to.Origin()} {
			sp, err := copier.EndSpans(ctx, e.adm, topic)
			if err != nil {
				t.Fatal(err)
			}
			s = append(s, fmt.Sprint(sp))
		}
		return strings.Join(s, " ")
	}
	before := ends()
	again, err := migrate.Migrate(ctx, e.options("old", "new", 6))
	if err != nil || !again.AlreadyDone || ends() != before {
		t.Fatalf("second run: %+v %v; topics %s, were %s", again, err, ends(), before)
	}
}

// TestMigrateCutShortIsFinishedByTheNextRun: a migration stopped in the
// middle of its copy (the context ends; kill -9 in the e2e suite) leaves the
// origin "started"; the next run completes it, and the new namespace then
// holds what a clean migration gives.
func TestMigrateCutShortIsFinishedByTheNextRun(t *testing.T) {
	e := newEnv(t)
	e.state("old")
	o := e.options("old", "cut", 6)
	o.Rate = 400 // records per second: the copy takes seconds
	ctx, cancel := context.WithCancel(context.Background())
	var written int64
	o.Progress = func(step string, n int64) {
		if strings.HasSuffix(step, "match-table") && n > 50 {
			written = n
			cancel()
		}
	}
	if _, err := migrate.Migrate(ctx, o); !errors.Is(err, context.Canceled) {
		t.Fatalf("cut short: %v", err)
	}
	rs, err := origin.Read(context.Background(), e.dial, "cut", testSecret)
	if r, ok := origin.Find(rs, origin.Migration, "old"); err != nil || !ok || r.State != origin.Started || written == 0 {
		t.Fatalf("after the cut: %+v %v (written %d)", rs, err, written)
	}
	o.Rate, o.Progress = 0, nil
	res, err := migrate.Migrate(context.Background(), o)
	if err != nil || res.AlreadyDone {
		t.Fatalf("resumed: %+v %v", res, err)
	}
	if st := res.Steps[1]; st.Written >= st.Keys {
		t.Fatalf("the resumed run wrote %d of %d match values: it did not resume", st.Written, st.Keys)
	}
	if _, err := migrate.Migrate(context.Background(), e.options("old", "clean", 6)); err != nil {
		t.Fatal(err)
	}
	for _, tb := range []func(topology.Names) string{
		func(n topology.Names) string { return topology.Table(n.MatchGroup()) },
		func(n topology.Names) string { return topology.Table(n.IdentityGroup()) },
		func(n topology.Names) string { return n.Refdata() },
	} {
		a, _, _ := e.partitions(tb(topology.Names{NS: "cut"}), 0)
		b, _, _ := e.partitions(tb(topology.Names{NS: "clean"}), 0)
		if !equalValues(a, b) {
			t.Fatalf("%s: %d values after a resumed migration, %d after a clean one", tb(topology.Names{NS: "cut"}), len(a), len(b))
		}
	}
}

// TestMigrateRefusesWhileTheNamespaceRuns: a live instance, a member in a
// group or records not processed are each refused with one line naming
// them; a target that holds other records is refused too.
func TestMigrateRefusesWhileTheNamespaceRuns(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.state("old")
	refused := func(o migrate.Options, want string) {
		t.Helper()
		_, err := migrate.Migrate(ctx, o)
		var r *migrate.Refused
		if !errors.As(err, &r) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Fatalf("want a one-line refusal naming %q, got %v", want, err)
		}
	}
	e.live = []registry.Entry{{ID: "host-1-abcd", Groups: []string{"validate", "identity", "match"}, Host: "host", PID: 42, LastSeen: time.Now()},
		{ID: "killed-2-efgh", Stale: true}}
	refused(e.options("old", "new", 8), "instance host-1-abcd (groups validate,identity,match, host pid 42")
	e.live = nil

	// A consumer in the match group that is not an instance.
	n := topology.Names{NS: "old"}
	member, err := e.dial(kgo.ConsumerGroup(n.MatchGroup()), kgo.ConsumeTopics(n.Accepted()), kgo.ClientID("stray-consumer"))
	if err != nil {
		t.Fatal(err)
	}
	e.joined(member, n.MatchGroup())
	refused(e.options("old", "new", 8), "member stray-consumer in group "+n.MatchGroup())
	member.Close()

	// A record validated and not yet past identity: in flight.
	if err := e.cl.ProduceSync(ctx, &kgo.Record{Topic: n.Verdicts(), Partition: 1, Value: []byte("x")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	refused(e.options("old", "new", 8), "1 records in flight between its stages (identity 1)")

	// A target that is not new.
	refused(e.options("old", "old", 8), "same namespace")
	if _, err := topics.Create(ctx, e.adm, "busy", topics.Options{Partitions: 8}); err != nil {
		t.Fatal(err)
	}
	if err := e.cl.ProduceSync(ctx, &kgo.Record{Topic: "busy.inbound", Partition: 0, Value: []byte("x")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	refused(e.options("old", "busy", 8), "busy already holds 1 inbound records")
}

// TestMigrateRemovesStaticMembersOfStoppedInstances: an instance that
// stopped keeps its static membership until its session times out; the
// migration takes it out and goes on.
func TestMigrateRemovesStaticMembersOfStoppedInstances(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.state("old")
	n := topology.Names{NS: "old"}
	member, err := e.dial(kgo.ConsumerGroup(n.IdentityGroup()), kgo.ConsumeTopics(n.Verdicts()), kgo.InstanceID("gone-1-abcd"),
		kgo.SessionTimeout(45*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	e.joined(member, n.IdentityGroup())
	member.Close() // a static member stays in the group after its client is gone
	if d, err := e.adm.DescribeGroups(ctx, n.IdentityGroup()); err != nil || len(d[n.IdentityGroup()].Members) != 1 {
		t.Fatalf("the static member left on close: %v %v", d, err)
	}
	res, err := migrate.Migrate(ctx, e.options("old", "new", 8))
	if err != nil || len(res.Removed) != 1 || res.Removed[0] != n.IdentityGroup()+"/gone-1-abcd" {
		t.Fatalf("%+v %v", res.Removed, err)
	}
	if d, err := e.adm.DescribeGroups(ctx, n.IdentityGroup()); err != nil || len(d[n.IdentityGroup()].Members) != 0 {
		t.Fatalf("still members: %v %v", d, err)
	}
}

// joined polls with member until it is a member of group.
func (e *env) joined(member *kgo.Client, group string) {
	e.t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(10 * time.Second)
	for {
		pctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		member.PollFetches(pctx)
		cancel()
		d, err := e.adm.DescribeGroups(ctx, group)
		if err == nil && len(d[group].Members) > 0 {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%s did not join group %s", member.OptValue(kgo.ClientID), group)
		}
	}
}

// TestMigrateDropsAFormerOwnersLateWrite: a match table write of a
// partition's former owner that reached the changelog after its new
// owner's (a zombie's late write, issue 52; processors/fence) is not the
// key's state, and migration carries the new owner's value. Without the
// filter in carry the zombie's value, the later record, would be carried.
func TestMigrateDropsAFormerOwnersLateWrite(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	wrote := e.state("old")
	from, to := topology.Names{NS: "old"}, topology.Names{NS: "new"}
	src, dst := topology.Table(from.MatchGroup()), topology.Table(to.MatchGroup())
	// A trade the state wrote (state's keys are the same sequence).
	k := schemas.TradeKey(uint64(1)*0x9e3779b97f4a7c15 + 1)
	key := k.String()
	if _, ok := wrote.values[src][key]; !ok {
		t.Fatalf("the state holds no value for %s", key)
	}
	p := topics.PartitionOf(key, 4)
	value := func(ref string) []byte {
		tr := &matching.Trade{Key: k, Newest: 30 * 24 * hour, Keys: []schemas.Key{{TradeRef: ref}}}
		b, err := tr.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	owner, former := fence.Epoch{End: 1000, Generation: 3}, fence.Epoch{End: 400, Generation: 2}
	newer, zombie := value("NEW-OWNER"), value("ZOMBIE")
	recs := []*kgo.Record{
		{Topic: src, Partition: p, Key: []byte(key), Value: newer, Headers: []kgo.RecordHeader{{Key: fence.Header, Value: owner.Encode()}}},
		{Topic: src, Partition: p, Key: []byte(key), Value: zombie, Headers: []kgo.RecordHeader{{Key: fence.Header, Value: former.Encode()}}},
	}
	if err := e.cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if _, err := migrate.Migrate(ctx, e.options("old", "new", 6)); err != nil {
		t.Fatal(err)
	}
	got, _, _ := e.partitions(dst, topology.StageMatch)
	if !bytes.Equal(got[key], newer) {
		t.Fatalf("%s carries the zombie's value for %s: %v (want the new owner's)", dst, key, bytes.Equal(got[key], zombie))
	}
}
