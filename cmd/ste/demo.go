package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/ste-utility/ste/cli"
	"github.com/ste-utility/ste/console"
	"github.com/ste-utility/ste/demo"
	"github.com/ste-utility/ste/exceptions"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/schemas/refdata"
)

func init() {
	register(cli.Command{Name: "demo", Summary: "the main job on embedded defaults: broker, reference data, processors, 10,000 realistic trades, a report", Run: runDemo})
}

func runDemo(ctx context.Context, args []string) error {
	fs := cli.Flags("demo", "[--trades N] [--clickhouse DSN] [--console [--console-addr ADDR]]")
	trades := fs.Int("trades", 10000, "realistic trades to generate and drive")
	chDSN := cli.ClickHouse(fs)
	withConsole := fs.Bool("console", false, "after the summary, keep the broker and processors running and serve the operator console until interrupted")
	consoleAddr := fs.String("console-addr", console.DefaultAddr, "where --console serves")
	if err := fs.Read(args); err != nil {
		return err
	}
	if *trades < 1 {
		return cli.UsageError{Msg: "--trades must be positive"}
	}
	return demo.Run(ctx, demo.Options{Trades: *trades, ClickHouse: *chDSN, Home: cli.Home(),
		Console: *withConsole, ConsoleAddr: *consoleAddr, Operator: exceptions.LocalOperator(),
		Signer: func(log *slog.Logger) (*schemas.Signer, error) {
			return cli.UtilitySigner(refdata.DefaultUtilityBIC, "", log)
		},
		Out: os.Stdout, Terminal: cli.IsTerminal(os.Stdout)})
}
