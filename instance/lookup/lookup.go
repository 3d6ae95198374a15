// Package lookup is the one way to read a trade as the utility holds it
// now: the console's Trades pages and the participant gateway both use its
// Client. A trade lives in the match table of the instance that owns its
// partition, so the client routes each question there: the partition from
// the trade key, its owner from the match consumer group as the brokers
// describe it (not from what an instance says of itself), and the owner's
// lookup listener from the instance registry — an entry believed only when
// it names a group member and the address is the host that member connects
// from. Every request carries the utility's lookup token; the answers are
// read with no redirects followed and a bounded size, and checked against
// the routing (the instance that answered, the partition of every trade).
//
// The wire types and paths below are the instance side's too
// (instance/trades.go serves them on its lookup listener).
package lookup

import (
	"errors"
	"net/http"

	"github.com/ste-utility/ste/processors/matching"
)

// Paths and parameters of an instance's lookup listener.
const (
	// PathTrade + trade key: one trade (404 when not held, or when party
	// is given and is not one of its parties).
	PathTrade = "/trades/"
	// PathRef ?ref=R[&date=D][&party=P][&limit=N]: the trades of a
	// TradeRef, ordered by trade key, filtered before the limit.
	PathRef = "/trades"
	// TokenPurpose is the purpose of the bearer token every lookup request
	// carries (trust.Secret.Token).
	TokenPurpose = "lookup"
	// MaxLimit bounds a TradeRef answer.
	MaxLimit = 1000
	// MaxAnswer bounds the bytes of an answer read (a trade's view with
	// every message is a few KiB).
	MaxAnswer = 16 << 20
)

// Hit is a trade found, with the instance that answered for it.
type Hit struct {
	Instance  string
	Partition int32
	Trade     matching.View
}

// Errors of the client.
var (
	// ErrNoOwner: no trusted instance owns the partition now (none runs
	// the match group, a rebalance is under way, or its registry entry
	// did not pass the checks).
	ErrNoOwner = errors.New("lookup: no instance owns the trade's partition now")
	// ErrRecovering: the owner is still recovering its table.
	ErrRecovering = errors.New("lookup: the owner is still recovering its table")
	// ErrAnswer: an owner's answer did not fit the routing (another
	// instance answered, a trade of another partition) or the protocol.
	ErrAnswer = errors.New("lookup: an answer that does not fit")
)

// Authorize sets the lookup token on an outgoing request.
func Authorize(req *http.Request, token string) {
	req.Header.Set("Authorization", "Bearer "+token)
}

// BearerToken returns the token of an Authorization header ("" when none).
func BearerToken(req *http.Request) string {
	const p = "Bearer "
	h := req.Header.Get("Authorization")
	if len(h) <= len(p) || h[:len(p)] != p {
		return ""
	}
	return h[len(p):]
}
