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

// The trade lookup's warning names it, its token and who should reach it;
// the endpoints' warning does not claim /trades (it is not among them).
func TestLookupExposureWarning(t *testing.T) {
	if w := LookupExposureWarning("127.0.0.1:9101"); w != "" {
		t.Errorf("loopback: %q", w)
	}
	for _, addr := range []string{"0.0.0.0:9101", "10.0.0.5:9101"} {
		w := LookupExposureWarning(addr)
		for _, want := range []string{"/trades", "lookup token", "console and the gateway", addr} {
			if !strings.Contains(w, want) {
				t.Errorf("%s: %q lacks %q", addr, w, want)
			}
		}
		if strings.Contains(ExposureWarning(addr), "/trades") {
			t.Errorf("the endpoints' warning names /trades, which is not on their listener")
		}
	}
}

// A listener on every interface is announced as the address this host
// reaches the brokers from, not as 0.0.0.0; any other as bound.
func TestAdvertised(t *testing.T) {
	if got := advertised("127.0.0.1:9101", []string{"127.0.0.1:9092"}); got != "127.0.0.1:9101" {
		t.Errorf("loopback: %s", got)
	}
	if got := advertised("[::]:9101", []string{"127.0.0.1:9092"}); got != "127.0.0.1:9101" {
		t.Errorf("every interface, broker on loopback: %s", got)
	}
	if got := advertised("0.0.0.0:9101", nil); got != "0.0.0.0:9101" {
		t.Errorf("no broker: %s", got)
	}
}
