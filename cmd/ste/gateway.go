package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"

	"github.com/ste-utility/ste/cli"
	"github.com/ste-utility/ste/gateway"
	"github.com/ste-utility/ste/instance/lookup"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/when"
)

func init() {
	register(cli.Command{Name: "gateway", Summary: "serve participants over HTTPS: signed submits, their own outputs, their trades' state, the utility's keys (gateway.md)", Run: gatewayCmd})
}

func gatewayCmd(ctx context.Context, args []string) error {
	fs := cli.Flags("gateway", "[--addr 127.0.0.1:8443] [--brokers B] [--namespace NS] [--public-url URL] [--tls-cert FILE --tls-key FILE] [--insecure-http] [--at-risk-lead 2h] [--metrics-addr A] [--kafka-tls …]")
	kafka := serverKafkaFlags(fs)
	ns := cli.Namespace(fs)
	addr := fs.String("addr", cli.EnvOr("STE_GATEWAY_ADDR", gateway.DefaultAddr),
		"address to serve participants on ($STE_GATEWAY_ADDR); beyond loopback it needs --tls-cert/--tls-key or --insecure-http")
	publicURL := fs.String("public-url", os.Getenv("STE_GATEWAY_PUBLIC_URL"),
		"scheme://host[:port] participants reach the gateway at, when a TLS-terminating proxy changes it: what @target-uri and @authority are checked against ($STE_GATEWAY_PUBLIC_URL)")
	cert := fs.String("tls-cert", os.Getenv("STE_GATEWAY_TLS_CERT"), "the gateway's HTTPS certificate (PEM) ($STE_GATEWAY_TLS_CERT)")
	key := fs.String("tls-key", os.Getenv("STE_GATEWAY_TLS_KEY"), "its private key (PEM) ($STE_GATEWAY_TLS_KEY)")
	insecure := fs.Bool("insecure-http", cli.EnvBool("STE_GATEWAY_INSECURE_HTTP"), "serve plain HTTP beyond loopback, for a TLS-terminating proxy in front (logged as a warning)")
	atRiskLead := fs.String("at-risk-lead", cli.EnvOr("STE_AT_RISK_LEAD", "2h"),
		"an unlocked trade is at risk from this long before its market's cutoff (markets.csv): at_risk in the trade view and the work queue ($STE_AT_RISK_LEAD)")
	metrics := fs.String("metrics-addr", cli.EnvOr("STE_GATEWAY_METRICS_ADDR", metricsAuto),
		"address of /metrics (no authentication: loopback unless only monitoring reaches it; empty: none) ($STE_GATEWAY_METRICS_ADDR); "+
			"auto: loopback, at the port of --addr + "+strconv.Itoa(metricsPortOffset)+" ("+gateway.DefaultMetricsAddr+" beside the default --addr), so that gateways on one host, each on its own --addr, do not collide")
	bic := fs.String("utility-bic", cli.EnvOr("STE_UTILITY_BIC", refdata.DefaultUtilityBIC), "the utility's own BIC: /v1/keys serves its row's keys ($STE_UTILITY_BIC)")
	rate := fs.Float64("rate-limit", 50, "authenticated requests per second per participant, on this instance")
	burst := fs.Int("rate-burst", 100, "requests a participant may make at once above the rate")
	defProcs := 1
	if os.Getenv("GOMAXPROCS") != "" {
		defProcs = 0
	}
	if v := os.Getenv("STE_GATEWAY_PROCS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return cli.UsageError{Msg: "STE_GATEWAY_PROCS: want a number of cores, got " + strconv.Quote(v)}
		}
		defProcs = n
	}
	procs := fs.Int("procs", defProcs, "cores the instance runs Go code on ($STE_GATEWAY_PROCS; 0: the Go runtime's choice, GOMAXPROCS or every core): one by default, as an instance mostly waits on the network; more instances for more (docs/participants.md §8)")
	secretOf := cli.SecretFlag(fs)
	serverLogFlags(fs)
	if err := fs.Read(args); err != nil {
		return err
	}
	if *procs < 0 {
		return cli.UsageError{Msg: "--procs: want 0 or more"}
	}
	if *procs > 0 {
		runtime.GOMAXPROCS(*procs)
	}
	lead, err := when.Duration(*atRiskLead)
	if err != nil || lead <= 0 {
		return cli.UsageError{Msg: "--at-risk-lead must be a positive duration (e.g. 2h, 90m)"}
	}
	gateway.TuneGC()
	if *metrics == metricsAuto {
		m, err := metricsBeside(*addr)
		if err != nil {
			return cli.UsageError{Msg: err.Error()}
		}
		*metrics = m
	}
	k, err := kafka()
	if err != nil {
		return err
	}
	o := gateway.Options{Kafka: k, Namespace: *ns, Addr: *addr, PublicURL: *publicURL, TLSCert: *cert, TLSKey: *key,
		InsecureHTTP: *insecure, MetricsAddr: *metrics, UtilityBIC: *bic, RatePerSecond: *rate, Burst: *burst, AtRiskLead: lead, Logger: fs.Log}
	if err := o.Validate(); err != nil {
		return cli.UsageError{Msg: err.Error()}
	}
	secret, err := secretOf()
	if err != nil {
		return err
	}
	o.LookupToken = secret.Token(lookup.TokenPurpose)
	o.LookupSecret = secret
	return gateway.Serve(ctx, o, func(url string) { fmt.Printf("STE gateway for namespace %s: %s\n", *ns, url) })
}

// metricsAuto is --metrics-addr's default: beside --addr (metricsBeside).
const metricsAuto = "auto"

// metricsPortOffset puts the default /metrics 1022 ports above the
// gateway's own: 9465 beside the default 8443.
const metricsPortOffset = 1022

// metricsBeside is the /metrics address of a gateway on addr by default:
// loopback, at addr's port + metricsPortOffset (a free port when addr's is
// 0 or too high), so that two gateways on one host — on two --addr ports —
// never collide on it (issue 51: both took 127.0.0.1:9465).
func metricsBeside(addr string) (string, error) {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--addr %q: want host:port", addr)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 {
		return "", fmt.Errorf("--addr %q: bad port", addr)
	}
	if p == 0 || p+metricsPortOffset > 65535 {
		return "127.0.0.1:0", nil
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(p+metricsPortOffset)), nil
}
