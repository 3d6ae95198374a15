package diskstore_test

// These tests run goka processors with the store against a real (embedded)
// broker: restart, kill -9 and a changelog whose tombstones were compacted
// away. The processor counts messages per key and recognises a message it
// has applied by its input offset, as STE's stages recognise duplicates: a
// store ahead of its changelog makes such a processor skip the write that
// would have brought the changelog level.

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/lovoo/goka"
	"github.com/lovoo/goka/codec"
	gokastorage "github.com/lovoo/goka/storage"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/processors/diskstore"
	"github.com/ste-utility/ste/processors/gokaconf"
	stproduce "github.com/ste-utility/ste/processors/produce"
	"github.com/ste-utility/ste/testgate"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/lag"
	"github.com/ste-utility/ste/topology"
)

const (
	group = "dsk"
	input = "dsk-in"
	table = "dsk-table" // goka's name for the group's table
	parts = 4
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// startBroker runs a one-node kfake cluster with the input and the table's
// changelog (tableConfigs added to compaction).
func startBroker(t *testing.T, tableConfigs map[string]string) (*kfake.Cluster, string) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.GroupMinSessionTimeout(time.Second),
		kfake.BrokerConfigs(map[string]string{"group.initial.rebalance.delay.ms": "0"}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	brokers := c.ListenAddrs()[0]
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx := context.Background()
	if _, err := adm.CreateTopic(ctx, parts, 1, nil, input); err != nil {
		t.Fatal(err)
	}
	cfg := map[string]*string{"cleanup.policy": kadm.StringPtr("compact")}
	for k, v := range tableConfigs {
		cfg[k] = kadm.StringPtr(v)
	}
	if _, err := adm.CreateTopic(ctx, parts, 1, cfg, table); err != nil {
		t.Fatal(err)
	}
	return c, brokers
}

// count is the processor: the value is the number of messages of the key
// and the input offset of the last one applied.
func count(ctx goka.Context, _ any) {
	n, last := decode(ctx.Value())
	if ctx.Offset() <= last {
		return // applied before: a duplicate
	}
	ctx.SetValue(binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, uint64(n+1)), uint64(ctx.Offset())))
}

func decode(v any) (n, last int64) {
	b, _ := v.([]byte)
	if len(b) != 16 {
		return 0, -1
	}
	return int64(binary.BigEndian.Uint64(b)), int64(binary.BigEndian.Uint64(b[8:]))
}

// groupConfig notices a killed member within seconds.
func groupConfig() *sarama.Config {
	cfg := gokaconf.SaramaConfig()
	cfg.Consumer.Group.Session.Timeout = 2 * time.Second
	cfg.Consumer.Group.Heartbeat.Interval = 500 * time.Millisecond
	return cfg
}

type nopLogger struct{}

func (nopLogger) Print(...any)          {}
func (nopLogger) Println(...any)        {}
func (nopLogger) Printf(string, ...any) {}

// clientOptions are the counting processor's goka options but its storage
// and producer: STE's client settings, quick to notice a killed member.
func clientOptions() []goka.ProcessorOption {
	tmc := goka.NewTopicManagerConfig()
	tmc.Table.Replication, tmc.Stream.Replication = 1, 1
	return []goka.ProcessorOption{
		goka.WithTopicManagerBuilder(goka.TopicManagerBuilderWithConfig(gokaconf.SaramaConfig(), tmc)),
		goka.WithConsumerGroupBuilder(goka.ConsumerGroupBuilderWithConfig(groupConfig())),
		goka.WithConsumerSaramaBuilder(goka.SaramaConsumerBuilderWithConfig(gokaconf.SaramaConfig())),
		goka.WithHasher(topology.KeyHash),
		goka.WithLogger(nopLogger{}),
	}
}

