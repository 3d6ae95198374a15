package main

// ste diff: the outcome comparator over two namespaces (docs/backtests.md).

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/ste-utility/ste/cli"
	"github.com/ste-utility/ste/diff"
)

func init() {
	register(cli.Command{Name: "diff", Summary: "compare the outcomes of two namespaces (exit 0 same, 1 different, 2 error)", Run: diffCmd})
}

// chFlag is --clickhouse[=DSN]: on its own, the store ste analytics feeds
// by default ($STE_CLICKHOUSE, else the embedded one); with a value, that
// ClickHouse.
type chFlag struct {
	on  bool
	dsn string
}

func (c *chFlag) IsBoolFlag() bool { return true }
func (c *chFlag) String() string   { return c.dsn }
func (c *chFlag) Set(s string) error {
	if b, err := strconv.ParseBool(s); err == nil {
		c.on, c.dsn = b, os.Getenv("STE_CLICKHOUSE")
		return nil
	}
	c.on, c.dsn = true, s
	return nil
}

// diffCmd exits 0 when the outcomes are the same, 1 when they differ and 2
// on any error, so that CI can tell a difference from a failure.
func diffCmd(ctx context.Context, args []string) error {
	err := diffRun(ctx, args)
	var ec cli.ExitCode
	if err == nil || errors.Is(err, flag.ErrHelp) || errors.As(err, &ec) {
		return err
	}
	return cli.ExitCode{Err: err, Code: 2}
}

func diffRun(ctx context.Context, args []string) error {
	fs := cli.Flags("diff", "A B [--clickhouse[=DSN]] [--json] [--expiries] [--lines N] [--brokers B]\n\n"+
		"compares what namespace B ended with to what A ended with: per trade the final status, failing criteria\n"+
		"and standing CLS content (versions and status numbers left out), the ACKs, the NACKs and exceptions\n"+
		"by (Sender, MsgId, reason), and MsgIds with two contents; then, per participant, the trades that flip\n"+
		"between MISMATCHED and MATCHED and by which criteria (a tolerance's backtest); exit 0 same, 1 different, 2 error")
	kafka := cli.KafkaFlags(fs)
	var ch chFlag
	fs.Var(&ch, "clickhouse", "read both namespaces from analytics instead of their topics: --clickhouse for the default store ($STE_CLICKHOUSE, else the embedded one), --clickhouse=DSN for another")
	asJSON := fs.Bool("json", false, "print the whole comparison as JSON: the summary and every difference with both sides")
	expiries := fs.Bool("expiries", false, "also compare trades that ended EXPIRED (event-time retention may differ between correct runs)")
	lines := fs.Int("lines", 20, "differences listed under the table (text output)")
	names, err := fs.Interleaved(args)
	if err != nil {
		return err
	}
	if len(names) != 2 {
		return cli.UsageError{Msg: fmt.Sprintf("two namespaces are needed (ste diff A B), got %d", len(names))}
	}
	for _, ns := range names {
		if err := cli.ValidNamespace(ns); err != nil {
			return err
		}
	}
	k, err := kafka()
	if err != nil {
		return err
	}
	d, err := diff.Run(ctx, diff.Options{A: names[0], B: names[1], Kafka: k, ClickHouse: ch.on, DSN: ch.dsn, Home: cli.Home(),
		Expiries: *expiries, Warn: os.Stderr})
	if err != nil {
		return err
	}
	if err := diff.Write(os.Stdout, d, *asJSON, *expiries, *lines); err != nil {
		return err
	}
	if !d.Equal() {
		return cli.ExitCode{Code: 1}
	}
	return nil
}
