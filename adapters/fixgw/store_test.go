package fixgw

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quickfixgo/quickfix"
)

// One process holds a store; a second (and reset-seq) is told who.
func TestStoreLock(t *testing.T) {
	dir := t.TempDir()
	l, err := LockStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	var locked ErrLocked
	if _, err := LockStore(dir); !errors.As(err, &locked) || locked.PID != os.Getpid() || err.Error() != "store locked by pid "+itoa(os.Getpid()) {
		t.Fatalf("second lock: %v", err)
	}
	if _, err := ResetSeq(dir, "AQGOSGSG"); !errors.As(err, &locked) {
		t.Fatalf("reset-seq under the lock: %v", err)
	}
	l.Release()
	if l2, err := LockStore(dir); err != nil {
		t.Fatalf("after release: %v", err)
	} else {
		l2.Release()
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// reset-seq: both numbers to 1, stored messages gone, the cursor back to
// where delivery last resumed.
func TestResetSeq(t *testing.T) {
	dir := t.TempDir()
	id := quickfix.SessionID{BeginString: "FIX.4.4", SenderCompID: "STEUTLSGXXX", TargetCompID: "AQGOSGSG"}
	f := newStoreFactory(dir, quickfix.SessionID{})
	s, err := f.Create(id)
	if err != nil {
		t.Fatal(err)
	}
	s.SaveMessageAndIncrNextSenderMsgSeqNum(1, []byte("8=FIX.4.4|"))
	s.SetNextTargetMsgSeqNum(42)
	f.closeAll()
	must(t, SaveCursor(dir, "AQGOSGSG", Cursor{Topic: "ns.outbound", Partition: 1, Next: 900, Resume: 700}))
	if _, err := ResetSeq(dir, "NOSUCHBIC"); err == nil {
		t.Fatal("reset of an unknown session")
	}
	done, err := ResetSeq(dir, "AQGOSGSG")
	if err != nil || len(done) != 1 {
		t.Fatalf("reset: %v %v", done, err)
	}
	sender, target, err := SeqNums(dir, id)
	if err != nil || sender != 1 || target != 1 {
		t.Fatalf("after reset: %d %d %v", sender, target, err)
	}
	c, _ := LoadCursor(dir, "AQGOSGSG")
	if c.Next != 700 || c.Resume != 700 {
		t.Fatalf("cursor %+v", c)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// The credentials file: written 0600 by passwd, verified, refused when
// group- or world-readable, re-read on change.
func TestCredentials(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fix-credentials.csv")
	must(t, SetPassword(path, "AQGOSGSG", "first secret"))
	must(t, SetPassword(path, "AMPFSGSGMHX", "broker's"))
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %o", fi.Mode().Perm())
	}
	b, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(b), "bic,password_hash\n") || !strings.Contains(string(b), "\nAQGOSGSG,$argon2id$v=19$m=65536,t=3,p=1$") {
		t.Fatalf("file:\n%s", b)
	}
	c, err := LoadCredentials(path)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Verify("AQGOSGSG", "first secret") || c.Verify("AQGOSGSG", "wrong") || c.Verify("AMPFSGSGMHX", "first secret") ||
		!c.Known("AMPFSGSGMHX") || c.Known("OTHERSGSGXX") {
		t.Fatal("verification")
	}
	if !c.Verify("AQGOSGSG", "first secret") { // from the cache
		t.Fatal("second verification")
	}
	time.Sleep(10 * time.Millisecond)
	must(t, SetPassword(path, "AQGOSGSG", "second secret"))
	if changed, err := c.Reload(); !changed || err != nil {
		t.Fatalf("reload: %v %v", changed, err)
	}
	if c.Verify("AQGOSGSG", "first secret") || !c.Verify("AQGOSGSG", "second secret") {
		t.Fatal("after the change")
	}
	must(t, os.Chmod(path, 0o640))
	if _, err := LoadCredentials(path); err == nil || !strings.Contains(err.Error(), "group- or world-readable") {
		t.Fatalf("group-readable: %v", err)
	}
	if _, err := c.Reload(); err == nil || !c.Verify("AQGOSGSG", "second secret") {
		t.Fatalf("a group-readable file is refused and the last good one kept: %v", err)
	}
	must(t, os.Chmod(path, 0o600))
	must(t, os.WriteFile(path, []byte("bic,password_hash\nAQGOSGSG,plain\n"), 0o600))
	if _, err := LoadCredentials(path); err == nil || !strings.Contains(err.Error(), ":2:") {
		t.Fatalf("a row that is no argon2id hash: %v", err)
	}
	d := DemoCredentials()
	if !d.Verify("AQGOSGSG", "383840b4bf7f1272ae9b41f83fa12b581954b8fdd7db84b55bc8890411df4bce") || d.Verify("AQGOSGSG", "x") {
		t.Fatal("the demo password of adapters.md §4.9")
	}
}

// Lock-out counts per CompID and address.
func TestLockout(t *testing.T) {
	l := newLockout()
	now := time.Now()
	for i := 0; i < 5; i++ {
		if l.locked("A", "1.2.3.4", now) {
			t.Fatalf("locked after %d", i)
		}
		l.fail("A", "1.2.3.4", now)
	}
	if !l.locked("A", "1.2.3.4", now.Add(59*time.Second)) || l.locked("A", "5.6.7.8", now) || l.locked("B", "1.2.3.4", now) {
		t.Fatal("lock-out per CompID and address")
	}
	if l.locked("A", "1.2.3.4", now.Add(61*time.Second)) {
		t.Fatal("still locked after 60 s")
	}
	// Failures spread over more than a minute do not lock.
	for i := 0; i < 5; i++ {
		l.fail("C", "1.1.1.1", now.Add(time.Duration(i)*20*time.Second))
	}
	if l.locked("C", "1.1.1.1", now.Add(81*time.Second)) {
		t.Fatal("locked by failures outside the window")
	}
}
