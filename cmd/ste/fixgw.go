package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ste-utility/ste/adapters"
	"github.com/ste-utility/ste/adapters/fixgw"
	"github.com/ste-utility/ste/cli"
	"github.com/ste-utility/ste/schemas/refdata"
)

func init() {
	register(cli.Command{Name: "fixgw", Summary: "serve investment managers and brokers over FIX 4.4: AE/J/AK/AU into signed NOE/ALC/NPR/AFF, outputs back as AR/P/AU/AK/j (adapters.md §4)", Run: fixgwCmd})
	register(cli.Command{Name: "fixgw passwd", Summary: "read a new FIX logon password for a BIC on stdin and write its argon2id hash into the credentials file", Run: fixgwPasswd})
	register(cli.Command{Name: "fixgw reset-seq", Summary: "operators: both FIX sequence numbers of a BIC's session to 1, its output cursor rewound (ste fixgw on the store stopped)", Run: fixgwResetSeq})
}

func defaultStore() string { return filepath.Join(cli.Home(), "fixgw") }

func fixgwCmd(ctx context.Context, args []string) error {
	fs := cli.Flags("fixgw", "[--addr 127.0.0.1:9880] [--brokers B] [--namespace NS] [--comp-id BIC] [--signer-bic STEUTLSGFIX] (--signer-key FILE | --demo-key) (--credentials FILE | --demo-credentials) [--store DIR] [--tls-cert F --tls-key F [--tls-client-ca F]] [--insecure-plain] [--produce-timeout 10s] [--max-message-size 1MiB] [--health-addr 127.0.0.1:9881] [--kafka-tls …]")
	kafka := serverKafkaFlags(fs)
	ns := cli.Namespace(fs)
	addr := fs.String("addr", cli.EnvOr("STE_FIXGW_ADDR", fixgw.DefaultAddr),
		"address participants' FIX engines connect to ($STE_FIXGW_ADDR); beyond loopback it needs --tls-cert/--tls-key or --insecure-plain")
	compID := fs.String("comp-id", cli.EnvOr("STE_FIXGW_COMP_ID", refdata.DefaultUtilityBIC), "the acceptor's CompID: every session's TargetCompID(56) ($STE_FIXGW_COMP_ID)")
	signer := newSignerFlags(fs, "STE_FIXGW", refdata.FIXSignerBIC, "as: a participant with role SIGNER that brokers and investment managers list in their signers")
	creds := fs.String("credentials", os.Getenv("STE_FIXGW_CREDENTIALS"), "the logon passwords: a CSV file bic,password_hash of argon2id hashes (ste fixgw passwd writes it), mode 0600, re-read within 30 s of a change ($STE_FIXGW_CREDENTIALS)")
	demoCreds := fs.Bool("demo-credentials", false, "accept each participant's PUBLIC DEMO PASSWORD hex(sha256(\"ste-demo-fix:\"+BIC)): demos and tests only, said in the log")
	store := fs.String("store", cli.EnvOr("STE_FIXGW_STORE", defaultStore()), "the session store: sequence numbers, sent messages, output cursors; locked by one process ($STE_FIXGW_STORE)")
	cert := fs.String("tls-cert", os.Getenv("STE_FIXGW_TLS_CERT"), "TLS certificate (PEM) ($STE_FIXGW_TLS_CERT)")
	key := fs.String("tls-key", os.Getenv("STE_FIXGW_TLS_KEY"), "its private key (PEM) ($STE_FIXGW_TLS_KEY)")
	clientCA := fs.String("tls-client-ca", os.Getenv("STE_FIXGW_TLS_CLIENT_CA"), "require a client certificate signed by this CA (PEM), its CN or a DNS SAN equal to the SenderCompID ($STE_FIXGW_TLS_CLIENT_CA)")
	insecure := fs.Bool("insecure-plain", cli.EnvBool("STE_FIXGW_INSECURE_PLAIN"), "take plain TCP beyond loopback, for a TLS-terminating proxy in front (logged as a warning)")
	timeout := fs.Duration("produce-timeout", 10*time.Second, "how long a message waits for the brokers' acknowledgement before the connection is closed, the message not consumed")
	maxSize := fs.String("max-message-size", "1MiB", "the largest FIX message: a larger one closes the connection, nothing consumed (bytes, or with KiB/MiB)")
	health := fs.String("health-addr", cli.EnvOr("STE_FIXGW_HEALTH_ADDR", fixgw.DefaultHealthAddr), "GET /health and GET /metrics (Prometheus) ($STE_FIXGW_HEALTH_ADDR; empty: none)")
	serverLogFlags(fs)
	if err := fs.Read(args); err != nil {
		return err
	}
	if *timeout <= 0 {
		return cli.UsageError{Msg: "--produce-timeout: want a positive duration"}
	}
	size, err := parseSize(*maxSize)
	if err != nil {
		return cli.UsageError{Msg: "--max-message-size: " + err.Error()}
	}
	switch {
	case *creds != "" && *demoCreds:
		return cli.UsageError{Msg: "--credentials and --demo-credentials exclude each other"}
	case *creds == "" && !*demoCreds:
		return cli.UsageError{Msg: "logon passwords are needed: --credentials FILE (ste fixgw passwd writes it), or --demo-credentials for demos and tests"}
	}
	k, err := kafka()
	if err != nil {
		return err
	}
	o := fixgw.Options{Kafka: k, Namespace: *ns, Addr: *addr, CompID: *compID, Store: *store, TLSCert: *cert, TLSKey: *key,
		TLSClientCA: *clientCA, InsecurePlain: *insecure, ProduceTimeout: *timeout, MaxMessageSize: size, HealthAddr: *health,
		Signer: &adapters.Signer{BIC: *signer.bic}, Credentials: fixgw.DemoCredentials(), Logger: fs.Log}
	if err := o.Validate(); err != nil {
		return cli.UsageError{Msg: err.Error()}
	}
	if *creds != "" {
		if o.Credentials, err = fixgw.LoadCredentials(*creds); err != nil {
			return cli.UsageError{Msg: err.Error()}
		}
	}
	// The key last: a demo key is said in the log, once the flags are good.
	if o.Signer, err = signer.load(fs.Log); err != nil {
		return cli.UsageError{Msg: err.Error()}
	}
	return fixgw.Serve(ctx, o, func(a string) {
		fmt.Printf("STE fixgw for namespace %s: %s (TargetCompID %s)\n", *ns, a, *compID)
	})
}

