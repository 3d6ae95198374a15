package embedded

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The endpoint's engine can read and write whatever the user running ste
// can, so every request must carry a secret that only that user can read:
// 32 random bytes (hex) in home/analytics/ste-chdb.password, mode 0600,
// beside the address file, in a 0700 directory. Clients pass it as the
// password of ClickHouse user default; it is made once and kept, so the
// tools an analyst configured with it (Grafana, DBeaver, a notebook) keep
// working across restarts of the endpoint.

// PasswordFile is the endpoint's password file for an STE home.
func PasswordFile(home string) string { return filepath.Join(DataDir(home), PasswordName) }

// Password reads the password of home's endpoint (made when the endpoint
// first started).
func Password(home string) (string, error) {
	return readPassword(PasswordFile(home))
}

// LoadOrCreatePassword returns the secret in path, creating it (0600) if
// missing. A file others may read, or too short to be a secret, is refused.
func LoadOrCreatePassword(path string) (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		_, werr := f.WriteString(hex.EncodeToString(b) + "\n")
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			os.Remove(path)
			return "", fmt.Errorf("analytics: %w", werr)
		}
	} else if !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("analytics: %w", err)
	}
	return readPassword(path)
}

func readPassword(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("analytics: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("analytics: %s is readable by others (mode %v): chmod 600 it", path, st.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("analytics: %w", err)
	}
	pw := strings.TrimSpace(string(b))
	if len(pw) < 16 || strings.ContainsAny(pw, ":@/ \t") {
		return "", fmt.Errorf("analytics: %s does not hold a usable password (16 or more characters, no ':', '@', '/' or spaces); remove it to have a new one made", path)
	}
	return pw, nil
}

// privateDir makes dir (the data directory) if missing and closes it to
// everyone but its owner.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("analytics: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("analytics: %w", err)
	}
	return nil
}
