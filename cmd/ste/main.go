// Command ste is the STE trade-matching utility: one binary whose subcommands
// are the contract of docs/spec/cli.md. Every subcommand answers --help,
// and a user error ends in one line on stderr and a non-zero exit, never a
// stack trace.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/ste-utility/ste/instance"
	"io"
	"log/slog"
	"net/http"
	_ "net/http/pprof"
	"os"
	"os/signal"
	"runtime/pprof"
	"sort"
	"strings"
	"syscall"

	"github.com/ste-utility/ste/termsafe"
)

// command is one subcommand. run gets the arguments after its name.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string) error
}

var commands []command

func register(c command) { commands = append(commands, c) }

// usageError marks an error caused by the command line: exit code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// exitCode ends a command with its own exit code: err, when set, is printed
// like any error; without it the command's output has said everything (ste
// diff exits 1 for "different", 2 for any error).
type exitCode struct {
	err  error
	code int
}

func (e exitCode) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e exitCode) Unwrap() error { return e.err }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	sort.Slice(commands, func(i, j int) bool { return commands[i].name < commands[j].name })
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		return 0
	}
	name := args[0]
	rest := args[1:]
	// Two-word commands: "refdata gen", "topics create", ...
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		if c := find(name + " " + rest[0]); c != nil {
			return execute(c, rest[1:], stderr)
		}
	}
	if c := find(name); c != nil {
		return execute(c, rest, stderr)
	}
	var subs []string
	for _, c := range commands {
		if strings.HasPrefix(c.name, name+" ") {
			subs = append(subs, strings.TrimPrefix(c.name, name+" "))
		}
	}
	if len(subs) > 0 {
		if len(rest) == 0 || rest[0] == "-h" || rest[0] == "--help" {
			fmt.Fprintf(stdout, "usage: ste %s {%s} [flags]\n", name, strings.Join(subs, "|"))
			return 0
		}
		fmt.Fprintf(stderr, "ste %s: unknown subcommand %q (want %s)\n", name, rest[0], strings.Join(subs, ", "))
		return 2
	}
	fmt.Fprintf(stderr, "ste: unknown command %q (run ste --help)\n", name)
	return 2
}

