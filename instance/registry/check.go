package registry

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// The registry topic can be written by anyone the cluster lets write it, so
// what List hands to a console or a gateway is checked first: an address is
// a host and a port and nothing else (a reader builds its URLs from it), and
// an entry's freshness is judged by the reader's clock within bounds the
// writer cannot move (a last_seen in the future, or a refresh period of a
// year, would keep a forged entry fresh for ever).

// Bounds on what an entry may claim.
const (
	// MaxEvery is the longest refresh period an entry is believed to
	// promise; a longer one is read as MaxEvery.
	MaxEvery = 5 * time.Minute
	// MaxSkew is how far in the future a last_seen may be (the clocks of
	// two hosts differ a little); further, the entry is stale.
	MaxSkew = 5 * time.Second
	// maxAddrLen bounds an address: a DNS name (253) and a port.
	maxAddrLen = 253 + 1 + 5
)

// ErrAddr is wrapped by CheckAddr's errors.
var ErrAddr = errors.New("not host:port")

// CheckAddr says whether addr is a host (an IP address or a DNS name) and a
// port, with nothing else in it: no path, query, user information, zone or
// scheme. An entry whose address fails is not listed.
func CheckAddr(addr string) error {
	if len(addr) > maxAddrLen {
		return fmt.Errorf("address of %d bytes: %w", len(addr), ErrAddr)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q: %w", addr, ErrAddr)
	}
	if p, err := strconv.ParseUint(port, 10, 16); err != nil || p == 0 || strings.ContainsAny(port, "+-") {
		return fmt.Errorf("%q: port %q: %w", addr, port, ErrAddr)
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if ip.Zone() != "" {
			return fmt.Errorf("%q: zone in address: %w", addr, ErrAddr)
		}
		return nil
	}
	if !dnsName(host) {
		return fmt.Errorf("%q: host %q: %w", addr, host, ErrAddr)
	}
	return nil
}

// dnsName: labels of letters, digits and hyphens, 1–63 bytes each, none
// starting or ending with a hyphen, 253 bytes in all.
func dnsName(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for l := range strings.SplitSeq(strings.TrimSuffix(h, "."), ".") {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// checkEntry says why an announcement is not listed ("" when it is): an
// id, and addresses that are host:port when given. The reasons are fixed
// strings (they are counted; the record's text is not repeated).
func checkEntry(e Entry) string {
	if e.ID == "" {
		return "no id"
	}
	if e.HTTP != "" {
		if err := CheckAddr(e.HTTP); err != nil {
			return "http address not host:port"
		}
	}
	if e.Lookup != "" {
		if err := CheckAddr(e.Lookup); err != nil {
			return "lookup address not host:port"
		}
	}
	return ""
}

// stale says whether an entry seen at e.LastSeen is stale at now: no
// refresh for three of its periods (bounded by MaxEvery), or a last_seen
// further in the future than MaxSkew.
func stale(e Entry, now time.Time) bool {
	every := DefaultEvery
	switch {
	case e.Every > MaxEvery.Seconds():
		every = MaxEvery
	case e.Every > 0: // not unset, negative or NaN
		every = time.Duration(e.Every * float64(time.Second))
	}
	if e.LastSeen.After(now.Add(MaxSkew)) {
		return true
	}
	return now.Sub(e.LastSeen) > 3*every
}
