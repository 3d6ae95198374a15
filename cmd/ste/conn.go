package main

// Flags shared by the commands that talk to Kafka: how to reach the cluster
// (kafkaconn), who creates topics (topics.Options), and the log.

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/topics"
)

// kafkaFlags registers --brokers (default: $STE_BROKERS, else
// 127.0.0.1:9092) and the TLS and SASL flags. The returned function, called
// after parsing, checks them and reads the files they name.
func kafkaFlags(fs *flagSet) func() (kafkaconn.Config, error) {
	b := fs.String("brokers", envOr("STE_BROKERS", "127.0.0.1:9092"), "Kafka bootstrap brokers, comma-separated ($STE_BROKERS)")
	return kafkaSecurityFlags(fs, b)
}

// kafkaSecurityFlags registers the TLS and SASL flags for a brokers flag
// the command defines itself. The SASL password is never a flag (it would
// show in ps and in --help): it comes from a file or $STE_KAFKA_SASL_PASSWORD.
func kafkaSecurityFlags(fs *flagSet, brokers *string) func() (kafkaconn.Config, error) {
	return kafkaSecurityFlagsNamed(fs, brokers, "")
}

// kafkaSecurityFlagsNamed registers them with a prefix ("kafka-" for ste
// gateway, whose own --tls-cert and --tls-key are its HTTPS certificate).
func kafkaSecurityFlagsNamed(fs *flagSet, brokers *string, prefix string) func() (kafkaconn.Config, error) {
	s := kafkaconn.Settings{}
	useTLS := fs.Bool(prefix+"tls", envBool("STE_KAFKA_TLS"),
		"connect to the brokers with TLS, trusting the system's CAs unless --tls-ca ($STE_KAFKA_TLS=true)")
	fs.StringVar(&s.CAFile, prefix+"tls-ca", os.Getenv("STE_KAFKA_TLS_CA"), "PEM file of the CAs that sign the brokers' certificates; implies --tls ($STE_KAFKA_TLS_CA)")
	fs.StringVar(&s.CertFile, prefix+"tls-cert", os.Getenv("STE_KAFKA_TLS_CERT"), "client certificate (PEM) for mutual TLS; implies --tls ($STE_KAFKA_TLS_CERT)")
	fs.StringVar(&s.KeyFile, prefix+"tls-key", os.Getenv("STE_KAFKA_TLS_KEY"), "the client certificate's private key (PEM file) ($STE_KAFKA_TLS_KEY)")
	fs.StringVar(&s.ServerName, prefix+"tls-server-name", os.Getenv("STE_KAFKA_TLS_SERVER_NAME"), "name to verify in the brokers' certificates (default: the host dialled) ($STE_KAFKA_TLS_SERVER_NAME)")
	fs.StringVar(&s.Mechanism, prefix+"sasl-mechanism", os.Getenv("STE_KAFKA_SASL_MECHANISM"), "SASL mechanism: "+strings.Join(kafkaconn.Mechanisms, ", ")+" ($STE_KAFKA_SASL_MECHANISM)")
	fs.StringVar(&s.Username, prefix+"sasl-username", os.Getenv("STE_KAFKA_SASL_USERNAME"), "SASL username ($STE_KAFKA_SASL_USERNAME)")
	fs.StringVar(&s.PasswordFile, prefix+"sasl-password-file", os.Getenv("STE_KAFKA_SASL_PASSWORD_FILE"), "file holding the SASL password ($STE_KAFKA_SASL_PASSWORD_FILE); or the password itself in $STE_KAFKA_SASL_PASSWORD")
	return func() (kafkaconn.Config, error) {
		s.Brokers, s.TLS = *brokers, *useTLS
		s.Password = kafkaconn.Secret(os.Getenv("STE_KAFKA_SASL_PASSWORD"))
		c, err := kafkaconn.Load(s)
		if err != nil {
			return c, usageError{err.Error()}
		}
		return c, nil
	}
}

// reachable loads the connection settings and checks that the cluster
// answers: a refused login or certificate is the command's one-line error,
// before it does anything else.
func reachable(ctx context.Context, kafka func() (kafkaconn.Config, error)) (kafkaconn.Config, error) {
	k, err := kafka()
	if err != nil {
		return k, err
	}
	cl, err := topics.Connect(ctx, k)
	if err != nil {
		return k, err
	}
	cl.Close()
	return k, nil
}

// envBool reads a true/false variable: "true" or "1" is true.
func envBool(name string) bool {
	v := strings.ToLower(os.Getenv(name))
	return v == "true" || v == "1"
}

// topicFlags registers the flags of commands that create the namespace's
// missing topics as a side effect (process, drive, refdata load):
// --replication, --min-insync and --no-create-topics.
func topicFlags(fs *flagSet) func() (topics.Options, error) {
	replication := replicationFlags(fs, 0)
	noCreate := fs.Bool("no-create-topics", false, "create no topic: an operator owns them (ste topics manifest); a missing topic or a wrong partition count is an error")
	return func() (topics.Options, error) {
		o, err := replication()
		o.NoCreate = *noCreate
		return o, err
	}
}

// layoutFlags registers the flags that describe a namespace's topics
// (topics create, topics manifest): --partitions, --retention,
// --replication (default rf; 0 asks the cluster) and --min-insync.
func layoutFlags(fs *flagSet, rf int) func() (topics.Options, error) {
	parts := fs.Int("partitions", topics.DefaultPartitions, "partitions of keyed topics")
	retention := addRetentionFlag(fs, "7d", "retention of inbound and other streams (replay window)")
	replication := replicationFlags(fs, rf)
	return func() (topics.Options, error) {
		ret, err := retention.get()
		if err != nil {
			return topics.Options{}, err
		}
		if *parts < 1 {
			return topics.Options{}, usageError{"--partitions must be positive"}
		}
		o, err := replication()
		o.Partitions, o.Retention = int32(*parts), ret
		return o, err
	}
}

// replicationFlags registers --replication (default rf; 0 asks the
// cluster) and --min-insync.
func replicationFlags(fs *flagSet, rf int) func() (topics.Options, error) {
	help := "replication factor of the topics created"
	if rf == 0 {
		help += fmt.Sprintf(" (default: min(%d, brokers in the cluster))", topics.MaxReplication)
	}
	n := fs.Int("replication", rf, help)
	minISR := fs.Int("min-insync", 0, "min.insync.replicas of the topics created (default: 2, or 1 below 3 replicas)")
	return func() (topics.Options, error) {
		if *n < 0 || *n > 32767 || *n == 0 && rf > 0 || *minISR < 0 {
			return topics.Options{}, usageError{"--replication and --min-insync must be positive"}
		}
		o := topics.Options{Replication: int16(*n), MinInsync: *minISR}
		if err := o.Validate(); err != nil {
			return o, usageError{err.Error()}
		}
		return o, nil
	}
}

// logFlags registers --log-format and --log-level; parse builds the logger
// from them (fs.log).
func (f *flagSet) logFlags() {
	f.logFormat = f.String("log-format", envOr("STE_LOG_FORMAT", "text"), "log format: text or json ($STE_LOG_FORMAT)")
	f.logLevel = f.String("log-level", envOr("STE_LOG_LEVEL", "info"), "log level: debug, info, warn or error ($STE_LOG_LEVEL)")
}

// newLogger is the logger of --log-format and --log-level, on stderr.
func newLogger(format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, usageError{fmt.Sprintf("--log-level %q: want debug, info, warn or error", level)}
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(os.Stderr, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(os.Stderr, opts)), nil
	}
	return nil, usageError{fmt.Sprintf("--log-format %q: want text or json", format)}
}