func find(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

func execute(c *command, args []string, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Told to stop, every command exits within instance.ShutdownBound,
	// whatever the broker does (unreachable, slow, gone mid-request).
	defer instance.BoundShutdownOf(ctx, stderr)()
	// STE_CPUPROFILE=FILE profiles any command: where the time goes in a
	// saturated run is measured, not guessed.
	if path := os.Getenv("STE_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				defer func() { pprof.StopCPUProfile(); f.Close() }()
			}
		}
	}
	// STE_PPROF=ADDR serves net/http/pprof while any command runs (heap,
	// goroutines, CPU of a live run).
	if addr := os.Getenv("STE_PPROF"); addr != "" {
		go http.ListenAndServe(addr, nil)
	}
	err := c.run(ctx, args)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	}
	var ec exitCode
	if errors.As(err, &ec) && ec.err == nil {
		return ec.code
	}
	var ue usageError
	// An error can quote a record or a file: one line, nothing a terminal acts on.
	msg := termsafe.Escape(strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; "))
	fmt.Fprintf(stderr, "ste %s: %s\n", c.name, msg)
	if errors.As(err, &ec) {
		return ec.code
	}
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "ste — STE post-trade, pre-settlement trade matching on Kafka")
	fmt.Fprintln(w, "\nusage: ste <command> [flags]    (ste <command> --help for its flags)")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-16s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nenvironment (each the default of its flag):")
	fmt.Fprintln(w, "  STE_BROKERS (default 127.0.0.1:9092), STE_NAMESPACE (default ste),")
	fmt.Fprintln(w, "  STE_KAFKA_TLS=true, STE_KAFKA_TLS_CA, STE_KAFKA_TLS_CERT, STE_KAFKA_TLS_KEY, STE_KAFKA_TLS_SERVER_NAME (TLS to Kafka),")
	fmt.Fprintln(w, "  STE_KAFKA_SASL_MECHANISM, STE_KAFKA_SASL_USERNAME, STE_KAFKA_SASL_PASSWORD_FILE or STE_KAFKA_SASL_PASSWORD (SASL),")
	fmt.Fprintln(w, "  STE_HOME (default ~/.local/share/ste), STE_CLICKHOUSE (analytics DSN),")
	fmt.Fprintln(w, "  STE_UTILITY_BIC, STE_UTILITY_KEY (the utility's signing key file),")
	fmt.Fprintln(w, "  STE_UTILITY_SECRET (the utility's shared secret file, which proves its control records; default $STE_HOME/utility.secret),")
	fmt.Fprintln(w, "  STE_INSTANCE_ID, STE_GROUPS, STE_HTTP, STE_TABLES, STE_DELIVER_PER_PARTICIPANT=1, STE_AT_RISK_LEAD (ste process: its id,")
	fmt.Fprintln(w, "  groups, HTTP address, tables in memory or on disk, copies of <ns>.outbound to <ns>.out.<BIC>, the at-risk lead),")
	fmt.Fprintln(w, "  STE_CONSOLE_ADDR, STE_CONSOLE_TOKENS, STE_CONSOLE_HOSTS (ste console: its address, its auth tokens file, its DNS names),")
	fmt.Fprintln(w, "  STE_GATEWAY_ADDR, STE_GATEWAY_PUBLIC_URL, STE_GATEWAY_TLS_CERT, STE_GATEWAY_TLS_KEY, STE_GATEWAY_INSECURE_HTTP=true,")
	fmt.Fprintln(w, "  STE_GATEWAY_METRICS_ADDR (ste gateway: its address, public URL, HTTPS certificate and key, plain HTTP, /metrics),")
	fmt.Fprintln(w, "  STE_OPERATOR (the name ste exceptions and a loopback console record with retries and archives),")
	fmt.Fprintln(w, "  STE_LOG_FORMAT (text or json), STE_LOG_LEVEL (debug, info, warn, error),")
	fmt.Fprintln(w, "  STE_SHUTDOWN_BOUND (how long a command told to stop may take before it gives up, default 15s),")
	fmt.Fprintln(w, "  STE_CPUPROFILE=FILE, STE_PPROF=ADDR (profiling any command)")
}

// flagSet is a command's flags; errors and help go where the contract wants
// them: --help to stdout with exit 0, a bad flag as one line on stderr.
type flagSet struct {
	*flag.FlagSet
	name, synopsis string
	// log is the command's logger: --log-format and --log-level where the
	// command has them (logFlags), else text at info, on stderr.
	log                 *slog.Logger
	logFormat, logLevel *string
}

func flags(name, synopsis string) *flagSet {
	fs := flag.NewFlagSet("ste "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &flagSet{FlagSet: fs, name: name, synopsis: synopsis}
}

// parse parses args; a bad flag or a stray argument is a usage error.
func (f *flagSet) parse(args []string) error {
	if err := f.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(os.Stdout, "usage: ste %s %s\n\nflags:\n", f.name, f.synopsis)
			f.SetOutput(os.Stdout)
			f.PrintDefaults()
			return flag.ErrHelp
		}
		return usageError{err.Error()}
	}
	if f.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", f.Arg(0))}
	}
	format, level := "text", "info"
	if f.logFormat != nil {
		format, level = *f.logFormat, *f.logLevel
	}
	log, err := newLogger(format, level)
	if err != nil {
		return err
	}
	f.log = log
	return nil
}

// parseArgs parses flags and positional arguments in any order (ste
// exceptions show ID --json) and returns the positional ones.
func (f *flagSet) parseArgs(args []string) ([]string, error) {
	var pos []string
	rest := args
	for {
		if err := f.Parse(rest); err != nil {
			return nil, f.parse(args) // the same error, said as parse says it
		}
		if rest = f.Args(); len(rest) == 0 {
			break
		}
		pos, rest = append(pos, rest[0]), rest[1:]
	}
	return pos, f.parse(nil)
}

// envOr returns $name, or def when unset or empty.
func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