// parseSize reads 1048576, 1024KiB or 1MiB.
func parseSize(s string) (int, error) {
	mult := 1
	switch {
	case strings.HasSuffix(s, "MiB"):
		mult, s = 1<<20, strings.TrimSuffix(s, "MiB")
	case strings.HasSuffix(s, "KiB"):
		mult, s = 1<<10, strings.TrimSuffix(s, "KiB")
	}
	var n int
	if _, err := fmt.Sscanf(s, "%d", &n); err != nil || n <= 0 || fmt.Sprint(n) != s {
		return 0, fmt.Errorf("want a positive size such as 1MiB, 512KiB or 65536")
	}
	return n * mult, nil
}

func fixgwPasswd(ctx context.Context, args []string) error {
	fs := cli.Flags("fixgw passwd", "--credentials FILE --bic BIC  (the new password on stdin, one line)")
	creds := fs.String("credentials", os.Getenv("STE_FIXGW_CREDENTIALS"), "the credentials file to write (created with mode 0600) ($STE_FIXGW_CREDENTIALS)")
	bic := fs.String("bic", "", "the participant whose password is set")
	if err := fs.Read(args); err != nil {
		return err
	}
	if *creds == "" || *bic == "" {
		return cli.UsageError{Msg: "--credentials and --bic are needed"}
	}
	pw, err := fixgw.ReadPassword(os.Stdin)
	if err != nil {
		return cli.UsageError{Msg: err.Error()}
	}
	if err := fixgw.SetPassword(*creds, *bic, pw); err != nil {
		return cli.UsageError{Msg: err.Error()}
	}
	fmt.Printf("password of %s set in %s (a running ste fixgw reads it within 30 s)\n", *bic, *creds)
	return nil
}

func fixgwResetSeq(ctx context.Context, args []string) error {
	fs := cli.Flags("fixgw reset-seq", "--store DIR --bic BIC")
	store := fs.String("store", cli.EnvOr("STE_FIXGW_STORE", defaultStore()), "the session store of the stopped ste fixgw ($STE_FIXGW_STORE)")
	bic := fs.String("bic", "", "the participant whose session is reset")
	if err := fs.Read(args); err != nil {
		return err
	}
	if *bic == "" {
		return cli.UsageError{Msg: "--bic is needed"}
	}
	done, err := fixgw.ResetSeq(*store, *bic)
	if err != nil {
		return err
	}
	fmt.Printf("reset %s: both sequence numbers 1, output cursor rewound to where delivery last resumed\n", strings.Join(done, ", "))
	return nil
}
