package lookup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/ste-utility/ste/instance/api"
	"github.com/ste-utility/ste/instance/registry"
	"github.com/ste-utility/ste/kafkaconn"
	"github.com/ste-utility/ste/processors/matching"
	"github.com/ste-utility/ste/schemas"
	"github.com/ste-utility/ste/topics"
	"github.com/ste-utility/ste/trust"
)

// Options configure a Client. Kafka, Namespace and Token are required.
type Options struct {
	Kafka     kafkaconn.Config
	Namespace string
	// Token is the utility's lookup token (trust.Secret.Token(TokenPurpose)).
	Token string
	// Timeout bounds one request to an instance (default 10 s).
	Timeout time.Duration
	// Refresh is how long a routing is used before it is read again
	// (default 2 s): a question that finds it older is answered with it
	// while it is read again in the background, and one that finds it
	// older than Stale (default 5×Refresh) waits for it to be read. An
	// owner that no longer owns the partition asked reads it again at once.
	Refresh time.Duration
	// Stale: see Refresh.
	Stale time.Duration
	// AnyHost skips the check that a lookup address is on the host its
	// instance connects to Kafka from (for networks where the brokers see
	// another address: a NAT between them). Off by default.
	AnyHost bool
	// Secret, when given, makes the registry believed only where its
	// records are proven (registry.ListProven).
	Secret *trust.Secret
	// Entries reads the registry (default registry.List, or ListProven
	// with Secret, with Kafka).
	Entries func(context.Context) ([]registry.Entry, error)
	// Route, when set, is the routing instead of the match group's and
	// the registry's (tests and benchmarks of the instances' answers:
	// NewRouting).
	Route  func(context.Context) (*Routing, error)
	Logger *slog.Logger
}

// Client routes trade lookups to the instances that own the trades.
type Client struct {
	o    Options
	cl   *kgo.Client
	adm  *kadm.Client
	http *http.Client

	mu         sync.Mutex
	routing    *Routing
	refreshing bool       // a background read of the routing is under way
	reading    sync.Mutex // held while the routing is read: one read at a time
}

