package console

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Finding 5 (issue 30): a tokenless console answers only to the names of
// this machine — a page of another site rebound to 127.0.0.1 is refused —
// and no response may be framed.
func TestHostAllowlistAndFraming(t *testing.T) {
	s := server(t, nil, true)
	s.o.Hosts = []string{"ste.internal"}
	h := s.routes()
	get := func(host string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/healthz", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	for _, host := range []string{"127.0.0.1:8080", "localhost:8080", "LOCALHOST.", "[::1]:8080", "10.1.2.3", "ste.internal:8080"} {
		if rec := get(host); rec.Code != http.StatusOK {
			t.Errorf("Host %s: %d", host, rec.Code)
		}
	}
	for _, host := range []string{"evil.example:8080", "evil.example", "127.0.0.1.nip.io:8080", "localhost.evil.example", ""} {
		rec := get(host)
		if rec.Code != http.StatusMisdirectedRequest {
			t.Errorf("Host %q served: %d", host, rec.Code)
		}
		if strings.Contains(rec.Body.String(), s.csrf) {
			t.Errorf("Host %q: the CSRF value was served", host)
		}
	}
	for _, rec := range []*httptest.ResponseRecorder{get("127.0.0.1:8080"), get("evil.example"),
		do(server(t, map[string]string{"tok-alice-0123456789": "alice"}, false).routes(), http.MethodGet, "/", "", nil)} {
		if got := rec.Header().Get("Content-Security-Policy"); !strings.Contains(got, "frame-ancestors 'none'") {
			t.Errorf("Content-Security-Policy %q", got)
		}
		if got := rec.Header().Get("X-Frame-Options"); got != "DENY" {
			t.Errorf("X-Frame-Options %q", got)
		}
	}
	// Beyond loopback with tokens, a rebound page holds no token: any name.
	if rec := do(server(t, map[string]string{"tok-alice-0123456789": "alice"}, false).routes(), http.MethodGet, "/healthz",
		"tok-alice-0123456789", nil); rec.Code != http.StatusOK {
		t.Errorf("with tokens beyond loopback: %d", rec.Code)
	}
}

