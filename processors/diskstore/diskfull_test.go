package diskstore

import (
	"errors"
	"fmt"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
)

// fullDisk is the operating system's file system with a switch that makes
// the disk full: every write fails with ENOSPC (errorfs, at Pebble's file
// layer) and the free space reads as nothing, as on a disk that filled up.
type fullDisk struct {
	*errorfs.FS
	full atomic.Bool
}

func newFullDisk() *fullDisk {
	d := &fullDisk{}
	d.FS = errorfs.Wrap(vfs.Default, errorfs.InjectorFunc(func(op errorfs.Op) error {
		if d.full.Load() && op.Kind.ReadOrWrite() == errorfs.OpIsWrite {
			return fmt.Errorf("%v %s: %w", op.Kind, op.Path, syscall.ENOSPC)
		}
		return nil
	}))
	return d
}

func (d *fullDisk) GetDiskUsage(path string) (vfs.DiskUsage, error) {
	du, err := d.FS.GetDiskUsage(path)
	if d.full.Load() {
		du.UsedBytes += du.AvailBytes
		du.AvailBytes = 0
	}
	return du, err
}

// TestDiskFull: the disk under the tables fills while an instance writes.
// The store writes nothing to it (a write reaching Pebble would fail with
// ENOSPC, and Pebble ends the process on a failed log write), reports the
// disk full, keeps serving every write from memory, and commits them once
// space returns; a store closed while the disk is full restarts from the
// offset it had committed, so the changelog replays what it held in memory.
// Nothing committed is changed and nothing acknowledged is lost.
func TestDiskFull(t *testing.T) {
	disk := newFullDisk()
	e := newEnv(t)
	e.opts = func(o *Options) { o.FS = disk; o.Reserve = 1 << 20 }
	db := e.open()
	s := e.store(0)
	for i := range 10 {
		put(t, s, fmt.Sprint("k", i), val(int64(i)))
	}
	must(t, s.commit())
	if err := db.Health(); err != nil {
		t.Fatalf("healthy disk reported %v", err)
	}

	disk.full.Store(true)
	for i := 10; i < 20; i++ {
		put(t, s, fmt.Sprint("k", i), val(int64(i)))
	}
	put(t, s, "k0", val(100)) // a committed key changed while full
	err := s.commit()
	var full *DiskFullError
	if !errors.As(err, &full) || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("commit on a full disk: %v, want a DiskFullError (ENOSPC)", err)
	}
	if err := db.Health(); !errors.As(err, &full) {
		t.Fatalf("health on a full disk: %v", err)
	}
	db.commitOrFail(s) // the committer's round: nothing written, nothing crashes
	for i := 1; i < 20; i++ {
		if got := dueOf(get(t, s, fmt.Sprint("k", i))); got != int64(i) {
			t.Fatalf("k%d read %d while the disk is full, want %d", i, got, i)
		}
	}
	if got := dueOf(get(t, s, "k0")); got != 100 {
		t.Fatalf("k0 read %d while the disk is full, want 100", got)
	}
	if _, err := db.openStore("tab", 1, index); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("opening a new partition on a full disk: %v, want ENOSPC", err)
	}

	// Space returns: the held writes are committed, the disk healthy again.
	disk.full.Store(false)
	db.commitOrFail(s)
	if err := db.Health(); err != nil {
		t.Fatalf("health after space returned: %v", err)
	}
	if n := len(s.ops); n != 0 {
		t.Fatalf("%d writes still held after space returned", n)
	}
	off, _ := s.GetOffset(-1)
	e.close()

	db = e.open()
	s = e.store(0)
	if got, _ := s.GetOffset(-1); got != off {
		t.Fatalf("offset after reopening %d, want %d", got, off)
	}
	for i := 1; i < 20; i++ {
		if got := dueOf(get(t, s, fmt.Sprint("k", i))); got != int64(i) {
			t.Fatalf("k%d read %d after reopening, want %d", i, got, i)
		}
	}
	if got := dueOf(get(t, s, "k0")); got != 100 {
		t.Fatalf("k0 read %d after reopening, want 100", got)
	}

	// Full again, and the instance stops: the held writes are not written,
	// and the store reopens at the offset it had committed (goka replays the
	// rest from the changelog). Open refuses a full disk outright.
	disk.full.Store(true)
	put(t, s, "late", val(7))
	if err := db.Close(); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("closing on a full disk: %v, want the held writes reported (ENOSPC)", err)
	}
	if _, err := Open(Options{Dir: e.dir, FS: disk, Reserve: 1 << 20, Logger: quiet}); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("opening on a full disk: %v, want ENOSPC", err)
	}
	disk.full.Store(false)
	e.open()
	s = e.store(0)
	if got, _ := s.GetOffset(-1); got != off {
		t.Fatalf("offset after a stop on a full disk %d, want %d (the held write replayed from the changelog)", got, off)
	}
	if v := get(t, s, "late"); v != nil {
		t.Fatalf("a write held in memory on a full disk reached the disk: %v", v)
	}
	e.close()
}

// TestDiskFullPoison: a partition poisoned while the disk is full (a
// changelog write failed) cannot write its rebuild mark; the first commit
// after space returns writes it with the batch, so no write committed after
// the poisoning is trusted at the next start.
func TestDiskFullPoison(t *testing.T) {
	disk := newFullDisk()
	e := newEnv(t)
	e.opts = func(o *Options) { o.FS = disk; o.Reserve = 1 << 20 }
	e.open()
	s := e.store(0)
	put(t, s, "a", val(1))
	must(t, s.commit())
	disk.full.Store(true)
	must(t, s.Set("b", val(2)))
	s.acked("b", 0, errors.New("produce failed"))
	disk.full.Store(false)
	must(t, s.commit())
	e.close()
	e.open()
	e.store(0)
	if why := e.wiped[0]; why == "" {
		t.Fatal("a partition poisoned on a full disk was not rebuilt at its next start")
	}
	e.close()
}