// New makes a client (it dials the brokers lazily).
func New(o Options) (*Client, error) {
	switch {
	case len(o.Kafka.Brokers) == 0:
		return nil, errors.New("lookup: no brokers")
	case o.Namespace == "":
		return nil, errors.New("lookup: no namespace")
	case o.Token == "":
		return nil, errors.New("lookup: no lookup token (the utility's shared secret)")
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.Refresh <= 0 {
		o.Refresh = 2 * time.Second
	}
	if o.Stale < o.Refresh {
		o.Stale = 5 * o.Refresh
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Entries == nil {
		o.Entries = entriesOf(&o)
	}
	cl, err := topics.Client(o.Kafka)
	if err != nil {
		return nil, err
	}
	return &Client{o: o, cl: cl, adm: kadm.NewClient(cl), http: HTTPClient(o.Timeout)}, nil
}

// Close releases the client's connections.
func (c *Client) Close() { c.cl.Close() }

// Routing returns who answers for which partition: the one read less than
// Refresh ago, or a new one (fresh: always a new one). One read less than
// Stale ago is returned at once while a new one is read in the background:
// reading the registry and the match group takes a Kafka client of its own
// and some round trips (tens of ms on a loaded machine), which every
// question arriving meanwhile waited for, every 2 s — the work queue's
// slowest pages (docs/benchmarks.md, "The work queue").
func (c *Client) Routing(ctx context.Context, fresh bool) (*Routing, error) {
	c.mu.Lock()
	r := c.routing
	if !fresh && r != nil {
		age := time.Since(r.At)
		if age < c.o.Refresh {
			c.mu.Unlock()
			return r, nil
		}
		if age < c.o.Stale {
			if !c.refreshing {
				c.refreshing = true
				go c.refresh()
			}
			c.mu.Unlock()
			return r, nil
		}
	}
	c.mu.Unlock()
	return c.read(ctx, r)
}

// read reads the routing now, unless another read that began after prev
// was taken finished meanwhile (questions waiting together share a read).
func (c *Client) read(ctx context.Context, prev *Routing) (*Routing, error) {
	c.reading.Lock()
	defer c.reading.Unlock()
	c.mu.Lock()
	if r := c.routing; r != prev && r != nil && (prev == nil || r.At.After(prev.At)) {
		c.mu.Unlock()
		return r, nil
	}
	c.mu.Unlock()
	route := c.route
	if c.o.Route != nil {
		route = c.o.Route
	}
	r, err := route(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.routing = r
	c.mu.Unlock()
	return r, nil
}

// refresh reads the routing in the background (Routing).
func (c *Client) refresh() {
	defer func() {
		c.mu.Lock()
		c.refreshing = false
		c.mu.Unlock()
	}()
	c.mu.Lock()
	prev := c.routing
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), c.o.Timeout)
	defer cancel()
	if _, err := c.read(ctx, prev); err != nil {
		c.o.Logger.Warn("lookup: the routing was not read again", "err", err)
	}
}

// Find returns the trade of key from the instance that owns its
// partition; ok is false when it does not hold it, or when party is given
// and is not one of the trade's parties (the same answer, so that nobody
// learns of another's trade).
func (c *Client) Find(ctx context.Context, key schemas.TradeKey, party string) (h Hit, ok bool, err error) {
	fresh := false
	for attempt := 0; attempt < 2; attempt++ {
		r, err := c.Routing(ctx, fresh)
		if err != nil {
			return Hit{}, false, err
		}
		p := topics.PartitionOf(key.String(), r.Partitions)
		o, ok := r.Owner(p)
		if !ok {
			if attempt == 0 && !fresh {
				fresh = true
				continue
			}
			return Hit{}, false, fmt.Errorf("%w (partition %d; %s)", ErrNoOwner, p, strings.Join(r.Problems, "; "))
		}
		q := url.Values{}
		if party != "" {
			q.Set("party", party)
		}
		ans, found, err := c.ask(ctx, o, PathTrade+key.String(), q)
		if err != nil {
			return Hit{}, false, err
		}
		if !slices.Contains(ans.Owned, p) {
			// The partition moved since the routing was read.
			if !fresh {
				fresh = true
				continue
			}
			return Hit{}, false, fmt.Errorf("%w (partition %d is moving)", ErrNoOwner, p)
		}
		if !found {
			return Hit{}, false, nil
		}
		if len(ans.Trades) != 1 || ans.Trades[0].Partition != p || ans.Trades[0].Trade.TradeKey != key.String() {
			return Hit{}, false, fmt.Errorf("%w: instance %s answered for trade %s with other trades", ErrAnswer, o.ID, key)
		}
		f := ans.Trades[0]
		return Hit{Instance: ans.Instance, Partition: f.Partition, Trade: f.Trade}, true, nil
	}
	return Hit{}, false, ErrNoOwner
}

// Query is a search by TradeRef.
type Query struct {
	Ref   string
	Date  string // TradeDate, "" for any
	Party string // "" for any (operators)
	Limit int    // 0 or over MaxLimit: MaxLimit
}

// FindRef returns the trades of q from every owner, ordered by trade key,
// the party and date filters applied by the owners before the limit. An
// error says some partitions were not searched; the hits found are still
// returned.
func (c *Client) FindRef(ctx context.Context, q Query) ([]Hit, error) {
	if q.Limit <= 0 || q.Limit > MaxLimit {
		q.Limit = MaxLimit
	}
	r, err := c.Routing(ctx, false)
	if err != nil {
		return nil, err
	}
	v := url.Values{"ref": {q.Ref}, "limit": {strconv.Itoa(q.Limit)}}
	if q.Date != "" {
		v.Set("date", q.Date)
	}
	if q.Party != "" {
		v.Set("party", q.Party)
	}
	type res struct {
		hits []Hit
		err  error
	}
	out := make([]res, len(r.Owners))
	var wg sync.WaitGroup
	for i, o := range r.Owners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ans, _, err := c.ask(ctx, o, PathRef, v)
			if err != nil {
				out[i].err = err
				return
			}
			for _, p := range o.Partitions {
				if !slices.Contains(ans.Owned, p) {
					out[i].err = fmt.Errorf("%w (instance %s no longer owns partition %d)", ErrNoOwner, o.ID, p)
				}
			}
			for _, f := range ans.Trades {
				// A trade is believed from the owner of its partition only.
				if !slices.Contains(o.Partitions, f.Partition) || topics.PartitionOf(f.Trade.TradeKey, r.Partitions) != f.Partition {
					out[i].err = fmt.Errorf("%w: instance %s answered with a trade of partition %d", ErrAnswer, o.ID, f.Partition)
					continue
				}
				out[i].hits = append(out[i].hits, Hit{Instance: ans.Instance, Partition: f.Partition, Trade: f.Trade})
			}
		}()
	}
	wg.Wait()
	var hits []Hit
	var errs []error
	for _, x := range out {
		hits = append(hits, x.hits...)
		if x.err != nil {
			errs = append(errs, x.err)
		}
	}
	for _, p := range r.Problems {
		if strings.HasPrefix(p, "no trusted owner") {
			errs = append(errs, fmt.Errorf("%w: %s", ErrNoOwner, p))
		}
	}
	slices.SortFunc(hits, func(a, b Hit) int { return strings.Compare(a.Trade.TradeKey, b.Trade.TradeKey) })
	if len(hits) > q.Limit {
		hits = hits[:q.Limit]
	}
	return hits, errors.Join(errs...)
}

