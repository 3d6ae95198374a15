// Package localhttp guards the HTTP listeners STE serves on loopback
// without authentication — `ste broker --control` and STE_PPROF — against
// the one caller loopback does not keep out: a web page in the operator's
// browser. Such a page can send requests to 127.0.0.1 (a form post, an
// <img>, a no-cors fetch) and, through DNS rebinding (a name of its own
// that resolves to 127.0.0.1), even read the answers. Guard refuses:
//
//   - a Host that is not a loopback address or "localhost" (a rebound name);
//   - a request whose Sec-Fetch-Site says another site made it
//     ("cross-site", "same-site");
//   - a request with an Origin other than the listener's own.
//
// Command-line tools (curl, Go's client, the tests) send none of those
// headers and get through.
package localhttp

import (
	"net"
	"net/http"
	"strings"
)

// Guard wraps h with the checks above; a refused request gets 403 and a
// one-line reason.
func Guard(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if reason := Refused(r); reason != "" {
			http.Error(w, reason, http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// Refused is why Guard refuses r, "" when it does not.
func Refused(r *http.Request) string {
	if !LoopbackHost(r.Host) {
		return "Host " + r.Host + " is not a loopback name: this listener serves 127.0.0.1, ::1 and localhost only"
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		return "requests from other sites are refused"
	}
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host && o != "https://"+r.Host {
		return "requests from other origins are refused"
	}
	return ""
}

// LoopbackHost reports whether a Host header (host or host:port) names
// loopback: localhost or a loopback IP address.
func LoopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
