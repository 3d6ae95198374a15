package broker_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/ste-utility/ste/testgate"
)

// Patch 9: a fetch answer reads a run of batches lying next to each other
// in a segment with one read into one buffer. kfake read each batch with a
// read of its own into a buffer of its own and appended it to an answer
// grown by doubling, in the loop every request waits for: a consumer
// catching up (a replay, a restart, a participant's cursor walk) cost the
// broker a read system call per batch. The read calls of this process
// (/proc/self/io) while one fetch answers 300 batches tell which.
func TestFetchReadsAdjacentBatchesTogether(t *testing.T) {
	if _, err := readCalls(); err != nil {
		testgate.Need(t, "the process's read count (/proc/self/io, Linux with task I/O accounting) for kfake patch 9", err)
	}
	c, cl := onDisk(t, kgo.DefaultProduceTopic("t"), kgo.AllowAutoTopicCreation(), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const n = 300
	for i := range n {
		// One record a batch: each ProduceSync is a batch of its own.
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: bytes.Repeat([]byte{byte(i)}, 700)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	req := kmsg.NewPtrFetchRequest()
	req.MaxBytes = 16 << 20
	rt := kmsg.NewFetchRequestTopic()
	rt.Topic = "t"
	rt.TopicID = c.TopicInfo("t").TopicID
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.PartitionMaxBytes = 16 << 20
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	fetch := func() []byte {
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			t.Fatal(err)
		}
		p := resp.Topics[0].Partitions[0]
		if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
			t.Fatal(err)
		}
		return p.RecordBatches
	}
	fetch() // the segment's file opened, the connection made
	r0, _ := readCalls()
	got := fetch()
	r1, _ := readCalls()
	batches := 0
	for b := got; len(b) > 0; batches++ {
		var rb kmsg.RecordBatch
		if err := rb.ReadFrom(b); err != nil {
			t.Fatal(err)
		}
		if rb.FirstOffset != int64(batches) {
			t.Fatalf("batch %d starts at offset %d", batches, rb.FirstOffset)
		}
		b = b[12+int(rb.Length):]
	}
	if batches != n {
		t.Fatalf("the answer holds %d batches, want %d", batches, n)
	}
	// The request and the answer on the sockets take a few reads; a read
	// per batch is 300 more.
	if d := r1 - r0; d > n/3 {
		t.Errorf("one fetch of %d batches made %d read calls in this process, want a handful", n, d)
	}
}

// readCalls is this process's read system calls so far (syscr).
func readCalls() (int64, error) {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, err
	}
	var v int64
	for _, l := range bytes.Split(b, []byte("\n")) {
		if _, err := fmt.Sscanf(string(l), "syscr: %d", &v); err == nil {
			return v, nil
		}
	}
	return 0, fmt.Errorf("no syscr in /proc/self/io")
}
