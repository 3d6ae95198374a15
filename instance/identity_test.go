package instance

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ste-utility/ste/testgate"
)

func TestClaimHandsOutSlotsAndGivesThemBack(t *testing.T) {
	home := t.TempDir()
	a, err := Claim(home, "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Claim(home, "")
	if err != nil {
		t.Fatal(err)
	}
	if a.ID == b.ID || a.Dir == b.Dir || a.Slot != 0 || b.Slot != 1 {
		t.Fatalf("two live instances share an identity: %+v %+v", a, b)
	}
	if err := ValidID(a.ID); err != nil {
		t.Fatalf("default id %q is not a valid id: %v", a.ID, err)
	}
	oldA := a.ID
	a.Release()
	again, err := Claim(home, "")
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != oldA {
		t.Fatalf("a restarted instance must get its old id back: %s, was %s", again.ID, oldA)
	}
	// Another home hands out other ids for the same slots.
	other, err := Claim(t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	if other.ID == again.ID {
		t.Fatalf("two homes handed out the same id %s", other.ID)
	}
}

func TestExplicitIDIsExclusive(t *testing.T) {
	home := t.TempDir()
	a, err := Claim(home, "validate-7")
	if err != nil || a.ID != "validate-7" {
		t.Fatalf("%+v %v", a, err)
	}
	if _, err := Claim(home, "validate-7"); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("a second holder of one id must be refused: %v", err)
	}
	a.Release()
	if b, err := Claim(home, "validate-7"); err != nil {
		t.Fatalf("a released id must be free again: %v", err)
	} else {
		b.Release()
	}
	if ValidID("") == nil {
		t.Error("empty id valid")
	}
	for _, bad := range []string{"a b", "x/y", "..", strings.Repeat("x", 65), "ünïcode"} {
		if _, err := Claim(home, bad); err == nil {
			t.Errorf("id %q accepted", bad)
		}
	}
}

// TestLockIsHeldAcrossProcesses: the lock is the kernel's, so a slot held by
// another process is skipped (flock locks are per open file, as between
// processes).
func TestLockIsHeldAcrossProcesses(t *testing.T) {
	home := t.TempDir()
	a, err := Claim(home, "")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	// flock(1) from util-linux stands in for another process: it must not
	// get the lock while we hold it.
	_, err = exec.LookPath("flock")
	testgate.Need(t, "flock(1) (util-linux) as the other process", err)
	out, err := exec.Command("flock", "-n", a.Dir+"/lock", "true").CombinedOutput()
	if err == nil {
		t.Fatalf("another process took the lock of a held slot (%s)", out)
	}
}

// A slot whose holder is being torn down (killed, not yet gone) is waited
// for, not skipped: an instance restarted right after kill -9 gets its old id
// back. Here the holder's pid in the lock file is a zombie child while the
// lock is held a moment longer; the claim must wait and take slot 0.
func TestClaimWaitsForADyingHolder(t *testing.T) {
	home := t.TempDir()
	held, err := Claim(home, "")
	if err != nil {
		t.Fatal(err)
	}
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	child.Process.Kill()
	for !dying(child.Process.Pid) {
		time.Sleep(10 * time.Millisecond) // until it is a zombie (not reaped yet)
	}
	defer child.Wait()
	held.lock.Truncate(0)
	held.lock.WriteAt([]byte(strconv.Itoa(child.Process.Pid)+"\n"), 0)
	go func() { time.Sleep(300 * time.Millisecond); held.Release() }()
	got, err := Claim(home, "")
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	if got.Slot != 0 || got.ID != held.ID {
		t.Fatalf("claimed slot %d (%s) while slot 0's holder was dying: want slot 0 (%s) back", got.Slot, got.ID, held.ID)
	}
	// A live holder is not waited for.
	live := exec.Command("sleep", "60")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { live.Process.Kill(); live.Wait() }()
	if dying(live.Process.Pid) {
		t.Fatal("a live process reads as dying")
	}
	got.lock.Truncate(0)
	got.lock.WriteAt([]byte(strconv.Itoa(live.Process.Pid)+"\n"), 0)
	start := time.Now()
	other, err := Claim(home, "")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Release()
	// A claim that waited would wait the whole dyingWait (10 s); at once is
	// any time well short of it, however loaded the machine.
	if took := time.Since(start); other.Slot != 1 || took > dyingWait/2 {
		t.Fatalf("with a live holder: slot %d after %v, want slot 1 without waiting for it (%v)", other.Slot, took, dyingWait)
	}
}

func TestRemoveTablesSkipsRunningInstances(t *testing.T) {
	home := t.TempDir()
	stopped, err := Claim(home, "")
	if err != nil {
		t.Fatal(err)
	}
	running, err := Claim(home, "live")
	if err != nil {
		t.Fatal(err)
	}
	defer running.Release()
	for _, dir := range []string{stopped.Dir, running.Dir} {
		for _, ns := range []string{"sb", "other"} {
			if err := os.MkdirAll(filepath.Join(dir, "tables", ns, "x"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	stopped.Release()
	removed, busy, err := RemoveTables(home, "sb")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(stopped.Dir, "tables", "sb"); len(removed) != 1 || removed[0] != want {
		t.Errorf("removed %v, want [%s]", removed, want)
	}
	if want := filepath.Join(running.Dir, "tables", "sb"); len(busy) != 1 || busy[0] != want {
		t.Errorf("busy %v, want [%s]", busy, want)
	}
	for dir, want := range map[string]bool{
		filepath.Join(stopped.Dir, "tables", "sb"):    false,
		filepath.Join(stopped.Dir, "tables", "other"): true,
		filepath.Join(running.Dir, "tables", "sb"):    true,
	} {
		if _, err := os.Stat(dir); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", dir, err == nil, want)
		}
	}
	if _, _, err := RemoveTables(home, "../x"); err == nil {
		t.Error("a namespace with a path in it was accepted")
	}
}
