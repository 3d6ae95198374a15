package produce

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/processors/changelog"
	"github.com/ste-utility/ste/processors/diskstore"
	"github.com/ste-utility/ste/topology"
)

// TestTableWritesCompleteInBatchesInEmitOrder: table writes go out as one
// record per changelog partition, each write's promise completing with
// that record's offset (the store told whether more of its writes follow);
// a record emitted after them, acknowledged before their batch is even
// written, completes after them — else goka would commit its input
// message past theirs.
func TestTableWritesCompleteInBatchesInEmitOrder(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "tbl", "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p, err := Builder(Options{Table: "tbl", Partitions: func() (int, error) { return 2, nil }})(c.ListenAddrs(), "tbl-test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := wait(p.Emit("out", "warm", []byte("warm"))); err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		order []string
		msgs  = map[string]*sarama.ProducerMessage{}
		wg    sync.WaitGroup
	)
	emit := func(topic, key string) {
		wg.Add(1)
		p.Emit(topic, key, []byte("v"+key)).ThenWithMessage(func(m *sarama.ProducerMessage, err error) {
			defer wg.Done()
			if err != nil {
				t.Errorf("%s: %v", key, err)
			}
			mu.Lock()
			order, msgs[key] = append(order, key), m
			mu.Unlock()
		})
	}
	writes := []string{"w1", "w2", "w3", "w4", "w5", "w6"}
	for _, k := range writes[:5] {
		emit("tbl", k)
	}
	emit("out", "later")
	emit("tbl", writes[5])
	wg.Wait()
	if i := slices.Index(order, "later"); i < 5 {
		t.Fatalf("completions in the order %v: the later record's before table writes emitted ahead of it", order)
	}
	byRecord := map[[2]int64][]string{}
	for _, k := range writes {
		m := msgs[k]
		if m.Partition != int32(topology.Partition([]byte(k), 2)) {
			t.Fatalf("%s completed in partition %d", k, m.Partition)
		}
		r := [2]int64{int64(m.Partition), m.Offset}
		byRecord[r] = append(byRecord[r], k)
		if part, _ := m.Metadata.(diskstore.RecordPart); part.More != (k != lastOf(writes, m.Partition, msgs)) {
			t.Fatalf("%s: More %v", k, part.More)
		}
	}
	if len(byRecord) > 4 || len(byRecord) < 2 {
		t.Fatalf("table writes in records %v", byRecord)
	}
	// The records on the topic hold the writes, under keys of their own.
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumeTopics("tbl"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var read []string
	for len(read) < len(writes) {
		fs := cl.PollFetches(context.Background())
		if err := fs.Err0(); err != nil {
			t.Fatal(err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if !changelog.IsBatch(string(r.Key)) {
				t.Fatalf("record keyed %q", r.Key)
			}
			if err := changelog.EachValue(topology.StageIdentity, string(r.Key), r.Value, func(k string, v []byte) {
				if got := byRecord[[2]int64{int64(r.Partition), r.Offset}]; !slices.Contains(got, k) || string(v) != "v"+k {
					t.Errorf("%s in record %d/%d, completed with %v", k, r.Partition, r.Offset, got)
				}
				read = append(read, k)
			}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// lastOf is the last of writes completed in the record m[k] of partition p.
func lastOf(writes []string, p int32, m map[string]*sarama.ProducerMessage) string {
	last := ""
	for _, k := range writes {
		if m[k].Partition == p {
			if last == "" || m[k].Offset >= m[last].Offset {
				last = k
			}
		}
	}
	return last
}
