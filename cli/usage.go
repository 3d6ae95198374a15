package cli

import (
	"fmt"
	"io"
	"net/http"
	_ "net/http/pprof"
	"os"
	"runtime/pprof"

	"github.com/ste-utility/ste/localhttp"
)

// Usage is ste --help: the commands and the environment.
func Usage(w io.Writer, commands []Command) {
	fmt.Fprintln(w, "ste — STE post-trade, pre-settlement trade matching on Kafka")
	fmt.Fprintln(w, "\nusage: ste <command> [flags]    (ste <command> --help for its flags)")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-16s %s\n", c.Name, c.Summary)
	}
	fmt.Fprintln(w, "\nenvironment (each the default of its flag):")
	fmt.Fprintln(w, "  STE_BROKERS (default 127.0.0.1:9092), STE_NAMESPACE (default ste),")
	fmt.Fprintln(w, "  STE_KAFKA_TLS=true, STE_KAFKA_TLS_CA, STE_KAFKA_TLS_CERT, STE_KAFKA_TLS_KEY, STE_KAFKA_TLS_SERVER_NAME (TLS to Kafka),")
	fmt.Fprintln(w, "  STE_KAFKA_SASL_MECHANISM, STE_KAFKA_SASL_USERNAME, STE_KAFKA_SASL_PASSWORD_FILE or STE_KAFKA_SASL_PASSWORD (SASL),")
	fmt.Fprintln(w, "  STE_HOME (default ~/.local/share/ste), STE_CLICKHOUSE (analytics DSN),")
	fmt.Fprintln(w, "  STE_UTILITY_BIC, STE_UTILITY_KEY (the utility's signing key file),")
	fmt.Fprintln(w, "  STE_UTILITY_SECRET (the utility's shared secret file, which proves its control records; default $STE_HOME/utility.secret),")
	fmt.Fprintln(w, "  STE_INSTANCE_ID, STE_GROUPS, STE_HTTP, STE_LOOKUP, STE_TABLES, STE_DELIVER_PER_PARTICIPANT=1, STE_AT_RISK_LEAD (ste process: its id,")
	fmt.Fprintln(w, "  groups, HTTP address, trade lookup address, tables in memory or on disk, copies of <ns>.outbound to <ns>.out.<BIC>, the at-risk lead),")
	fmt.Fprintln(w, "  STE_CONSOLE_ADDR, STE_CONSOLE_TOKENS, STE_CONSOLE_HOSTS (ste console: its address, its auth tokens file, its DNS names),")
	fmt.Fprintln(w, "  STE_GATEWAY_ADDR, STE_GATEWAY_PUBLIC_URL, STE_GATEWAY_TLS_CERT, STE_GATEWAY_TLS_KEY, STE_GATEWAY_INSECURE_HTTP=true,")
	fmt.Fprintln(w, "  STE_GATEWAY_METRICS_ADDR, STE_GATEWAY_PROCS (ste gateway: its address, public URL, HTTPS certificate and key, plain HTTP,")
	fmt.Fprintln(w, "  /metrics, the cores it runs on),")
	fmt.Fprintln(w, "  STE_ISO20022_ADDR, STE_ISO20022_PUBLIC_URL, STE_ISO20022_TLS_CERT, STE_ISO20022_TLS_KEY, STE_ISO20022_INSECURE_HTTP=true,")
	fmt.Fprintln(w, "  STE_ISO20022_SIGNER_BIC, STE_ISO20022_SIGNER_KEY, STE_ISO20022_METRICS_ADDR (ste iso20022: its address, public URL,")
	fmt.Fprintln(w, "  HTTPS certificate and key, plain HTTP, the delegated signer and its key file, /metrics),")
	fmt.Fprintln(w, "  STE_FIXGW_ADDR, STE_FIXGW_COMP_ID, STE_FIXGW_SIGNER_BIC, STE_FIXGW_SIGNER_KEY, STE_FIXGW_CREDENTIALS, STE_FIXGW_STORE,")
	fmt.Fprintln(w, "  STE_FIXGW_TLS_CERT, STE_FIXGW_TLS_KEY, STE_FIXGW_TLS_CLIENT_CA, STE_FIXGW_INSECURE_PLAIN=true, STE_FIXGW_HEALTH_ADDR")
	fmt.Fprintln(w, "  (ste fixgw: its address, CompID, delegated signer and key file, logon passwords file, session store, TLS certificate,")
	fmt.Fprintln(w, "  key and client CA, plain TCP, /health and /metrics),")
	fmt.Fprintln(w, "  STE_OPERATOR (the name ste exceptions and a loopback console record with retries and archives),")
	fmt.Fprintln(w, "  STE_LOG_FORMAT (text or json), STE_LOG_LEVEL (debug, info, warn, error),")
	fmt.Fprintln(w, "  STE_SHUTDOWN_BOUND (how long a command told to stop may take before it gives up, default 15s),")
	fmt.Fprintln(w, "  STE_CPUPROFILE=FILE, STE_PPROF=ADDR (profiling any command)")
}

// flagSet is a command's flags; errors and help go where the contract wants
// them: --help to stdout with exit 0, a bad flag as one line on stderr.

// PprofHandler is what STE_PPROF serves: net/http/pprof, refused to pages
// in a browser (a DNS-rebound name read /debug/pprof/cmdline: issue 45,
// finding 10).
func PprofHandler() http.Handler { return localhttp.Guard(http.DefaultServeMux) }

// Profile starts what STE_CPUPROFILE and STE_PPROF ask for; the function
// returned stops the CPU profile.
func Profile() (stop func()) {
	stop = func() {}
	// STE_CPUPROFILE=FILE profiles any command: where the time goes in a
	// saturated run is measured, not guessed.
	if path := os.Getenv("STE_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				stop = func() { pprof.StopCPUProfile(); f.Close() }
			}
		}
	}
	// STE_PPROF=ADDR serves net/http/pprof while any command runs (heap,
	// goroutines, CPU of a live run).
	// A goroutine dump names keys' files and a cmdline holds flags: the
	// listener is guarded against pages in a browser (DNS rebinding), and
	// the address should be a loopback one.
	if addr := os.Getenv("STE_PPROF"); addr != "" {
		go http.ListenAndServe(addr, PprofHandler())
	}
	return stop
}
