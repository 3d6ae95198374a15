package copier

import (
	"maps"
	"strings"
	"testing"
	"time"
)

// ParseBound: offsets per partition, a time, or open; a partition named
// twice, or neither form, is an error that names both forms.
func TestParseBound(t *testing.T) {
	b, err := ParseBound(" 0:10, 3:7 ")
	if err != nil || !maps.Equal(b.Offsets, map[int32]int64{0: 10, 3: 7}) || !b.Time.IsZero() {
		t.Fatalf("offsets: %+v, %v", b, err)
	}
	if b, err = ParseBound("2026-03-02T10:00:00Z"); err != nil || !b.Time.Equal(time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)) || b.Offsets != nil {
		t.Fatalf("time: %+v, %v", b, err)
	}
	if b, err = ParseBound("  "); err != nil || !b.IsZero() {
		t.Fatalf("empty: %+v, %v", b, err)
	}
	if _, err = ParseBound("1:5,1:6"); err == nil || err.Error() != "partition 1 given twice" {
		t.Fatalf("twice: %v", err)
	}
	if _, err = ParseBound("99999999999:1"); err == nil {
		t.Fatal("a partition beyond int32 was taken")
	}
	if _, err = ParseBound("yesterday-ish"); err == nil || !strings.HasSuffix(err.Error(), ", or PARTITION:OFFSET,…") {
		t.Fatalf("neither form: %v", err)
	}
}
