// Package topics is STE's side of Kafka administration and clients: every
// topic of a namespace with its partitions, replication and configs,
// idempotent creation through kadm (or, where an operator owns the topics,
// a check that they are there), and franz-go clients whose partitioner
// agrees with goka's.
package topics

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas/msgset"
	"github.com/ste-utility/ste/termsafe"
	"github.com/ste-utility/ste/topics/copier"
	"github.com/ste-utility/ste/topology"
)

// Partitioner is the franz-go partitioner that agrees with goka's
// (topology.Partition: FNV-1a 32 as sarama computes it). Every franz-go
// producer of records goka reads uses it; franz-go's default murmur2 would
// split a trade from its state.
func Partitioner() kgo.Partitioner { return kgo.StickyKeyPartitioner(topology.Partition) }

// ProducerOpts are the options of every STE producer: the shared partitioner,
// acks from all in-sync replicas and idempotence (franz-go's default, kept
// explicit), and batches large enough for the biggest record we accept.
//
// When a partition's leader moves (a broker's controlled shutdown) or is
// lost (fenced after broker.session.timeout.ms), a producer finds the new
// one from its metadata: refreshed at most every MetadataMinAge (franz-go's
// default 5 s: a lost leader's partition stood still up to 5 s after the
// new leader was elected) and retried after franz-go's backoff, which grows
// to 5 s while the old leader does not answer. Both are kept to a second or
// less (docs/operations.md, "Broker settings").
func ProducerOpts() []kgo.Opt {
	return []kgo.Opt{
		kgo.RecordPartitioner(Partitioner()),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.ProducerBatchMaxBytes(topology.MaxBatchBytes),
		kgo.ProducerLinger(time.Millisecond),
		kgo.ProducerBatchCompression(kgo.NoCompression()),
		kgo.MetadataMinAge(MetadataMinAge),
		kgo.RetryBackoffFn(RetryBackoff),
	}
}

// MetadataMinAge is how soon a client may refresh its metadata again.
const MetadataMinAge = 250 * time.Millisecond

// RetryBackoff is franz-go's wait before retry n of a request (n ≥ 1):
// 250 ms doubling to at most 1 s (franz-go's default reaches 5 s), ±20 %
// so that clients retrying together spread out.
func RetryBackoff(n int) time.Duration {
	d := min(250*time.Millisecond<<min(max(n-1, 0), 4), time.Second)
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}

// Client opens a franz-go client of the cluster c (brokers, TLS, SASL) with
// the producer options and extra ones.
func Client(c kafkaconn.Config, extra ...kgo.Opt) (*kgo.Client, error) {
	opts := append(c.Opts(),
		kgo.FetchMaxBytes(64<<20), kgo.FetchMaxPartitionBytes(16<<20),
		// Topics created a moment ago may not be known to every broker yet.
		kgo.UnknownTopicRetries(20),
		// kadm answers metadata (ListTopics, waiting for new topics' leaders)
		// from the client's cache, kept for MetadataMinAge (default 5 s): a
		// namespace created just after a lookup that found nothing looked
		// absent for 5 s, and every `ste topics create` or first
		// `ste process` waited that long (ProducerOpts keeps it short too).
		kgo.MetadataMinAge(MetadataMinAge))
	opts = append(opts, ProducerOpts()...)
	return kgo.NewClient(append(opts, extra...)...)
}

// Connect opens a client and checks that the cluster answers (see Ping).
func Connect(ctx context.Context, c kafkaconn.Config, extra ...kgo.Opt) (*kgo.Client, error) {
	cl, err := Client(c, extra...)
	if err != nil {
		return nil, err
	}
	if err := Ping(ctx, cl, c); err != nil {
		cl.Close()
		return nil, err
	}
	return cl, nil
}

// Ping checks that the cluster answers within the context's deadline, for a
// one-line "cannot connect" error instead of a hang. A refused TLS handshake
// or SASL login fails here, at once, with its reason.
func Ping(ctx context.Context, cl *kgo.Client, c kafkaconn.Config) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := cl.Ping(ctx); err != nil {
		return fmt.Errorf("cannot connect to brokers %s: %v", strings.Join(c.Brokers, ","), c.Explain(err))
	}
	return nil
}

// DumpTo writes topic's records, from its start to its current end, one a
// line: to file (.gz or .zst compresses) as they are, or with file "-" to w
// with the characters a terminal acts on escaped (termsafe).
func DumpTo(ctx context.Context, c kafkaconn.Config, topic, file string, w io.Writer) (int, error) {
	// To a writer (standard output, a pipe, a terminal, a pager) a record
	// goes through termsafe: participants choose MsgIds and Senders, and a
	// control or bidi character would act on whatever finally shows it.
	// Only a file (--out) keeps the records' exact bytes.
	write := func(b []byte) error { _, err := io.WriteString(w, termsafe.Escape(string(b))+"\n"); return err }
	if file != "-" {
		mw, err := msgset.Create(file)
		if err != nil {
			return 0, err
		}
		defer mw.Close()
		write = mw.Write
	}
	return Dump(ctx, c, topic, func(r *kgo.Record) error { return write(r.Value) })
}

// Dump reads a topic from its start to the end offsets it has when called
// and hands every record value to fn, partition by partition in offset order.
func Dump(ctx context.Context, c kafkaconn.Config, topic string, fn func(r *kgo.Record) error) (int, error) {
	cl, err := Client(c)
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	// A broker that accepts connections and never answers would otherwise
	// hold the offset listing below for ever.
	if err := Ping(ctx, cl, c); err != nil {
		return 0, err
	}
	spans, err := copier.EndSpans(ctx, kadm.NewClient(cl), topic)
	if err != nil {
		return 0, err
	}
	n, err := copier.Read(ctx, func(opts ...kgo.Opt) (*kgo.Client, error) { return Client(c, opts...) }, topic, spans, fn)
	return int(n), err
}

// Poll fetches once: the records, or the context's error, or a fetch's
// (the last one reported).
func Poll(ctx context.Context, cl *kgo.Client) (kgo.Fetches, error) {
	fs := cl.PollFetches(ctx)
	if err := ctx.Err(); err != nil {
		return fs, err
	}
	var ferr error
	fs.EachError(func(_ string, _ int32, err error) { ferr = err })
	return fs, ferr
}
