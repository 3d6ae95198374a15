package chendpoint

import (
	"crypto/subtle"
	"net"
	"net/http"
	"strings"

	"github.com/ste-utility/ste/chendpoint/internal/wire"
)

// admit decides whether a request may reach the engine at all. The engine
// runs as the user running ste and can read and write whatever that user
// can, so:
//
//   - a request from a web browser is refused whatever it carries: browsers
//     send Origin on cross-origin requests and Sec-Fetch-* on every request
//     to a loopback address, and no ClickHouse client does, so a page in the
//     operator's browser (an <img src>, a no-cors fetch) never gets a query
//     run;
//   - the Host must name loopback, so a DNS-rebound name is refused too;
//   - every request but /ping carries the secret as the password of user
//     default, in any of the ways ClickHouse accepts (basic authentication,
//     X-ClickHouse-User/X-ClickHouse-Key, user/password URL parameters), so
//     another local user, who cannot read the 0600 password file, gets in no
//     more than a web page does.
func (e *Endpoint) admit(r *http.Request) *wire.Exception {
	if r.Header.Get("Origin") != "" {
		return wire.Errorf(wire.CodeAccessDenied, "Requests with an Origin header (from a web browser) are refused by the embedded endpoint")
	}
	for name := range r.Header {
		if strings.HasPrefix(strings.ToLower(name), "sec-fetch-") {
			return wire.Errorf(wire.CodeAccessDenied, "Requests with %s (from a web browser) are refused by the embedded endpoint", name)
		}
	}
	if !loopbackHost(r.Host) {
		return wire.Errorf(wire.CodeAccessDenied, "Host %q is not a loopback name; the embedded endpoint serves 127.0.0.1, ::1 and localhost only", r.Host)
	}
	if r.URL.Path == "/ping" {
		return nil // as ClickHouse: a health check needs no credentials and runs nothing
	}
	user, pass, ok := r.BasicAuth()
	if !ok {
		user, pass = r.Header.Get("X-ClickHouse-User"), r.Header.Get("X-ClickHouse-Key")
		if user == "" && pass == "" {
			q := r.URL.Query()
			user, pass = q.Get("user"), q.Get("password")
		}
	}
	if user == "" {
		user = "default"
	}
	good := subtle.ConstantTimeCompare([]byte(pass), []byte(e.opts.Password)) == 1
	if user != "default" || !good {
		return wire.Errorf(wire.CodeAuthFailed, "%s: Authentication failed: password is incorrect, or there is no user with such name. The embedded endpoint's password (user default) is in ste-chdb.password beside its address file", user)
	}
	return nil
}

func loopbackHost(hostport string) bool {
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

// noValuesExpressions makes the Values format read literals only: its rows
// could otherwise be expressions (file('...') among them) in data the guard
// does not read.
const noValuesExpressions = "input_format_values_interpret_expressions = 0, input_format_values_deduce_templates_of_expressions = 0"

// appendSet adds assignments to a SET statement ("" for none).
func appendSet(set, assignments string) string {
	if set == "" {
		return "SET " + assignments
	}
	return set + ", " + assignments
}
