package topics

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/schemas/refdata"
	"github.com/ste-utility/ste/topology"
)

// DeliveryTopic is <ns>.out.<BIC>, the records of <ns>.outbound for one
// participant when per-participant delivery is on (docs/spec/messages.md section 1).
func DeliveryTopic(ns, bic string) string { return topology.Names{NS: ns}.Delivery(bic) }

// DeliveryGroup is the consumer group that copies <ns>.outbound to the
// participants' topics.
func DeliveryGroup(ns string) string { return topology.Names{NS: ns}.DeliveryGroup() }

// DeliverySpec is the spec of one participant's topic: configured as
// <ns>.outbound (retention, sizes, min.insync.replicas) with one partition,
// since every record in it has the same key and a participant reads it in
// order.
func DeliverySpec(ns, bic string, o Options) Spec {
	o.defaults()
	out := topology.Names{NS: ns}.Outbound()
	for _, s := range Specs(ns, o) {
		if s.Name == out {
			s.Name, s.Partitions, s.Keyed = DeliveryTopic(ns, bic), 1, false
			return s
		}
	}
	panic("topics: no spec for " + out)
}

// DeliveryBICs are the participants that get a topic: every one in set but
// the utility itself (it receives nothing on outbound).
func DeliveryBICs(set *refdata.Set) []string {
	var out []string
	for _, p := range set.Participants() {
		if !p.Roles.Has(refdata.RoleUtility) {
			out = append(out, p.BIC)
		}
	}
	return out
}

// CreateDelivery creates the <ns>.out.<BIC> topics of bics that do not exist
// (idempotent) and returns those it created.
func CreateDelivery(ctx context.Context, adm *kadm.Client, ns string, bics []string, o Options) ([]string, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Replication == 0 {
		rf, err := Replication(ctx, adm)
		if err != nil {
			return nil, err
		}
		o.Replication = rf
	}
	o.defaults()
	specs := make([]Spec, 0, len(bics))
	for _, b := range bics {
		if !refdata.ValidBIC(b) {
			return nil, fmt.Errorf("per-participant topic for %q: not a BIC", b)
		}
		specs = append(specs, DeliverySpec(ns, b, o))
	}
	return createSpecs(ctx, adm, ns, o, specs)
}

// ReadRefdata reads <ns>.refdata to its end, once.
func ReadRefdata(ctx context.Context, c kafkaconn.Config, ns string) (*refdata.Set, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var set *refdata.Set
	err := FollowRefdata(ctx, c, ns, func(s *refdata.Set) { set = s; cancel() }, func(*refdata.Set) {}, nil)
	if set == nil {
		if err == nil {
			err = ctx.Err()
		}
		return nil, err
	}
	return set, nil
}

// CreateDeliveryForRefdata creates the <ns>.out.<BIC> topic of every
// participant in the reference data on <ns>.refdata (ste topics create
// --deliver-per-participant); it refuses an empty topic, which would create
// none.
func CreateDeliveryForRefdata(ctx context.Context, c kafkaconn.Config, adm *kadm.Client, ns string, o Options) (created []string, all int, err error) {
	set, err := ReadRefdata(ctx, c, ns)
	if err != nil {
		return nil, 0, err
	}
	bics := DeliveryBICs(set)
	if len(bics) == 0 {
		return nil, 0, fmt.Errorf("reference data topic %s holds no participant: load it first (ste refdata load), then create their topics", topology.Names{NS: ns}.Refdata())
	}
	created, err = CreateDelivery(ctx, adm, ns, bics, o)
	return created, len(bics), err
}
