// Package cli is the command-line conventions of docs/spec/cli.md for the
// ste binary: commands and subcommands, --help on every one, a user error
// as one line on stderr with exit status 2 (any other failure 1, or the
// status a command asks for), flags that may come between arguments, the
// connection, topic, retention and log flags every command shares, and
// progress drawn only on a terminal. cmd/ste declares its commands with
// it and calls one package function each.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ste-utility/ste/termsafe"
)

// Command is one command ("diff") or subcommand ("exceptions show").
type Command struct {
	Name    string
	Summary string
	Run     func(ctx context.Context, args []string) error
}

// UsageError is a user error: exit status 2.
type UsageError struct{ Msg string }

func (e UsageError) Error() string { return e.Msg }

// ExitCode is an exit status a command asks for; with Err, the error is
// said too (one line).
type ExitCode struct {
	Err  error
	Code int
}

func (e ExitCode) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e ExitCode) Unwrap() error { return e.Err }

// Main finds the command args name — a command and its subcommand first —
// and runs it with execute; no argument or --help prints usage, and an
// unknown command or subcommand is one line and status 2.
func Main(commands []Command, args []string, stdout, stderr io.Writer, usage func(io.Writer, []Command), execute func(*Command, []string) int) int {
	sort.Slice(commands, func(i, j int) bool { return commands[i].Name < commands[j].Name })
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout, commands)
		return 0
	}
	name := args[0]
	rest := args[1:]
	// Two-word commands: "refdata gen", "topics create", ...
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		if c := find(commands, name+" "+rest[0]); c != nil {
			return execute(c, rest[1:])
		}
	}
	if c := find(commands, name); c != nil {
		return execute(c, rest)
	}
	var subs []string
	for _, c := range commands {
		if strings.HasPrefix(c.Name, name+" ") {
			subs = append(subs, strings.TrimPrefix(c.Name, name+" "))
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

func find(commands []Command, name string) *Command {
	for i := range commands {
		if commands[i].Name == name {
			return &commands[i]
		}
	}
	return nil
}

// Exit is the exit status of command name's error, said on stderr as one
// line that a terminal does not act on (an error can quote a record or a
// file).
func Exit(name string, err error, stderr io.Writer) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	}
	var ec ExitCode
	if errors.As(err, &ec) && ec.Err == nil {
		return ec.Code
	}
	var ue UsageError
	// An error can quote a record or a file: one line, nothing a terminal acts on.
	msg := termsafe.Escape(strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; "))
	fmt.Fprintf(stderr, "ste %s: %s\n", name, msg)
	if errors.As(err, &ec) {
		return ec.Code
	}
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}