// Finding 5: without tokens an Authorization header proves nothing, so it
// does not stand in for the page's CSRF value.
func TestBearerWithoutTokensNeedsCSRF(t *testing.T) {
	post := func(s *Server, auth, csrf string) bool {
		req := httptest.NewRequest(http.MethodPost, "/exceptions/retry", strings.NewReader(url.Values{"id": {"1-2"}, "csrf": {csrf}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		req.ParseForm()
		return s.checkCSRF(req)
	}
	tokenless := server(t, nil, true)
	if post(tokenless, "Bearer anything", "") {
		t.Error("a tokenless console took a Bearer header for its CSRF value")
	}
	if !post(tokenless, "", "secret") {
		t.Error("the page's CSRF value refused")
	}
	if !post(server(t, map[string]string{"tok-alice-0123456789": "alice"}, false), "Bearer tok-alice-0123456789", "") {
		t.Error("a script's bearer token refused where tokens exist")
	}
}

// Finding 8: a sign-in returns only to a path of this console.
func TestLoginReturnsOnlyToLocalPaths(t *testing.T) {
	h := server(t, map[string]string{"tok-alice-0123456789": "alice"}, false).routes()
	for next, want := range map[string]string{
		"/exceptions?reason=SIGNATURE": "/exceptions?reason=SIGNATURE",
		"/\\evil.example/x":            "/",
		"//evil.example/x":             "/",
		"/\t/evil.example":             "/",
		"/%0a/evil.example":            "/%0a/evil.example", // percent-encoded: a path here
		"https://evil.example/":        "/",
		"evil.example":                 "/",
		"/\\/evil.example":             "/",
		"":                             "/",
	} {
		rec := do(h, http.MethodPost, "/login", "", url.Values{"token": {"tok-alice-0123456789"}, "next": {next}})
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != want {
			t.Errorf("next=%q: %d to %q, want %q", next, rec.Code, rec.Header().Get("Location"), want)
		}
	}
}

// Finding 9 and the roles: a token a browser cannot carry back is refused
// at start, and so is a file other users can read; each token has a role.
func TestTokensFileChecks(t *testing.T) {
	dir := t.TempDir()
	write := func(body string, mode os.FileMode) string {
		p := filepath.Join(dir, "t")
		os.Remove(p)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		return p
	}
	m, err := LoadTokens(write("alice:alice-token-0123456789:operator\nrita:rita-token-0123456789:reader\nbob:bob-token-0123456789xx\n", 0o600))
	if err != nil || m["alice-token-0123456789"] != (Principal{"alice", Operator}) ||
		m["rita-token-0123456789"] != (Principal{"rita", Reader}) || m["bob-token-0123456789xx"] != (Principal{"bob", Operator}) {
		t.Fatalf("%v %v", m, err)
	}
	for _, bad := range []string{"a:tok;en-0123456789abc\n", "a:tok\"en-0123456789abc\n", "a:tok\\en-0123456789abc\n",
		"a:tok,en-0123456789abc\n", "a:tok en-0123456789abc\n", "a:tokén-0123456789abc\n", "a:token-0123456789abc:admin\n",
		"a:token-0123456789abc:reader:x\n"} {
		if _, err := LoadTokens(write(bad, 0o600)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604, 0o620} {
		_, err := LoadTokens(write("alice:alice-token-0123456789\n", mode))
		if err == nil || !strings.Contains(err.Error(), "chmod 600") {
			t.Errorf("mode %04o: %v", mode, err)
		}
	}
}

// Roles: a reader sees the pages and every change of theirs is refused; an
// operator's goes through, recorded with the role.
func TestReaderChangesRefused(t *testing.T) {
	s := server(t, map[string]string{"tok-alice-0123456789": "alice"}, false)
	s.o.Tokens["tok-rita-0123456789x"] = Principal{Name: "rita", Role: Reader}
	h := s.routes()
	if rec := do(h, http.MethodGet, "/login", "tok-rita-0123456789x", nil); rec.Code != http.StatusOK {
		t.Errorf("a reader's GET: %d", rec.Code)
	}
	for _, p := range []string{"/exceptions/retry", "/exceptions/archive"} {
		rec := do(h, http.MethodPost, p, "tok-rita-0123456789x", url.Values{"id": {"1-2"}})
		if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "reader") {
			t.Errorf("a reader's POST %s: %d %s", p, rec.Code, rec.Body.String())
		}
	}
	req := httptest.NewRequest(http.MethodPost, "/exceptions/retry", nil)
	var got Principal
	s.auth(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		var err error
		if got, err = s.canChange(r); err != nil {
			t.Errorf("an operator refused: %v", err)
		}
	})).ServeHTTP(httptest.NewRecorder(), func() *http.Request { req.Header.Set("Authorization", "Bearer tok-alice-0123456789"); return req }())
	if got != (Principal{"alice", Operator}) {
		t.Errorf("recorded as %+v", got)
	}
}

// Issue 45, finding 13: the token cookie is Secure when the browser came
// over HTTPS (a TLS-terminating proxy says so), so it never travels over
// plain HTTP; on plain loopback HTTP it cannot be.
func TestTokenCookieSecureBehindTLS(t *testing.T) {
	s := server(t, map[string]string{"tok-alice-0123456789": "alice"}, true)
	h := s.routes()
	for proto, want := range map[string]bool{"https": true, "": false} {
		req := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(url.Values{"token": {"tok-alice-0123456789"}, "next": {"/"}}.Encode()))
		req.Host = "127.0.0.1:8080"
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if proto != "" {
			req.Header.Set("X-Forwarded-Proto", proto)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var found bool
		for _, c := range rec.Result().Cookies() {
			if c.Name == tokenCookie {
				found = true
				if c.Secure != want {
					t.Errorf("X-Forwarded-Proto %q: cookie Secure %v, want %v", proto, c.Secure, want)
				}
			}
		}
		if !found {
			t.Errorf("X-Forwarded-Proto %q: no token cookie (%d)", proto, rec.Code)
		}
	}
}

// Issue 45, finding 13: a participant's bidi override or control character
// is shown escaped on the console's pages, not acted on.
func TestPagesShowBidiEscaped(t *testing.T) {
	s := server(t, nil, true)
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Host = "127.0.0.1:8080"
	s.fail(rec, req, http.StatusNotFound, "MsgId M1\u202egpj.exe from BANK\x1b[2J")
	body := rec.Body.String()
	if strings.ContainsAny(body, "\u202e\x1b") {
		t.Errorf("raw bidi or control characters on the page:\n%q", body)
	}
	if !strings.Contains(body, `M1\u202egpj.exe`) {
		t.Errorf("the MsgId is not shown escaped:\n%s", body)
	}
}
