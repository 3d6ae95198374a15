package refdata

import (
	"bytes"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The policy: a key file is loaded and said so; without one the demo key
// signs, with a warning that names it public; a bad file is an error.
func TestUtilitySigner(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	s, err := UtilitySigner(DefaultUtilityBIC, "", log)
	if err != nil || !s.Key.Equal(DemoPrivateKey(DefaultUtilityBIC)) || s.BIC != DefaultUtilityBIC {
		t.Fatalf("no file: %v, %v", s, err)
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "PUBLIC DEMO KEY") {
		t.Fatalf("the demo key was used without the warning: %s", logs.String())
	}

	_, key, _ := ed25519.GenerateKey(nil)
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "utility.key")
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	logs.Reset()
	if s, err = UtilitySigner(DefaultUtilityBIC, file, log); err != nil || !s.Key.Equal(key) {
		t.Fatalf("key file: %v", err)
	}
	if strings.Contains(logs.String(), "DEMO") {
		t.Fatalf("a key file warned of the demo key: %s", logs.String())
	}
	if _, err = UtilitySigner(DefaultUtilityBIC, file+".missing", log); err == nil {
		t.Fatal("a missing key file was taken")
	}
}
