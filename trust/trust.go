// Package trust holds the utility's shared secret: the key with which its own
// processes prove to each other that they wrote a control record (an
// exception, an exception state, a registry entry, an origin marker) or made
// an internal call (a trade lookup). Anyone may be able to write to a topic;
// only the utility's processes hold the secret, so a reader believes a
// control record only when its MAC verifies.
//
// The secret is 32 random bytes in a file that only its owner may read:
// processes on one machine share $STE_HOME/utility.secret (created by the
// first that starts); in a cluster it is mounted from a Secret and named by
// flag. A file readable by group or others is refused: a secret every local
// user can read proves nothing.
package trust

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Size is the secret's length in bytes.
const Size = 32

// FileName is the secret's file under $STE_HOME.
const FileName = "utility.secret"

// DefaultPath is where the processes sharing home keep the secret.
func DefaultPath(home string) string { return filepath.Join(home, FileName) }

// Secret is the utility's shared secret.
type Secret struct{ key []byte }

// ErrPermissions: the secret's file may be read by group or others.
var ErrPermissions = errors.New("readable by group or others")

// Load reads the secret at path. It refuses a file shorter than Size bytes
// or readable by group or others.
func Load(path string) (*Secret, error) { return load(path, 0o077) }

// LoadNamed reads the secret at a path an operator named (ste
// --utility-secret, $STE_UTILITY_SECRET): as Load, except that a file its
// group may read is accepted as long as others may not. A Kubernetes Secret
// mounted in a pod with an fsGroup is made readable by that group — the
// pod's own. The default file under $STE_HOME, which ste makes itself, is
// Load's (LoadOrCreate).
func LoadNamed(path string) (*Secret, error) { return load(path, 0o007) }

// load reads the secret at path, refusing a file with any of the
// permission bits forbidden.
func load(path string, forbidden os.FileMode) (*Secret, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("utility secret: %w", err)
	}
	if fi.Mode().Perm()&forbidden != 0 {
		return nil, fmt.Errorf("utility secret %s is %v: %w (chmod 600 it)", path, fi.Mode().Perm(), ErrPermissions)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("utility secret: %w", err)
	}
	if len(b) < Size {
		return nil, fmt.Errorf("utility secret %s holds %d bytes, want at least %d", path, len(b), Size)
	}
	return &Secret{key: b}, nil
}

// LoadOrCreate loads the secret at path, creating it (Size random bytes,
// mode 0600, its directory 0700) when there is none. Two processes starting
// at once agree: the file is created exclusively, and the one that loses the
// race reads the winner's.
func LoadOrCreate(path string) (*Secret, error) {
	if s, err := Load(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return s, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("utility secret: %w", err)
	}
	key := make([]byte, Size)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("utility secret: %w", err)
	}
	// Written beside the file and linked into place, so that a reader never
	// sees a partly written secret and an existing one is never replaced.
	tmp, err := os.CreateTemp(filepath.Dir(path), ".utility.secret-*")
	if err != nil {
		return nil, fmt.Errorf("utility secret: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err == nil {
		_, err = tmp.Write(key)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Link(tmp.Name(), path)
		}
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("utility secret: %w", err)
		}
	} else {
		tmp.Close()
		return nil, fmt.Errorf("utility secret: %w", err)
	}
	return Load(path)
}

// New makes a secret of key (tests, and secrets held elsewhere than a file).
func New(key []byte) (*Secret, error) {
	if len(key) < Size {
		return nil, fmt.Errorf("utility secret holds %d bytes, want at least %d", len(key), Size)
	}
	return &Secret{key: append([]byte(nil), key...)}, nil
}

// MAC is HMAC-SHA256 of data under the secret, bound to purpose (so that a
// MAC made for one kind of record never verifies another kind).
func (s *Secret) MAC(purpose string, data []byte) []byte {
	h := hmac.New(sha256.New, s.key)
	h.Write([]byte(purpose))
	h.Write([]byte{0})
	h.Write(data)
	return h.Sum(nil)
}

// Verify reports whether mac is MAC(purpose, data), in constant time.
func (s *Secret) Verify(purpose string, data, mac []byte) bool {
	return hmac.Equal(s.MAC(purpose, data), mac)
}

// Token is a bearer token for an internal HTTP call of that purpose (e.g.
// "lookup"): every process holding the secret derives the same one, and it
// reveals nothing of the secret or of the tokens of other purposes.
func (s *Secret) Token(purpose string) string {
	return hex.EncodeToString(s.MAC("token:"+purpose, nil))
}

// CheckToken reports whether got is the token of purpose, in constant time.
func (s *Secret) CheckToken(purpose, got string) bool {
	return hmac.Equal([]byte(s.Token(purpose)), []byte(got))
}
