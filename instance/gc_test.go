package instance

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCgroupLimit(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	v2max, v2set := write("v2max", "max\n"), write("v2set", "4294967296\n")
	v1unlimited, v1set := write("v1u", "9223372036854771712\n"), write("v1set", "1073741824\n")
	missing := filepath.Join(dir, "missing")
	for _, c := range []struct {
		files []string
		want  int64
	}{
		{[]string{v2set, v1set}, 4 << 30},
		{[]string{v2max, v1set}, 1 << 30},
		{[]string{missing, v1unlimited}, 0},
		{[]string{missing, missing}, 0},
	} {
		if got := cgroupLimit(c.files); got != c.want {
			t.Errorf("cgroupLimit(%v) = %d, want %d", c.files, got, c.want)
		}
	}
}

func TestMemLimit(t *testing.T) {
	const gib = 1 << 30
	for _, c := range []struct {
		roomy     bool
		mem, want int64
	}{
		{true, 16 * gib, 12 * gib},    // ¾ of the memory
		{true, 1 * gib, 2 * gib},      // never under 2 GiB
		{false, 16 * gib, 768 << 20},  // bounded, whatever the machine
		{false, 256 << 20, 192 << 20}, // a container smaller than the bound
		{false, 0, 768 << 20},         // memory unknown
		{false, 1 * gib, 768 << 20},   // a container of 1 GiB: ¾ of it
	} {
		if got := memLimit(c.roomy, c.mem); got != c.want {
			t.Errorf("memLimit(%v, %d) = %d, want %d", c.roomy, c.mem, got, c.want)
		}
	}
}

// The free memory is returned once each time the process goes quiet after
// real work: not while it works, not while it stays quiet, not after a
// quiet start.
func TestIdleRelease(t *testing.T) {
	var r idleRelease
	tick := func(allocated uint64) bool { return r.observe(allocated) }
	for range 10 { // a quiet start: nothing to give back
		if tick(1 << 20) {
			t.Fatal("released after no work")
		}
	}
	for range 5 { // a drain
		if tick(200 << 20) {
			t.Fatal("released while busy")
		}
	}
	for i := 1; i < idleTicks; i++ {
		if tick(1 << 20) {
			t.Fatalf("released after %d quiet ticks", i)
		}
	}
	if !tick(1 << 20) {
		t.Fatalf("not released after %d quiet ticks following work", idleTicks)
	}
	for range 10 {
		if tick(1 << 20) {
			t.Fatal("released again while still quiet")
		}
	}
	tick(300 << 20) // work again, one busy tick interrupting the quiet
	for i := 1; i < idleTicks; i++ {
		tick(1 << 20)
	}
	if !tick(1 << 20) {
		t.Fatal("not released after the next stretch of work")
	}
}
