package registry

import (
	"context"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/trust"
)

// Registry entries are control records (docs/operations.md, "Proof on
// control records"): an instance proves each announcement and tombstone
// with the utility's shared secret, and readers that hold it believe only
// proven entries — a forged one would point the console and the gateway at
// an address of the forger's choosing.

// Prove makes the announcer prove its records with secret; it returns a.
func (a *Announcer) Prove(secret *trust.Secret) *Announcer {
	a.secret = secret
	return a
}

// ListProven is List believing only the records secret proves: an entry
// without proof is skipped (and counted, topics.Unproven), and neither
// lists a forged instance nor hides or removes a genuine one.
func ListProven(ctx context.Context, c kafkaconn.Config, ns string, secret *trust.Secret) ([]Entry, error) {
	return list(ctx, c, ns, func(r *kgo.Record) bool { return topics.Proven(secret, r) })
}
