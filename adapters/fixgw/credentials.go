package fixgw

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/argon2"

	"github.com/ste-utility/ste/schemas"
)

// The logon passwords of docs/spec/adapters.md §4.1: a CSV file
// bic,password_hash whose hashes are PHC-format argon2id strings
// ($argon2id$v=19$m=65536,t=3,p=1$<salt>$<hash>), not group- or
// world-readable, re-read within 30 s of a change; or, with
// --demo-credentials, the public demo rule hex(sha256("ste-demo-fix:"+BIC)).

// Argon2id parameters `ste fixgw passwd` writes.
const (
	argonMemory  = 64 * 1024 // KiB
	argonTime    = 3
	argonThreads = 1
	argonKeyLen  = 32
	argonSaltLen = 16
)

// DemoPassword is the demo logon password of bic (--demo-credentials).
func DemoPassword(bic string) string {
	s := sha256.Sum256([]byte("ste-demo-fix:" + bic))
	return hex.EncodeToString(s[:])
}

// phc is a parsed argon2id hash.
type phc struct {
	m       uint32
	t       uint32
	p       uint8
	salt    []byte
	hash    []byte
	encoded string
}

func parsePHC(s string) (*phc, error) {
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != "v=19" {
		return nil, errors.New("not a PHC argon2id v=19 string ($argon2id$v=19$m=…,t=…,p=…$salt$hash)")
	}
	h := &phc{encoded: s}
	for _, kv := range strings.Split(parts[3], ",") {
		k, v, _ := strings.Cut(kv, "=")
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil || n == 0 {
			return nil, fmt.Errorf("bad argon2id parameter %q", kv)
		}
		switch k {
		case "m":
			h.m = uint32(n)
		case "t":
			h.t = uint32(n)
		case "p":
			if n > 255 {
				return nil, fmt.Errorf("bad argon2id parameter %q", kv)
			}
			h.p = uint8(n)
		default:
			return nil, fmt.Errorf("unknown argon2id parameter %q", kv)
		}
	}
	if h.m == 0 || h.t == 0 || h.p == 0 {
		return nil, errors.New("argon2id parameters m, t and p are required")
	}
	if h.m > 4*1024*1024 {
		return nil, errors.New("argon2id memory over 4 GiB")
	}
	var err error
	if h.salt, err = base64.RawStdEncoding.DecodeString(parts[4]); err != nil || len(h.salt) < 8 {
		return nil, errors.New("bad argon2id salt")
	}
	if h.hash, err = base64.RawStdEncoding.DecodeString(parts[5]); err != nil || len(h.hash) < 16 {
		return nil, errors.New("bad argon2id hash")
	}
	return h, nil
}

func (h *phc) verify(password string) bool {
	got := argon2.IDKey([]byte(password), h.salt, h.t, h.m, h.p, uint32(len(h.hash)))
	return subtle.ConstantTimeCompare(got, h.hash) == 1
}

