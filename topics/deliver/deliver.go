// Package deliver is per-participant delivery: a consumer group that copies
// every record of <ns>.outbound to <ns>.out.<BIC> for its key, so that a
// participant on Kafka reads its own ACKs, NACKs and STATUS and, under the
// ACLs of `ste topics manifest`, nobody else's (docs/spec/messages.md section 1).
//
// What a copy keeps: the key and value bytes, the headers and the record
// time; the order of a BIC's records (they share one outbound partition,
// which is read in order, and its topic has one partition written by an
// idempotent producer). Delivery is at-least-once like every output: the
// group commits an outbound offset only after the broker has acknowledged
// every copy up to it, so a crash copies the uncommitted records again and
// consumers dedupe by MsgId as they do on outbound. It adds no record to the
// pipeline: it only reads outbound.
package deliver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/topology"
)

// Options configure Run. Kafka and Namespace are required.
type Options struct {
	Kafka     kafkaconn.Config
	Namespace string
	// Topics says how a participant's missing topic is made on first use
	// (replication, min.insync.replicas), or that an operator owns them
	// (NoCreate: a record for a BIC without its topic waits until it exists).
	Topics topics.Options
	Logger *slog.Logger
	// Retry is the pause before a failed batch is produced again (default 1 s).
	Retry time.Duration
}

// Run copies until ctx ends; it returns nil then. Broker faults are retried:
// a batch not acknowledged in full is produced again and its offsets are
// not committed before it is.
func Run(ctx context.Context, o Options) error {
	if len(o.Kafka.Brokers) == 0 || o.Namespace == "" {
		return errors.New("deliver: brokers and namespace are required")
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Retry <= 0 {
		o.Retry = time.Second
	}
	outbound := topology.Names{NS: o.Namespace}.Outbound()
	cl, err := topics.Client(o.Kafka,
		kgo.ConsumerGroup(topics.DeliveryGroup(o.Namespace)),
		kgo.ConsumeTopics(outbound),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DisableAutoCommit(),
		// A revoked partition's copies are acknowledged and committed
		// before it moves: no batch is in flight across a rebalance.
		kgo.BlockRebalanceOnPoll())
	if err != nil {
		return err
	}
	defer cl.Close()
	// Runs before Close: a poll left blocking rebalances would hold the
	// group's leave (and the close) for ever.
	defer cl.AllowRebalance()
	d := &deliverer{o: o, cl: cl, adm: kadm.NewClient(cl), known: map[string]bool{}}
	o.Logger.Info("per-participant delivery running", "from", outbound, "to", topics.DeliveryTopic(o.Namespace, "<BIC>"), "group", topics.DeliveryGroup(o.Namespace))
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return nil
		}
		fs.EachError(func(t string, p int32, err error) {
			o.Logger.Warn("per-participant delivery: fetch failed, retrying", "topic", t, "partition", p, "err", err)
		})
		recs := fs.Records()
		if len(recs) > 0 {
			if !d.copy(ctx, recs) {
				return nil
			}
			if err := cl.CommitRecords(ctx, recs...); err != nil && ctx.Err() == nil {
				// The copies are acknowledged: a later commit covers them,
				// and a crash before it copies them again (at-least-once).
				o.Logger.Warn("per-participant delivery: commit failed", "err", err)
			}
		}
		cl.AllowRebalance()
	}
}

type deliverer struct {
	o     Options
	cl    *kgo.Client
	adm   *kadm.Client
	known map[string]bool // topics known to exist
}

// copy produces the copies of recs until all are acknowledged; false when
// ctx ended first.
func (d *deliverer) copy(ctx context.Context, recs []*kgo.Record) bool {
	batch := make([]*kgo.Record, 0, len(recs))
	for _, r := range recs {
		bic := string(r.Key)
		if !refdata.ValidBIC(bic) {
			// The utility keys outbound by the receiving BIC; anything else
			// was not written by it and has no participant to go to.
			d.o.Logger.Warn("per-participant delivery: outbound record without a BIC key skipped", "partition", r.Partition, "offset", r.Offset, "key", fmt.Sprintf("%.32q", r.Key))
			continue
		}
		batch = append(batch, &kgo.Record{Topic: topics.DeliveryTopic(d.o.Namespace, bic), Key: r.Key, Value: r.Value,
			Headers: r.Headers, Timestamp: r.Timestamp})
	}
	for {
		err := d.ensure(ctx, batch)
		if err == nil {
			err = d.cl.ProduceSync(ctx, batch...).FirstErr()
		}
		if err == nil {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		// Produced again whole: a copy acknowledged before the failure is
		// repeated after its first copy, so each BIC's order of first
		// appearances stays outbound's.
		d.o.Logger.Warn("per-participant delivery: copy failed, retrying", "records", len(batch), "err", err)
		for _, r := range batch {
			r.Partition, r.Offset = 0, 0
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(d.o.Retry):
		}
	}
}

// ensure makes the batch's topics that are not known to exist: created on
// first use, unless an operator owns them.
func (d *deliverer) ensure(ctx context.Context, batch []*kgo.Record) error {
	var bics []string
	seen := map[string]bool{}
	for _, r := range batch {
		if !d.known[r.Topic] && !seen[r.Topic] {
			seen[r.Topic] = true
			bics = append(bics, string(r.Key))
		}
	}
	if len(bics) == 0 {
		return nil
	}
	if d.o.Topics.NoCreate {
		names := make([]string, len(bics))
		for i, b := range bics {
			names[i] = topics.DeliveryTopic(d.o.Namespace, b)
		}
		td, err := d.adm.ListTopics(ctx, names...)
		if err != nil {
			return err
		}
		for _, n := range names {
			if t, ok := td[n]; !ok || t.Err != nil {
				return fmt.Errorf("topic %s does not exist and the topics are owned by an operator (create it, e.g. from ste topics manifest)", n)
			}
			d.known[n] = true
		}
		return nil
	}
	created, err := topics.CreateDelivery(ctx, d.adm, d.o.Namespace, bics, d.o.Topics)
	if err != nil {
		return err
	}
	if len(created) > 0 {
		d.o.Logger.Info("per-participant topics created", "topics", created)
	}
	for _, b := range bics {
		d.known[topics.DeliveryTopic(d.o.Namespace, b)] = true
	}
	return nil
}
