package console

import (
	"github.com/ste-utility/ste/instance/lookup"
)

// newTradeLookup is the lookup client shared with the gateway
// (instance/lookup): the Trades and At-risk pages ask the owners of the
// match partitions through it, with the utility's lookup token.
func newTradeLookup(o Options) (*lookup.Client, error) {
	return lookup.New(lookup.Options{Kafka: o.Kafka, Namespace: o.Namespace, Token: o.Secret.Token(lookup.TokenPurpose),
		Secret: o.Secret, Logger: o.Logger})
}
