package console

import (
	"context"
	"errors"
	"net/url"

	"github.com/ste-utility/ste/instance/lookup"
	"github.com/ste-utility/ste/schemas"
)

// tradeLookup is what the Trades pages ask: the lookup client shared with
// the gateway (instance/lookup), or, without the utility's secret, a stand-in
// that says why nothing can be looked up.
type tradeLookup interface {
	Find(ctx context.Context, key schemas.TradeKey, party string) (lookup.Hit, bool, error)
	FindRef(ctx context.Context, q lookup.Query) ([]lookup.Hit, error)
	Routing(ctx context.Context, fresh bool) (*lookup.Routing, error)
	Get(ctx context.Context, o lookup.Owner, path string, q url.Values, into any) error
	Close()
}

func newTradeLookup(o Options) (tradeLookup, error) {
	if o.Secret == nil {
		return noLookup{}, nil
	}
	return lookup.New(lookup.Options{Kafka: o.Kafka, Namespace: o.Namespace, Token: o.Secret.Token(lookup.TokenPurpose), Logger: o.Logger})
}

var errNoSecret = errors.New("trade lookups need the utility's shared secret (the console was started without it)")

type noLookup struct{}

func (noLookup) Find(context.Context, schemas.TradeKey, string) (lookup.Hit, bool, error) {
	return lookup.Hit{}, false, errNoSecret
}
func (noLookup) FindRef(context.Context, lookup.Query) ([]lookup.Hit, error)      { return nil, errNoSecret }
func (noLookup) Routing(context.Context, bool) (*lookup.Routing, error)           { return nil, errNoSecret }
func (noLookup) Get(context.Context, lookup.Owner, string, url.Values, any) error { return errNoSecret }
func (noLookup) Close()                                                           {}
