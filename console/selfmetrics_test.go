package console

import (
	"net/http"
	"strings"
	"testing"
)

// The console's own /metrics is behind its tokens like every page, and
// counts its answers by route pattern (never by raw path) and the requests
// it refused.
func TestConsoleMetrics(t *testing.T) {
	h := server(t, map[string]string{"tok-prometheus-0123456789": "prometheus"}, false).routes()
	if rec := do(h, http.MethodGet, "/metrics", "", nil); rec.Code != http.StatusUnauthorized {
		t.Fatalf("/metrics without a token: %d", rec.Code)
	}
	do(h, http.MethodGet, "/healthz", "tok-prometheus-0123456789", nil)
	do(h, http.MethodGet, "/static/no-such-file-1", "", nil)
	do(h, http.MethodGet, "/static/no-such-file-2", "", nil)
	rec := do(h, http.MethodGet, "/metrics", "tok-prometheus-0123456789", nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("/metrics with a token: %d", rec.Code)
	}
	body := rec.Body.String()
	for _, want := range []string{
		`ste_console_requests_total{code="200",route="GET /healthz"} 1`,
		`ste_console_auth_refusals_total 1`,
		`ste_console_exception_changes_total{action="retry",outcome="retried"} 0`,
		`ste_console_instances{state="answering"} 0`,
		`go_goroutines `,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
	if !strings.Contains(body, `ste_console_requests_total{code="404",route="GET /static/"} 2`) {
		t.Errorf("the two missing files are not counted under their pattern:\n%s", body)
	}
	if strings.Contains(body, "no-such-file") {
		t.Error("a raw path is a label value")
	}
}
