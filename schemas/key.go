package schemas

import (
	"bytes"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
)

// MaxKeyFile bounds how much of a key file is read: a PEM Ed25519 key is
// about 120 bytes, so anything near this is not a key file.
const MaxKeyFile = 8 << 10

// LoadUtilityKey reads the utility's signing key from the file at path: a PEM
// "PRIVATE KEY" (PKCS#8, as `openssl genpkey -algorithm ed25519` writes), or
// base64 of a 32-byte seed or a 64-byte private key. It refuses what is not a
// regular file of at most MaxKeyFile bytes (/dev/zero would be read until
// memory runs out, a FIFO would block), a 64-byte key whose second half is
// not the public key of its seed (every signature made with it would be
// invalid), and any key that does not verify its own signature.
//
// Errors never repeat the file's content, nor path when no file is there:
// operators sometimes put the key itself where its path belongs
// (STE_UTILITY_KEY), and an error message ends up in logs.
func LoadUtilityKey(path string) (ed25519.PrivateKey, error) {
	data, err := readKeyFile(path)
	if err != nil {
		return nil, err
	}
	key, err := parseKey(data)
	if err != nil {
		return nil, fmt.Errorf("utility key %s: %v", path, err)
	}
	if err := checkKey(key); err != nil {
		return nil, fmt.Errorf("utility key %s: %v", path, err)
	}
	return key, nil
}

func readKeyFile(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		// The value may be key material rather than a path: say what is wrong
		// without repeating it.
		what := "no file at the path given"
		if !errors.Is(err, fs.ErrNotExist) {
			what = "the path given cannot be read (" + errnoText(err) + ")"
		}
		if looksLikeKey(path) {
			what += "; the value looks like a key itself, not the path of a key file"
		}
		return nil, errors.New("utility key: " + what + " (the value is not repeated here in case it is key material)")
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("utility key %s: not a regular file (%s)", path, fileKind(fi.Mode()))
	}
	// O_NONBLOCK: had the file been swapped for a FIFO since the Stat, opening
	// it must not block; the Stat of the open file below catches it.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("utility key %s: %s", path, errnoText(err))
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("utility key %s: not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxKeyFile+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("utility key %s: %s", path, errnoText(err))
	case len(data) > MaxKeyFile:
		return nil, fmt.Errorf("utility key %s: over %d bytes, not a key file", path, MaxKeyFile)
	case len(bytes.TrimSpace(data)) == 0:
		return nil, fmt.Errorf("utility key %s: the file is empty", path)
	}
	return data, nil
}

func parseKey(data []byte) (ed25519.PrivateKey, error) {
	if blk, _ := pem.Decode(data); blk != nil {
		if blk.Type != "PRIVATE KEY" {
			return nil, fmt.Errorf("PEM block %q, want \"PRIVATE KEY\" (PKCS#8 Ed25519)", Echo(blk.Type))
		}
		k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
		if err != nil {
			return nil, errors.New("PEM block is not a PKCS#8 private key")
		}
		ek, ok := k.(ed25519.PrivateKey)
		if !ok {
			return nil, fmt.Errorf("a %T, not an Ed25519 key", k)
		}
		return ek, nil
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(data)))
	if err != nil {
		return nil, errors.New("neither PEM nor standard base64")
	}
	switch len(raw) {
	case ed25519.SeedSize:
		return ed25519.NewKeyFromSeed(raw), nil
	case ed25519.PrivateKeySize:
		return ed25519.PrivateKey(raw), nil
	}
	return nil, fmt.Errorf("%d bytes after base64; want a 32-byte seed or a 64-byte private key", len(raw))
}

// checkKey proves the key can sign: the public half is the seed's, and a
// signature made with it verifies.
func checkKey(k ed25519.PrivateKey) error {
	if len(k) != ed25519.PrivateKeySize {
		return fmt.Errorf("%d bytes, want %d", len(k), ed25519.PrivateKeySize)
	}
	derived := ed25519.NewKeyFromSeed(k.Seed())
	if !bytes.Equal(derived[ed25519.SeedSize:], k[ed25519.SeedSize:]) {
		return errors.New("its public half is not the public key of its seed: the key is corrupt (every signature made with it would be invalid)")
	}
	probe := []byte("ste utility key self-test")
	if !ed25519.Verify(k.Public().(ed25519.PublicKey), probe, ed25519.Sign(k, probe)) {
		return errors.New("a signature made with it does not verify")
	}
	return nil
}

// looksLikeKey reports a value that is key material rather than a path.
func looksLikeKey(v string) bool {
	if strings.Contains(v, "PRIVATE KEY") || strings.Contains(v, "-----BEGIN") {
		return true
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(v))
	return err == nil && (len(raw) == ed25519.SeedSize || len(raw) == ed25519.PrivateKeySize)
}

// errnoText is the cause of a file error without the path it carries.
func errnoText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return m.Type().String()
}

// EncodePrivateKeyPEM writes k as PKCS#8 PEM.
func EncodePrivateKeyPEM(k ed25519.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}
