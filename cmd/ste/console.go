package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/ste-utility/ste/analytics"
	"github.com/ste-utility/ste/cli"
	"github.com/ste-utility/ste/console"
	"github.com/ste-utility/ste/exceptions"
)

func init() {
	register(cli.Command{Name: "console", Summary: "the operator console: live stages, throughput history, exceptions to retry, trades (a web page)", Run: consoleCmd})
}

func consoleCmd(ctx context.Context, args []string) error {
	fs := cli.Flags("console", "[--addr 127.0.0.1:8080] [--auth-tokens FILE] [--host NAME,...] [--brokers B] [--namespace NS] [--clickhouse DSN]")
	kafka, ns, secret := cli.KafkaFlags(fs), cli.Namespace(fs), cli.SecretFlag(fs)
	addr := fs.String("addr", cli.EnvOr("STE_CONSOLE_ADDR", console.DefaultAddr),
		"address to serve on ($STE_CONSOLE_ADDR); beyond loopback, use --auth-tokens")
	tokens := fs.String("auth-tokens", os.Getenv("STE_CONSOLE_TOKENS"),
		"file (mode 0600) of name:token[:reader|operator] lines: every request needs a token, a reader's changes are refused, and each retry and archive is recorded under its name and role ($STE_CONSOLE_TOKENS)")
	hosts := fs.String("host", os.Getenv("STE_CONSOLE_HOSTS"),
		"comma-separated DNS names the console is reached by, besides localhost and IP addresses; other Host headers are refused (DNS rebinding) unless tokens guard a console beyond loopback ($STE_CONSOLE_HOSTS)")
	dsn := cli.ClickHouse(fs)
	noAnalytics := fs.Bool("no-analytics", false, "show no history or journeys (no ClickHouse)")
	fs.LogFlags()
	if err := fs.Read(args); err != nil {
		return err
	}
	k, err := kafka()
	if err != nil {
		return err
	}
	o := console.Options{Kafka: k, Namespace: *ns, Addr: *addr, Logger: fs.Log, LocalOperator: exceptions.LocalOperator()}
	if o.Secret, err = secret(); err != nil {
		return err
	}
	for _, h := range strings.Split(*hosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			o.Hosts = append(o.Hosts, h)
		}
	}
	if *tokens != "" {
		if o.Tokens, err = console.LoadTokens(*tokens); err != nil {
			return cli.UsageError{Msg: "--auth-tokens: " + err.Error()}
		}
	}
	if !*noAnalytics {
		o.Analytics = analytics.Opener(*dsn, cli.Home())
	}
	return console.Serve(ctx, o, func(url string) { fmt.Printf("STE console for namespace %s: %s\n", *ns, url) })
}
