package topics

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas/outcome"
	"github.com/ste-utility/ste/topology"
)

// ReadOutcome reads a namespace's cls, outbound and exceptions topics, each
// to the end it has when reached, into an outcome.Set. Outputs written
// while it reads may be missing; a caller waiting for a run to finish reads
// again (the Set's counts say how far it has come).
func ReadOutcome(ctx context.Context, conn kafkaconn.Config, ns string) (*outcome.Set, error) {
	n := topology.Names{NS: ns}
	s := outcome.New()
	for _, tp := range []struct {
		topic string
		add   func([]byte) error
	}{{n.CLS(), s.AddOutput}, {n.Outbound(), s.AddOutput}, {n.Exceptions(), s.AddException}} {
		_, err := Dump(ctx, conn, tp.topic, func(r *kgo.Record) error {
			if err := tp.add(r.Value); err != nil {
				return fmt.Errorf("%s partition %d offset %d: %w", r.Topic, r.Partition, r.Offset, err)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}
