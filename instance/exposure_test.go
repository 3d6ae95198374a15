package instance

import (
	"strings"
	"testing"
)

func TestExposureWarning(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:9100":    "",
		"127.8.9.1:9100":    "",
		"[::1]:9100":        "",
		"localhost:9100":    "",
		"0.0.0.0:9100":      "EVERY network interface",
		"[::]:9100":         "EVERY network interface",
		":9100":             "EVERY network interface",
		"192.168.1.20:9100": "other machines can reach",
		"[fe80::1]:9100":    "other machines can reach",
		"metrics.lan:9100":  "make sure only monitoring",
	} {
		got := ExposureWarning(addr)
		if want == "" && got != "" || want != "" && !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", addr, got, want)
		}
	}
}
