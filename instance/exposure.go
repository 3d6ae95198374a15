package instance

import (
	"log/slog"
	"net"
	"net/netip"
)

// ExposureWarning says what is wrong with serving the process's HTTP
// endpoints (/metrics, /status, /healthz, /readyz) on addr, a listener's address, or
// "" when it is loopback only. They have no authentication, and /metrics
// tells whoever asks what the utility is processing, so the default is
// loopback and anything else is said out loud. (The trade lookups are not
// among them: they have their own listener and token, LookupExposureWarning.)
func ExposureWarning(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if host == "localhost" {
		return ""
	}
	ip, err := netip.ParseAddr(host)
	switch {
	case host == "" || err == nil && ip.IsUnspecified():
		return "HTTP endpoints (/metrics, /status, /healthz, /readyz) are served on EVERY network interface (" + addr +
			"), without authentication: anyone who can reach this host can read them; bind them to 127.0.0.1 or firewall the port"
	case err != nil:
		return "HTTP endpoints (/metrics, /status, /healthz, /readyz) are served on " + addr +
			", without authentication: make sure only monitoring can reach it"
	case ip.IsLoopback():
		return ""
	}
	return "HTTP endpoints (/metrics, /status, /healthz, /readyz) are served on " + addr +
		", an address other machines can reach, without authentication: make sure only monitoring can reach it"
}

// LookupExposureWarning says what to mind about serving the trade lookups
// on addr beyond loopback ("" on loopback): they answer only requests with
// the utility's lookup token, but that token and the trades travel in
// clear, so only the console and the gateway should reach the port.
func LookupExposureWarning(addr string) string {
	if ExposureWarning(addr) == "" {
		return ""
	}
	return "the trade lookup (/trades) is served on " + addr + ", beyond loopback: it needs the utility's lookup token, " +
		"but the token and the trades travel unencrypted; let only the console and the gateway reach this port (the Helm chart's NetworkPolicy does)"
}

// WarnIfLookupExposed logs LookupExposureWarning(addr) when there is one.
func WarnIfLookupExposed(log *slog.Logger, addr string) {
	if w := LookupExposureWarning(addr); w != "" {
		log.Warn(w)
	}
}

// WarnIfExposed logs ExposureWarning(addr) when there is one.
func WarnIfExposed(log *slog.Logger, addr string) {
	if w := ExposureWarning(addr); w != "" {
		log.Warn(w)
	}
}
