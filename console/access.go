package console

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
)

// Role is what a token's holder may do.
type Role string

const (
	// Reader sees every page and changes nothing.
	Reader Role = "reader"
	// Operator also retries and archives exceptions.
	Operator Role = "operator"
)

// Principal is who holds a token.
type Principal struct {
	Name string
	Role Role
}

// LoadTokens reads an auth tokens file: one "name:token" or
// "name:token:role" per line (role reader or operator; operator when
// omitted), blank lines and lines starting with # ignored. A token is at
// least 16 characters of printable ASCII other than space, ':', ';', ',',
// '"' and '\' — what a browser carries back in a cookie unchanged (a token
// with one of those would load and never sign in). Names and tokens are
// unique. A file that its group or other users may read or write is
// refused: its tokens would be everyone's.
func LoadTokens(path string) (map[string]Principal, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, err
	} else if m := fi.Mode().Perm(); m&0o077 != 0 {
		return nil, fmt.Errorf("%s is open to other users (mode %04o): chmod 600 it", path, m)
	}
	tokens := map[string]Principal{}
	names := map[string]bool{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, ":")
		for i := range fields {
			fields[i] = strings.TrimSpace(fields[i])
		}
		p := Principal{Name: fields[0], Role: Operator}
		var tok string
		if len(fields) > 1 {
			tok = fields[1]
		}
		if len(fields) == 3 {
			p.Role = Role(fields[2])
		}
		switch {
		case len(fields) < 2 || p.Name == "":
			return nil, fmt.Errorf("%s line %d: want name:token or name:token:role", path, n)
		case len(fields) > 3:
			return nil, fmt.Errorf("%s line %d: a token may not hold ':'", path, n)
		case p.Role != Reader && p.Role != Operator:
			return nil, fmt.Errorf("%s line %d: role %q of %s: want reader or operator", path, n, fields[2], p.Name)
		case len(tok) < 16:
			return nil, fmt.Errorf("%s line %d: the token of %s is shorter than 16 characters", path, n, p.Name)
		case !cookieSafe(tok):
			return nil, fmt.Errorf("%s line %d: the token of %s holds a character a browser cannot send back (space, ; , \" \\ or a control): it could never sign in",
				path, n, p.Name)
		case names[p.Name]:
			return nil, fmt.Errorf("%s line %d: %s is named twice", path, n, p.Name)
		case tokens[tok].Name != "":
			return nil, fmt.Errorf("%s line %d: a token is given twice", path, n)
		}
		tokens[tok], names[p.Name] = p, true
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(tokens) == 0 {
		return nil, fmt.Errorf("%s: no tokens", path)
	}
	return tokens, nil
}

// cookieSafe: every byte is a cookie-octet (RFC 6265 §4.1.1).
func cookieSafe(tok string) bool {
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if c <= ' ' || c >= 0x7f || c == '"' || c == ',' || c == ';' || c == '\\' {
			return false
		}
	}
	return true
}

// guard sets the headers every response carries and refuses a request
// whose Host names the console by a name it does not answer to (DNS
// rebinding: another site's name resolved to 127.0.0.1 would make the
// console same-origin with that site's page). IP literals and localhost
// cannot be rebound; other names are those of Options.Hosts. A console with
// tokens beyond loopback answers to any name: a rebound page has no token
// (the cookie belongs to the console's real name).
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "frame-ancestors 'none'")
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		if !(s.o.Tokens != nil && !s.loopback) && !s.knownHost(r.Host) {
			http.Error(w, "unknown host "+strings.ToValidUTF8(r.Host, "?")+": this console answers to its address, localhost or --host names",
				http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) knownHost(host string) bool {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.ToLower(strings.TrimSuffix(strings.Trim(name, "[]"), "."))
	if net.ParseIP(name) != nil || name == "localhost" {
		return true
	}
	for _, h := range s.o.Hosts {
		if strings.EqualFold(h, name) {
			return true
		}
	}
	return false
}

// localPath is next when it is a path on this console, else "/": the page
// a sign-in returns to must never be another site's (an open redirect lets
// a link to the console's sign-in land its user on a look-alike page).
// Browsers read "/\host" and "//host" as another host, and drop tabs and
// newlines before they do.
func localPath(next string) string {
	if !strings.HasPrefix(next, "/") || strings.ContainsAny(next, "\\") || len(next) > 2048 {
		return "/"
	}
	for _, c := range next {
		if c < ' ' || c == 0x7f {
			return "/"
		}
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || strings.HasPrefix(next, "//") {
		return "/"
	}
	return next
}
