package trust

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestLoadOrCreate(t *testing.T) {
	dir := t.TempDir()
	path := DefaultPath(filepath.Join(dir, "home"))
	a, err := LoadOrCreate(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != Size {
		t.Fatalf("secret file %v %v", fi, err)
	}
	if di, _ := os.Stat(filepath.Dir(path)); di.Mode().Perm() != 0o700 {
		t.Fatalf("home created %v, want 0700", di.Mode().Perm())
	}
	b, err := LoadOrCreate(path)
	if err != nil || !bytes.Equal(a.key, b.key) {
		t.Fatalf("second load made another secret: %v", err)
	}
	if a.Token("lookup") != b.Token("lookup") || a.Token("lookup") == a.Token("other") {
		t.Fatal("tokens: one per purpose, the same in every process")
	}
}

// Processes starting together end with one secret.
func TestLoadOrCreateRace(t *testing.T) {
	path := DefaultPath(t.TempDir())
	var wg sync.WaitGroup
	keys := make([][]byte, 8)
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := LoadOrCreate(path)
			if err != nil {
				t.Error(err)
				return
			}
			keys[i] = s.key
		}()
	}
	wg.Wait()
	for _, k := range keys[1:] {
		if !bytes.Equal(k, keys[0]) {
			t.Fatal("racing starts made two secrets")
		}
	}
}

func TestLoadRefuses(t *testing.T) {
	dir := t.TempDir()
	open := filepath.Join(dir, "open")
	os.WriteFile(open, bytes.Repeat([]byte{1}, Size), 0o644)
	if _, err := Load(open); !errors.Is(err, ErrPermissions) {
		t.Fatalf("a world-readable secret loaded: %v", err)
	}
	if _, err := LoadOrCreate(open); !errors.Is(err, ErrPermissions) {
		t.Fatalf("LoadOrCreate replaced or accepted a world-readable secret: %v", err)
	}
	short := filepath.Join(dir, "short")
	os.WriteFile(short, []byte("abc"), 0o600)
	if _, err := Load(short); err == nil {
		t.Fatal("a 3-byte secret loaded")
	}
}

func TestMAC(t *testing.T) {
	s, _ := New(bytes.Repeat([]byte{7}, Size))
	other, _ := New(bytes.Repeat([]byte{8}, Size))
	mac := s.MAC("exception", []byte("record"))
	if !s.Verify("exception", []byte("record"), mac) {
		t.Fatal("own MAC refused")
	}
	if s.Verify("exception", []byte("recorD"), mac) || s.Verify("registry", []byte("record"), mac) ||
		other.Verify("exception", []byte("record"), mac) {
		t.Fatal("a MAC verified another record, purpose or secret")
	}
	if !s.CheckToken("lookup", s.Token("lookup")) || s.CheckToken("lookup", other.Token("lookup")) || s.CheckToken("lookup", "") {
		t.Fatal("token check")
	}
}

// A file named by the operator may be group-readable (a Kubernetes Secret
// mounted with an fsGroup), never world-readable; the default file may be
// neither.
func TestLoadNamedAllowsGroupRead(t *testing.T) {
	dir := t.TempDir()
	group := filepath.Join(dir, "group")
	if err := os.WriteFile(group, bytes.Repeat([]byte{2}, Size), 0o640); err != nil {
		t.Fatal(err)
	}
	os.Chmod(group, 0o640) // whatever the umask
	if s, err := LoadNamed(group); err != nil || s == nil {
		t.Fatalf("a group-readable named secret refused: %v", err)
	}
	if _, err := Load(group); !errors.Is(err, ErrPermissions) {
		t.Fatalf("Load took a group-readable secret: %v", err)
	}
	world := filepath.Join(dir, "world")
	os.WriteFile(world, bytes.Repeat([]byte{2}, Size), 0o644)
	os.Chmod(world, 0o644)
	if _, err := LoadNamed(world); !errors.Is(err, ErrPermissions) {
		t.Fatalf("a world-readable named secret loaded: %v", err)
	}
	short := filepath.Join(dir, "short")
	os.WriteFile(short, []byte("abc"), 0o640)
	if _, err := LoadNamed(short); err == nil {
		t.Fatal("a 3-byte named secret loaded")
	}
}