// Trade is the gateway's question (gateway.md §4): the trade of key as
// party may see it. ok is false — the same for all three — when the key is
// malformed, when the utility does not hold it, and when party is not one
// of its parties. An error means the trade could not be asked about (no
// owner, an owner that does not answer).
func (c *Client) Trade(ctx context.Context, key, party string) (matching.View, bool, error) {
	k, ok := schemas.ParseTradeKey(key)
	if !ok || party == "" {
		return matching.View{}, false, nil
	}
	h, ok, err := c.Find(ctx, k, party)
	if err != nil || !ok {
		return matching.View{}, false, err
	}
	return h.Trade, true, nil
}

// ByRef is the gateway's question by reference (gateway.md §4): every
// trade with TradeRef ref (and TradeDate date, when given) that party is a
// party to, ordered by trade key (at most MaxLimit). An error means some
// partitions could not be searched; nothing is returned then, since a
// partial answer would look complete.
func (c *Client) ByRef(ctx context.Context, ref, date, party string) ([]matching.View, error) {
	if ref == "" || party == "" {
		return []matching.View{}, nil
	}
	hits, err := c.FindRef(ctx, Query{Ref: ref, Date: date, Party: party})
	if err != nil {
		return nil, err
	}
	out := make([]matching.View, 0, len(hits))
	for _, h := range hits {
		out = append(out, h.Trade)
	}
	return out, nil
}

// ask sends one lookup to an owner: found is false for its 404.
func (c *Client) ask(ctx context.Context, o Owner, path string, q url.Values) (api.TradeAnswer, bool, error) {
	var ans api.TradeAnswer
	u := url.URL{Scheme: "http", Host: o.Addr, Path: path, RawQuery: q.Encode()}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return ans, false, err
	}
	Authorize(req, c.o.Token)
	resp, err := c.http.Do(req)
	if err != nil {
		return ans, false, fmt.Errorf("instance %s: %w", o.ID, err)
	}
	defer drained(resp.Body)
	switch resp.StatusCode {
	case http.StatusOK, http.StatusNotFound:
	case http.StatusServiceUnavailable:
		return ans, false, fmt.Errorf("instance %s: %w", o.ID, ErrRecovering)
	default:
		return ans, false, fmt.Errorf("instance %s: %s", o.ID, resp.Status)
	}
	if err := json.NewDecoder(Capped(resp.Body, MaxAnswer)).Decode(&ans); err != nil {
		return ans, false, fmt.Errorf("instance %s: %w: %v", o.ID, ErrAnswer, err)
	}
	if ans.Instance != o.ID {
		return ans, false, fmt.Errorf("%w: the lookup listener of instance %s answered as %q", ErrAnswer, o.ID, short(ans.Instance))
	}
	return ans, resp.StatusCode == http.StatusOK, nil
}

// Get asks owner o for path?q on its lookup listener and decodes a 200
// answer into into (for answers other than trades: the at-risk list). The
// answer's "instance" must be o's id.
func (c *Client) Get(ctx context.Context, o Owner, path string, q url.Values, into any) error {
	u := url.URL{Scheme: "http", Host: o.Addr, Path: path, RawQuery: q.Encode()}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	Authorize(req, c.o.Token)
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("instance %s: %w", o.ID, err)
	}
	defer drained(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("instance %s: %s", o.ID, resp.Status)
	}
	body, err := io.ReadAll(Capped(resp.Body, MaxAnswer))
	if err != nil {
		return fmt.Errorf("instance %s: %w", o.ID, err)
	}
	var who struct {
		Instance string `json:"instance"`
	}
	if err := json.Unmarshal(body, &who); err != nil || who.Instance != o.ID {
		return fmt.Errorf("%w: the lookup listener of instance %s answered as %q", ErrAnswer, o.ID, short(who.Instance))
	}
	return json.Unmarshal(body, into)
}
