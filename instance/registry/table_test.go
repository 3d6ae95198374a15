package registry

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestWriteTable(t *testing.T) {
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	err := WriteTable(&b, []Entry{
		{ID: "i1", Groups: []string{"validate", "match"}, HTTP: "127.0.0.1:8080", Ready: true, Health: "ok", Version: "v1", Host: "h", PID: 7, LastSeen: now.Add(-3 * time.Second)},
		{ID: "i2", Groups: []string{"identity"}, Stale: true, LastSeen: now.Add(-90 * time.Second)},
	}, now)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "ID  ") ||
		!strings.Contains(lines[1], "validate,match") || !strings.HasSuffix(lines[1], "3s ago") ||
		!strings.HasSuffix(lines[2], "1m30s ago (stale)") {
		t.Fatalf("table:\n%s", b.String())
	}
}
