package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/ste-utility/ste/adapters"
	"github.com/ste-utility/ste/adapters/iso20022"
	"github.com/ste-utility/ste/cli"
	"github.com/ste-utility/ste/schemas/refdata"
)

func init() {
	register(cli.Command{Name: "iso20022", Summary: "serve custodians' ISO 20022 sese messages over HTTPS: sese.023/020 into signed SETs, outputs back as sese.024/027/028/029 (adapters.md §5)", Run: iso20022Cmd})
}

func iso20022Cmd(ctx context.Context, args []string) error {
	fs := cli.Flags("iso20022", "[--addr 127.0.0.1:8444] [--brokers B] [--namespace NS] [--public-url URL] [--signer-bic STEUTLSGISO] (--signer-key FILE | --demo-key) [--tls-cert F --tls-key F] [--insecure-http] [--produce-timeout 10s] [--metrics-addr A] [--kafka-tls …]")
	kafka := serverKafkaFlags(fs)
	ns := cli.Namespace(fs)
	addr := fs.String("addr", cli.EnvOr("STE_ISO20022_ADDR", iso20022.DefaultAddr),
		"address to serve custodians on ($STE_ISO20022_ADDR); beyond loopback it needs --tls-cert/--tls-key or --insecure-http")
	publicURL := fs.String("public-url", os.Getenv("STE_ISO20022_PUBLIC_URL"),
		"scheme://host[:port] custodians reach the adapter at, when a TLS-terminating proxy changes it: what @target-uri and @authority are checked against ($STE_ISO20022_PUBLIC_URL)")
	signer := newSignerFlags(fs, "STE_ISO20022", refdata.ISOSignerBIC, "SETs as: a participant with role SIGNER that custodians list in their signers")
	cert := fs.String("tls-cert", os.Getenv("STE_ISO20022_TLS_CERT"), "HTTPS certificate (PEM) ($STE_ISO20022_TLS_CERT)")
	key := fs.String("tls-key", os.Getenv("STE_ISO20022_TLS_KEY"), "its private key (PEM) ($STE_ISO20022_TLS_KEY)")
	insecure := fs.Bool("insecure-http", cli.EnvBool("STE_ISO20022_INSECURE_HTTP"), "serve plain HTTP beyond loopback, for a TLS-terminating proxy in front (logged as a warning)")
	timeout := fs.Duration("produce-timeout", 10*time.Second, "how long a POST waits for the brokers' acknowledgement before answering 503")
	metrics := fs.String("metrics-addr", cli.EnvOr("STE_ISO20022_METRICS_ADDR", metricsAuto),
		"address of /metrics (Prometheus; no authentication: loopback unless only monitoring reaches it; empty: none) ($STE_ISO20022_METRICS_ADDR); "+
			"auto: loopback, at the port of --addr + "+strconv.Itoa(metricsPortOffset)+" (127.0.0.1:9466 beside the default --addr), as ste gateway's")
	serverLogFlags(fs)
	if err := fs.Read(args); err != nil {
		return err
	}
	if *timeout <= 0 {
		return cli.UsageError{Msg: "--produce-timeout: want a positive duration"}
	}
	if *metrics == metricsAuto {
		m, err := metricsBeside(*addr)
		if err != nil {
			return cli.UsageError{Msg: "--metrics-addr: " + err.Error()}
		}
		*metrics = m
	}
	k, err := kafka()
	if err != nil {
		return err
	}
	o := iso20022.Options{MetricsAddr: *metrics, Kafka: k, Namespace: *ns, Addr: *addr, PublicURL: *publicURL, TLSCert: *cert, TLSKey: *key,
		InsecureHTTP: *insecure, Signer: &adapters.Signer{BIC: *signer.bic}, ProduceTimeout: *timeout, Logger: fs.Log}
	if err := o.Validate(); err != nil {
		return cli.UsageError{Msg: err.Error()}
	}
	// The key last: a demo key is said in the log, once the flags are good.
	if o.Signer, err = signer.load(fs.Log); err != nil {
		return cli.UsageError{Msg: err.Error()}
	}
	return iso20022.Serve(ctx, o, func(url string) { fmt.Printf("STE iso20022 for namespace %s: %s\n", *ns, url) })
}
