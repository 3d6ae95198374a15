package instance

import (
	"os/exec"
	"strings"
	"testing"
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
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("flock(1) not installed")
	}
	out, err := exec.Command("flock", "-n", a.Dir+"/lock", "true").CombinedOutput()
	if err == nil {
		t.Fatalf("another process took the lock of a held slot (%s)", out)
	}
}
