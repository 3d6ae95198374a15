package broker_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/topics/broker"
)

// Patch 11: a produced batch is one write to the segment file; its index
// entry (leader epoch, transactional) is derived from the batch when the
// log is loaded. kfake wrote a 15-byte index entry with a write system call
// of its own after every batch, in the request loop every produce and fetch
// waits for (the persist writes were 7.5 % of `ste bench`'s CPU). The test
// produces batches, some in a transaction it aborts, stops the broker,
// starts it again on the same data directory with the log replayed in full
// (as after a kill -9) and reads committed: the index files must have taken
// no writes, and the aborted transaction's records must stay hidden (a
// batch without its index entry loaded as not transactional: the replay
// found no transaction for the abort marker, and a read_committed consumer
// saw the aborted records).
func TestProducedBatchIsOneWrite(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const topic, plain = "t", 20

	c, err := broker.Start(broker.Options{Addr: "127.0.0.1:0", DataDir: dir, Partitions: 1})
	if err != nil {
		t.Fatal(err)
	}
	seeds := kgo.SeedBrokers(c.ListenAddrs()...)
	pr, err := kgo.NewClient(seeds, kgo.DefaultProduceTopic(topic), kgo.AllowAutoTopicCreation())
	if err != nil {
		t.Fatal(err)
	}
	for i := range plain {
		// One record a batch: each ProduceSync is a batch of its own.
		if err := pr.ProduceSync(ctx, &kgo.Record{Value: fmt.Appendf(nil, "plain-%d", i)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	pr.Close()
	tx, err := kgo.NewClient(seeds, kgo.DefaultProduceTopic(topic), kgo.TransactionalID("patch-11"),
		kgo.TransactionTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := tx.ProduceSync(ctx, &kgo.Record{Value: fmt.Appendf(nil, "aborted-%d", i)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.EndTransaction(ctx, kgo.TryAbort); err != nil {
		t.Fatal(err)
	}
	tx.Close()
	c.Close()

	var dat, idx int64
	err = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || filepath.Base(filepath.Dir(p)) != topic+"-0" {
			return err
		}
		switch filepath.Ext(p) {
		case ".dat":
			dat += fi.Size()
		case ".idx":
			idx += fi.Size()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if dat == 0 {
		t.Fatalf("no segment bytes for %s-0 under %s", topic, dir)
	}
	if idx != 0 {
		t.Errorf("the index files of %s-0 took %d bytes: a write per batch besides the segment's", topic, idx)
	}

	// As after a kill -9: no partition snapshot, the log replayed in full.
	snaps, _ := filepath.Glob(filepath.Join(dir, "*", "partitions", "*", "snapshot.json"))
	more, _ := filepath.Glob(filepath.Join(dir, "partitions", "*", "snapshot.json"))
	if snaps = append(snaps, more...); len(snaps) == 0 {
		t.Fatalf("no partition snapshot under %s to remove", dir)
	}
	for _, s := range snaps {
		if err := os.Remove(s); err != nil {
			t.Fatal(err)
		}
	}
	c, err = broker.Start(broker.Options{Addr: "127.0.0.1:0", DataDir: dir, Partitions: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	seeds = kgo.SeedBrokers(c.ListenAddrs()...)
	pr, err = kgo.NewClient(seeds, kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	if err := pr.ProduceSync(ctx, &kgo.Record{Value: []byte("after")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(seeds, kgo.ConsumeTopics(topic), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var got []string
	wctx, wcancel := context.WithTimeout(ctx, 20*time.Second)
	defer wcancel()
	for wctx.Err() == nil && (len(got) == 0 || got[len(got)-1] != "after") {
		cl.PollFetches(wctx).EachRecord(func(r *kgo.Record) { got = append(got, string(r.Value)) })
	}
	if len(got) != plain+1 {
		t.Fatalf("read committed after the restart: %d records %q, want the %d plain ones and \"after\" (the aborted transaction's records hidden)", len(got), got, plain)
	}
}