// HashPassword is the PHC argon2id string of password with a fresh salt.
func HashPassword(password string) (string, error) {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=19$m=%d,t=%d,p=%d$%s$%s", argonMemory, argonTime, argonThreads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

// Credentials verify logon passwords.
type Credentials struct {
	demo bool
	path string

	mu     sync.RWMutex
	hashes map[string]*phc
	stamp  fileStamp
	good   map[string][32]byte // bic → SHA-256 of hash||password last verified (argon2id is slow on purpose)
}

type fileStamp struct {
	mod  time.Time
	size int64
	ino  uint64
	perm os.FileMode
}

// DemoCredentials accept every participant's demo password.
func DemoCredentials() *Credentials { return &Credentials{demo: true, good: map[string][32]byte{}} }

// LoadCredentials reads the credentials file; Watch re-reads it on change.
func LoadCredentials(path string) (*Credentials, error) {
	c := &Credentials{path: path, good: map[string][32]byte{}}
	hashes, st, err := readCredentials(path)
	if err != nil {
		return nil, err
	}
	c.hashes, c.stamp = hashes, st
	return c, nil
}

func stampOf(fi os.FileInfo) fileStamp {
	return fileStamp{mod: fi.ModTime(), size: fi.Size(), ino: inode(fi), perm: fi.Mode().Perm()}
}

// readCredentials reads and checks a credentials file: not group- or
// world-readable, one row per BIC, every hash a PHC argon2id string.
func readCredentials(path string) (map[string]*phc, fileStamp, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fileStamp{}, fmt.Errorf("--credentials: %v", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fileStamp{}, fmt.Errorf("--credentials: %v", err)
	}
	if fi.Mode().Perm()&0o044 != 0 {
		return nil, fileStamp{}, fmt.Errorf("--credentials %s is group- or world-readable (mode %04o): chmod 600 it", path, fi.Mode().Perm())
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fileStamp{}, fmt.Errorf("--credentials %s: %v", path, err)
	}
	out := map[string]*phc{}
	for i, r := range credentialRows(b) {
		if r == nil {
			continue
		}
		if i == 0 && r[0] == "bic" && r[1] == "password_hash" {
			continue
		}
		if len(r) != 2 {
			return nil, fileStamp{}, fmt.Errorf("--credentials %s:%d: want bic,password_hash", path, i+1)
		}
		if !schemas.IsBIC(r[0]) {
			return nil, fileStamp{}, fmt.Errorf("--credentials %s:%d: %q is not a BIC", path, i+1, r[0])
		}
		if _, dup := out[r[0]]; dup {
			return nil, fileStamp{}, fmt.Errorf("--credentials %s:%d: %s listed twice", path, i+1, r[0])
		}
		h, err := parsePHC(r[1])
		if err != nil {
			return nil, fileStamp{}, fmt.Errorf("--credentials %s:%d: %v", path, i+1, err)
		}
		out[r[0]] = h
	}
	return out, stampOf(fi), nil
}

// credentialRows splits a credentials file into (bic, password_hash) rows,
// nil for a blank line. A PHC string holds commas (m=…,t=…,p=…): a row is
// split at its first comma, and the hash may be written plain or quoted
// (as a CSV writer quotes it).
func credentialRows(b []byte) [][]string {
	var out [][]string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" {
			out = append(out, nil)
			continue
		}
		bic, hash, ok := strings.Cut(line, ",")
		if !ok {
			out = append(out, []string{line})
			continue
		}
		hash = strings.TrimSpace(hash)
		if len(hash) >= 2 && hash[0] == '"' && hash[len(hash)-1] == '"' {
			hash = strings.ReplaceAll(hash[1:len(hash)-1], `""`, `"`)
		}
		out = append(out, []string{strings.TrimSpace(bic), hash})
	}
	return out
}

// Demo says whether these are the demo credentials.
func (c *Credentials) Demo() bool { return c.demo }

