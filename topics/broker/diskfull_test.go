package broker_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/testgate"
	"github.com/ste-utility/ste/topics/broker"
)

// smallDisk mounts a 4 MiB tmpfs for the test: a real disk that fills.
// Where the machine refuses mounts (not root, no CAP_SYS_ADMIN) the test
// is skipped and recorded, and under CI=true it fails: kfake patch 7
// would otherwise go untested on such a CI machine.
func smallDisk(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", dir).CombinedOutput(); err != nil {
		testgate.Need(t, "a tmpfs mount (root or CAP_SYS_ADMIN) for the broker's full disk, kfake patch 7", fmt.Errorf("%v: %s", err, bytes.TrimSpace(out)))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// fill writes a file until the disk is full and returns it.
func fill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, size := range []int{64 << 10, 4 << 10, 1} {
		buf := make([]byte, size)
		for {
			if _, err := f.Write(buf); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatal(err)
				}
				break
			}
		}
	}
	return path
}

// Patch 7: a full disk under the embedded broker's data directory. A
// produce it cannot write is refused KAFKA_STORAGE_ERROR (retried by the
// producer, as Kafka's answer is) and leaves the producer's sequence where
// it was; once space returns the retry is written. Unpatched, kfake
// answered UNKNOWN_SERVER_ERROR (the producer failed the record) after it
// had taken the sequence, so a retry was answered as a duplicate of a batch
// never written: acknowledged and lost.
func TestFullDiskRefusesAndKeepsTheRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("mounts a small disk")
	}
	disk := smallDisk(t)
	c, err := broker.Start(broker.Options{Addr: "127.0.0.1:0", DataDir: filepath.Join(disk, "kfake")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(broker.Addr(c)), kgo.DefaultProduceTopic("t"),
		kgo.AllowAutoTopicCreation(), kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.RecordPartitioner(kgo.ManualPartitioner())) // one partition: the records in order
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("before")}).FirstErr(); err != nil {
		t.Fatal(err)
	}

	filler := fill(t, disk)
	done := make(chan error, 1)
	// Larger than the slack of the segment's last page, which a full disk
	// still has room in, and random, so that compression cannot shrink it
	// into that slack.
	noise := make([]byte, 64<<10)
	rand.Read(noise)
	big := append([]byte("while full "), noise...)
	cl.Produce(ctx, &kgo.Record{Value: big}, func(_ *kgo.Record, err error) { done <- err })
	// The record is refused while the disk is full (a retriable answer:
	// the producer keeps it). How long that lasts is not the point, only
	// that the record is neither failed nor acknowledged meanwhile.
	select {
	case err := <-done:
		t.Fatalf("a produce to a full disk completed (err %v) before space returned: acknowledged, or failed, though it cannot have been written", err)
	case <-time.After(2 * time.Second):
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the produce failed after space returned: %v", err)
	}

	var got []string
	rd, err := kgo.NewClient(kgo.SeedBrokers(broker.Addr(c)), kgo.ConsumeTopics("t"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	for len(got) < 2 && ctx.Err() == nil {
		rd.PollFetches(ctx).EachRecord(func(r *kgo.Record) { got = append(got, string(r.Value[:min(len(r.Value), 10)])) })
	}
	if len(got) != 2 || got[0] != "before" || got[1] != "while full" {
		t.Fatalf("the log holds %q, want [before, while full]", got)
	}
}
