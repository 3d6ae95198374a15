package instance

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Identity is who this instance is: the id that names its Kafka clients, its
// registry entry and (later) its static group membership, and the directory
// of its local state. It holds a lock on that directory while the process
// lives: two processes never share one id under one $STE_HOME. The kernel
// drops the lock when the process ends, however it ends (kill -9 included).
type Identity struct {
	ID  string
	Dir string
	// Slot is the slot number of a default id, -1 for an explicit one.
	Slot int
	lock *os.File
}

// MaxSlots bounds how many default ids one $STE_HOME hands out at once.
const MaxSlots = 256

// ValidID checks an explicit instance id: 1 to 64 of [A-Za-z0-9._-], so that
// it is a valid Kafka client id and group.instance.id and a file name.
func ValidID(id string) error {
	if id == "" || len(id) > 64 {
		return errors.New("instance id must be 1 to 64 characters")
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("instance id %q: use letters, digits, '.', '_' and '-'", id)
		}
	}
	if id == "." || id == ".." {
		return fmt.Errorf("instance id %q is not allowed", id)
	}
	return nil
}

// Claim takes an identity under home. An explicit id is used as given (and
// refused if another process holds it). Without one, Claim takes the lowest
// free slot under home/instances/slots: the first instance started from a
// $STE_HOME is slot 0, a second one running beside it slot 1, and a
// restarted instance finds its old slot free and gets its old id back. A
// slot's id is made once — host name, slot and a random suffix, so that
// two homes on one host never hand out the same id — and kept in the slot.
func Claim(home, explicit string) (*Identity, error) {
	root := filepath.Join(home, "instances")
	if explicit != "" {
		if err := ValidID(explicit); err != nil {
			return nil, err
		}
		dir := filepath.Join(root, "ids", explicit)
		lock, err := lockDir(dir)
		if err != nil {
			return nil, err
		}
		if lock == nil {
			return nil, fmt.Errorf("instance id %s is in use by another process under %s", explicit, home)
		}
		return &Identity{ID: explicit, Dir: dir, Slot: -1, lock: lock}, nil
	}
	for n := 0; n < MaxSlots; n++ {
		dir := filepath.Join(root, "slots", strconv.Itoa(n))
		lock, err := lockDir(dir)
		if err != nil {
			return nil, err
		}
		if lock == nil {
			continue
		}
		id, err := slotID(dir, n)
		if err != nil {
			lock.Close()
			return nil, err
		}
		return &Identity{ID: id, Dir: dir, Slot: n, lock: lock}, nil
	}
	return nil, fmt.Errorf("all %d instance slots under %s are taken; give --instance-id", MaxSlots, home)
}

// lockDir creates dir and takes an exclusive lock on dir/lock; nil, nil when
// another process holds it.
func lockDir(dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("instance directory: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("instance lock: %w", err)
	}
	// A holder that was killed keeps the lock until the kernel has torn it
	// down, which on a busy machine took over a second: an instance
	// restarted a second after kill -9 took the next slot, a new id, and
	// lost its static group membership. Wait for a dying holder, not for a
	// live one.
	deadline := time.Now().Add(dyingWait)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("instance lock: %w", err)
		}
		if time.Now().After(deadline) || !holderDying(f) {
			f.Close()
			return nil, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Who holds it, for an operator looking at the directory.
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return f, nil
}

// dyingWait bounds the wait for a killed holder's lock.
var dyingWait = 10 * time.Second

// holderDying reports whether the process named in the lock file is being
// torn down: a SIGKILL pending, exiting, or a zombie. Elsewhere than Linux
// (no /proc) nothing reads as dying.
func holderDying(lock *os.File) bool {
	b := make([]byte, 32)
	n, _ := lock.ReadAt(b, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	if err != nil || pid <= 0 {
		return false
	}
	return dying(pid)
}

// dying reads /proc: the state (Z, X), the PF_EXITING flag, and pending
// signals for SIGKILL.
func dying(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) state ppid pgrp session tty tpgid flags ...; comm may hold spaces.
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if len(fields) < 7 {
		return false
	}
	const pfExiting = 0x4
	if flags, err := strconv.ParseUint(fields[6], 10, 64); fields[0] == "Z" || fields[0] == "X" ||
		err == nil && flags&pfExiting != 0 {
		return true
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(status), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && (k == "ShdPnd" || k == "SigPnd") {
			if mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64); err == nil && mask&(1<<(int(syscall.SIGKILL)-1)) != 0 {
				return true
			}
		}
	}
	return false
}

// slotID reads the slot's id, making it on first use.
func slotID(dir string, n int) (string, error) {
	path := filepath.Join(dir, "id")
	if b, err := os.ReadFile(path); err == nil {
		if id := strings.TrimSpace(string(b)); ValidID(id) == nil {
			return id, nil
		}
	}
	var r [3]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", err
	}
	id := fmt.Sprintf("%s-%d-%s", hostLabel(), n, hex.EncodeToString(r[:]))
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(id+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("instance id: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("instance id: %w", err)
	}
	return id, nil
}

// hostLabel is the host name cut to what an id may hold.
func hostLabel() string {
	h, _ := os.Hostname()
	var b strings.Builder
	for _, c := range h {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' {
			b.WriteRune(c)
		}
		if c == '.' || b.Len() >= 40 {
			break
		}
	}
	if b.Len() == 0 {
		return "ste"
	}
	return b.String()
}

// Release gives the identity up (the process ending does the same).
func (i *Identity) Release() {
	if i != nil && i.lock != nil {
		i.lock.Close()
		i.lock = nil
	}
}

// RemoveTables removes namespace ns's disk tables from every instance
// directory under home whose instance is not running (ste replay --delete:
// a sandbox given up leaves nothing behind). It returns the directories
// removed and those skipped because a process holds their instance.
func RemoveTables(home, ns string) (removed, busy []string, err error) {
	if err := ValidID(ns); err != nil {
		return nil, nil, fmt.Errorf("namespace: %w", err)
	}
	dirs, _ := filepath.Glob(filepath.Join(home, "instances", "slots", "*"))
	ids, _ := filepath.Glob(filepath.Join(home, "instances", "ids", "*"))
	for _, dir := range append(dirs, ids...) {
		tables := tablesDir(dir, ns)
		if _, err := os.Stat(tables); err != nil {
			continue
		}
		lock, err := lockDir(dir)
		if err != nil {
			return removed, busy, err
		}
		if lock == nil {
			busy = append(busy, tables)
			continue
		}
		err = os.RemoveAll(tables)
		lock.Close()
		if err != nil {
			return removed, busy, err
		}
		removed = append(removed, tables)
	}
	return removed, busy, nil
}

// tablesDir is where an instance directory keeps namespace ns's disk
// tables: one directory per namespace, so that a namespace given up is one
// directory to remove.
func tablesDir(instanceDir, ns string) string { return filepath.Join(instanceDir, "tables", ns) }
