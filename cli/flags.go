package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/ste-utility/ste/when"
)

// FlagSet is a command's flags: parsed by Read (or ReadArgs, Interleaved),
// printed by --help with the command's synopsis.
type FlagSet struct {
	*flag.FlagSet
	name, synopsis string
	// Log is the command's logger: --log-format and --log-level where the
	// command has them (LogFlags), else text at info, on stderr.
	Log                 *slog.Logger
	logFormat, logLevel *string
	// checks run once the flags are read (Check).
	checks []func() error
}

// Flags is the flag set of command name ("exceptions show"), whose
// --help shows synopsis.
func Flags(name, synopsis string) *FlagSet {
	fs := flag.NewFlagSet("ste "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &FlagSet{FlagSet: fs, name: name, synopsis: synopsis}
}

// Read parses args; a bad flag or a stray argument is a usage error.
func (f *FlagSet) Read(args []string) error {
	if err := f.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(os.Stdout, "usage: ste %s %s\n\nflags:\n", f.name, f.synopsis)
			f.SetOutput(os.Stdout)
			f.PrintDefaults()
			return flag.ErrHelp
		}
		return UsageError{err.Error()}
	}
	if f.NArg() > 0 {
		return UsageError{fmt.Sprintf("unexpected argument %q", f.Arg(0))}
	}
	for _, check := range f.checks {
		if err := check(); err != nil {
			return err
		}
	}
	format, level := "text", "info"
	if f.logFormat != nil {
		format, level = *f.logFormat, *f.logLevel
	}
	log, err := newLogger(format, level)
	if err != nil {
		return err
	}
	f.Log = log
	return nil
}

// Check adds a check of a flag's value that Read runs once the flags are
// read (a namespace flag checks its name), so that no command forgets it.
func (f *FlagSet) Check(check func() error) { f.checks = append(f.checks, check) }

// ReadArgs parses flags and positional arguments in any order (ste
// exceptions show ID --json) and returns the positional ones.
func (f *FlagSet) ReadArgs(args []string) ([]string, error) {
	var pos []string
	rest := args
	for {
		if err := f.Parse(rest); err != nil {
			return nil, f.Read(args) // the same error, said as parse says it
		}
		if rest = f.Args(); len(rest) == 0 {
			break
		}
		pos, rest = append(pos, rest[0]), rest[1:]
	}
	return pos, f.Read(nil)
}

// EnvOr returns $name, or def when unset or empty.
func EnvOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// LogFlags registers --log-format and --log-level; Read builds the logger
// from them (Log).
func (f *FlagSet) LogFlags() {
	f.logFormat = f.String("log-format", EnvOr("STE_LOG_FORMAT", "text"), "log format: text or json ($STE_LOG_FORMAT)")
	f.logLevel = f.String("log-level", EnvOr("STE_LOG_LEVEL", "info"), "log level: debug, info, warn or error ($STE_LOG_LEVEL)")
}

// newLogger is the logger of --log-format and --log-level, on stderr.
func newLogger(format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, UsageError{fmt.Sprintf("--log-level %q: want debug, info, warn or error", level)}
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(os.Stderr, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(os.Stderr, opts)), nil
	}
	return nil, UsageError{fmt.Sprintf("--log-format %q: want text or json", format)}
}

// minRetention is the shortest --retention taken without
// --allow-short-retention: shorter ones expire state (or topic records)
// almost at once, which is a typo far more often than an intent.
const minRetention = time.Hour

// Retention is --retention with its guard, --allow-short-retention; every
// command that takes a retention registers it through here.
type Retention struct {
	value      *string
	allowShort *bool
}

func AddRetention(fs *FlagSet, def, usage string) Retention {
	return Retention{
		value:      fs.String("retention", def, usage),
		allowShort: fs.Bool("allow-short-retention", false, "accept a --retention under 1h (tests and experiments)"),
	}
}

// Get parses the flag; an empty value (a flag with no default) is 0.
func (r Retention) Get() (time.Duration, error) {
	if *r.value == "" {
		return 0, nil
	}
	d, err := when.Duration(*r.value)
	if err != nil {
		return 0, UsageError{"--retention: " + err.Error()}
	}
	if d <= 0 {
		return 0, UsageError{"--retention " + *r.value + ": must be positive"}
	}
	if d < minRetention && !*r.allowShort {
		return 0, UsageError{fmt.Sprintf("--retention %s is under %v: it would expire nearly everything at once; add --allow-short-retention if that is meant", *r.value, minRetention)}
	}
	return d, nil
}

// Interleaved parses flags that may come before, between or after
// the positional arguments, and returns those.
func (fs *FlagSet) Interleaved(args []string) ([]string, error) {
	var pos []string
	for {
		err := fs.FlagSet.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			return nil, fs.Read([]string{"--help"})
		}
		if err != nil {
			return nil, UsageError{err.Error()}
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
