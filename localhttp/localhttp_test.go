package localhttp

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestRefused(t *testing.T) {
	for _, c := range []struct {
		host, origin, site string
		refused            bool
	}{
		{"127.0.0.1:6060", "", "", false},
		{"localhost:6060", "", "", false},
		{"[::1]:6060", "", "", false},
		{"127.0.0.1:6060", "http://127.0.0.1:6060", "same-origin", false},
		{"127.0.0.1:6060", "", "none", false},
		{"rebound.example:6060", "", "", true},
		{"127.0.0.1.nip.io:6060", "", "", true},
		{"127.0.0.1:6060", "https://evil.example", "", true},
		{"127.0.0.1:6060", "null", "", true},
		{"127.0.0.1:6060", "", "cross-site", true},
		{"127.0.0.1:6060", "", "same-site", true},
	} {
		r := httptest.NewRequest(http.MethodGet, "/debug/pprof/cmdline", nil)
		r.Host = c.host
		if c.origin != "" {
			r.Header.Set("Origin", c.origin)
		}
		if c.site != "" {
			r.Header.Set("Sec-Fetch-Site", c.site)
		}
		if got := Refused(r) != ""; got != c.refused {
			t.Errorf("%+v: refused %v", c, got)
		}
	}
}