// runProcessor runs the counting processor with its tables in dir ("disk":
// this package; "leveldb": goka's own, which writes through) until ctx
// ends. onReady gets the open database (nil for leveldb).
func runProcessor(ctx context.Context, brokers, kind, dir string, o diskstore.Options, onReady func(*diskstore.DB)) error {
	opts := clientOptions()
	var db *diskstore.DB
	switch kind {
	case "disk":
		o.Dir = dir
		if o.Logger == nil {
			o.Logger = quiet
		}
		var err error
		if db, err = diskstore.Open(o); err != nil {
			return err
		}
		defer db.Close()
		opts = append(opts, goka.WithStorageBuilder(db.Builder(nil, nil)),
			goka.WithProducerBuilder(db.Producer(stproduce.Builder(stproduce.Options{}))))
	case "leveldb":
		opts = append(opts, goka.WithStorageBuilder(gokastorage.DefaultBuilder(dir)),
			goka.WithProducerBuilder(stproduce.Builder(stproduce.Options{})))
	}
	p, err := goka.NewProcessor([]string{brokers},
		goka.DefineGroup(group, goka.Input(input, new(codec.Bytes), count), goka.Persist(new(codec.Bytes))), opts...)
	if err != nil {
		return err
	}
	go func() {
		if p.WaitForReadyContext(ctx) == nil && onReady != nil {
			onReady(db)
		}
	}()
	return p.Run(ctx)
}

