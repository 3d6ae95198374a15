// Command ste is the STE trade-matching utility: one binary whose subcommands
// are the contract of docs/spec/cli.md. Every subcommand answers --help,
// and a user error ends in one line on stderr and a non-zero exit, never a
// stack trace.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/ste-utility/ste/cli"
	"github.com/ste-utility/ste/instance"
)

// commands are the subcommands, each registered by its file's init.
var commands []cli.Command

func register(c cli.Command) { commands = append(commands, c) }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	return cli.Main(commands, args, stdout, stderr, cli.Usage, func(c *cli.Command, args []string) int { return execute(c, args, stderr) })
}

func execute(c *cli.Command, args []string, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Told to stop, every command exits within instance.ShutdownBound,
	// whatever the broker does (unreachable, slow, gone mid-request).
	defer instance.BoundShutdownOf(ctx, stderr)()
	defer cli.Profile()()
	return cli.Exit(c.Name, c.Run(ctx, args), stderr)
}
