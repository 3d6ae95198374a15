package cli

// Flags shared by the commands that talk to Kafka: how to reach the cluster
// (kafkaconn) and who creates topics (topics.Options).

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/topics"
)

// KafkaFlags registers --brokers (default: $STE_BROKERS, else
// 127.0.0.1:9092) and the TLS and SASL flags. The returned function, called
// after parsing, checks them and reads the files they name.
func KafkaFlags(fs *FlagSet) func() (kafkaconn.Config, error) {
	b := fs.String("brokers", EnvOr("STE_BROKERS", "127.0.0.1:9092"), "Kafka bootstrap brokers, comma-separated ($STE_BROKERS)")
	return KafkaSecurityFlags(fs, b)
}

// KafkaSecurityFlags registers the TLS and SASL flags for a brokers flag
// the command defines itself. The SASL password is never a flag (it would
// show in ps and in --help): it comes from a file or $STE_KAFKA_SASL_PASSWORD.
func KafkaSecurityFlags(fs *FlagSet, brokers *string) func() (kafkaconn.Config, error) {
	return KafkaSecurityFlagsNamed(fs, brokers, "")
}

// KafkaSecurityFlagsNamed registers them with a prefix ("kafka-" for ste
// gateway, whose own --tls-cert and --tls-key are its HTTPS certificate).
func KafkaSecurityFlagsNamed(fs *FlagSet, brokers *string, prefix string) func() (kafkaconn.Config, error) {
	s := kafkaconn.Settings{}
	useTLS := fs.Bool(prefix+"tls", EnvBool("STE_KAFKA_TLS"),
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
			return c, UsageError{err.Error()}
		}
		return c, nil
	}
}

// Reachable loads the connection settings and checks that the cluster
// answers: a refused login or certificate is the command's one-line error,
// before it does anything else.
func Reachable(ctx context.Context, kafka func() (kafkaconn.Config, error)) (kafkaconn.Config, error) {
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

// EnvBool reads a true/false variable: "true" or "1" is true.
func EnvBool(name string) bool {
	v := strings.ToLower(os.Getenv(name))
	return v == "true" || v == "1"
}

// TopicFlags registers the flags of commands that create the namespace's
// missing topics as a side effect (process, drive, refdata load):
// --replication, --min-insync and --no-create-topics.
func TopicFlags(fs *FlagSet) func() (topics.Options, error) {
	replication := ReplicationFlags(fs, 0)
	noCreate := fs.Bool("no-create-topics", false, "create no topic: an operator owns them (ste topics manifest); a missing topic or a wrong partition count is an error")
	return func() (topics.Options, error) {
		o, err := replication()
		o.NoCreate = *noCreate
		return o, err
	}
}

// LayoutFlags registers the flags that describe a namespace's topics
// (topics create, topics manifest): --partitions, --retention,
// --replication (default rf; 0 asks the cluster) and --min-insync.
func LayoutFlags(fs *FlagSet, rf int) func() (topics.Options, error) {
	parts := fs.Int("partitions", topics.DefaultPartitions, "partitions of keyed topics")
	retention := AddRetention(fs, "7d", "retention of inbound and other streams (replay window)")
	replication := ReplicationFlags(fs, rf)
	return func() (topics.Options, error) {
		ret, err := retention.Get()
		if err != nil {
			return topics.Options{}, err
		}
		if *parts < 1 {
			return topics.Options{}, UsageError{"--partitions must be positive"}
		}
		o, err := replication()
		o.Partitions, o.Retention = int32(*parts), ret
		return o, err
	}
}

// ReplicationFlags registers --replication (default rf; 0 asks the
// cluster) and --min-insync.
func ReplicationFlags(fs *FlagSet, rf int) func() (topics.Options, error) {
	help := "replication factor of the topics created"
	if rf == 0 {
		help += fmt.Sprintf(" (default: min(%d, brokers in the cluster))", topics.MaxReplication)
	}
	n := fs.Int("replication", rf, help)
	minISR := fs.Int("min-insync", 0, "min.insync.replicas of the topics created (default: 2, or 1 below 3 replicas)")
	return func() (topics.Options, error) {
		if *n < 0 || *n > 32767 || *n == 0 && rf > 0 || *minISR < 0 {
			return topics.Options{}, UsageError{"--replication and --min-insync must be positive"}
		}
		o := topics.Options{Replication: int16(*n), MinInsync: *minISR}
		if err := o.Validate(); err != nil {
			return o, UsageError{err.Error()}
		}
		return o, nil
	}
}
