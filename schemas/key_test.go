package schemas_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
)

func TestLoadUtilityKeyForms(t *testing.T) {
	dir := t.TempDir()
	want := refdata.DemoPrivateKey("STEUTLSGXXX")
	pemBytes, err := schemas.EncodePrivateKeyPEM(want)
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string][]byte{
		"pem":  pemBytes,
		"seed": []byte(base64.StdEncoding.EncodeToString(want.Seed()) + "\n"),
		"key":  []byte(" " + base64.StdEncoding.EncodeToString(want) + " \n"),
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, content, 0o600)
		got, err := schemas.LoadUtilityKey(p)
		if err != nil || !got.Equal(want) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// Issue 15, defects 2 and 5: corrupt keys and special files are refused, and
// promptly; the reason never carries key material.
func TestLoadUtilityKeyRefuses(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	random := make([]byte, 64)
	rand.Read(random)
	good := refdata.DemoPrivateKey("STEUTLSGXXX")
	swapped := append(append([]byte(nil), good.Seed()...), refdata.DemoPrivateKey("BRKASGSGXXX")[32:]...)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, path, reason string }{
		{"random 64 bytes", write("random", []byte(base64.StdEncoding.EncodeToString(random))), "public half"},
		{"public half of another key", write("swapped", []byte(base64.StdEncoding.EncodeToString(swapped))), "public half"},
		{"48 bytes", write("short", []byte(base64.StdEncoding.EncodeToString(random[:48]))), "48 bytes"},
		{"not base64", write("junk", []byte("not a key!")), "neither PEM nor"},
		{"empty", write("empty", []byte("\n")), "empty"},
		{"too big", write("big", make([]byte, schemas.MaxKeyFile+1)), "over"},
		{"wrong PEM type", write("cert.pem", []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")), "CERTIFICATE"},
		{"directory", dir, "directory"},
		{"/dev/zero", "/dev/zero", "character device"},
		{"FIFO", fifo, "FIFO"},
		{"missing", filepath.Join(dir, "nope"), "no file"},
	} {
		done := make(chan error, 1)
		go func() { _, err := schemas.LoadUtilityKey(c.path); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), c.reason) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s: %v, want a one-line error saying %q", c.name, err, c.reason)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: LoadUtilityKey blocked", c.name)
		}
	}
	// The key itself where its path belongs: refused, never repeated.
	for _, secret := range []string{base64.StdEncoding.EncodeToString(good.Seed()), base64.StdEncoding.EncodeToString(good)} {
		_, err := schemas.LoadUtilityKey(secret)
		if err == nil || strings.Contains(err.Error(), secret[:12]) || !strings.Contains(err.Error(), "looks like a key") {
			t.Errorf("key material as the path: %v", err)
		}
	}
	pemBytes, _ := schemas.EncodePrivateKeyPEM(good)
	_, err := schemas.LoadUtilityKey(string(pemBytes))
	if err == nil || strings.Contains(err.Error(), strings.Split(string(pemBytes), "\n")[1][:12]) {
		t.Errorf("PEM as the path: %v", err)
	}
	if _, err := schemas.LoadUtilityKey(write("ok", []byte(base64.StdEncoding.EncodeToString(ed25519.NewKeyFromSeed(random[:32]).Seed())))); err != nil {
		t.Errorf("a random seed is a good key: %v", err)
	}
}
