package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topics/copier"
	"github.com/ste-utility/ste/topics/lag"
)

// Admin connects and checks the cluster answers.
func Admin(ctx context.Context, k kafkaconn.Config) (*kadm.Client, func(), error) {
	cl, err := topics.Connect(ctx, k)
	if err != nil {
		return nil, nil, err
	}
	return kadm.NewClient(cl), cl.Close, nil
}

// Dialer opens clients on brokers for the copy path.
func Dialer(k kafkaconn.Config) copier.Dial {
	return func(opts ...kgo.Opt) (*kgo.Client, error) { return topics.Client(k, opts...) }
}

// ClickHouse is --clickhouse, the store's address; empty means the embedded endpoint
// under $STE_HOME.
func ClickHouse(fs *FlagSet) *string {
	return fs.String("clickhouse", os.Getenv("STE_CLICKHOUSE"),
		"ClickHouse DSN (http://host:8123, clickhouse://host:9000, host:port) ($STE_CLICKHOUSE); default: the embedded store under $STE_HOME/analytics")
}

// LagProgress draws "processed so far" from lag samples on a terminal: the
// bar runs from the largest lag seen to zero.
func LagProgress() func(lag.Sample) {
	if !IsTerminal(os.Stderr) {
		return nil
	}
	var most int64
	return func(s lag.Sample) {
		n := s.Sum()
		most = max(most, n)
		fmt.Fprintf(os.Stderr, "\r%s %d records behind   ", FractionBar(most-n, most), n)
		if n == 0 && len(s.Partitions) > 0 {
			fmt.Fprintln(os.Stderr)
		}
	}
}

// SendProgress draws records sent and their rate on a terminal (ste
// drive); nil elsewhere.
func SendProgress() func(int64, time.Duration) {
	if !IsTerminal(os.Stderr) {
		return nil
	}
	return func(n int64, d time.Duration) {
		fmt.Fprintf(os.Stderr, "\r%s %d sent, %.0f msg/s   ", Bar(n), n, float64(n)/max(d.Seconds(), 1e-9))
	}
}