// produce writes n input messages over keys k0..k(keys-1), starting at
// message number from, and returns how many each key got.
func produce(t *testing.T, cl *kgo.Client, from, n, keys int, rnd *rand.Rand) map[string]int64 {
	t.Helper()
	got := map[string]int64{}
	var recs []*kgo.Record
	for i := range n {
		k := fmt.Sprintf("k%05d", rnd.IntN(keys))
		got[k]++
		recs = append(recs, &kgo.Record{Topic: input, Key: []byte(k), Value: fmt.Appendf(nil, "m%d", from+i)})
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	return got
}

func producer(t *testing.T, brokers string) *kgo.Client {
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers), kgo.RecordPartitioner(topics.Partitioner()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

func waitDone(t *testing.T, brokers string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := lag.WaitZero(ctx, kadm.NewClient(cl), []lag.Group{{Name: group, Stage: "count", Topics: []string{input}}}, lag.WaitOptions{}); err != nil {
		t.Fatal(err)
	}
}

// changelog is the table as an instance rebuilding from the changelog alone
// sees it.
func changelog(t *testing.T, brokers string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	if _, err := topics.Dump(context.Background(), kafkaconn.Plaintext(brokers), table, func(r *kgo.Record) error {
		if r.Value == nil {
			delete(out, string(r.Key))
		} else {
			out[string(r.Key)], _ = decode(r.Value)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// local is the table as stored under dir.
func local(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	if err := diskstore.Dump(dir, table, parts, func(_ int32, k, v []byte) error {
		out[string(k)], _ = decode(v)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func diff(got, want map[string]int64) string {
	var d []string
	for k, w := range want {
		if got[k] != w {
			d = append(d, fmt.Sprintf("%s: %d, want %d", k, got[k], w))
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			d = append(d, fmt.Sprintf("%s: %d, want none", k, g))
		}
	}
	if len(d) > 5 {
		d = append(d[:5], fmt.Sprintf("... %d keys differ", len(d)))
	}
	return strings.Join(d, "; ")
}

func add(into, from map[string]int64) {
	for k, v := range from {
		into[k] += v
	}
}

// runUntilReady runs a processor in this process until it is ready and the
// input is consumed, then stops it cleanly; it returns what each partition
// restored.
func runInProcess(t *testing.T, brokers, dir string, o diskstore.Options) map[int32]int64 {
	t.Helper()
	restored := map[int32]int64{}
	var mu sync.Mutex
	o.OnRecovered = func(_ string, p int32, n int64, _ time.Duration) {
		mu.Lock()
		restored[p] += n
		mu.Unlock()
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	ready := make(chan struct{})
	go func() { done <- runProcessor(ctx, brokers, "disk", dir, o, func(*diskstore.DB) { close(ready) }) }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("processor: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("processor not ready in a minute")
	}
	waitDone(t, brokers)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return restored
}

func TestRestartRestoresOnlyRecordsAfterTheLocalOffset(t *testing.T) {
	if testing.Short() {
		t.Skip("broker")
	}
	_, brokers := startBroker(t, nil)
	cl := producer(t, brokers)
	rnd := rand.New(rand.NewPCG(1, 2))
	want := produce(t, cl, 0, 3000, 500, rnd)
	dir := t.TempDir()
	if r := runInProcess(t, brokers, dir, diskstore.Options{}); sum(r) != 0 {
		t.Fatalf("a fresh store restored %d records from an empty changelog", sum(r))
	}
	if d := diff(local(t, dir), want); d != "" {
		t.Fatal(d)
	}
	// While this instance is away, another one writes 40 records into the
	// changelog (here: directly).
	var foreign []*kgo.Record
	for i := range 40 {
		k := fmt.Sprintf("f%02d", i)
		want[k] = 1
		foreign = append(foreign, &kgo.Record{Topic: table, Key: []byte(k),
			Value: binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, 1), 1<<40)})
	}
	if err := cl.ProduceSync(context.Background(), foreign...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	restored := runInProcess(t, brokers, dir, diskstore.Options{})
	if n := sum(restored); n != 40 {
		t.Fatalf("restart restored %d records, want the 40 after its local offset (%v)", n, restored)
	}
	if d := diff(local(t, dir), want); d != "" {
		t.Fatal(d)
	}
	// An instance with no local state replays every record of the changelog.
	total := int64(len(changelog(t, brokers)))
	if n := sum(runInProcess(t, brokers, t.TempDir(), diskstore.Options{})); n < total {
		t.Fatalf("fresh instance restored %d records, the changelog holds at least %d", n, total)
	}
}

func sum(m map[int32]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// The first danger, end to end: kill -9 a processor again and again while
// input flows; afterwards its local state, the changelog (what an instance
// with an empty $STE_HOME rebuilds) and the input all agree.
func TestKillLoopKeepsStateLevelWithTheChangelog(t *testing.T) {
	if testing.Short() {
		t.Skip("broker, kill -9")
	}
	kind := "disk"
	if testgate.Enabled("leveldb-control") {
		kind = "leveldb" // goka's write-through storage: this test should fail
	}
	_, brokers := startBroker(t, nil)
	cl := producer(t, brokers)
	// The kill timings' generator and the feeder's are apart: math/rand's
	// generators are not safe to share between goroutines (-race saw it).
	rnd, feed := rand.New(rand.NewPCG(3, 4)), rand.New(rand.NewPCG(4, 3))
	dir := t.TempDir()
	want := map[string]int64{}
	var mu sync.Mutex
	stop := make(chan struct{})
	fed := make(chan struct{})
	go func() { // input keeps flowing, ~5,000 messages a second over many keys
		defer close(fed)
		for n := 0; ; n += 250 {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			got := produce(t, cl, n, 250, 20000, feed)
			mu.Lock()
			add(want, got)
			mu.Unlock()
		}
	}()
	kills := 6
	for i := range kills {
		p := startHelper(t, brokers, kind, dir)
		time.Sleep(time.Duration(200+rnd.IntN(1300)) * time.Millisecond)
		p.Process.Kill()
		p.Wait()
		t.Logf("kill %d done", i+1)
	}
	close(stop)
	<-fed
	p := startHelper(t, brokers, kind, dir)
	waitDone(t, brokers)
	p.Process.Signal(syscall.SIGTERM)
	if err := p.Wait(); err != nil {
		t.Fatalf("clean stop: %v", err)
	}
	if d := diff(changelog(t, brokers), want); d != "" {
		t.Errorf("the changelog (what a fresh instance rebuilds) differs from the input: %s", d)
	}
	if kind == "disk" {
		if d := diff(local(t, dir), want); d != "" {
			t.Errorf("local state differs from the input: %s", d)
		}
		fresh := t.TempDir()
		runInProcess(t, brokers, fresh, diskstore.Options{})
		if d := diff(local(t, fresh), want); d != "" {
			t.Errorf("a fresh instance rebuilt other state: %s", d)
		}
	}
	t.Logf("%d messages over %d keys, %d kills", total(want), len(want), kills)
}

func total(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// startHelper runs the processor in a child process (this test binary) and
// returns once it is ready.
func startHelper(t *testing.T, brokers, kind, dir string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "DISKSTORE_HELPER="+strings.Join([]string{brokers, kind, dir}, ","))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if sc.Text() == "ready" {
				ready <- true
			}
		}
		ready <- false
	}()
	select {
	case ok := <-ready:
		if !ok {
			cmd.Wait()
			t.Fatal("helper exited before it was ready")
		}
	case <-time.After(time.Minute):
		t.Fatal("helper not ready in a minute")
	}
	return cmd
}

func TestHelperProcess(t *testing.T) {
	arg := os.Getenv("DISKSTORE_HELPER")
	if arg == "" {
		t.Skip("the child of the kill -9 test")
	}
	a := strings.Split(arg, ",")
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	err := runProcessor(ctx, a[0], a[1], a[2], diskstore.Options{}, func(*diskstore.DB) { fmt.Println("ready") })
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// The second danger, end to end: a key deleted while this instance was away,
// whose tombstone compaction has since removed, must not survive in local
// state.
func TestStaleStateMissesNoCompactedTombstone(t *testing.T) {
	if testing.Short() {
		t.Skip("broker")
	}
	c, brokers := startBroker(t, map[string]string{"delete.retention.ms": "0", "min.cleanable.dirty.ratio": "0"})
	cl := producer(t, brokers)
	want := produce(t, cl, 0, 200, 50, rand.New(rand.NewPCG(5, 6)))
	dir := filepath.Join(t.TempDir(), "tables")
	runInProcess(t, brokers, dir, diskstore.Options{})
	// Away: another owner deletes k00001 (and writes on, so that the
	// tombstone is not the partition's last record), then compaction drops
	// the tombstone.
	victim := "k00001"
	if want[victim] == 0 {
		t.Fatal("the victim key got no message")
	}
	delete(want, victim)
	if err := cl.ProduceSync(context.Background(), &kgo.Record{Topic: table, Key: []byte(victim)}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	var recs []*kgo.Record // later batches: compaction spares only the last
	for i := range 20 {
		k := fmt.Sprintf("z%02d", i)
		want[k] = 1
		recs = append(recs, &kgo.Record{Topic: table, Key: []byte(k),
			Value: binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, 1), 1<<40)})
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	c.Compact()
	if _, err := topics.Dump(context.Background(), kafkaconn.Plaintext(brokers), table, func(r *kgo.Record) error {
		if string(r.Key) == victim {
			return fmt.Errorf("a record of %s at offset %d survived compaction", victim, r.Offset)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	copyDir(t, dir, dir+".young")
	// Restarted within the retention the store believes in, the deletion
	// is lost: this is the danger (and shows the test can fail).
	later := time.Now().Add(time.Hour)
	runInProcess(t, brokers, dir+".young", diskstore.Options{TombstoneRetention: 24 * time.Hour,
		Now: func() time.Time { return later }})
	if got := local(t, dir+".young"); got[victim] == 0 {
		t.Fatal("the compacted tombstone did not matter: this test shows nothing")
	}
	// Restarted after the retention, the store rebuilds from the changelog.
	muchLater := time.Now().Add(25 * time.Hour)
	runInProcess(t, brokers, dir, diskstore.Options{TombstoneRetention: 24 * time.Hour,
		Now: func() time.Time { return muchLater }})
	if d := diff(local(t, dir), want); d != "" {
		t.Fatal(d)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if out, err := exec.Command("cp", "-a", from, to).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
}