// Known says whether bic has a password: a CompID that has none is refused
// before any session exists (§4.2).
func (c *Credentials) Known(bic string) bool {
	if c.demo {
		return schemas.IsBIC(bic)
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	_, ok := c.hashes[bic]
	return ok
}

// Verify checks bic's password.
func (c *Credentials) Verify(bic, password string) bool {
	if c.demo {
		want := DemoPassword(bic)
		return schemas.IsBIC(bic) && subtle.ConstantTimeCompare([]byte(password), []byte(want)) == 1
	}
	c.mu.RLock()
	h := c.hashes[bic]
	good, seen := c.good[bic]
	c.mu.RUnlock()
	if h == nil {
		return false
	}
	key := sha256.Sum256(append([]byte(h.encoded+"\x00"), password...))
	if seen && subtle.ConstantTimeCompare(key[:], good[:]) == 1 {
		return true
	}
	if !h.verify(password) {
		return false
	}
	c.mu.Lock()
	if c.hashes[bic] == h {
		c.good[bic] = key
	}
	c.mu.Unlock()
	return true
}

// Reload re-reads the file when it changed; a file that became unreadable,
// invalid or group- or world-readable is refused and the last good one
// kept (said through the error).
func (c *Credentials) Reload() (bool, error) {
	if c.demo {
		return false, nil
	}
	fi, err := os.Stat(c.path)
	if err != nil {
		return false, fmt.Errorf("--credentials: %v (the last good file stays in use)", err)
	}
	c.mu.RLock()
	same := stampOf(fi) == c.stamp
	c.mu.RUnlock()
	if same {
		return false, nil
	}
	hashes, st, err := readCredentials(c.path)
	if err != nil {
		return false, fmt.Errorf("%v (the last good file stays in use)", err)
	}
	c.mu.Lock()
	c.hashes, c.stamp, c.good = hashes, st, map[string][32]byte{}
	c.mu.Unlock()
	return true, nil
}

// SetPassword writes bic's hash of password into the credentials file at
// path (created 0600), replacing its row or adding one; the file is
// replaced atomically, its mode kept at 0600.
func SetPassword(path, bic, password string) error {
	if !schemas.IsBIC(bic) {
		return fmt.Errorf("--bic %q is not a BIC", bic)
	}
	if password == "" {
		return errors.New("empty password")
	}
	var rows [][]string
	if b, err := os.ReadFile(path); err == nil {
		for _, r := range credentialRows(b) {
			if r != nil {
				rows = append(rows, r)
			}
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	hash, err := HashPassword(password)
	if err != nil {
		return err
	}
	if len(rows) == 0 || len(rows[0]) != 2 || rows[0][0] != "bic" {
		rows = append([][]string{{"bic", "password_hash"}}, rows...)
	}
	done := false
	for _, r := range rows[1:] {
		if len(r) == 2 && r[0] == bic {
			r[1], done = hash, true
		}
	}
	if !done {
		rows = append(rows, []string{bic, hash})
	}
	var buf bytes.Buffer
	for _, r := range rows {
		buf.WriteString(strings.Join(r, ",") + "\n")
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".credentials-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ReadPassword reads a password from r: its first line, without the line
// end.
func ReadPassword(r io.Reader) (string, error) {
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && !(errors.Is(err, io.EOF) && line != "") {
		if errors.Is(err, io.EOF) {
			return "", errors.New("no password on stdin")
		}
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// lockout counts refused Logons per CompID and source address (§4.2):
// after 5 within 60 s, further Logons for that CompID from that address
// fail for 60 s — per address, so that a third party who knows the public
// BIC cannot lock the participant out.
type lockout struct {
	mu       sync.Mutex
	failures map[string][]time.Time
	until    map[string]time.Time
}

const (
	lockoutFailures = 5
	lockoutWindow   = 60 * time.Second
)

func newLockout() *lockout {
	return &lockout{failures: map[string][]time.Time{}, until: map[string]time.Time{}}
}

func (l *lockout) locked(bic, ip string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	u, ok := l.until[bic+"|"+ip]
	if ok && now.Before(u) {
		return true
	}
	if ok {
		delete(l.until, bic+"|"+ip)
	}
	return false
}

func (l *lockout) fail(bic, ip string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := bic + "|" + ip
	var keep []time.Time
	for _, t := range l.failures[k] {
		if now.Sub(t) < lockoutWindow {
			keep = append(keep, t)
		}
	}
	keep = append(keep, now)
	if len(keep) >= lockoutFailures {
		l.until[k] = now.Add(lockoutWindow)
		keep = nil
	}
	if len(keep) == 0 {
		delete(l.failures, k)
	} else {
		l.failures[k] = keep
	}
	// Forget old entries now and then: the map never outgrows the
	// addresses that failed in the last minute.
	if len(l.failures) > 10000 {
		for k, ts := range l.failures {
			if now.Sub(ts[len(ts)-1]) >= lockoutWindow {
				delete(l.failures, k)
			}
		}
	}
}
