package gateway

import (
	"errors"
	"log/slog"

	"github.com/ste-utility/ste/instance/lookup"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/trust"
)

// newInstanceLookup is the lookup the console uses too (instance/lookup):
// a trade key asked of the instance that owns its partition (as the match
// group says, cross-checked with the registry), a TradeRef through each
// owner's index, filtered by party before any limit; every request with
// the utility's lookup token.
func newInstanceLookup(conn kafkaconn.Config, ns, token string, secret *trust.Secret, log *slog.Logger) (*lookup.Client, error) {
	if token == "" {
		return nil, errors.New("gateway: trade lookups need the utility's lookup token (its shared secret)")
	}
	return lookup.New(lookup.Options{Kafka: conn, Namespace: ns, Token: token, Secret: secret, Logger: log})
}
